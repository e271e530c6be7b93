// ProjectSpec → the files of a runnable-looking dbt project (what a user would commit): the SQL,
// the YAML that documents and tests it, seeds, dbt_project.yml and a DuckDB profile.
import { Document, isScalar, visit } from 'yaml';
import { inheritedTags, type FolderConfig, type NodeSpec, type ProjectSpec, type SnapshotSpec, type SourceSpec, type TestSpec } from './spec';

type Json = Record<string, unknown>;

/** The file on disk behind a node (a snapshot's SQL sits in a `{% snapshot %}` block). */
export function fileContent(node: Exclude<NodeSpec, TestSpec> | SnapshotSpec): string {
	if (node.resourceType === 'seed') return node.csv;
	if (node.resourceType === 'snapshot') return `{% snapshot ${node.name} %}\n${node.rawCode}{% endsnapshot %}\n`;
	return node.rawCode;
}

function toYaml(value: unknown): string {
	const doc = new Document(value);
	// Short lists of scalars read better inline, as people write them: tags: [finance, daily].
	visit(doc, {
		Seq(_, node) {
			if (node.items.length > 0 && node.items.length <= 8 && node.items.every((i) => isScalar(i))) node.flow = true;
		}
	});
	return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}

function testEntry(t: TestSpec): unknown {
	const name = t.namespace ? `${t.namespace}.${t.testName}` : (t.testName ?? '');
	const body: Json = {};
	if (Object.keys(t.arguments).length > 0) body.arguments = t.arguments;
	if (t.severity === 'warn') body.config = { severity: 'warn' };
	return Object.keys(body).length === 0 ? name : { [name]: body };
}

function folderTree(configs: FolderConfig[], resource: FolderConfig['resource'], pkg: string): Json | null {
	const mine = configs.filter((c) => c.resource === resource && c.packageName === pkg);
	if (mine.length === 0) return null;
	const root: Json = {};
	for (const c of mine) {
		let at = root;
		for (const part of c.folder ? c.folder.split('/') : []) at = (at[part] ??= {}) as Json;
		if (c.config.materialized) at['+materialized'] = c.config.materialized;
		if (c.config.schema) at['+schema'] = c.config.schema;
		if (c.config.tags) at['+tags'] = c.config.tags;
	}
	return root;
}

function dbtProjectYml(spec: ProjectSpec, pkg: string, isRoot: boolean): string {
	const doc: Json = {
		name: pkg,
		version: '1.0.0',
		'config-version': 2
	};
	if (isRoot) doc.profile = spec.profile;
	Object.assign(doc, {
		'model-paths': ['models'],
		'seed-paths': ['seeds'],
		'snapshot-paths': ['snapshots'],
		'test-paths': ['tests'],
		'macro-paths': ['macros']
	});
	if (isRoot && spec.onRunStart?.length) doc['on-run-start'] = spec.onRunStart;
	if (isRoot) doc['clean-targets'] = ['target', 'dbt_packages'];
	for (const resource of ['models', 'seeds', 'snapshots'] as const) {
		const tree = folderTree(spec.folderConfigs, resource, pkg);
		if (tree) doc[resource] = { [pkg]: tree };
	}
	return toYaml(doc);
}

interface YmlDoc {
	models: Json[];
	seeds: Json[];
	snapshots: Json[];
	sources: Map<string, Json>;
}

function columnEntries(columns: { name: string; description?: string; declaredType?: string; tags?: string[] }[], tests: TestSpec[]): Json[] {
	return columns
		.filter((c) => c.description !== undefined || tests.some((t) => t.columnName === c.name))
		.map((c) => {
			const e: Json = { name: c.name };
			if (c.description) e.description = c.description;
			if (c.declaredType) e.data_type = c.declaredType;
			if (c.tags && c.tags.length > 0) e.tags = c.tags;
			const mine = tests.filter((t) => t.columnName === c.name);
			if (mine.length > 0) e.data_tests = mine.map(testEntry);
			return e;
		});
}

export function projectFiles(spec: ProjectSpec): Map<string, string> {
	const files = new Map<string, string>();
	const dirOf = (pkg: string) => (pkg === spec.name ? '' : `${spec.packages.find((p) => p.name === pkg)?.dir ?? `packages/${pkg}`}/`);

	files.set('dbt_project.yml', dbtProjectYml(spec, spec.name, true));
	for (const p of spec.packages) files.set(`${p.dir}/dbt_project.yml`, dbtProjectYml(spec, p.name, false));
	if (spec.packages.length > 0) files.set('packages.yml', toYaml({ packages: spec.packages.map((p) => ({ local: p.dir })) }));
	files.set(
		'profiles.yml',
		toYaml({
			[spec.profile]: {
				target: 'dev',
				outputs: { dev: { type: 'duckdb', path: `${spec.database}.duckdb`, schema: spec.schema, threads: spec.threads } }
			}
		})
	);
	files.set('.gitignore', 'target/\ndbt_packages/\nlogs/\n*.duckdb\n*.duckdb.wal\n');
	for (const [file, text] of Object.entries(spec.extraFiles ?? {})) files.set(file, text);

	const testsByTarget = new Map<string, TestSpec[]>();
	for (const n of spec.nodes) {
		if (n.resourceType !== 'test') continue;
		if (n.kind === 'singular') {
			files.set(`${dirOf(n.packageName)}${n.filePath}`, n.rawCode ?? '');
			continue;
		}
		const list = testsByTarget.get(n.targetId ?? '') ?? [];
		list.push(n);
		testsByTarget.set(n.targetId ?? '', list);
	}

	const ymls = new Map<string, YmlDoc>();
	const ymlFor = (pkg: string, path: string) => {
		const key = `${dirOf(pkg)}${path}`;
		let doc = ymls.get(key);
		if (!doc) {
			doc = { models: [], seeds: [], snapshots: [], sources: new Map() };
			ymls.set(key, doc);
		}
		return doc;
	};

	for (const n of spec.nodes) {
		if (n.resourceType === 'test') continue;
		files.set(`${dirOf(n.packageName)}${n.filePath}`, fileContent(n));
		if (!n.ymlPath) continue;
		const tests = testsByTarget.get(n.uniqueId) ?? [];
		const entry: Json = { name: n.name };
		if (n.description) entry.description = n.description;
		const inherited = inheritedTags(spec, n);
		const tags = n.tags.filter((t) => !inherited.includes(t));
		const config: Json = {};
		if (tags.length > 0) config.tags = tags;
		if (Object.keys(n.meta).length > 0) config.meta = n.meta;
		if (Object.keys(config).length > 0) entry.config = config;
		const modelTests = tests.filter((t) => !t.columnName);
		if (modelTests.length > 0) entry.data_tests = modelTests.map(testEntry);
		const columns = columnEntries(n.columns, tests);
		if (columns.length > 0) entry.columns = columns;
		const doc = ymlFor(n.packageName, n.ymlPath);
		(n.resourceType === 'model' ? doc.models : n.resourceType === 'seed' ? doc.seeds : doc.snapshots).push(entry);
	}

	for (const s of spec.sources) {
		const doc = ymlFor(s.packageName, s.ymlPath);
		let src = doc.sources.get(s.sourceName);
		if (!src) {
			src = { name: s.sourceName, description: s.sourceDescription, database: s.database, schema: s.schema, loader: s.loader, tables: [] };
			doc.sources.set(s.sourceName, src);
		}
		(src.tables as Json[]).push(sourceTable(s, testsByTarget.get(s.uniqueId) ?? []));
	}

	for (const [path, doc] of ymls) {
		const out: Json = { version: 2 };
		if (doc.sources.size > 0) out.sources = [...doc.sources.values()];
		if (doc.models.length > 0) out.models = doc.models;
		if (doc.seeds.length > 0) out.seeds = doc.seeds;
		if (doc.snapshots.length > 0) out.snapshots = doc.snapshots;
		files.set(path, toYaml(out));
	}
	return new Map([...files.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function sourceTable(s: SourceSpec, tests: TestSpec[]): Json {
	const t: Json = { name: s.name };
	if (s.alias !== s.name) t.identifier = s.alias;
	if (s.description) t.description = s.description;
	if (s.loadedAtField) t.loaded_at_field = s.loadedAtField;
	if (s.freshness) {
		t.freshness = {
			warn_after: { count: s.freshness.warnAfter.count, period: s.freshness.warnAfter.period },
			error_after: { count: s.freshness.errorAfter.count, period: s.freshness.errorAfter.period }
		};
	}
	const columns = columnEntries(s.columns, tests);
	if (columns.length > 0) t.columns = columns;
	return t;
}
