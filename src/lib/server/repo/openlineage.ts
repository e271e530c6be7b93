// Every SQL statement of the OpenLineage export: which version a ref names, the graph marker's
// time, a batch of nodes' incoming column edges (every kind, scan included), the producers
// around a project's relations and the warehouses' default databases.
import { PRODUCER_LANGUAGES } from '../../types/asset-graph';
import { sql } from 'drizzle-orm';
import type { Database, Tx } from '../db';
import { toBigInt } from '../db';
import type { GraphKey } from './graph';
import { columnIdsOf, graphIdOf, jsonRows, namedEnds } from './lineage';

const textArray = (xs: readonly string[]) => sql`${sql.param([...xs])}::text[]`;
const hashText = (h: bigint) => sql`${h.toString()}::bigint`;

/** A dbt version at `path`: the newest live one (`latest`) or the named hash; null when there is none. */
export async function dbtVersionAt(database: Database, ws: string, path: string, ref: bigint | 'latest', tx?: Tx): Promise<bigint | null> {
	const which =
		ref === 'latest'
			? sql`and not s.archived order by s.created_at desc, s.hash desc limit 1`
			: sql`and s.hash = ${hashText(ref)}`;
	const [r] = await database.rows<{ hash: unknown }>(
		sql`select s.hash::text as hash from script s
		     where s.workspace = ${ws} and s.path = ${path} and s.language = 'dbt' and not s.deleted and not s.pending ${which}`,
		tx
	);
	return r ? toBigInt(r.hash) : null;
}

/** When the graph of `key` was stored, or null when it was never stored (or was pruned). */
export async function graphStoredAt(database: Database, key: GraphKey, tx?: Tx): Promise<Date | null> {
	const hash = key.scriptHash === null ? sql`g.script_hash is null` : sql`g.script_path = ${key.scriptPath} and g.script_hash = ${hashText(key.scriptHash)}`;
	const [r] = await database.rows<{ at: string | Date }>(
		sql`select g.ingested_at as at from dbt_graph_snapshot g where g.workspace = ${key.workspace} and g.job_id = ${key.jobId}::uuid and ${hash}`,
		tx
	);
	return r ? new Date(r.at) : null;
}

export interface ExportNodeRow {
	uniqueId: string;
	resourceType: string;
	assetPath: string | null;
	rawCode: string | null;
	columnSchema: { name: string; type?: string }[] | null;
}

/**
 * The relations of one stored graph (models, seeds, snapshots, sources: no tests) and the
 * `ref()` edges between them. SQL and typed columns are read only when `authored`.
 */
export async function exportGraphRows(database: Database, key: GraphKey, authored: boolean, tx?: Tx): Promise<{ nodes: ExportNodeRow[]; edges: { parent: string; child: string }[] }> {
	const keyed = (t: string) => {
		const a = sql.raw(t);
		return key.scriptHash === null
			? sql`${a}.workspace = ${key.workspace} and ${a}.job_id = ${key.jobId}::uuid and ${a}.script_hash is null`
			: sql`${a}.workspace = ${key.workspace} and ${a}.script_path = ${key.scriptPath} and ${a}.script_hash = ${hashText(key.scriptHash)} and ${a}.job_id = ${key.jobId}::uuid`;
	};
	const authoredCols = authored ? sql`n.raw_code as c, n.column_schema as s` : sql`null as c, null as s`;
	const nodes = await jsonRows<{ u: string; r: string; p: string | null; c: string | null; s: ExportNodeRow['columnSchema'] }>(
		database,
		sql`select n.unique_id as u, n.resource_type as r, n.asset_path as p, ${authoredCols}
		      from dbt_node n where ${keyed('n')} and n.resource_type in ('model', 'seed', 'snapshot', 'source')`,
		tx
	);
	const edges = await jsonRows<{ p: string; c: string }>(
		database,
		sql`select e.parent_unique_id as p, e.child_unique_id as c from dbt_edge e where ${keyed('e')} and not starts_with(e.child_unique_id, 'test.')`,
		tx
	);
	return {
		nodes: nodes.map((n) => ({ uniqueId: n.u, resourceType: n.r, assetPath: n.p, rawCode: n.c, columnSchema: n.s })),
		edges: edges.map((e) => ({ parent: e.p, child: e.c }))
	};
}

export interface IncomingColumnEdge {
	parentUniqueId: string;
	parentColumn: string;
	childUniqueId: string;
	childColumn: string;
	lineageKind: string;
}

/** Every stored column edge INTO these nodes, whatever its kind (the child index serves it), in no particular order. */
export async function incomingColumnEdges(database: Database, key: GraphKey, childIds: readonly string[], tx?: Tx): Promise<IncomingColumnEdge[]> {
	if (childIds.length === 0) return [];
	const g = graphIdOf(key);
	const rows = await jsonRows<{ pu: string; pc: string; cu: string; cc: string; k: string }>(
		database,
		sql`select pe.pu, pe.pc, ce.cu, ce.cc, e.lineage_kind as k
		      from dbt_column_edge e
		      ${namedEnds('e')}
		     where e.graph_id = ${g} and e.child_col = any(${columnIdsOf(g, childIds)})`,
		tx
	);
	return rows.map((r) => ({ parentUniqueId: r.pu, parentColumn: r.pc, childUniqueId: r.cu, childColumn: r.cc, lineageKind: r.k }));
}

export interface ProducerUsage {
	scriptPath: string;
	scriptHash: bigint;
	assetKind: string;
	assetPath: string;
	access: string;
}

/**
 * The usage rows of every producer (SQL script) whose newest live version reads or writes an
 * asset, with that version. The caller picks the producers around a project from them.
 */
export async function producerUsage(database: Database, ws: string, tx?: Tx): Promise<ProducerUsage[]> {
	const rows = await database.rows<{ script_path: string; hash: unknown; asset_kind: string; asset_path: string; access: string }>(
		sql`with live as materialized (
		      select distinct on (s.path) s.path, s.hash from script s
		       where s.workspace = ${ws} and s.language = any(${sql.param([...PRODUCER_LANGUAGES])}::text[]) and not s.deleted and not s.archived and not s.pending
		       order by s.path, s.created_at desc, s.hash desc
		    )
		    select a.script_path, l.hash::text as hash, a.asset_kind, a.asset_path, a.access
		      from asset_usage a
		      join asset_usage_current c on c.workspace = a.workspace and c.script_path = a.script_path and c.script_hash = a.script_hash
		      join live l on l.path = a.script_path
		     where a.workspace = ${ws}
		     order by a.script_path, a.asset_kind, a.asset_path`,
		tx
	);
	return rows.map((r) => ({ scriptPath: r.script_path, scriptHash: toBigInt(r.hash), assetKind: r.asset_kind, assetPath: r.asset_path, access: r.access }));
}

/** Default database per warehouse name (dataset names are qualified with it). */
export async function warehouseDatabases(database: Database, ws: string, tx?: Tx): Promise<Map<string, string | null>> {
	const rows = await database.rows<{ name: string; db: string | null }>(
		sql`select name, default_database as db from warehouse where workspace = ${ws}`,
		tx
	);
	return new Map(rows.map((r) => [r.name, r.db]));
}
