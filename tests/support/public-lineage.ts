// The public SQL-lineage suite (tests/public-lineage/README.md): cases converted from other
// projects' test suites, their inputs as dbt projects (manifest + catalog) and scripts, and the
// scoring of any tool's edges against their truth. Shared by the suite's test and the peers'
// benchmark, so both score the same way.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { SqlDialect } from '../../src/lib/lineage/sql-lineage/types';

export const SUITE_DIR = path.resolve('tests/public-lineage');

/** `[from table, from column, to table (null: the case's model), to column]`; a null from table is "cannot tell". */
export type TruthEdge = [string | null, string, string | null, string];

export interface UpstreamModel {
	name: string;
	sql: string;
	tables?: string[];
}

export interface SuiteCase {
	id: string;
	origin: { file: string; test: string; params?: Record<string, unknown> };
	/** As the source names it (`ansi` and `generic` are portable SQL). */
	dialect: string;
	form: 'model' | 'script';
	sql: string;
	/** Columns of the tables, in order, where the source's test gives them. */
	schema: Record<string, string[]>;
	upstream: UpstreamModel[];
	expected: TruthEdge[];
	/** Only these outputs are scored (`col` of the case's model, `table.col` otherwise); null: every one. */
	columns: string[] | null;
	/** Columns read only to filter, join or group (`[table, column]`), where the source asserts them. */
	scans?: [string, string][] | null;
	constructs: string[];
	case_sensitive?: boolean;
	/** The truth is end to end (sqllineage's): each input with no input of its own → each output nothing reads. */
	path_ends?: boolean;
	/** The model's own columns as a catalog lists them, where the source gives them. */
	model_columns?: string[] | null;
	tables?: string[];
}

export interface SuiteSource {
	name: string;
	/** Measured, but never looked at while tuning the engine. */
	heldOut: boolean;
	cases: SuiteCase[];
}

export const SOURCES = [
	{ name: 'sqllineage', heldOut: false },
	{ name: 'sqlglot', heldOut: false },
	{ name: 'colibri', heldOut: false },
	{ name: 'openlineage', heldOut: true }
] as const;

export function loadSuite(): SuiteSource[] {
	return SOURCES.map((s) => ({ ...s, cases: JSON.parse(readFileSync(path.join(SUITE_DIR, 'cases', `${s.name}.json`), 'utf8')).cases as SuiteCase[] }));
}

// ─── Dialects ─────────────────────────────────────────────────────────────────────────────

/** The seven warehouses the suite reports on, each with the engine dialect it runs as. */
export const TARGET_DIALECTS = ['snowflake', 'bigquery', 'databricks', 'redshift', 'postgres', 'duckdb', 'trino'] as const;
export type TargetDialect = (typeof TARGET_DIALECTS)[number];
export type DialectGroup = TargetDialect | 'other';

const PORTABLE = new Set(['ansi', 'generic']);

/** The engine's dialect of a source's dialect name (sqllineage's `sparksql`, …). */
export function engineDialect(d: string): SqlDialect {
	if (d === 'sparksql') return 'spark';
	if (PORTABLE.has(d)) return 'generic';
	return d as SqlDialect;
}

const GROUP: Record<string, DialectGroup> = {
	snowflake: 'snowflake',
	bigquery: 'bigquery',
	databricks: 'databricks',
	sparksql: 'databricks',
	spark: 'databricks',
	hive: 'databricks',
	redshift: 'redshift',
	postgres: 'postgres',
	duckdb: 'duckdb',
	trino: 'trino',
	athena: 'trino'
};

export interface CaseRun {
	c: SuiteCase;
	source: string;
	heldOut: boolean;
	/** The dialect it is read as, and the group it is reported under. */
	dialect: SqlDialect;
	group: DialectGroup;
}

/**
 * Every run of the suite: a case of one warehouse's dialect runs once, under that warehouse; a case
 * of portable SQL (sqllineage's `ansi`, sqlglot's default) runs once under each of the seven.
 */
export function suiteRuns(suite: SuiteSource[]): CaseRun[] {
	const runs: CaseRun[] = [];
	for (const s of suite)
		for (const c of s.cases) {
			if (PORTABLE.has(c.dialect)) for (const d of TARGET_DIALECTS) runs.push({ c, source: s.name, heldOut: s.heldOut, dialect: d, group: d });
			else runs.push({ c, source: s.name, heldOut: s.heldOut, dialect: engineDialect(c.dialect), group: GROUP[c.dialect] ?? 'other' });
		}
	return runs;
}

// ─── The inputs: dbt projects and scripts ─────────────────────────────────────────────────

/** A file-safe name of a case: its id's words, and a short hash of the id (two ids may share the words). */
export const slugOf = (id: string) => {
	let h = 0x811c9dc5;
	for (let k = 0; k < id.length; k++) h = Math.imul(h ^ id.charCodeAt(k), 0x01000193) >>> 0;
	const words = id
		.replace(/^[^:]+:/, '')
		.replace(/[^A-Za-z0-9]+/g, '_')
		.replace(/^_+|_+$/g, '')
		.toLowerCase()
		.slice(0, 80);
	return `${words}_${h.toString(16).padStart(8, '0').slice(0, 6)}`;
};

/** A project per source and dialect (portable SQL in `portable`). */
export const projectOf = (source: string, c: SuiteCase) => `${source}/${PORTABLE.has(c.dialect) ? 'portable' : c.dialect}`;
export const scriptOf = (source: string, c: SuiteCase) => `${source}/${slugOf(c.id)}.sql`;

const PROJECT = 'public_lineage';

/** Where a table of a case lives: its name's parts, the case's own database standing in where the name has none. */
function relationParts(slug: string, table: string): { database: string; schema: string; identifier: string } {
	const parts = table.split('.');
	if (parts.length >= 3) return { database: parts[parts.length - 3], schema: parts[parts.length - 2], identifier: parts[parts.length - 1] };
	if (parts.length === 2) return { database: slug, schema: parts[0], identifier: parts[1] };
	return { database: slug, schema: 'main', identifier: parts[0] };
}

const relationName = (r: { database: string; schema: string; identifier: string }) => `"${r.database}"."${r.schema}"."${r.identifier}"`;

/** The node of a case's table (`meta.case_table` holds the table's name as the case writes it). */
export const modelNode = (slug: string, name: string | null) => `model.${PROJECT}.${slug}${name === null ? '' : `__${name.replace(/[^A-Za-z0-9]+/g, '_')}`}`;

/**
 * The dbt project (manifest.json and catalog.json, in the shapes dbt writes) of some model-form
 * cases: each case is a model whose compiled SQL is the case's SQL, its `upstream` models are
 * models before it, and every table it reads is a source in a database of the case's own; the
 * catalog lists the columns the case's test gives, and nothing else.
 */
export function buildProject(cases: SuiteCase[], adapterType: string): { manifest: unknown; catalog: unknown } {
	const nodes: Record<string, unknown> = {};
	const sources: Record<string, unknown> = {};
	const catalogNodes: Record<string, unknown> = {};
	const catalogSources: Record<string, unknown> = {};
	const catalogEntry = (unique_id: string, r: { database: string; schema: string; identifier: string }, columns: string[]) => ({
		unique_id,
		metadata: { type: 'BASE TABLE', database: r.database, schema: r.schema, name: r.identifier },
		columns: Object.fromEntries(columns.map((name, k) => [name, { type: 'TEXT', index: k + 1, name }])),
		stats: {}
	});
	for (const c of cases) {
		const slug = slugOf(c.id);
		const upstreamNames = new Map(c.upstream.map((u) => [u.name.toLowerCase(), u]));
		const sourceOf = (table: string) => {
			const uid = `source.${PROJECT}.${slug}.${table.replace(/[^A-Za-z0-9]+/g, '_')}`;
			if (!sources[uid]) {
				const r = relationParts(slug, table);
				sources[uid] = {
					unique_id: uid,
					resource_type: 'source',
					package_name: PROJECT,
					source_name: slug,
					name: table.replace(/[^A-Za-z0-9]+/g, '_'),
					identifier: r.identifier,
					database: r.database,
					schema: r.schema,
					relation_name: relationName(r),
					columns: {},
					meta: { case_table: table }
				};
				const cols = c.schema[table];
				if (cols) catalogSources[uid] = catalogEntry(uid, r, cols);
			}
			return uid;
		};
		const models: { name: string | null; sql: string; tables: string[] }[] = [
			...c.upstream.map((u) => ({ name: u.name.toLowerCase(), sql: u.sql, tables: u.tables ?? [] })),
			{ name: null, sql: c.sql, tables: c.tables ?? [] }
		];
		for (const m of models) {
			const uid = modelNode(slug, m.name);
			const r = relationParts(slug, m.name ?? 'model');
			const dependsOn = m.tables.map((t) => (upstreamNames.has(t) ? modelNode(slug, t) : sourceOf(t)));
			nodes[uid] = {
				unique_id: uid,
				resource_type: 'model',
				package_name: PROJECT,
				name: `${slug}${m.name === null ? '' : `__${m.name.replace(/[^A-Za-z0-9]+/g, '_')}`}`,
				alias: r.identifier,
				database: r.database,
				schema: r.schema,
				relation_name: relationName(r),
				language: 'sql',
				config: { materialized: 'table' },
				depends_on: { nodes: dependsOn },
				raw_code: m.sql,
				compiled_code: m.sql,
				columns: {},
				meta: { case_id: c.id, case_table: m.name }
			};
			if (m.name === null && c.model_columns) catalogNodes[uid] = catalogEntry(uid, r, c.model_columns);
		}
	}
	const manifest = {
		metadata: { dbt_schema_version: 'https://schemas.getdbt.com/dbt/manifest/v12.json', dbt_version: '1.10.0', adapter_type: adapterType },
		nodes,
		sources,
		macros: {},
		exposures: {},
		metrics: {},
		groups: {},
		selectors: {},
		disabled: {},
		parent_map: {},
		child_map: {},
		semantic_models: {},
		unit_tests: {},
		saved_queries: {}
	};
	const catalog = { metadata: { dbt_schema_version: 'https://schemas.getdbt.com/dbt/catalog/v1.json', dbt_version: '1.10.0' }, nodes: catalogNodes, sources: catalogSources, errors: null };
	return { manifest, catalog };
}

/** The adapter a project of cases names (a portable project names none of the seven: its runs set the dialect). */
export const adapterOf = (dialect: string) => (PORTABLE.has(dialect) ? 'generic' : dialect === 'sparksql' ? 'spark' : dialect);

/** Every file of the suite's inputs, path (under tests/public-lineage/) → content. */
export function suiteFiles(suite: SuiteSource[]): Map<string, string> {
	const files = new Map<string, string>();
	for (const s of suite) {
		const byProject = new Map<string, SuiteCase[]>();
		for (const c of s.cases) {
			if (c.form === 'script') files.set(`scripts/${scriptOf(s.name, c)}`, c.sql.endsWith('\n') ? c.sql : `${c.sql}\n`);
			else {
				const p = projectOf(s.name, c);
				byProject.set(p, [...(byProject.get(p) ?? []), c]);
			}
		}
		for (const [p, cases] of byProject) {
			const { manifest, catalog } = buildProject(cases, adapterOf(cases[0].dialect));
			files.set(`projects/${p}/manifest.json`, `${JSON.stringify(manifest, null, 1)}\n`);
			files.set(`projects/${p}/catalog.json`, `${JSON.stringify(catalog, null, 1)}\n`);
		}
	}
	return files;
}

/** The suite's input files as they are on disk (for the check that they are what the cases give). */
export function filesOnDisk(): Map<string, string> {
	const out = new Map<string, string>();
	const walk = (rel: string) => {
		const dir = path.join(SUITE_DIR, rel);
		if (!existsSync(dir)) return;
		for (const e of readdirSync(dir, { withFileTypes: true })) {
			const r = `${rel}/${e.name}`;
			if (e.isDirectory()) walk(r);
			else out.set(r, readFileSync(path.join(SUITE_DIR, r), 'utf8'));
		}
	};
	walk('projects');
	walk('scripts');
	return out;
}

// ─── Scoring ──────────────────────────────────────────────────────────────────────────────

/** A tool's answer for one run: edges in the truth's terms (`[from table, from column, to table|null, to column]`). */
export type ToolEdge = [string, string, string | null, string];

export interface Tally {
	expected: number;
	found: number;
	matched: number;
}

export const emptyTally = (): Tally => ({ expected: 0, found: 0, matched: 0 });

export function addTally(a: Tally, b: Tally): Tally {
	return { expected: a.expected + b.expected, found: a.found + b.found, matched: a.matched + b.matched };
}

export function prf(t: Tally): { precision: number; recall: number; f1: number } {
	// Nothing expected and nothing found is a perfect answer (a case whose truth is "no input").
	const precision = t.found ? t.matched / t.found : 1;
	const recall = t.expected ? t.matched / t.expected : 1;
	return { precision, recall, f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0 };
}

export interface RunScore extends Tally {
	wrong: string[];
	missed: string[];
	/** Expected edges whose input table the truth itself cannot name: not scored. */
	unnamed: number;
}

/**
 * One run's answer against its case's truth: direct (copy/mod) edges only, compared by table and
 * column; names compare case-insensitively unless the case is about case (its names are exact).
 * A `columns` list limits both sides to the outputs the source's test asserts.
 */
export function scoreRun(c: SuiteCase, edges: ToolEdge[]): RunScore {
	const norm = (s: string) => (c.case_sensitive ? s : s.toLowerCase());
	const target = (table: string | null, col: string) => (table === null ? norm(col) : `${norm(table)}.${norm(col)}`);
	const asserted = c.columns ? new Set(c.columns.map((x) => norm(x))) : null;
	const inScope = (table: string | null, col: string) => !asserted || asserted.has(target(table, col));
	const key = (e: ToolEdge | TruthEdge) => `${norm(e[0] ?? '?')}.${norm(e[1])} → ${target(e[2], e[3])}`;
	const expected = new Set<string>();
	let unnamed = 0;
	for (const e of c.expected) {
		if (!inScope(e[2], e[3])) continue;
		if (e[0] === null) unnamed++;
		else expected.add(key(e));
	}
	const found = new Set((c.path_ends ? pathEnds(edges) : edges).filter((e) => inScope(e[2], e[3])).map(key));
	const matched = [...found].filter((k) => expected.has(k));
	return {
		expected: expected.size,
		found: found.size,
		matched: matched.length,
		wrong: [...found].filter((k) => !expected.has(k)),
		missed: [...expected].filter((k) => !found.has(k)),
		unnamed
	};
}

/**
 * A script's edges end to end: every column no edge feeds (but itself) to every column that feeds
 * no other (but itself), where one reaches the other: what sqllineage's tests compare.
 */
export function pathEnds(edges: ToolEdge[]): ToolEdge[] {
	const id = (t: string | null, c: string) => `${t ?? ''}\u0000${c}`;
	const parents = new Map<string, Set<string>>();
	const children = new Map<string, Set<string>>();
	const nodes = new Map<string, [string | null, string]>();
	for (const [ft, fc, tt, tc] of edges) {
		const a = id(ft, fc);
		const b = id(tt, tc);
		nodes.set(a, [ft, fc]);
		nodes.set(b, [tt, tc]);
		if (a === b) continue;
		(parents.get(b) ?? parents.set(b, new Set()).get(b)!).add(a);
		(children.get(a) ?? children.set(a, new Set()).get(a)!).add(b);
	}
	const selfLoops = new Set(edges.filter(([ft, fc, tt, tc]) => id(ft, fc) === id(tt, tc)).map(([ft, fc]) => id(ft, fc)));
	const out: ToolEdge[] = [];
	for (const [sink, [tt, tc]] of nodes) {
		if (children.get(sink)?.size) continue;
		const seen = new Set<string>();
		const stack = [...(parents.get(sink) ?? [])];
		while (stack.length) {
			const n = stack.pop()!;
			if (seen.has(n)) continue;
			seen.add(n);
			const ps = parents.get(n);
			if (ps?.size) stack.push(...ps);
			else out.push([nodes.get(n)![0] ?? '', nodes.get(n)![1], tt, tc]);
		}
		if (selfLoops.has(sink)) out.push([tt ?? '', tc, tt, tc]);
	}
	return out;
}

/** The scan truth of a run, where its source asserts one (dbt-colibri's filter parents). */
export function scoreScans(c: SuiteCase, scans: [string, string][]): Tally | null {
	if (!c.scans) return null;
	const k = (t: string, col: string) => `${t.toLowerCase()}.${col.toLowerCase()}`;
	const expected = new Set(c.scans.map(([t, col]) => k(t, col)));
	const found = new Set(scans.map(([t, col]) => k(t, col)));
	return { expected: expected.size, found: found.size, matched: [...found].filter((x) => expected.has(x)).length };
}
