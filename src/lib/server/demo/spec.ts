// The generator's intermediate description of a dbt project. The demo (hand-written) and the
// scaled generator both produce one of these; the artifact writers (manifest, run results, event
// log, index parquet, project files) only ever read it, so every artifact describes the same
// project.

export type LineageKind = 'copy' | 'mod' | 'scan';

export interface ColumnSpec {
	name: string;
	/** DuckDB spelling, as static analysis infers it. */
	type: string;
	/** Set when the column is declared in YAML (an empty string is a declared, undescribed column). */
	description?: string;
	/** YAML `data_type:` */
	declaredType?: string;
	tags?: string[];
	/** Declared in YAML but not produced by the SQL any more (stale docs): no column_index. */
	yamlOnly?: boolean;
}

export interface LineageEdge {
	fromId: string;
	fromColumn: string;
	toId: string;
	toColumn: string;
	kind: LineageKind;
}

interface RelationBase {
	uniqueId: string;
	name: string;
	packageName: string;
	database: string;
	schema: string;
	/** alias for nodes, identifier for sources */
	alias: string;
	description: string;
	columns: ColumnSpec[];
	tags: string[];
	meta: Record<string, unknown>;
}

export interface Freshness {
	warnAfter: { count: number; period: 'minute' | 'hour' | 'day' };
	errorAfter: { count: number; period: 'minute' | 'hour' | 'day' };
}

export interface SourceSpec extends RelationBase {
	resourceType: 'source';
	sourceName: string;
	sourceDescription: string;
	loader: string;
	/** The YAML file declaring it, relative to its package root. */
	ymlPath: string;
	loadedAtField: string | null;
	freshness: Freshness | null;
}

interface ExecutableBase extends RelationBase {
	/** Relative to the package root, e.g. `models/staging/stg_orders.sql`. */
	filePath: string;
	/** The YAML file documenting it (columns, tests), relative to the package root. */
	ymlPath: string | null;
	/** Rows the build writes (rows_affected); null for views. */
	rowCount: number | null;
}

export interface SeedSpec extends ExecutableBase {
	resourceType: 'seed';
	csv: string;
}

export interface ModelSpec extends ExecutableBase {
	resourceType: 'model';
	materialized: 'view' | 'table' | 'incremental' | 'ephemeral';
	incrementalStrategy: string | null;
	uniqueKey: string | null;
	onSchemaChange: string;
	rawCode: string;
	/** What the file's `{{ config(...) }}` sets (part of unrendered_config). */
	configCall: Record<string, unknown>;
	/** depends_on.nodes, in the order the SQL names them. */
	parents: string[];
}

export interface SnapshotSpec extends ExecutableBase {
	resourceType: 'snapshot';
	rawCode: string;
	strategy: 'timestamp' | 'check';
	uniqueKey: string;
	updatedAt: string | null;
	configCall: Record<string, unknown>;
	parents: string[];
}

export interface TestSpec {
	resourceType: 'test';
	uniqueId: string;
	name: string;
	alias: string;
	packageName: string;
	kind: 'generic' | 'singular';
	/** Generic test name (`unique`, `relationships`, ...). */
	testName: string | null;
	namespace: string | null;
	/** The test's own arguments as written in YAML (without `model` / `column_name`). */
	arguments: Record<string, unknown>;
	columnName: string | null;
	attachedNode: string | null;
	/** The node a generic test is declared on (model, seed, snapshot or source). */
	targetId: string | null;
	severity: 'ERROR' | 'warn';
	/** `models/marts/schema.yml` (generic) or `tests/x.sql` (singular), relative to the package root. */
	filePath: string;
	/** Singular tests only: the file's SQL. */
	rawCode: string | null;
	configCall: Record<string, unknown>;
	parents: string[];
	/** Failing rows when the build finds some (fail/warn); 0 otherwise. */
	failures: number;
}

export type RelationSpec = SourceSpec | SeedSpec | ModelSpec | SnapshotSpec;
export type ExecutableSpec = SeedSpec | ModelSpec | SnapshotSpec;
export type NodeSpec = ExecutableSpec | TestSpec;

/** dbt_project.yml folder config (`+materialized`, `+tags`, `+schema`) for a path prefix. */
export interface FolderConfig {
	packageName: string;
	resource: 'models' | 'seeds' | 'snapshots';
	/** Folder under the resource path, '' for the package root. */
	folder: string;
	config: { materialized?: string; tags?: string[]; schema?: string };
}

export interface LocalPackage {
	name: string;
	/** Directory in the project, e.g. `packages/stripe_source`. */
	dir: string;
}

/** What a node's execution produced in the simulated build. */
export type PlannedOutcome = 'ok' | 'error' | 'fail' | 'warn';

export interface ProjectSpec {
	mode: 'demo' | 'scaled';
	seed: number;
	name: string;
	database: string;
	/** Target schema (profiles.yml). */
	schema: string;
	adapter: 'duckdb';
	dbtVersion: string;
	profile: string;
	sources: SourceSpec[];
	/** Models, seeds, snapshots and tests, in manifest order. */
	nodes: NodeSpec[];
	lineage: LineageEdge[];
	folderConfigs: FolderConfig[];
	packages: LocalPackage[];
	/** Nodes whose build does not end ok (only when failures are asked for). */
	outcomes: Map<string, PlannedOutcome>;
	/** Build start, epoch milliseconds. */
	startedAt: number;
	threads: number;
	/** Files beside the nodes' own (macros), by path relative to the project root. */
	extraFiles?: Record<string, string>;
	/** dbt_project.yml's `on-run-start` hooks. */
	onRunStart?: string[];
}

export function isRelation(n: NodeSpec | SourceSpec): n is RelationSpec {
	return n.resourceType !== 'test';
}

/** `"demo"."analytics"."orders"`: how dbt-duckdb renders a relation; ephemerals have none. */
export function relationName(r: RelationSpec): string | null {
	if (r.resourceType === 'model' && r.materialized === 'ephemeral') return null;
	return `"${r.database}"."${r.schema}"."${r.alias}"`;
}

export function resourceOf(node: ExecutableSpec): FolderConfig['resource'] {
	return node.resourceType === 'model' ? 'models' : node.resourceType === 'seed' ? 'seeds' : 'snapshots';
}

/** dbt_project.yml folder configs that apply to a node, outermost first (later ones win). */
export function folderConfigsFor(spec: ProjectSpec, node: ExecutableSpec): FolderConfig[] {
	const resource = resourceOf(node);
	const rel = node.filePath.slice(resource.length + 1);
	return spec.folderConfigs
		.filter((f) => f.packageName === node.packageName && f.resource === resource && (f.folder === '' || rel.startsWith(`${f.folder}/`)))
		.sort((a, b) => a.folder.length - b.folder.length);
}

/** Tags a node gets from its folders; the rest of its tags come from its own YAML config. */
export function inheritedTags(spec: ProjectSpec, node: ExecutableSpec): string[] {
	return [...new Set(folderConfigsFor(spec, node).flatMap((f) => f.config.tags ?? []))];
}

export function isExecutable(n: NodeSpec): n is ExecutableSpec {
	return n.resourceType !== 'test';
}
