// Every SQL statement of the lineage diff (GET dbt/diff): which nodes of two stored graphs differ
// (per-node digests compared in the database, so only changed rows leave it), the rows of those
// nodes, the ref() edges that differ, the column edges touching changed nodes, and the refs a
// diff names (versions, jobs, markers). Cost follows the changed nodes: the full joins run over
// one index range per graph and return only differences. (No result column may be named `t`:
// jsonRows aggregates the rows as `t`.)
import { PRODUCER_LANGUAGES } from '../../types/asset-graph';
import { sql } from 'drizzle-orm';
import type { ColumnEdgeLike } from '../../lineage/components';
import type { DiffNode } from '../../lineage/graph-diff';
import type { Database, Tx } from '../db';
import { toBigInt } from '../db';
import { ZERO_UUID } from '../schema';
import type { GraphKey } from './graph';
import { columnIdsOf, graphIdOf, jsonRows, keyOf, namedEnds } from './lineage';

const textArray = (xs: readonly string[]) => sql`${sql.param([...xs])}::text[]`;

/**
 * A node's digest for rows stored before dbt_node.digest existed: every stored field the diff can
 * report, as a row value (its text form is unambiguous about NULLs and separators).
 */
const LEGACY_DIGEST = sql.raw(`md5(row(n.resource_type, n.name, n.asset_path, n.materialized, n.materialize_strategy, n.unique_key,
	n.tags, n.description, n.test_kind, n.test_column, n.test_args, n.severity, n.attached_node, n.columns, n.column_schema,
	n.freshness, n.raw_code, n.original_file_path)::text)`);

export interface ChangedNodeRow {
	uniqueId: string;
	resourceType: string;
	inFrom: boolean;
	inTo: boolean;
	/** A test's model, on the side(s) it exists. */
	attachedNode: string | null;
}

/**
 * The nodes whose digest differs between two graphs, or that only one of them holds: the stored
 * digests, or (when either graph holds a row stored without one) the legacy digest on both sides.
 */
export async function changedNodes(database: Database, from: GraphKey, to: GraphKey, tx?: Tx): Promise<ChangedNodeRow[]> {
	// One store writes a whole graph, so one row tells whether its nodes carry digests.
	const [l] = await database.rows<{ legacy: boolean }>(
		sql`select coalesce((select n.digest is null from dbt_node n where ${keyOf('n', from)} limit 1), false)
		        or coalesce((select n.digest is null from dbt_node n where ${keyOf('n', to)} limit 1), false) as legacy`,
		tx
	);
	const digest = l?.legacy ? LEGACY_DIGEST : sql`n.digest`;
	const side = (key: GraphKey) => sql`select n.unique_id, n.resource_type, n.attached_node, ${digest} as d from dbt_node n where ${keyOf('n', key)}`;
	const rows = await jsonRows<{ u: string; rt: string; att: string | null; in_from: boolean; in_to: boolean }>(
		database,
		sql`select coalesce(a.unique_id, b.unique_id) as u, coalesce(b.resource_type, a.resource_type) as rt,
		           coalesce(b.attached_node, a.attached_node) as att, a.d is not null as in_from, b.d is not null as in_to
		      from (${side(from)}) a full join (${side(to)}) b on a.unique_id = b.unique_id
		     where a.d is distinct from b.d
		     order by 1`,
		tx
	);
	return rows.map((r) => ({ uniqueId: r.u, resourceType: r.rt, inFrom: r.in_from, inTo: r.in_to, attachedNode: r.att }));
}

interface DiffNodeDbRow {
	unique_id: string;
	resource_type: string;
	asset_path: string | null;
	materialized: string | null;
	materialize_strategy: string | null;
	unique_key: string | null;
	raw_code: string | null;
	description: string | null;
	tags: string[] | null;
	columns: Record<string, unknown> | null;
	column_schema: { name: string; type?: string | null }[] | null;
}

/** The compared fields of these nodes of one graph. */
export async function diffNodesOf(database: Database, key: GraphKey, uniqueIds: readonly string[], tx?: Tx): Promise<Map<string, DiffNode>> {
	if (uniqueIds.length === 0) return new Map();
	const rows = await jsonRows<DiffNodeDbRow>(
		database,
		sql`select n.unique_id, n.resource_type, n.asset_path, n.materialized, n.materialize_strategy, n.unique_key, n.raw_code,
		           n.description, n.tags, n.columns, n.column_schema
		      from dbt_node n where ${keyOf('n', key)} and n.unique_id = any(${textArray(uniqueIds)})`,
		tx
	);
	return new Map(
		rows.map((r) => [
			r.unique_id,
			{
				uniqueId: r.unique_id,
				resourceType: r.resource_type,
				assetPath: r.asset_path,
				materialized: r.materialized,
				materializeStrategy: r.materialize_strategy,
				uniqueKey: r.unique_key,
				rawCode: r.raw_code,
				description: r.description,
				tags: r.tags ?? [],
				columns: r.columns,
				columnSchema: r.column_schema
			}
		])
	);
}

/** The ref() edges only one of the two graphs holds. */
export async function refEdgeChanges(database: Database, from: GraphKey, to: GraphKey, tx?: Tx): Promise<{ parent: string; child: string; added: boolean }[]> {
	const side = (key: GraphKey) => sql`select e.parent_unique_id as p, e.child_unique_id as c from dbt_edge e where ${keyOf('e', key)}`;
	const rows = await jsonRows<{ p: string; c: string; added: boolean }>(
		database,
		sql`select coalesce(a.p, b.p) as p, coalesce(a.c, b.c) as c, a.p is null as added
		      from (${side(from)}) a full join (${side(to)}) b on a.p = b.p and a.c = b.c
		     where a.p is null or b.p is null
		     order by 1, 2`,
		tx
	);
	return rows.map((r) => ({ parent: r.p, child: r.c, added: r.added }));
}

/** Every column edge of one graph with a changed node at either end (the child and the parent index). */
export async function columnEdgesTouching(database: Database, key: GraphKey, uniqueIds: readonly string[], tx?: Tx): Promise<ColumnEdgeLike[]> {
	if (uniqueIds.length === 0) return [];
	const g = graphIdOf(key);
	const rows = await jsonRows<{ pu: string; pc: string; cu: string; cc: string; k: string }>(
		database,
		sql`select pe.pu, pe.pc, ce.cu, ce.cc, s.k from (
		      select e.graph_id, e.parent_col, e.child_col, e.lineage_kind as k
		        from dbt_column_edge e where e.graph_id = ${g} and e.child_col = any(${columnIdsOf(g, uniqueIds)})
		      union
		      select e.graph_id, e.parent_col, e.child_col, e.lineage_kind
		        from dbt_column_edge e where e.graph_id = ${g} and e.parent_col = any(${columnIdsOf(g, uniqueIds)})
		    ) s
		    ${namedEnds('s')}`,
		tx
	);
	return rows.map((r) => ({ parentUniqueId: r.pu, parentColumn: r.pc, childUniqueId: r.cu, childColumn: r.cc, lineageKind: r.k }));
}

/**
 * Whether a stored graph exists (its marker) and has column lineage: the deploy's stats say so
 * (`column_edges` null when no index was uploaded); a marker without them (a run snapshot) has
 * lineage when it holds an edge (asked only then: without statistics that probe may scan).
 */
export async function graphState(database: Database, key: GraphKey, tx?: Tx): Promise<{ exists: boolean; columnLineage: boolean }> {
	const [r] = await database.rows<{ ce: unknown; has: boolean }>(
		sql`select g.stats -> 'column_edges' as ce, (g.stats -> 'column_edges') is not null as has from dbt_graph_snapshot g where ${keyOf('g', key)}`,
		tx
	);
	if (!r) return { exists: false, columnLineage: false };
	if (r.has) {
		const ce = typeof r.ce === 'string' ? JSON.parse(r.ce) : r.ce;
		return { exists: true, columnLineage: ce !== null };
	}
	const [e] = await database.rows<{ one: number }>(sql`select 1 as one from dbt_column_edge e where e.graph_id = ${graphIdOf(key)} limit 1`, tx);
	return { exists: true, columnLineage: e !== undefined };
}

/**
 * The direct (copy, mod) column edges downstream of these columns in one graph, level by level
 * through the parent end of the unique index: what the impact of a changed column walks, read
 * without reading the rest of its component.
 */
export async function downstreamColumnEdges(database: Database, key: GraphKey, starts: readonly { uniqueId: string; column: string }[], tx?: Tx): Promise<ColumnEdgeLike[]> {
	const col = (u: string, c: string) => `${u}\u0000${c}`;
	const seen = new Set(starts.map((s) => col(s.uniqueId, s.column)));
	const out: ColumnEdgeLike[] = [];
	let frontier = new Set(starts.map((s) => s.uniqueId));
	let wanted = new Set(seen);
	const g = graphIdOf(key);
	while (frontier.size > 0) {
		const rows = await jsonRows<{ pu: string; pc: string; cu: string; cc: string; k: string }>(
			database,
			sql`select pe.pu, pe.pc, ce.cu, ce.cc, e.lineage_kind as k
			      from dbt_column_edge e
			      ${namedEnds('e')}
			     where e.graph_id = ${g} and e.parent_col = any(${columnIdsOf(g, [...frontier])}) and e.lineage_kind in ('copy', 'mod')`,
			tx
		);
		const nextModels = new Set<string>();
		const nextWanted = new Set<string>();
		for (const r of rows) {
			if (!wanted.has(col(r.pu, r.pc))) continue;
			out.push({ parentUniqueId: r.pu, parentColumn: r.pc, childUniqueId: r.cu, childColumn: r.cc, lineageKind: r.k });
			const c = col(r.cu, r.cc);
			if (seen.has(c)) continue;
			seen.add(c);
			nextWanted.add(c);
			nextModels.add(r.cu);
		}
		frontier = nextModels;
		wanted = nextWanted;
	}
	return out;
}

/** A stored graph's marker exists. */
export async function graphExists(database: Database, key: GraphKey, tx?: Tx): Promise<boolean> {
	const [r] = await database.rows<{ one: number }>(sql`select 1 as one from dbt_graph_snapshot g where ${keyOf('g', key)}`, tx);
	return r !== undefined;
}

export interface DiffVersion {
	path: string;
	hash: bigint;
	language: string;
	deleted: boolean;
}

/** A version by hash, deleted ones included (so the gate can give them the one 404). */
export async function versionByHash(database: Database, ws: string, hash: bigint, tx?: Tx): Promise<DiffVersion | null> {
	const [r] = await database.rows<{ path: string; hash: unknown; language: string; deleted: boolean }>(
		sql`select path, hash::text as hash, language, deleted from script where workspace = ${ws} and hash = ${hash.toString()}::bigint`,
		tx
	);
	return r ? { path: r.path, hash: toBigInt(r.hash), language: r.language, deleted: r.deleted } : null;
}

/** The newest deployed (live, not archived) dbt version of a path: the `latest` ref. */
export async function latestDbtVersion(database: Database, ws: string, path: string, tx?: Tx): Promise<bigint | null> {
	const [r] = await database.rows<{ hash: unknown }>(
		sql`select hash::text as hash from script
		     where workspace = ${ws} and path = ${path} and language = 'dbt' and not deleted and not archived and not pending
		     order by created_at desc, hash desc limit 1`,
		tx
	);
	return r ? toBigInt(r.hash) : null;
}

/** The versions of a path, newest first, with whether their graph is still stored: the project page's pickers. */
export async function dbtVersionsOf(database: Database, ws: string, path: string, limit = 50, tx?: Tx): Promise<{ hash: bigint; createdAt: Date; createdBy: string; hasGraph: boolean }[]> {
	const rows = await database.rows<{ hash: unknown; created_at: string | Date; created_by: string; has_graph: boolean }>(
		sql`select s.hash::text as hash, s.created_at, s.created_by,
		           exists (select 1 from dbt_graph_snapshot g where g.workspace = s.workspace and g.script_path = s.path
		                    and g.script_hash = s.hash and g.job_id = ${ZERO_UUID}::uuid) as has_graph
		      from script s where s.workspace = ${ws} and s.path = ${path} and s.language = 'dbt' and not s.deleted and not s.pending
		     order by s.created_at desc, s.hash desc limit ${limit}`,
		tx
	);
	return rows.map((r) => ({ hash: toBigInt(r.hash), createdAt: new Date(r.created_at), createdBy: r.created_by, hasGraph: r.has_graph === true }));
}

/** The newest live producer (sql) versions of the workspace: whose lineage the impact walk follows. */
export async function liveProducerVersions(database: Database, ws: string, tx?: Tx): Promise<{ path: string; hash: bigint }[]> {
	const rows = await database.rows<{ path: string; hash: unknown }>(
		sql`select distinct on (s.path) s.path, s.hash::text as hash from script s
		     where s.workspace = ${ws} and s.language = any(${sql.param([...PRODUCER_LANGUAGES])}::text[]) and not s.deleted and not s.archived and not s.pending
		     order by s.path, s.created_at desc, s.hash desc`,
		tx
	);
	return rows.map((r) => ({ path: r.path, hash: toBigInt(r.hash) }));
}

