// Candidate tables for a graph's column edges (issue 18, item 2), created in a scratch schema
// beside the app's own tables so every design is loaded and read under the same conditions.
// Only the benchmark uses them: the app's schema is untouched (the chosen design becomes a
// drizzle migration of its own).
//
//   text       today's dbt_column_edge (DDL copied from drizzle/0000 + 0002): every row repeats
//              the 4-part graph key and its 4 text endpoints, under two partial 9/7-column
//              unique indexes, the component and child indexes, and a per-row FK to script.
//   int-fk     one `graph` row per (workspace, path, hash, job) carrying a surrogate id; a
//              per-graph column dictionary; edges of integers with the unique key and indexes on
//              ints; per-row FKs to the graph row (ON DELETE CASCADE).
//   int        int-fk without the per-row FKs: a statement trigger on `graph` deletes a graph's
//              edges and dictionary, so a script version going (script → graph cascade) or a
//              retention sweep still removes everything, with no FK check per loaded row.
//   packed     int, with a graph's direct (copy/mod) edges packed one row per component as
//              int arrays; scan edges (no component) stay integer rows as in `int`.
import { sql, type SQL } from 'drizzle-orm';
import { copyChunks, copyField, copyRows, type Database, type Tx } from '../src/lib/server/db';

export const SCHEMA = 'storage_bench';

export type DesignName = 'text' | 'int-fk' | 'int' | 'packed';
export const DESIGNS: readonly DesignName[] = ['text', 'int-fk', 'int', 'packed'];

/** How rows reach the table: COPY text, or batched `insert … select from unnest(arrays)`. */
export type LoadMethod = 'copy' | 'unnest';

/** One decoded column edge as the ingest holds it (component null for non-direct kinds). */
export type BenchEdge = [parentUniqueId: string, parentColumn: string, childUniqueId: string, childColumn: string, kind: string, component: number | null];

export interface BenchGraphKey {
	workspace: string;
	scriptPath: string;
	scriptHash: bigint;
	jobId: string;
}

const raw = (s: string) => sql.raw(s);

const SCRIPT_DDL = [`create table script (workspace text not null, hash bigint not null, primary key (workspace, hash))`];

const TEXT_DDL = [
	`create table text_edge (
		id bigint primary key generated always as identity,
		workspace text not null, script_path text not null, script_hash bigint, job_id uuid not null,
		parent_unique_id text not null, parent_column text not null, child_unique_id text not null, child_column text not null,
		lineage_kind text not null, component integer,
		foreign key (workspace, script_hash) references script (workspace, hash) on delete cascade)`,
	`create unique index text_edge_version_uq on text_edge (workspace, script_path, script_hash, job_id, parent_unique_id, parent_column, child_unique_id, child_column, lineage_kind) where script_hash is not null`,
	`create unique index text_edge_preview_uq on text_edge (workspace, job_id, parent_unique_id, parent_column, child_unique_id, child_column, lineage_kind) where script_hash is null`,
	`create index text_edge_component_idx on text_edge (workspace, job_id, script_hash, component)`,
	`create index text_edge_child_idx on text_edge (workspace, job_id, script_hash, child_unique_id)`
];

// The graph row keeps today's two partial unique keys' meaning: one graph per version key, one
// preview graph (NULL hash) per job. Below it, one unique key on ints covers both.
const GRAPH_DDL = [
	`create table graph (
		id integer primary key generated always as identity,
		workspace text not null, script_path text not null, script_hash bigint, job_id uuid not null,
		foreign key (workspace, script_hash) references script (workspace, hash) on delete cascade)`,
	`create unique index graph_version_uq on graph (workspace, script_path, script_hash, job_id) where script_hash is not null`,
	`create unique index graph_preview_uq on graph (workspace, job_id) where script_hash is null`
];

// Column ids are dense per graph and assigned in (unique_id, column) order, so one node's
// columns are a contiguous id range: "edges touching these relations" is a range scan.
const dictionaryDdl = (fk: boolean) => [
	`create table graph_column (
		graph_id integer not null${fk ? ' references graph (id) on delete cascade' : ''},
		column_id integer not null, unique_id text not null, column_name text not null,
		primary key (graph_id, column_id))`,
	`create unique index graph_column_name_uq on graph_column (graph_id, unique_id, column_name)`
];

// Scan edges (the majority) have no component, so the component index is partial.
const intEdgeDdl = (fk: boolean) => [
	`create table int_edge (
		graph_id integer not null${fk ? ' references graph (id) on delete cascade' : ''},
		parent_col integer not null, child_col integer not null, kind smallint not null, component integer)`,
	`create unique index int_edge_uq on int_edge (graph_id, parent_col, child_col, kind)`,
	`create index int_edge_component_idx on int_edge (graph_id, component) where component is not null`,
	`create index int_edge_child_idx on int_edge (graph_id, child_col)`
];

const PACK_DDL = [
	`create table edge_pack (
		graph_id integer not null, component integer not null,
		parent_cols integer[] not null, child_cols integer[] not null, kinds smallint[] not null,
		primary key (graph_id, component))`
];

/** The FK-less designs' cascade: one statement per deleted batch of graphs, not a check per row. */
const cascadeTriggerDdl = (tables: string[]) => [
	`create function graph_rows_cascade() returns trigger language plpgsql set search_path = ${SCHEMA} as $$
	begin
		${tables.map((t) => `delete from ${t} where graph_id in (select id from gone);`).join('\n\t\t')}
		return null;
	end $$`,
	`create trigger graph_rows_cascade after delete on graph referencing old table as gone
		for each statement execute function graph_rows_cascade()`
];

export function designDdl(d: DesignName): string[] {
	switch (d) {
		case 'text':
			return [...SCRIPT_DDL, ...TEXT_DDL];
		case 'int-fk':
			return [...SCRIPT_DDL, ...GRAPH_DDL, ...dictionaryDdl(true), ...intEdgeDdl(true)];
		case 'int':
			return [...SCRIPT_DDL, ...GRAPH_DDL, ...dictionaryDdl(false), ...intEdgeDdl(false), ...cascadeTriggerDdl(['int_edge', 'graph_column'])];
		case 'packed':
			return [...SCRIPT_DDL, ...GRAPH_DDL, ...dictionaryDdl(false), ...intEdgeDdl(false), ...PACK_DDL, ...cascadeTriggerDdl(['edge_pack', 'int_edge', 'graph_column'])];
	}
}

/** The design's tables, for sizes and row counts. */
export function designTables(d: DesignName): string[] {
	switch (d) {
		case 'text':
			return ['text_edge'];
		case 'int-fk':
		case 'int':
			return ['graph', 'graph_column', 'int_edge'];
		case 'packed':
			return ['graph', 'graph_column', 'int_edge', 'edge_pack'];
	}
}

/** The edge-holding table a component read must touch only a component's rows of. */
export const componentTable = (d: DesignName) => (d === 'text' ? 'text_edge' : d === 'packed' ? 'edge_pack' : 'int_edge');

const KIND_CODES: Record<string, number> = { copy: 1, mod: 2, scan: 3 };
function kindCode(kind: string): number {
	const c = KIND_CODES[kind];
	if (c === undefined) throw new Error(`no smallint code for lineage kind "${kind}"`);
	return c;
}

const f = copyField;

const UNNEST_BATCH = 20_000;

/** Runs `insert … select … from unnest(…)` over `rows` in batches (PGlite's alternative to COPY). */
async function unnestInsert<T>(database: Database, tx: Tx, rows: readonly T[], statement: (part: readonly T[]) => SQL): Promise<void> {
	for (let i = 0; i < rows.length; i += UNNEST_BATCH) await database.rows(statement(rows.slice(i, i + UNNEST_BATCH)), tx);
}

const ints = (xs: readonly (number | null)[]) => sql`${sql.param(xs)}::int[]`;
const texts = (xs: readonly string[]) => sql`${sql.param(xs)}::text[]`;

/**
 * The per-graph column dictionary: every endpoint column once, ids in (unique_id, column) order.
 * Building it is ingest work the int designs add, so it is inside the timed load.
 */
function columnDictionary(edges: readonly BenchEdge[]): { columns: [string, string][]; parentIds: Int32Array; childIds: Int32Array } {
	const byNode = new Map<string, Set<string>>();
	const add = (u: string, c: string) => {
		let s = byNode.get(u);
		if (!s) byNode.set(u, (s = new Set()));
		s.add(c);
	};
	for (const e of edges) {
		add(e[0], e[1]);
		add(e[2], e[3]);
	}
	const columns: [string, string][] = [];
	const idOf = new Map<string, Map<string, number>>();
	for (const u of [...byNode.keys()].sort()) {
		const m = new Map<string, number>();
		for (const c of [...byNode.get(u)!].sort()) {
			m.set(c, columns.length);
			columns.push([u, c]);
		}
		idOf.set(u, m);
	}
	const parentIds = new Int32Array(edges.length);
	const childIds = new Int32Array(edges.length);
	edges.forEach((e, i) => {
		parentIds[i] = idOf.get(e[0])!.get(e[1])!;
		childIds[i] = idOf.get(e[2])!.get(e[3])!;
	});
	return { columns, parentIds, childIds };
}

async function insertGraphRow(database: Database, tx: Tx, key: BenchGraphKey): Promise<number> {
	const [g] = await database.rows<{ id: unknown }>(
		sql`insert into ${raw(SCHEMA)}.graph (workspace, script_path, script_hash, job_id)
		    values (${key.workspace}, ${key.scriptPath}, ${key.scriptHash.toString()}::bigint, ${key.jobId}::uuid) returning id`,
		tx
	);
	return Number(g.id);
}

/** Loads one graph's edges into the design inside `tx` (its search_path set to the scratch schema: COPY takes bare names). */
export async function loadGraph(database: Database, tx: Tx, d: DesignName, method: LoadMethod, key: BenchGraphKey, edges: readonly BenchEdge[]): Promise<void> {
	if (d === 'text') {
		if (method === 'copy') {
			const prefix = `${f(key.workspace)}\t${f(key.scriptPath)}\t${key.scriptHash}\t${key.jobId}\t`;
			const cols = ['workspace', 'script_path', 'script_hash', 'job_id', 'parent_unique_id', 'parent_column', 'child_unique_id', 'child_column', 'lineage_kind', 'component'];
			await copyRows(database, tx, 'text_edge', cols, copyChunks(edges, (e) => `${prefix}${f(e[0])}\t${f(e[1])}\t${f(e[2])}\t${f(e[3])}\t${f(e[4])}\t${f(e[5])}\n`));
			return;
		}
		// The statement today's replaceGraph runs on PGlite.
		await unnestInsert(database, tx, edges, (part) =>
			sql`insert into text_edge (workspace, script_path, script_hash, job_id, parent_unique_id, parent_column, child_unique_id, child_column, lineage_kind, component)
			    select ${key.workspace}, ${key.scriptPath}, ${key.scriptHash.toString()}::bigint, ${key.jobId}::uuid, pu, pc, cu, cc, k, comp
			      from unnest(${texts(part.map((e) => e[0]))}, ${texts(part.map((e) => e[1]))}, ${texts(part.map((e) => e[2]))},
			                  ${texts(part.map((e) => e[3]))}, ${texts(part.map((e) => e[4]))}, ${ints(part.map((e) => e[5]))}) as u(pu, pc, cu, cc, k, comp)`
		);
		return;
	}
	const graphId = await insertGraphRow(database, tx, key);
	const dict = columnDictionary(edges);
	const indexes = edges.map((_, i) => i);
	if (method === 'copy') {
		await copyRows(database, tx, 'graph_column', ['graph_id', 'column_id', 'unique_id', 'column_name'], copyChunks(dict.columns.entries(), ([i, [u, c]]) => `${graphId}\t${i}\t${f(u)}\t${f(c)}\n`));
	} else {
		await unnestInsert(database, tx, [...dict.columns.entries()], (part) =>
			sql`insert into graph_column (graph_id, column_id, unique_id, column_name)
			    select ${graphId}, * from unnest(${ints(part.map(([i]) => i))}, ${texts(part.map(([, [u]]) => u))}, ${texts(part.map(([, [, c]]) => c))})`
		);
	}
	const rowEdges = d === 'packed' ? indexes.filter((i) => edges[i][5] === null) : indexes;
	if (method === 'copy') {
		await copyRows(
			database,
			tx,
			'int_edge',
			['graph_id', 'parent_col', 'child_col', 'kind', 'component'],
			copyChunks(rowEdges, (i) => `${graphId}\t${dict.parentIds[i]}\t${dict.childIds[i]}\t${kindCode(edges[i][4])}\t${f(edges[i][5])}\n`)
		);
	} else {
		await unnestInsert(database, tx, rowEdges, (part) =>
			sql`insert into int_edge (graph_id, parent_col, child_col, kind, component)
			    select ${graphId}, * from unnest(${ints(part.map((i) => dict.parentIds[i]))}, ${ints(part.map((i) => dict.childIds[i]))},
			                                     ${sql.param(part.map((i) => kindCode(edges[i][4])))}::smallint[], ${ints(part.map((i) => edges[i][5]))})`
		);
	}
	if (d !== 'packed') return;
	const packs = new Map<number, number[]>();
	indexes.forEach((i) => {
		const c = edges[i][5];
		if (c === null) return;
		const p = packs.get(c);
		if (p) p.push(i);
		else packs.set(c, [i]);
	});
	const arr = (xs: number[]) => `{${xs.join(',')}}`;
	await copyRows(
		database,
		tx,
		'edge_pack',
		['graph_id', 'component', 'parent_cols', 'child_cols', 'kinds'],
		copyChunks(packs, ([c, is]) => `${graphId}\t${c}\t${arr(is.map((i) => dict.parentIds[i]))}\t${arr(is.map((i) => dict.childIds[i]))}\t${arr(is.map((i) => kindCode(edges[i][4])))}\n`)
	);
}

// The key's values are the benchmark's own constants, so they are written into the statement
// text: EXPLAIN ANALYZE then plans exactly the statement that is timed.
const graphIdOf = (key: BenchGraphKey) =>
	`(select g.id from ${SCHEMA}.graph g where g.workspace = '${key.workspace}' and g.script_path = '${key.scriptPath}' and g.script_hash = ${key.scriptHash} and g.job_id = '${key.jobId}')`;

/** Deletes one graph's rows, as a replace or a retention sweep does. */
export function deleteGraphSql(d: DesignName, key: BenchGraphKey): string[] {
	if (d === 'text') {
		return [`delete from ${SCHEMA}.text_edge where workspace = '${key.workspace}' and script_path = '${key.scriptPath}' and script_hash = ${key.scriptHash} and job_id = '${key.jobId}'`];
	}
	// int-fk cascades through its FKs, int and packed through the statement trigger.
	return [`delete from ${SCHEMA}.graph where id = ${graphIdOf(key)}`];
}

/**
 * The direct edges of one component in asset terms (text endpoints), as the column-lineage read
 * needs them: through the component index only.
 */
export function componentReadSql(d: DesignName, key: BenchGraphKey, component: number): string {
	if (d === 'text') {
		return `select e.parent_unique_id, e.parent_column, e.child_unique_id, e.child_column, e.lineage_kind
		          from ${SCHEMA}.text_edge e
		         where e.workspace = '${key.workspace}' and e.job_id = '${key.jobId}' and e.script_hash = ${key.scriptHash}
		           and e.component = ${component} and e.lineage_kind in ('copy', 'mod')`;
	}
	// One dictionary lookup per endpoint through its primary key. As a plain join the planner
	// hashes the whole dictionary (every row has the same graph_id, so it expects to need most
	// of them), which reads the graph's columns to answer a 100-edge component; `limit 1` keeps
	// each lookup a correlated index probe.
	const names = `p.unique_id, p.column_name, c.unique_id, c.column_name`;
	const joins = (g: string, pc: string, cc: string) =>
		`cross join lateral (select d.unique_id, d.column_name from ${SCHEMA}.graph_column d where d.graph_id = ${g} and d.column_id = ${pc} limit 1) p
		 cross join lateral (select d.unique_id, d.column_name from ${SCHEMA}.graph_column d where d.graph_id = ${g} and d.column_id = ${cc} limit 1) c`;
	if (d === 'packed') {
		return `select ${names}, u.kind
		          from ${SCHEMA}.edge_pack k cross join lateral unnest(k.parent_cols, k.child_cols, k.kinds) as u(parent_col, child_col, kind)
		          ${joins('k.graph_id', 'u.parent_col', 'u.child_col')}
		         where k.graph_id = ${graphIdOf(key)} and k.component = ${component}`;
	}
	return `select ${names}, e.kind
	          from ${SCHEMA}.int_edge e ${joins('e.graph_id', 'e.parent_col', 'e.child_col')}
	         where e.graph_id = ${graphIdOf(key)} and e.component = ${component}`;
}
