// Every SQL statement of the lineage reads (DESIGN.md §6): asset usage in scope, the project
// versions a caller can see, stored graphs by key, and column lineage by component.
//
// Hash comparisons branch on NULL explicitly (`script_hash = $h` or `script_hash IS NULL`):
// a preview's NULL hash is never `=` anything, and `IS NOT DISTINCT FROM` would stop Postgres
// from using the indexes whose prefix the hash is.
import { PRODUCER_LANGUAGES } from '../../types/asset-graph';
import { sql, type SQL } from 'drizzle-orm';
import type { GraphNodeInput } from '../../lineage/asset-graph';
import type { Consumer } from '../../types/consumers';
import type { Database, Tx } from '../db';
import { toBigInt, toNumber } from '../db';
import { ZERO_UUID } from '../schema';
import type { GraphKey } from './graph';

/** Which script paths a read may touch, as data for SQL (decided by the gates in access/). */
export interface ScriptPathFilter {
	/** canReadPath: everything (admin), `f/<folder>/...` for these folders, and the caller's own `u/` prefix. */
	readable: { all: boolean; folders: string[]; userPrefix: string };
	/** A token's narrowing of `scripts:read`; null when it does not narrow. Prefixes end with `/`. */
	scope: { exact: string[]; prefixes: string[] } | null;
}

const textArray = (xs: readonly string[]) => sql`${sql.param([...xs])}::text[]`;

/**
 * The rows of `inner`, on PGlite as ONE json value parsed here: for thousands of rows its
 * per-row result decoding costs several times the query itself (bench/README.md has the
 * figures). On Postgres the same costs more than plain rows, so it reads rows there. Column names become keys; jsonb columns arrive as values, text[] as
 * arrays, so cast bigints to text in `inner` as the row reads do anyway. The inner ORDER BY
 * is kept (the answer is re-sorted where order matters).
 */
export async function jsonRows<T>(database: Database, inner: SQL, tx?: Tx): Promise<T[]> {
	if (database.kind !== 'pglite') return database.rows<T>(inner, tx);
	const [r] = await database.rows<{ j: string | null }>(sql`select json_agg(t)::text as j from (${inner}) t`, tx);
	return r?.j ? (JSON.parse(r.j) as T[]) : [];
}

/** The filter as a predicate over a path column. starts_with, never LIKE: `_` is a legal path character. */
export function pathAllowed(col: SQL, f: ScriptPathFilter): SQL {
	const readable = f.readable.all
		? sql`true`
		: sql`(starts_with(${col}, ${f.readable.userPrefix})
		       or (split_part(${col}, '/', 1) = 'f' and split_part(${col}, '/', 2) = any(${textArray(f.readable.folders)})))`;
	if (f.scope === null) return readable;
	return sql`(${readable} and (${col} = any(${textArray(f.scope.exact)})
		or exists (select 1 from unnest(${textArray(f.scope.prefixes)}) as pre(p)
		            where length(${col}) > length(pre.p) and starts_with(${col}, pre.p))))`;
}

const hashText = (h: bigint) => sql`${h.toString()}::bigint`;

/** The rows of one stored graph in table alias `t`: the two exact predicates of the partial unique indexes. */
export function keyOf(t: string, key: GraphKey): SQL {
	const a = sql.raw(t);
	return key.scriptHash === null
		? sql`${a}.workspace = ${key.workspace} and ${a}.job_id = ${key.jobId}::uuid and ${a}.script_hash is null`
		: sql`${a}.workspace = ${key.workspace} and ${a}.script_path = ${key.scriptPath}
		      and ${a}.script_hash = ${hashText(key.scriptHash)} and ${a}.job_id = ${key.jobId}::uuid`;
}

// ─── Column edges by id (drizzle/0006) ──────────────────────────────────────────────────────

/** The id of a key's graph (its marker row), as a scalar subquery: the column-edge tables are keyed by it. */
export function graphIdOf(key: GraphKey): SQL {
	return sql`(select g.id from dbt_graph_snapshot g where ${keyOf('g', key)})`;
}

/** The dictionary ids of these nodes' columns in one graph, through the dictionary's name index. */
export function columnIdsOf(graphId: SQL, uniqueIds: readonly string[]): SQL {
	return sql`array(select d.column_id from dbt_graph_column d where d.graph_id = ${graphId} and d.unique_id = any(${textArray(uniqueIds)}))`;
}

/**
 * Names both ends of the edge rows aliased `t` (with its graph_id, parent_col, child_col) as pu,
 * pc, cu, cc: one primary-key probe of the dictionary per end. A plain join lets the planner hash
 * the whole dictionary, every row of which has the same graph_id (bench/README.md "storage-designs").
 */
export function namedEnds(t: string): SQL {
	const a = sql.raw(t);
	return sql`cross join lateral (select d.unique_id as pu, d.column_name as pc from dbt_graph_column d
	                                where d.graph_id = ${a}.graph_id and d.column_id = ${a}.parent_col limit 1) pe
	           cross join lateral (select d.unique_id as cu, d.column_name as cc from dbt_graph_column d
	                                where d.graph_id = ${a}.graph_id and d.column_id = ${a}.child_col limit 1) ce`;
}

// ─── Asset usage ───────────────────────────────────────────────────────────────────────────

export interface UsageRow {
	scriptPath: string;
	assetKind: string;
	assetPath: string;
	access: string;
	/** The newest live version of the script, which the runnable node stands for. */
	scriptHash: bigint;
	language: string;
}

/** `f/<folder>/`, or null for every path. */
export type FolderScope = string | null;

function inScope(col: SQL, folderPrefix: FolderScope): SQL {
	return folderPrefix === null ? sql`true` : sql`starts_with(${col}, ${folderPrefix})`;
}

/**
 * The usage rows (which script reads/writes which asset) in scope that the caller may see, each
 * with its script's newest live version. Rows of a path with no live version are stale and left out.
 */
export async function visibleUsage(database: Database, ws: string, folderPrefix: FolderScope, f: ScriptPathFilter, tx?: Tx): Promise<UsageRow[]> {
	// The newest live version per path once (distinct on, the script_path_idx order), joined to
	// the usage rows: a lateral subquery per usage row is slow on PGlite, and
	// without `materialized` a planner without statistics re-runs the CTE per usage row.
	const rows = await jsonRows<{ script_path: string; asset_kind: string; asset_path: string; access: string; hash: unknown; language: string }>(
		database,
		sql`with live as materialized (
		      select distinct on (s.path) s.path, s.hash, s.language from script s
		       where s.workspace = ${ws} and not s.deleted and not s.archived and not s.pending and ${inScope(sql`s.path`, folderPrefix)}
		         and ${pathAllowed(sql`s.path`, { readable: f.readable, scope: null })}
		       order by s.path, s.created_at desc, s.hash desc
		    )
		    select a.script_path, a.asset_kind, a.asset_path, a.access, l.hash::text as hash, l.language
		      from asset_usage a
		      join asset_usage_current c on c.workspace = a.workspace and c.script_path = a.script_path and c.script_hash = a.script_hash
		      join live l on l.path = a.script_path
		     where a.workspace = ${ws} and ${inScope(sql`a.script_path`, folderPrefix)}
		     order by a.script_path, a.asset_kind, a.asset_path`,
		tx
	);
	return rows.map((r) => ({
		scriptPath: r.script_path,
		assetKind: r.asset_kind,
		assetPath: r.asset_path,
		access: r.access,
		scriptHash: toBigInt(r.hash),
		language: r.language
	}));
}

/**
 * How much of the scope the caller may NOT see, counted in SQL so no name leaves the database:
 * scripts with usage rows there, plus assets that only those scripts touch.
 */
export async function hiddenUsageCount(
	database: Database,
	ws: string,
	folderPrefix: FolderScope,
	f: ScriptPathFilter,
	kinds: readonly string[] | null,
	tx?: Tx
): Promise<number> {
	if (f.readable.all) return 0;
	const kindOk = kinds === null ? sql`true` : sql`a.asset_kind = any(${textArray(kinds)})`;
	const [r] = await database.rows<{ scripts: unknown; assets: unknown }>(
		sql`with u as (
		      select a.script_path, a.asset_kind, a.asset_path, ${pathAllowed(sql`a.script_path`, { readable: f.readable, scope: null })} as ok
		        from asset_usage a
		        join asset_usage_current c on c.workspace = a.workspace and c.script_path = a.script_path and c.script_hash = a.script_hash
		       where a.workspace = ${ws} and ${inScope(sql`a.script_path`, folderPrefix)} and ${kindOk}
		    )
		    select (select count(distinct script_path) from u where not ok) as scripts,
		           (select count(*) from (select 1 from u group by asset_kind, asset_path having not bool_or(ok)) x) as assets`,
		tx
	);
	return toNumber(r?.scripts) + toNumber(r?.assets);
}

/**
 * How many projects outside the folder, which the caller may not see, describe a relation the
 * answer draws (their description is withheld). Without a folder every such project already
 * counts in hiddenUsageCount, since a deployed project publishes usage rows for its relations.
 */
export async function hiddenDescriberCount(
	database: Database,
	ws: string,
	folderPrefix: string,
	assetPaths: readonly string[],
	f: ScriptPathFilter,
	tx?: Tx
): Promise<number> {
	if (f.readable.all || assetPaths.length === 0) return 0;
	const [r] = await database.rows<{ n: unknown }>(
		sql`with live as (
		      select distinct on (s.path) s.path, s.hash from script s
		       where s.workspace = ${ws} and s.language = 'dbt' and not s.deleted and not s.archived and not s.pending
		       order by s.path, s.created_at desc, s.hash desc
		    )
		    select count(*) as n from live l
		     where not ${pathAllowed(sql`l.path`, { readable: f.readable, scope: null })}
		       and not starts_with(l.path, ${folderPrefix})
		       and exists (select 1 from dbt_node n
		                    where n.workspace = ${ws} and n.script_path = l.path and n.script_hash = l.hash
		                      and n.job_id = ${ZERO_UUID}::uuid and n.asset_path = any(${textArray(assetPaths)}))`,
		tx
	);
	return toNumber(r?.n);
}

// ─── Versions ──────────────────────────────────────────────────────────────────────────────

export interface VersionRef {
	path: string;
	hash: bigint;
	language: string;
}

/** One version by hash (deleted ones are gone for readers), for a named `dbt_script_hash`. */
export async function findVersion(database: Database, ws: string, hash: bigint, tx?: Tx): Promise<VersionRef | null> {
	const [r] = await database.rows<{ path: string; hash: unknown; language: string }>(
		sql`select path, hash::text as hash, language from script
		     where workspace = ${ws} and hash = ${hashText(hash)} and not deleted`,
		tx
	);
	return r ? { path: r.path, hash: toBigInt(r.hash), language: r.language } : null;
}

/**
 * Per dbt script path the caller may see, the version to read: the newest live one, except the
 * path of `named`, which reads that version instead.
 */
function chosenVersionsCte(ws: string, f: ScriptPathFilter, named: VersionRef | null): SQL {
	const namedPath = named === null ? sql`null::text` : sql`${named.path}::text`;
	// The named version passes the same path filter as the live ones: its gate is access/'s
	// readableVersion, and this keeps a caller that forgot it from reading another folder's graph.
	const namedRow =
		named === null
			? sql``
			: sql`union all select ${named.path}::text, ${hashText(named.hash)} where ${pathAllowed(sql`${named.path}::text`, f)}`;
	return sql`chosen(path, hash) as (
		select path, hash from (
		  select distinct on (s.path) s.path, s.hash from script s
		   where s.workspace = ${ws} and s.language = 'dbt' and not s.deleted and not s.archived and not s.pending
		     and ${pathAllowed(sql`s.path`, f)}
		     and s.path is distinct from ${namedPath}
		   order by s.path, s.created_at desc, s.hash desc
		) live
		${namedRow}
	)`;
}

// ─── Graph rows ────────────────────────────────────────────────────────────────────────────

interface NodeDbRow {
	script_path: string;
	script_hash: unknown;
	unique_id: string;
	resource_type: string;
	name: string;
	asset_path: string | null;
	materialized: string | null;
	materialize_strategy: string | null;
	tags: string[] | null;
	description: string | null;
	test_kind: string | null;
	test_column: string | null;
	test_args: unknown;
	severity: string | null;
	attached_node: string | null;
	columns: Record<string, string> | null;
	column_schema: { name: string; type?: string }[] | null;
	freshness: unknown;
	raw_code: string | null;
	original_file_path: string | null;
}

/**
 * Which node fields a read selects. `full`: everything. `shape`: what a canvas draws — the shape
 * plus the two small authored fields cards are selected by (tags, file path); SQL, descriptions,
 * columns, typed columns, freshness and test arguments are not read at all (they are most of a
 * big project's bytes). The redaction still decides what is shown; this only decides what is read.
 */
export type NodeFields = 'full' | 'shape';

const SHAPE_COLUMNS = `n.script_path, n.script_hash::text as script_hash, n.unique_id, n.resource_type, n.name,
	n.asset_path, n.materialized, n.materialize_strategy, n.test_kind, n.test_column, n.severity, n.attached_node`;
const CARD_AUTHORED = ['tags', 'original_file_path'] as const;
const HEAVY_AUTHORED = ['description', 'test_args', 'columns', 'column_schema', 'freshness', 'raw_code'] as const;

/**
 * The select list of a node read. `authored` says, per row, whether the caller may be shown the
 * project's authored fields: `true`/`false` for a read of one known project, or an SQL predicate
 * (over `n.script_path`) when one statement reads several. Authored columns of a row that may
 * not be shown are never read (NULL in their place); the JS redaction stays the one decision.
 */
function nodeColumns(fields: NodeFields, authored: boolean | SQL): SQL {
	const wanted: readonly string[] = fields === 'full' ? [...CARD_AUTHORED, ...HEAVY_AUTHORED] : CARD_AUTHORED;
	const parts: SQL[] = [sql.raw(SHAPE_COLUMNS)];
	for (const c of [...CARD_AUTHORED, ...HEAVY_AUTHORED]) {
		const col = sql.raw(`n.${c}`);
		const as = sql.raw(c);
		if (!wanted.includes(c) || authored === false) parts.push(sql`null as ${as}`);
		else if (authored === true) parts.push(sql`${col} as ${as}`);
		else parts.push(sql`case when ${authored} then ${col} end as ${as}`);
	}
	return sql.join(parts, sql`, `);
}

/** What one read of a graph's nodes selects (see nodeColumns). */
export interface NodeRead {
	fields?: NodeFields;
	/** Whether the caller may see the project's authored fields (default true: the JS redaction decides). */
	authored?: boolean;
}

const toNode = (r: NodeDbRow): GraphNodeInput => ({
	uniqueId: r.unique_id,
	resourceType: r.resource_type,
	name: r.name,
	assetPath: r.asset_path,
	materialized: r.materialized,
	materializeStrategy: r.materialize_strategy,
	tags: r.tags ?? [],
	description: r.description,
	testKind: r.test_kind,
	testColumn: r.test_column,
	testArgs: r.test_args,
	severity: r.severity,
	attachedNode: r.attached_node,
	columns: r.columns,
	columnSchema: r.column_schema,
	freshness: r.freshness,
	rawCode: r.raw_code,
	originalFilePath: r.original_file_path
});

export interface LoadedGraph {
	key: GraphKey;
	nodes: GraphNodeInput[];
	edges: { parent: string; child: string }[];
	/** Exposures, semantic models, metrics, saved queries stored with the graph. */
	consumers: Consumer[];
}

/** The consumers stored on a graph's marker (none when the manifest had none). */
export async function consumersOf(database: Database, key: GraphKey, tx?: Tx): Promise<Consumer[]> {
	const rows = await jsonRows<{ c: Consumer[] | null }>(database, sql`select g.consumers as c from dbt_graph_snapshot g where ${keyOf('g', key)}`, tx);
	return rows[0]?.c ?? [];
}

/** Every node and `ref()` edge of one stored graph (a pinned read shows its whole project). */
export async function loadGraph(database: Database, key: GraphKey, read: NodeRead = {}, tx?: Tx): Promise<LoadedGraph> {
	const cols = nodeColumns(read.fields ?? 'full', read.authored ?? true);
	const nodes = await jsonRows<NodeDbRow>(database, sql`select ${cols} from dbt_node n where ${keyOf('n', key)} order by n.unique_id`, tx);
	const edges = await jsonRows<{ p: string; c: string }>(
		database,
		sql`select e.parent_unique_id as p, e.child_unique_id as c from dbt_edge e where ${keyOf('e', key)}
		     order by e.parent_unique_id, e.child_unique_id`,
		tx
	);
	return { key, nodes: nodes.map(toNode), edges: edges.map((e) => ({ parent: e.p, child: e.c })), consumers: await consumersOf(database, key, tx) };
}

/** How describeAssets reads nodes: which fields, and the authored gate as a path filter for SQL. */
export interface DescribeRead {
	fields?: NodeFields;
	/** Path access AND `scripts:read` scope: rows of other projects are read without authored fields. Absent: read them. */
	authored?: ScriptPathFilter;
}

/**
 * What the version graphs the caller may see say about `assetPaths`: per project version, the
 * nodes of those relations (found by asset path, `dbt_node_asset_idx`), the tests attached to
 * them, and the `ref()` edges between them. A project's other relations are not read.
 */
export async function describeAssets(
	database: Database,
	ws: string,
	assetPaths: readonly string[],
	f: ScriptPathFilter,
	named: VersionRef | null,
	read: DescribeRead = {},
	tx?: Tx
): Promise<LoadedGraph[]> {
	if (assetPaths.length === 0) return [];
	const fields = read.fields ?? 'full';
	const cols = nodeColumns(fields, read.authored ? pathAllowed(sql`n.script_path`, read.authored) : true);
	const relations = await jsonRows<NodeDbRow>(
		database,
		sql`with ${chosenVersionsCte(ws, f, named)}
		    select ${cols} from dbt_node n
		      join chosen c on n.script_path = c.path and n.script_hash = c.hash
		     where n.workspace = ${ws} and n.asset_path = any(${textArray(assetPaths)}) and n.job_id = ${ZERO_UUID}::uuid
		     order by n.script_path, n.unique_id`,
		tx
	);
	const byKey = new Map<string, NodeDbRow[]>();
	for (const r of relations) {
		const k = `${r.script_path}\u0000${String(r.script_hash)}`;
		const list = byKey.get(k);
		if (list) list.push(r);
		else byKey.set(k, [r]);
	}
	const out: LoadedGraph[] = [];
	for (const rows of byKey.values()) {
		const key: GraphKey = { workspace: ws, scriptPath: rows[0].script_path, scriptHash: toBigInt(rows[0].script_hash), jobId: ZERO_UUID };
		const uids = rows.map((r) => r.unique_id);
		// Joined to the id list rather than `= any(array)`: with thousands of ids the array is
		// scanned per row, the join hashes it once.
		const tests = await jsonRows<NodeDbRow>(
			database,
			sql`select ${cols} from dbt_node n
			      join unnest(${textArray(uids)}) as u(id) on n.attached_node = u.id
			     where ${keyOf('n', key)}
			     order by n.unique_id`,
			tx
		);
		const edges = await jsonRows<{ p: string; c: string }>(
			database,
			sql`select e.parent_unique_id as p, e.child_unique_id as c from dbt_edge e
			      join unnest(${textArray(uids)}) as pu(id) on e.parent_unique_id = pu.id
			      join unnest(${textArray(uids)}) as cu(id) on e.child_unique_id = cu.id
			     where ${keyOf('e', key)}
			     order by e.parent_unique_id, e.child_unique_id`,
			tx
		);
		out.push({ key, nodes: [...rows, ...tests].map(toNode), edges: edges.map((e) => ({ parent: e.p, child: e.c })), consumers: await consumersOf(database, key, tx) });
	}
	return out;
}

// ─── Producer lineage ──────────────────────────────────────────────────────────────────────

export interface ProducerLineageRow {
	scriptPath: string;
	outputAssetKind: string;
	outputAssetPath: string;
	outputColumn: string;
	inputAssetKind: string;
	inputAssetPath: string;
	inputColumn: string;
	source: string;
	lineageKind: string | null;
}

/** The column lineage of these producer versions (the runnables' `column_lineage`). */
export async function producerLineage(database: Database, ws: string, versions: readonly { path: string; hash: bigint }[], tx?: Tx): Promise<ProducerLineageRow[]> {
	if (versions.length === 0) return [];
	const rows = await database.rows<Record<string, string>>(
		sql`select p.script_path, p.output_asset_kind, p.output_asset_path, p.output_column,
		           p.input_asset_kind, p.input_asset_path, p.input_column, p.source, p.lineage_kind
		      from producer_column_lineage p
		      join unnest(${textArray(versions.map((v) => v.path))}, ${sql.param(versions.map((v) => v.hash.toString()))}::bigint[]) as v(path, hash)
		        on p.script_path = v.path and p.script_hash = v.hash
		     where p.workspace = ${ws}
		     order by p.script_path, p.output_asset_kind, p.output_asset_path, p.output_column,
		              p.input_asset_kind, p.input_asset_path, p.input_column, p.source`,
		tx
	);
	return rows.map((r) => ({
		scriptPath: r.script_path,
		outputAssetKind: r.output_asset_kind,
		outputAssetPath: r.output_asset_path,
		outputColumn: r.output_column,
		inputAssetKind: r.input_asset_kind,
		inputAssetPath: r.input_asset_path,
		inputColumn: r.input_column,
		source: r.source,
		lineageKind: r.lineage_kind ?? null
	}));
}

// ─── Pinning a job ─────────────────────────────────────────────────────────────────────────

export interface PinnedGraph {
	key: GraphKey;
	/** The job stored this graph itself (a run snapshot or a preview), rather than reading its version's. */
	own: boolean;
	ingestedAt: Date;
	/**
	 * The stored graph's identity: its marker row's id (a new identity on every replace), digest
	 * and time. Equal versions mean the same rows: what a cached answer is keyed by.
	 */
	version: string;
}

async function markerOf(database: Database, key: GraphKey, tx?: Tx): Promise<{ at: Date; version: string } | null> {
	const [r] = await database.rows<{ at: string | Date; id: unknown; digest: string; at_text: string }>(
		sql`select g.ingested_at as at, g.id::text as id, g.digest, g.ingested_at::text as at_text from dbt_graph_snapshot g where ${keyOf('g', key)}`,
		tx
	);
	return r ? { at: new Date(r.at), version: `${String(r.id)}/${r.digest}/${r.at_text}` } : null;
}

/**
 * The graph a job reads, from the JOB's own path and hash: its own stored graph when the marker
 * exists (even an empty graph: the marker, not the rows, says it exists), else its version's,
 * else null (nothing left to pin to).
 */
export async function pinnedGraphOf(
	database: Database,
	job: { workspace: string; id: string; scriptPath: string | null; scriptHash: bigint | null },
	tx?: Tx
): Promise<PinnedGraph | null> {
	if (job.scriptPath === null) return null;
	const own: GraphKey = { workspace: job.workspace, scriptPath: job.scriptPath, scriptHash: job.scriptHash, jobId: job.id };
	const ownAt = await markerOf(database, own, tx);
	if (ownAt) return { key: own, own: true, ingestedAt: ownAt.at, version: ownAt.version };
	if (job.scriptHash === null) return null;
	const version: GraphKey = { ...own, jobId: ZERO_UUID };
	const versionAt = await markerOf(database, version, tx);
	return versionAt ? { key: version, own: false, ingestedAt: versionAt.at, version: versionAt.version } : null;
}

/**
 * Which relations each test of one graph tests: a generic test's attached node, else (a singular
 * test) the nodes it reads through `ref()`/`source()`, its parents in the graph's ref edges.
 */
export async function testOwnersOf(database: Database, key: GraphKey, tx?: Tx): Promise<Map<string, string[]>> {
	const rows = await database.rows<{ t: string; o: string }>(
		sql`select t.unique_id as t, t.attached_node as o from dbt_node t
		     where ${keyOf('t', key)} and t.resource_type = 'test' and t.attached_node is not null
		    union all
		    select e.child_unique_id, e.parent_unique_id from dbt_edge e
		      join dbt_node t on ${keyOf('t', key)} and t.unique_id = e.child_unique_id and t.resource_type = 'test' and t.attached_node is null
		     where ${keyOf('e', key)}`,
		tx
	);
	const out = new Map<string, string[]>();
	for (const r of rows) {
		const list = out.get(r.t);
		if (list) list.push(r.o);
		else out.set(r.t, [r.o]);
	}
	return out;
}

// ─── Column lineage ────────────────────────────────────────────────────────────────────────

export interface LineageOwner {
	key: GraphKey;
	/** The asked relations' unique_ids in this graph. */
	uniqueIds: string[];
	/** The graph's marker version when it was read with the owners (lineageCandidatesSql): a cached component read's key. */
	version?: string | null;
}

/**
 * Which version graphs own the asked relations, for a caller whose filter (path access AND
 * `scripts:read` scope) is applied here, once per project: a project the caller may not read
 * is never read at all. With `named`, only that version answers.
 */
export function lineageOwnersSql(ws: string, assetPaths: readonly string[], f: ScriptPathFilter, named: VersionRef | null): SQL {
	const onlyNamed = named === null ? sql`true` : sql`c.path = ${named.path} and c.hash = ${hashText(named.hash)}`;
	return sql`with ${chosenVersionsCte(ws, f, named)}
		select n.script_path, n.script_hash::text as script_hash, array_agg(distinct n.unique_id order by n.unique_id) as uids
		  from dbt_node n
		  join chosen c on n.script_path = c.path and n.script_hash = c.hash
		 where n.workspace = ${ws} and n.asset_path = any(${textArray(assetPaths)}) and n.job_id = ${ZERO_UUID}::uuid
		   and ${onlyNamed}
		 group by n.script_path, n.script_hash
		 order by n.script_path`;
}

export async function lineageOwners(
	database: Database,
	ws: string,
	assetPaths: readonly string[],
	f: ScriptPathFilter,
	named: VersionRef | null,
	tx?: Tx
): Promise<LineageOwner[]> {
	const rows = await database.rows<{ script_path: string; script_hash: unknown; uids: string[] }>(lineageOwnersSql(ws, assetPaths, f, named), tx);
	return rows.map((r) => ({
		key: { workspace: ws, scriptPath: r.script_path, scriptHash: toBigInt(r.script_hash), jobId: ZERO_UUID },
		uniqueIds: r.uids
	}));
}

/**
 * lineageOwnersSql over EVERY dbt path (each path's newest live version; the path filter only
 * decides which paths, never which version), as one json text value: the candidates read in the
 * caller's principal statement, which the gate then narrows (access/ readableLineageOwners).
 * Each carries its graph's marker version (graphMarkerVersion), what a cached read is keyed by.
 */
export function lineageCandidatesSql(ws: string, assetPaths: readonly string[]): SQL {
	const every: ScriptPathFilter = { readable: { all: true, folders: [], userPrefix: '' }, scope: null };
	return sql`(select coalesce(json_agg(json_build_object('script_path', o.script_path, 'script_hash', o.script_hash, 'uids', o.uids, 'version', ${markerVersion('g')})
	                                     order by o.script_path), '[]')::text
	              from (${lineageOwnersSql(ws, assetPaths, every, null)}) o
	              left join dbt_graph_snapshot g
	                on g.workspace = ${ws} and g.script_path = o.script_path and g.script_hash = o.script_hash::bigint and g.job_id = ${ZERO_UUID}::uuid)`;
}

/** lineageCandidatesSql's value as owners, in lineageOwners' order. */
export function parseLineageCandidates(ws: string, text: string): LineageOwner[] {
	const rows = JSON.parse(text) as { script_path: string; script_hash: string; uids: string[]; version: string | null }[];
	return rows.map((r) => ({
		key: { workspace: ws, scriptPath: r.script_path, scriptHash: toBigInt(r.script_hash), jobId: ZERO_UUID },
		uniqueIds: r.uids,
		version: r.version
	}));
}

/**
 * A stored graph's identity as one text: its marker's id (new on every replace), digest and
 * time (moved when inferred lineage replaces its column edges). Equal versions, same rows.
 */
const markerVersion = (t: string) => {
	const g = sql.raw(t);
	return sql`${g}.id::text || '/' || ${g}.digest || '/' || ${g}.ingested_at::text`;
};

/** The marker version of one stored graph (null when it is gone), as lineageCandidatesSql reads it. */
export async function graphMarkerVersion(database: Database, key: GraphKey, tx?: Tx): Promise<string | null> {
	const [r] = await database.rows<{ v: string | null }>(sql`select ${markerVersion('g')} as v from dbt_graph_snapshot g where ${keyOf('g', key)}`, tx);
	return r?.v ?? null;
}

/** The asked relations' unique_ids inside one (pinned) graph. */
export async function relationsIn(database: Database, key: GraphKey, assetPaths: readonly string[], tx?: Tx): Promise<string[]> {
	const rows = await database.rows<{ u: string }>(
		sql`select n.unique_id as u from dbt_node n where ${keyOf('n', key)} and n.asset_path = any(${textArray(assetPaths)}) order by 1`,
		tx
	);
	return rows.map((r) => r.u);
}

/** The component ids of the direct edges touching these relations (child and parent indexes). */
export function componentIdsSql(key: GraphKey, uniqueIds: readonly string[]): SQL {
	const g = graphIdOf(key);
	return sql`select distinct e.component as c from dbt_column_edge e
	            where e.graph_id = ${g} and e.component is not null
	              and (e.child_col = any(${columnIdsOf(g, uniqueIds)}) or e.parent_col = any(${columnIdsOf(g, uniqueIds)}))`;
}

/** Every direct edge of these components, through the component index: cost follows the component, not the project. */
export function componentEdgesSql(key: GraphKey, components: readonly number[]): SQL {
	return sql`select pe.pu, pe.pc, ce.cu, ce.cc, e.lineage_kind as k, e.provenance as pv
	             from dbt_column_edge e
	             ${namedEnds('e')}
	            where e.graph_id = ${graphIdOf(key)} and e.component is not null and e.component = any(${sql.param([...components])}::int[])
	              and e.lineage_kind in ('copy', 'mod')`;
}

export interface StoredColumnEdge {
	parentUniqueId: string;
	parentColumn: string;
	childUniqueId: string;
	childColumn: string;
	lineageKind: string;
	provenance: 'engine' | 'inferred';
	/** The direct component it belongs to, where the read returns it (componentEdges). */
	component?: number;
}

/**
 * The direct edges of the components the asked relations' columns sit in, each with the asset
 * paths of its two ends: one statement (the component ids through the child and parent indexes,
 * the edges through the component index, each end's node by its key), so a read pays one round
 * trip, not three.
 */
export function componentReadSql(key: GraphKey, uniqueIds: readonly string[]): SQL {
	// Materialized, and the nodes fetched by an id array: the planner cannot turn either lookup
	// into a scan of the project.
	return sql`with edge as materialized (
	             select pe.pu, pe.pc, ce.cu, ce.cc, e.lineage_kind as k, e.provenance as pv, e.component as cp
	               from dbt_column_edge e
	               ${namedEnds('e')}
	              where e.graph_id = ${graphIdOf(key)} and e.component is not null
	                and e.component = any(array(${componentIdsSql(key, uniqueIds)}))
	                and e.lineage_kind in ('copy', 'mod')),
	           node as materialized (
	             select n.unique_id as u, n.asset_path as p
	               from dbt_node n
	              where ${keyOf('n', key)} and n.unique_id = any(array(select pu from edge union select cu from edge)))
	           select edge.*, pn.p as pp, cn.p as ncp
	             from edge
	             left join node pn on pn.u = edge.pu
	             left join node cn on cn.u = edge.cu`;
}

/**
 * The direct column edges of the components the asked relations' columns sit in, and the asset
 * path of every relation they touch (null: a relation-less node). Never a recursive walk in SQL.
 */
export async function componentEdges(
	database: Database,
	key: GraphKey,
	uniqueIds: readonly string[],
	tx?: Tx
): Promise<{ edges: StoredColumnEdge[]; assetPathOf: Map<string, string | null> }> {
	if (uniqueIds.length === 0) return { edges: [], assetPathOf: new Map() };
	const rows = await database.rows<{ pu: string; pc: string; cu: string; cc: string; k: string; pv: 'engine' | 'inferred'; cp: unknown; pp: string | null; ncp: string | null }>(componentReadSql(key, uniqueIds), tx);
	const assetPathOf = new Map<string, string | null>();
	for (const r of rows) {
		assetPathOf.set(r.pu, r.pp);
		assetPathOf.set(r.cu, r.ncp);
	}
	return {
		edges: rows.map((r) => ({ parentUniqueId: r.pu, parentColumn: r.pc, childUniqueId: r.cu, childColumn: r.cc, lineageKind: r.k, provenance: r.pv, component: toNumber(r.cp) })),
		assetPathOf
	};
}

/** The asset path of each of these nodes of one graph (null for a relation-less one). */
export async function assetPathsOf(database: Database, key: GraphKey, ids: readonly string[], tx?: Tx): Promise<Map<string, string | null>> {
	if (ids.length === 0) return new Map();
	const rows = await database.rows<{ u: string; p: string | null }>(
		sql`select n.unique_id as u, n.asset_path as p from dbt_node n where ${keyOf('n', key)} and n.unique_id = any(${textArray(ids)})`,
		tx
	);
	return new Map(rows.map((r) => [r.u, r.p]));
}

// ─── Scan edges (the scan lens) ────────────────────────────────────────────────────────────

/**
 * The `scan` edges touching these relations (a column of theirs read by a JOIN, WHERE or GROUP
 * BY, or their columns reading one), at most `limit` in edge order. Stored with component NULL,
 * so they are looked up by end (the child index; the version unique index leads with the
 * parent), never through the component index the direct reads use.
 */
export async function scanEdgesOf(
	database: Database,
	key: GraphKey,
	uniqueIds: readonly string[],
	limit: number,
	tx?: Tx
): Promise<{ edges: StoredColumnEdge[]; assetPathOf: Map<string, string | null> }> {
	if (uniqueIds.length === 0 || limit <= 0) return { edges: [], assetPathOf: new Map() };
	const g = graphIdOf(key);
	const rows = await database.rows<{ pu: string; pc: string; cu: string; cc: string; pv: 'engine' | 'inferred' }>(
		sql`select pe.pu, pe.pc, ce.cu, ce.cc, s.pv from (
		      select e.graph_id, e.parent_col, e.child_col, e.provenance as pv
		        from dbt_column_edge e
		       where e.graph_id = ${g} and e.lineage_kind = 'scan' and e.child_col = any(${columnIdsOf(g, uniqueIds)})
		      union
		      select e.graph_id, e.parent_col, e.child_col, e.provenance
		        from dbt_column_edge e
		       where e.graph_id = ${g} and e.lineage_kind = 'scan' and e.parent_col = any(${columnIdsOf(g, uniqueIds)})
		    ) s
		    ${namedEnds('s')}
		    order by 1, 2, 3, 4
		    limit ${limit}`,
		tx
	);
	return {
		edges: rows.map((r) => ({ parentUniqueId: r.pu, parentColumn: r.pc, childUniqueId: r.cu, childColumn: r.cc, lineageKind: 'scan', provenance: r.pv })),
		assetPathOf: await assetPathsOf(database, key, [...new Set(rows.flatMap((r) => [r.pu, r.cu]))], tx)
	};
}

// ─── Column impact ─────────────────────────────────────────────────────────────────────────

const anyKey = (t: string, keys: readonly GraphKey[]) => sql.join(keys.map((k) => sql`(${keyOf(t, k)})`), sql` or `);

/**
 * The column lineage of every producer script the filter lets through (path access AND
 * `scripts:read`), each at its newest live version: the producer half of an impact walk, the
 * same rows the asset graph carries for a reader of the script.
 */
export async function readableProducerLineage(database: Database, ws: string, f: ScriptPathFilter, tx?: Tx): Promise<ProducerLineageRow[]> {
	const rows = await database.rows<Record<string, string | null>>(
		sql`with live as materialized (
		      select distinct on (s.path) s.path, s.hash from script s
		       where s.workspace = ${ws} and s.language = any(${sql.param([...PRODUCER_LANGUAGES])}::text[]) and not s.deleted and not s.archived and not s.pending and ${pathAllowed(sql`s.path`, f)}
		       order by s.path, s.created_at desc, s.hash desc
		    )
		    select p.script_path, p.output_asset_kind, p.output_asset_path, p.output_column,
		           p.input_asset_kind, p.input_asset_path, p.input_column, p.source, p.lineage_kind
		      from producer_column_lineage p
		      join live l on p.script_path = l.path and p.script_hash = l.hash
		     where p.workspace = ${ws}
		     order by p.script_path, p.output_asset_kind, p.output_asset_path, p.output_column,
		              p.input_asset_kind, p.input_asset_path, p.input_column, p.source`,
		tx
	);
	return rows.map((r) => ({
		scriptPath: r.script_path!,
		outputAssetKind: r.output_asset_kind!,
		outputAssetPath: r.output_asset_path!,
		outputColumn: r.output_column!,
		inputAssetKind: r.input_asset_kind!,
		inputAssetPath: r.input_asset_path!,
		inputColumn: r.input_column!,
		source: r.source!,
		lineageKind: r.lineage_kind ?? null
	}));
}

/**
 * Whether these graphs know `column` of the relation: its analyzed schema or declared columns
 * name it, or a stored column edge of any kind (a `scan` too) has it at either end (the graph's
 * column dictionary holds exactly the ends of its edges).
 */
export async function relationHasColumn(database: Database, keys: readonly GraphKey[], assetPath: string, column: string, tx?: Tx): Promise<boolean> {
	if (keys.length === 0) return false;
	const [r] = await database.rows<{ ok: boolean }>(
		sql`select exists (
		      select 1 from dbt_node n
		       where (${anyKey('n', keys)}) and n.asset_path = ${assetPath}
		         and (jsonb_path_exists(coalesce(n.column_schema, '[]'::jsonb), '$[*] ? (@.name == $c)', jsonb_build_object('c', ${column}::text))
		              or coalesce(n.columns, '{}'::jsonb) ? ${column}::text
		              or exists (select 1 from dbt_graph_snapshot g
		                           join dbt_graph_column d on d.graph_id = g.id
		                          where g.workspace = n.workspace and g.job_id = n.job_id and g.script_path = n.script_path
		                            and (g.script_hash = n.script_hash or (g.script_hash is null and n.script_hash is null))
		                            and d.unique_id = n.unique_id and d.column_name = ${column}))
		    ) as ok`,
		tx
	);
	return r?.ok === true || (r?.ok as unknown) === 't';
}

export interface RelationTestRow {
	assetPath: string;
	kind: string | null;
	column: string | null;
	severity: string | null;
}

/** The dbt tests attached to these relations in these graphs, de-duplicated, sorted. */
export async function relationTests(database: Database, keys: readonly GraphKey[], assetPaths: readonly string[], tx?: Tx): Promise<RelationTestRow[]> {
	if (keys.length === 0 || assetPaths.length === 0) return [];
	const rows = await database.rows<{ asset_path: string; test_kind: string | null; test_column: string | null; severity: string | null }>(
		sql`select distinct r.asset_path, t.test_kind, t.test_column, t.severity
		      from dbt_node r
		      join dbt_node t on t.workspace = r.workspace and t.job_id = r.job_id and t.script_path = r.script_path
		       and (t.script_hash = r.script_hash or (t.script_hash is null and r.script_hash is null)) and t.attached_node = r.unique_id and t.resource_type = 'test'
		     where (${anyKey('r', keys)}) and r.asset_path = any(${textArray(assetPaths)})
		     order by 1, 2, 3, 4`,
		tx
	);
	return rows.map((r) => ({ assetPath: r.asset_path, kind: r.test_kind, column: r.test_column, severity: r.severity }));
}

/** A dbt relation as one graph holds it: the graph, the node, its asset path. */
export interface RelationInGraph {
	key: GraphKey;
	uniqueId: string;
	assetPath: string;
}

/**
 * Every node with one of these asset paths in the version graphs the filter lets through (the
 * column-lineage gate, as lineageOwners applies it), each with its graph.
 */
export async function relationsInOwners(
	database: Database,
	ws: string,
	assetPaths: readonly string[],
	f: ScriptPathFilter,
	named: VersionRef | null,
	tx?: Tx
): Promise<RelationInGraph[]> {
	if (assetPaths.length === 0) return [];
	const onlyNamed = named === null ? sql`true` : sql`c.path = ${named.path} and c.hash = ${hashText(named.hash)}`;
	const rows = await database.rows<{ script_path: string; script_hash: unknown; unique_id: string; asset_path: string }>(
		sql`with ${chosenVersionsCte(ws, f, named)}
		    select n.script_path, n.script_hash::text as script_hash, n.unique_id, n.asset_path
		      from dbt_node n
		      join chosen c on n.script_path = c.path and n.script_hash = c.hash
		     where n.workspace = ${ws} and n.asset_path = any(${textArray(assetPaths)}) and n.job_id = ${ZERO_UUID}::uuid and ${onlyNamed}
		     order by n.script_path, n.unique_id`,
		tx
	);
	return rows.map((r) => ({
		key: { workspace: ws, scriptPath: r.script_path, scriptHash: toBigInt(r.script_hash), jobId: ZERO_UUID },
		uniqueId: r.unique_id,
		assetPath: r.asset_path
	}));
}

/** Every path: the filter of a read gated in process afterwards (each row names its script path). */
export const EVERY_PATH: ScriptPathFilter = { readable: { all: true, folders: [], userPrefix: '' }, scope: null };

/**
 * relationsInOwners over EVERY dbt path's newest live version, each row with its graph's marker
 * version (graphMarkerVersion): the lookup a cached walk keys by the lineage stamp and gates in
 * process, as column lineage's candidates are.
 */
export async function relationOwnersEvery(database: Database, ws: string, assetPaths: readonly string[], tx?: Tx): Promise<(RelationInGraph & { version: string | null })[]> {
	if (assetPaths.length === 0) return [];
	const rows = await database.rows<{ script_path: string; script_hash: unknown; unique_id: string; asset_path: string; v: string | null }>(
		sql`with ${chosenVersionsCte(ws, EVERY_PATH, null)}
		    select n.script_path, n.script_hash::text as script_hash, n.unique_id, n.asset_path, ${markerVersion('g')} as v
		      from dbt_node n
		      join chosen c on n.script_path = c.path and n.script_hash = c.hash
		      left join dbt_graph_snapshot g
		        on g.workspace = ${ws} and g.script_path = n.script_path and g.script_hash = n.script_hash and g.job_id = ${ZERO_UUID}::uuid
		     where n.workspace = ${ws} and n.asset_path = any(${textArray(assetPaths)}) and n.job_id = ${ZERO_UUID}::uuid
		     order by n.script_path, n.unique_id`,
		tx
	);
	return rows.map((r) => ({
		key: { workspace: ws, scriptPath: r.script_path, scriptHash: toBigInt(r.script_hash), jobId: ZERO_UUID },
		uniqueId: r.unique_id,
		assetPath: r.asset_path,
		version: r.v
	}));
}

/**
 * The stamp of what a column walk reads besides each graph's own rows (those are keyed by their
 * marker version): every script version row (which version of a path is live, producers
 * included), every version graph's marker (which graph describes which relation) and the
 * producers' column lineage (count and newest id). One statement; any deploy, delete, archive,
 * replace or inference run moves it. A scalar expression, so it can ride on another statement.
 */
export function lineageInputsStampSql(ws: string): SQL {
	return sql`((select md5(coalesce(string_agg(row(s.path, s.hash, s.language, s.deleted, s.archived, s.pending, s.created_at)::text, E'\\n' order by s.hash), ''))
	              from script s where s.workspace = ${ws})
	           || '.' || (select md5(coalesce(string_agg(row(g.id, g.script_path, g.script_hash, g.digest, g.ingested_at)::text, E'\\n' order by g.id), ''))
	              from dbt_graph_snapshot g where g.workspace = ${ws} and g.job_id = ${ZERO_UUID}::uuid)
	           || '.' || (select count(*)::text || '/' || coalesce(max(p.id), 0)::text
	              from producer_column_lineage p where p.workspace = ${ws}))`;
}

/** lineageInputsStampSql's value. */
export async function lineageInputsStamp(database: Database, ws: string, tx?: Tx): Promise<string> {
	const [r] = await database.rows<{ s: string }>(sql`select ${lineageInputsStampSql(ws)} as s`, tx);
	return r.s;
}

/** The nodes with these asset paths inside one (pinned) graph. */
export async function relationsInGraph(database: Database, key: GraphKey, assetPaths: readonly string[], tx?: Tx): Promise<RelationInGraph[]> {
	if (assetPaths.length === 0) return [];
	const rows = await database.rows<{ u: string; p: string }>(
		sql`select n.unique_id as u, n.asset_path as p from dbt_node n where ${keyOf('n', key)} and n.asset_path = any(${textArray(assetPaths)}) order by 1`,
		tx
	);
	return rows.map((r) => ({ key, uniqueId: r.u, assetPath: r.p }));
}

/** The direct components these (node, column) pairs sit in, in one graph: their dictionary ids, then the child index and the parent unique index. */
export async function columnComponents(database: Database, key: GraphKey, pairs: readonly { uniqueId: string; column: string }[], tx?: Tx): Promise<number[]> {
	if (pairs.length === 0) return [];
	const uids = textArray(pairs.map((p) => p.uniqueId));
	const cols = textArray(pairs.map((p) => p.column));
	const g = graphIdOf(key);
	const rows = await database.rows<{ c: unknown }>(
		sql`with asked(u, c) as (select * from unnest(${uids}, ${cols})),
		    ids as materialized (select d.column_id from dbt_graph_column d join asked a on d.unique_id = a.u and d.column_name = a.c where d.graph_id = ${g})
		    select e.component as c from dbt_column_edge e
		     where e.graph_id = ${g} and e.component is not null and e.child_col = any(array(select column_id from ids))
		    union
		    select e.component from dbt_column_edge e
		     where e.graph_id = ${g} and e.component is not null and e.parent_col = any(array(select column_id from ids))`,
		tx
	);
	return rows.map((r) => toNumber(r.c));
}

/** The direct edges of these components of one graph, and the asset path of every node they touch. */
export async function edgesOfComponents(
	database: Database,
	key: GraphKey,
	components: readonly number[],
	tx?: Tx
): Promise<{ edges: StoredColumnEdge[]; assetPathOf: Map<string, string | null> }> {
	if (components.length === 0) return { edges: [], assetPathOf: new Map() };
	const rows = await database.rows<{ pu: string; pc: string; cu: string; cc: string; k: string; pv: 'engine' | 'inferred' }>(componentEdgesSql(key, components), tx);
	return {
		edges: rows.map((r) => ({ parentUniqueId: r.pu, parentColumn: r.pc, childUniqueId: r.cu, childColumn: r.cc, lineageKind: r.k, provenance: r.pv })),
		assetPathOf: await assetPathsOf(database, key, [...new Set(rows.flatMap((r) => [r.pu, r.cu]))], tx)
	};
}

/** relationTests over the version graphs the filter lets through (relationsInOwners' gate), in one statement. */
export async function relationTestsInOwners(
	database: Database,
	ws: string,
	assetPaths: readonly string[],
	f: ScriptPathFilter,
	named: VersionRef | null,
	tx?: Tx
): Promise<RelationTestRow[]> {
	if (assetPaths.length === 0) return [];
	const onlyNamed = named === null ? sql`true` : sql`c.path = ${named.path} and c.hash = ${hashText(named.hash)}`;
	const rows = await database.rows<{ asset_path: string; test_kind: string | null; test_column: string | null; severity: string | null }>(
		sql`with ${chosenVersionsCte(ws, f, named)}
		    select distinct r.asset_path, t.test_kind, t.test_column, t.severity
		      from dbt_node r
		      join chosen c on r.script_path = c.path and r.script_hash = c.hash
		      join dbt_node t on t.workspace = r.workspace and t.job_id = r.job_id and t.script_path = r.script_path
		       and t.script_hash = r.script_hash and t.attached_node = r.unique_id and t.resource_type = 'test'
		     where r.workspace = ${ws} and r.job_id = ${ZERO_UUID}::uuid and r.asset_path = any(${textArray(assetPaths)}) and ${onlyNamed}
		     order by 1, 2, 3, 4`,
		tx
	);
	return rows.map((r) => ({ assetPath: r.asset_path, kind: r.test_kind, column: r.test_column, severity: r.severity }));
}
