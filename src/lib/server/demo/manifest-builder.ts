// ProjectSpec → manifest.json (v12), shaped like a dbt-core 1.10 `dbt build` writes it: every
// node compiled, keys in dbt's order, the fields the official JSON schema allows and no others.
import { createHash } from 'node:crypto';
import { Compiler } from './compile';
import { fileContent } from './project-files';
import {
	folderConfigsFor,
	inheritedTags,
	relationName,
	type ColumnSpec,
	type ExecutableSpec,
	type ModelSpec,
	type ProjectSpec,
	type RelationSpec,
	type SeedSpec,
	type SnapshotSpec,
	type SourceSpec,
	type TestSpec
} from './spec';

export const MANIFEST_SCHEMA = 'https://schemas.getdbt.com/dbt/manifest/v12.json';

type Json = Record<string, unknown>;

export interface BuildContext {
	spec: ProjectSpec;
	compiler: Compiler;
	invocationId: string;
	/** When parsing ended (manifest generated_at), epoch ms. */
	generatedAt: number;
}

export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const md5 = (s: string) => createHash('md5').update(s).digest('hex');

export function isoUtc(ms: number, micros = 0): string {
	const d = new Date(ms);
	return `${d.toISOString().slice(0, 19)}.${String((ms % 1000) * 1000 + micros).padStart(6, '0')}Z`;
}

const DOCS = () => ({ show: true, node_color: null });
const CONTRACT = () => ({ enforced: false, alias_types: true, checksum: null });

function columnsJson(columns: ColumnSpec[]): Json {
	const out: Json = {};
	for (const c of columns) {
		if (c.description === undefined) continue;
		out[c.name] = {
			name: c.name,
			description: c.description,
			meta: {},
			data_type: c.declaredType ?? null,
			constraints: [],
			quote: null,
			config: { meta: {}, tags: c.tags ?? [] },
			tags: c.tags ?? [],
			granularity: null,
			doc_blocks: []
		};
	}
	return out;
}

function unrenderedConfig(spec: ProjectSpec, node: ExecutableSpec): Json {
	const out: Json = {};
	for (const f of folderConfigsFor(spec, node)) {
		if (f.config.materialized) out.materialized = f.config.materialized;
		if (f.config.schema) out.schema = f.config.schema;
		if (f.config.tags) out.tags = f.config.tags;
	}
	const inherited = inheritedTags(spec, node);
	const own = node.tags.filter((t) => !inherited.includes(t));
	if (own.length > 0) out.tags = [...((out.tags as string[]) ?? []), ...own];
	if (node.resourceType !== 'seed') Object.assign(out, node.configCall);
	return out;
}

/** The `+schema` a node gets from its folders, or null (dbt's generate_schema_name appends it to the target schema). */
function customSchema(spec: ProjectSpec, node: ExecutableSpec): string | null {
	let schema: string | null = null;
	for (const f of folderConfigsFor(spec, node)) if (f.config.schema) schema = f.config.schema;
	return schema;
}

function baseConfig(spec: ProjectSpec, node: ExecutableSpec, materialized: string): Json {
	return {
		enabled: true,
		alias: null,
		schema: customSchema(spec, node),
		database: null,
		tags: node.tags,
		meta: node.meta,
		group: null,
		materialized,
		incremental_strategy: node.resourceType === 'model' ? node.incrementalStrategy : null,
		batch_size: null,
		lookback: 1,
		begin: null,
		persist_docs: {},
		'post-hook': [],
		'pre-hook': [],
		quoting: {},
		column_types: {},
		full_refresh: null,
		unique_key: node.resourceType === 'model' ? node.uniqueKey : node.resourceType === 'snapshot' ? node.uniqueKey : null,
		on_schema_change: node.resourceType === 'model' ? node.onSchemaChange : 'ignore',
		on_configuration_change: 'apply',
		grants: {},
		packages: [],
		docs: DOCS(),
		contract: { enforced: false, alias_types: true },
		event_time: null,
		concurrent_batches: null
	};
}

/** Path of a node's file relative to its resource folder (`staging/stg_orders.sql`). */
function resourcePath(filePath: string): string {
	return filePath.slice(filePath.indexOf('/') + 1);
}

function fqnOf(node: { packageName: string; filePath: string; name: string }): string[] {
	const dirs = resourcePath(node.filePath).split('/').slice(0, -1);
	return [node.packageName, ...dirs, node.name];
}

class ManifestBuilder {
	private createdAt: number;
	private primaryKeys = new Map<string, string[]>();
	private relations = new Map<string, RelationSpec>();

	constructor(private ctx: BuildContext) {
		this.createdAt = ctx.generatedAt / 1000 - 8;
		for (const s of ctx.spec.sources) this.relations.set(s.uniqueId, s);
		for (const n of ctx.spec.nodes) if (n.resourceType !== 'test') this.relations.set(n.uniqueId, n);
		// dbt derives primary_key from a column that is both unique and not_null tested.
		const tested = new Map<string, Set<string>>();
		for (const n of ctx.spec.nodes) {
			if (n.resourceType !== 'test' || !n.attachedNode || !n.columnName) continue;
			if (n.testName !== 'unique' && n.testName !== 'not_null') continue;
			const key = `${n.attachedNode}\u0000${n.columnName}`;
			const s = tested.get(key) ?? new Set<string>();
			s.add(n.testName);
			tested.set(key, s);
		}
		for (const [key, kinds] of tested) {
			if (kinds.size < 2) continue;
			const [id, col] = key.split('\u0000');
			this.primaryKeys.set(id, [...(this.primaryKeys.get(id) ?? []), col]);
		}
	}

	private nextCreatedAt(): number {
		this.createdAt += 0.0017;
		return Math.round(this.createdAt * 1e6) / 1e6;
	}

	private refsJson(parents: string[]): { refs: Json[]; sources: [string, string][] } {
		const refs: Json[] = [];
		const sources: [string, string][] = [];
		for (const p of parents) {
			const r = this.relations.get(p);
			if (!r) throw new Error(`depends_on names an unknown node: ${p}`);
			if (r.resourceType === 'source') sources.push([r.sourceName, r.name]);
			else refs.push({ name: r.name, package: null, version: null });
		}
		return { refs, sources };
	}

	private compiledFields(node: ModelSpec | SnapshotSpec, compiledPath: string | null) {
		const c = this.ctx.compiler.compile(node);
		return {
			compiled_path: compiledPath,
			compiled: true,
			compiled_code: c.code,
			extra_ctes_injected: true,
			extra_ctes: c.extraCtes
		};
	}

	model(node: ModelSpec): Json {
		const pkg = node.packageName;
		const ephemeral = node.materialized === 'ephemeral';
		const { refs, sources } = this.refsJson(node.parents);
		const content = fileContent(node);
		return {
			database: node.database,
			schema: node.schema,
			name: node.name,
			resource_type: 'model',
			package_name: pkg,
			path: resourcePath(node.filePath),
			original_file_path: node.filePath,
			unique_id: node.uniqueId,
			fqn: fqnOf(node),
			alias: node.alias,
			checksum: { name: 'sha256', checksum: sha256(content) },
			config: { ...baseConfig(this.ctx.spec, node, node.materialized), access: 'protected', freshness: null },
			tags: node.tags,
			description: node.description,
			columns: columnsJson(node.columns),
			meta: node.meta,
			group: null,
			docs: DOCS(),
			patch_path: node.ymlPath ? `${pkg}://${node.ymlPath}` : null,
			build_path: ephemeral ? null : `target/run/${pkg}/${node.filePath}`,
			unrendered_config: unrenderedConfig(this.ctx.spec, node),
			created_at: this.nextCreatedAt(),
			relation_name: relationName(node),
			raw_code: node.rawCode,
			doc_blocks: [],
			language: 'sql',
			refs,
			sources,
			metrics: [],
			depends_on: { macros: node.materialized === 'incremental' ? ['macro.dbt.is_incremental'] : [], nodes: node.parents },
			...this.compiledFields(node, `target/compiled/${pkg}/${node.filePath}`),
			contract: CONTRACT(),
			access: 'protected',
			constraints: [],
			version: null,
			latest_version: null,
			deprecation_date: null,
			primary_key: this.primaryKeys.get(node.uniqueId) ?? [],
			time_spine: null
		};
	}

	seed(node: SeedSpec): Json {
		const pkg = node.packageName;
		return {
			database: node.database,
			schema: node.schema,
			name: node.name,
			resource_type: 'seed',
			package_name: pkg,
			path: resourcePath(node.filePath),
			original_file_path: node.filePath,
			unique_id: node.uniqueId,
			fqn: fqnOf(node),
			alias: node.alias,
			checksum: { name: 'sha256', checksum: sha256(node.csv) },
			config: { ...baseConfig(this.ctx.spec, node, 'seed'), delimiter: ',', quote_columns: null },
			tags: node.tags,
			description: node.description,
			columns: columnsJson(node.columns),
			meta: node.meta,
			group: null,
			docs: DOCS(),
			patch_path: node.ymlPath ? `${pkg}://${node.ymlPath}` : null,
			build_path: `target/run/${pkg}/${node.filePath}`,
			unrendered_config: unrenderedConfig(this.ctx.spec, node),
			created_at: this.nextCreatedAt(),
			relation_name: relationName(node),
			raw_code: '',
			doc_blocks: [],
			root_path: `/srv/dbt/${this.ctx.spec.name}`,
			depends_on: { macros: [] }
		};
	}

	snapshot(node: SnapshotSpec): Json {
		const pkg = node.packageName;
		const { refs, sources } = this.refsJson(node.parents);
		return {
			database: node.database,
			schema: node.schema,
			name: node.name,
			resource_type: 'snapshot',
			package_name: pkg,
			path: resourcePath(node.filePath),
			original_file_path: node.filePath,
			unique_id: node.uniqueId,
			fqn: [pkg, ...resourcePath(node.filePath).replace(/\.sql$/, '').split('/'), node.name],
			alias: node.alias,
			checksum: { name: 'sha256', checksum: sha256(fileContent(node)) },
			config: {
				...baseConfig(this.ctx.spec, node, 'snapshot'),
				strategy: node.strategy,
				target_schema: null,
				target_database: null,
				updated_at: node.updatedAt,
				check_cols: null,
				snapshot_meta_column_names: { dbt_valid_to: null, dbt_valid_from: null, dbt_scd_id: null, dbt_updated_at: null, dbt_is_deleted: null },
				dbt_valid_to_current: null
			},
			tags: node.tags,
			description: node.description,
			columns: columnsJson(node.columns),
			meta: node.meta,
			group: null,
			docs: DOCS(),
			patch_path: node.ymlPath ? `${pkg}://${node.ymlPath}` : null,
			build_path: `target/run/${pkg}/${node.filePath}`,
			unrendered_config: unrenderedConfig(this.ctx.spec, node),
			created_at: this.nextCreatedAt(),
			relation_name: relationName(node),
			raw_code: node.rawCode,
			doc_blocks: [],
			language: 'sql',
			refs,
			sources,
			metrics: [],
			depends_on: { macros: [], nodes: node.parents },
			...this.compiledFields(node, `target/compiled/${pkg}/${node.filePath}`),
			contract: CONTRACT()
		};
	}

	test(node: TestSpec): Json {
		const spec = this.ctx.spec;
		const pkg = node.packageName;
		const { refs, sources } = this.refsJson(node.parents);
		const generic = node.kind === 'generic';
		const target = node.targetId ? this.relations.get(node.targetId) : undefined;
		const compiledPath = generic
			? `target/compiled/${pkg}/${node.filePath}/${node.alias}.sql`
			: `target/compiled/${pkg}/${node.filePath}`;
		const compiledCode = generic ? this.genericTestSql(node, target!) : this.ctx.compiler.compile({ uniqueId: node.uniqueId, rawCode: node.rawCode ?? '' }).code;
		const rawCode = generic
			? `{{ ${node.namespace ? `${node.namespace}.` : ''}test_${node.testName}(**_dbt_generic_test_kwargs) }}${node.alias !== node.name ? `{{ config(alias="${node.alias}") }}` : ''}`
			: (node.rawCode ?? '');
		const dirs = generic ? node.filePath.split('/').slice(1, -1) : [];
		const unrendered: Json = { ...node.configCall };
		if (node.severity === 'warn') unrendered.severity = 'warn';
		if (node.alias !== node.name) unrendered.alias = node.alias;
		const out: Json = {
			database: spec.database,
			schema: `${spec.schema}_dbt_test__audit`,
			name: node.name,
			resource_type: 'test',
			package_name: pkg,
			path: generic ? `${node.alias}.sql` : resourcePath(node.filePath),
			original_file_path: node.filePath,
			unique_id: node.uniqueId,
			fqn: [pkg, ...dirs, node.name],
			alias: node.alias,
			checksum: generic ? { name: 'none', checksum: '' } : { name: 'sha256', checksum: sha256(node.rawCode ?? '') },
			config: {
				enabled: true,
				alias: node.alias !== node.name ? node.alias : null,
				schema: 'dbt_test__audit',
				database: null,
				tags: [],
				meta: {},
				group: null,
				materialized: 'test',
				severity: node.severity,
				store_failures: null,
				store_failures_as: null,
				where: null,
				limit: null,
				fail_calc: 'count(*)',
				warn_if: '!= 0',
				error_if: '!= 0'
			},
			tags: [],
			description: '',
			columns: {},
			meta: {},
			group: null,
			docs: DOCS(),
			patch_path: null,
			build_path: `target/run/${pkg}/${generic ? `${node.filePath}/${node.alias}.sql` : node.filePath}`,
			unrendered_config: unrendered,
			created_at: this.nextCreatedAt(),
			relation_name: null,
			raw_code: rawCode,
			doc_blocks: [],
			language: 'sql',
			refs,
			sources,
			metrics: [],
			depends_on: {
				macros: generic ? [`macro.${node.namespace ?? 'dbt'}.test_${node.testName}`, 'macro.dbt.get_where_subquery'] : [],
				nodes: node.parents
			},
			compiled_path: compiledPath,
			compiled: true,
			compiled_code: compiledCode,
			extra_ctes_injected: true,
			extra_ctes: [],
			contract: CONTRACT()
		};
		if (generic && target) {
			const subject = target.resourceType === 'source' ? `source('${target.sourceName}', '${target.name}')` : `ref('${target.name}')`;
			const kwargs: Json = {};
			if (node.columnName) kwargs.column_name = node.columnName;
			Object.assign(kwargs, node.arguments);
			kwargs.model = `{{ get_where_subquery(${subject}) }}`;
			out.column_name = node.columnName;
			out.file_key_name = target.resourceType === 'source' ? `sources.${target.sourceName}` : `${target.resourceType}s.${target.name}`;
			out.attached_node = node.attachedNode;
			out.test_metadata = { name: node.testName, kwargs, namespace: node.namespace };
		}
		return out;
	}

	private genericTestSql(node: TestSpec, target: RelationSpec): string {
		const rel = relationName(target) ?? '';
		const col = node.columnName ?? '';
		switch (node.testName) {
			case 'unique':
				return `\n    \n    \n\nselect\n    ${col} as unique_field,\n    count(*) as n_records\n\nfrom ${rel}\nwhere ${col} is not null\ngroup by ${col}\nhaving count(*) > 1\n\n\n`;
			case 'not_null':
				return `\n    \n    \n\n\n\nselect ${col}\nfrom ${rel}\nwhere ${col} is null\n\n\n`;
			case 'accepted_values': {
				const values = ((node.arguments.values as unknown[]) ?? []).map((v) => `'${String(v)}'`).join(',');
				return `\n    \n    \n\nwith all_values as (\n\n    select\n        ${col} as value_field,\n        count(*) as n_records\n\n    from ${rel}\n    group by ${col}\n\n)\n\nselect *\nfrom all_values\nwhere value_field not in (\n    ${values}\n)\n\n\n`;
			}
			case 'relationships': {
				const toName = /ref\('([^']+)'\)/.exec(String(node.arguments.to))?.[1] ?? '';
				const to = this.ctx.compiler.relationByName(toName);
				const toRel = to ? (relationName(to) ?? '') : '';
				const field = String(node.arguments.field);
				return `\n    \n    \n\nwith child as (\n    select ${col} as from_field\n    from ${rel}\n    where ${col} is not null\n),\n\nparent as (\n    select ${field} as to_field\n    from ${toRel}\n)\n\nselect\n    from_field\n\nfrom child\nleft join parent\n    on child.from_field = parent.to_field\n\nwhere parent.to_field is null\n\n\n`;
			}
			default:
				return `\n\nselect *\nfrom ${rel}\nwhere not (${col} is not null)\n\n`;
		}
	}

	source(node: SourceSpec): Json {
		const f = node.freshness;
		const freshness = {
			warn_after: { count: f?.warnAfter.count ?? null, period: f?.warnAfter.period ?? null },
			error_after: { count: f?.errorAfter.count ?? null, period: f?.errorAfter.period ?? null },
			filter: null
		};
		const dirs = resourcePath(node.ymlPath).split('/').slice(0, -1);
		const unrendered: Json = { loaded_at_field: node.loadedAtField, loaded_at_query: null, meta: {}, tags: [] };
		if (f) unrendered.freshness = { warn_after: f.warnAfter, error_after: f.errorAfter };
		return {
			database: node.database,
			schema: node.schema,
			name: node.name,
			resource_type: 'source',
			package_name: node.packageName,
			path: node.ymlPath,
			original_file_path: node.ymlPath,
			unique_id: node.uniqueId,
			fqn: [node.packageName, ...dirs, node.sourceName, node.name],
			source_name: node.sourceName,
			source_description: node.sourceDescription,
			loader: node.loader,
			identifier: node.alias,
			quoting: { database: null, schema: null, identifier: null, column: null },
			loaded_at_field: node.loadedAtField,
			loaded_at_query: null,
			freshness,
			external: null,
			description: node.description,
			columns: columnsJson(node.columns),
			meta: node.meta,
			source_meta: {},
			tags: node.tags,
			config: {
				enabled: true,
				event_time: null,
				freshness,
				loaded_at_field: node.loadedAtField,
				loaded_at_query: null,
				meta: node.meta,
				tags: node.tags
			},
			patch_path: null,
			unrendered_config: unrendered,
			relation_name: relationName(node),
			created_at: this.nextCreatedAt(),
			unrendered_database: null,
			unrendered_schema: node.schema,
			doc_blocks: []
		};
	}
}

export function buildManifest(ctx: BuildContext): Json {
	const { spec } = ctx;
	const b = new ManifestBuilder(ctx);
	const nodes: Json = {};
	for (const n of spec.nodes) {
		if (n.resourceType === 'model') nodes[n.uniqueId] = b.model(n);
		else if (n.resourceType === 'seed') nodes[n.uniqueId] = b.seed(n);
		else if (n.resourceType === 'snapshot') nodes[n.uniqueId] = b.snapshot(n);
		else nodes[n.uniqueId] = b.test(n);
	}
	const sources: Json = {};
	for (const s of spec.sources) sources[s.uniqueId] = b.source(s);

	const parentMap: Record<string, string[]> = {};
	const childMap: Record<string, string[]> = {};
	for (const s of spec.sources) {
		parentMap[s.uniqueId] = [];
		childMap[s.uniqueId] = [];
	}
	for (const n of spec.nodes) {
		parentMap[n.uniqueId] = n.resourceType === 'seed' ? [] : [...new Set(n.parents)].sort();
		childMap[n.uniqueId] = [];
	}
	for (const n of spec.nodes) for (const p of parentMap[n.uniqueId]) childMap[p].push(n.uniqueId);
	for (const k of Object.keys(childMap)) childMap[k].sort();

	return {
		metadata: {
			dbt_schema_version: MANIFEST_SCHEMA,
			dbt_version: spec.dbtVersion,
			generated_at: isoUtc(ctx.generatedAt, 412),
			invocation_id: ctx.invocationId,
			invocation_started_at: isoUtc(spec.startedAt, 3).replace('Z', '+00:00'),
			env: {},
			project_name: spec.name,
			project_id: md5(spec.name),
			user_id: null,
			send_anonymous_usage_stats: false,
			adapter_type: spec.adapter,
			quoting: { database: true, schema: true, identifier: true, column: null }
		},
		nodes,
		sources,
		macros: {},
		docs: {},
		exposures: {},
		metrics: {},
		groups: {},
		selectors: {},
		disabled: {},
		parent_map: parentMap,
		child_map: childMap,
		group_map: {},
		saved_queries: {},
		semantic_models: {},
		unit_tests: {}
	};
}
