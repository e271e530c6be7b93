// The baseline the column-lineage endpoint is compared against: the same answer (every direct
// edge connected to the asked relation's columns, both directions, transitively, in asset terms)
// computed by one recursive CTE over dbt_column_edge. Written to be a strong baseline, not a
// straw man: the walk steps over the graph's integer column ids through the same (graph_id,
// parent_col | child_col) indexes the app's reads use, and UNION de-duplicates visited columns so
// every column is expanded once; the final lookups (the dictionary's names, the nodes' asset
// paths) are kept as parameterized index reads (`offset 0` stops the planner from flattening them
// into a scan of the whole version when its estimate of the walk's size is off). The second form
// (one join with OR) is how such a walk is often written.
import { sql, type SQL } from 'drizzle-orm';
import type { Database } from '../src/lib/server/db';

export interface CteKey {
	workspace: string;
	scriptPath: string;
	/** The version's hash as a signed bigint, in decimal. */
	scriptHash: string;
}

export type CteForm = 'lateral' | 'or_join';

const ZERO = '00000000-0000-0000-0000-000000000000';

function keyOf(alias: string, k: CteKey): SQL {
	const a = sql.raw(alias);
	return sql`${a}.workspace = ${k.workspace} and ${a}.job_id = ${ZERO}::uuid and ${a}.script_hash = ${k.scriptHash}::bigint and ${a}.script_path = ${k.scriptPath}`;
}
const direct = (alias: string) => sql.raw(`${alias}.lineage_kind in ('copy', 'mod')`);

export function cteSql(k: CteKey, assetPath: string, form: CteForm): SQL {
	const g = sql`(select s.id from dbt_graph_snapshot s where ${keyOf('s', k)})`;
	const step =
		form === 'lateral'
			? sql`select n.c from walk w
			      cross join lateral (
			        select e.child_col as c from dbt_column_edge e
			         where e.graph_id = ${g} and ${direct('e')} and e.parent_col = w.c
			        union all
			        select e.parent_col from dbt_column_edge e
			         where e.graph_id = ${g} and ${direct('e')} and e.child_col = w.c
			      ) n`
			: sql`select case when e.parent_col = w.c then e.child_col else e.parent_col end
			        from walk w
			        join dbt_column_edge e
			          on e.graph_id = ${g} and ${direct('e')} and (e.parent_col = w.c or e.child_col = w.c)`;
	return sql`with recursive
		asked(c) as (
		  select d.column_id from dbt_graph_column d
		   where d.graph_id = ${g} and d.unique_id in (select n.unique_id from dbt_node n where ${keyOf('n', k)} and n.asset_path = ${assetPath})
		),
		walk(c) as (
		  select e.parent_col from dbt_column_edge e
		   where e.graph_id = ${g} and ${direct('e')} and e.parent_col in (select c from asked)
		  union
		  select e.child_col from dbt_column_edge e
		   where e.graph_id = ${g} and ${direct('e')} and e.child_col in (select c from asked)
		  union
		  ${step}
		)
		select distinct pn.asset_path as from_asset_path, pd.column_name as from_column,
		       cn.asset_path as to_asset_path, cd.column_name as to_column, e.lineage_kind as kind
		  from walk w
		  cross join lateral (
		    select e.child_col, e.lineage_kind from dbt_column_edge e
		     where e.graph_id = ${g} and ${direct('e')} and e.parent_col = w.c
		    offset 0
		  ) e
		  cross join lateral (select d.unique_id, d.column_name from dbt_graph_column d where d.graph_id = ${g} and d.column_id = w.c offset 0) pd
		  cross join lateral (select d.unique_id, d.column_name from dbt_graph_column d where d.graph_id = ${g} and d.column_id = e.child_col offset 0) cd
		  cross join lateral (select n.asset_path from dbt_node n where ${keyOf('n', k)} and n.unique_id = pd.unique_id offset 0) pn
		  cross join lateral (select n.asset_path from dbt_node n where ${keyOf('n', k)} and n.unique_id = cd.unique_id offset 0) cn
		 where pn.asset_path is not null and cn.asset_path is not null`;
}

export interface EdgeTuple {
	from_asset_path: string;
	from_column: string;
	to_asset_path: string;
	to_column: string;
	kind: string;
}

export const tupleKey = (e: EdgeTuple) => [e.from_asset_path, e.from_column, e.to_asset_path, e.to_column, e.kind].join('\u0000');

/**
 * Runs the CTE; answers its edges and the time from the query to the last row. By default with
 * `jit = off` for the statement: the walk's row estimate makes its cost look large enough for
 * Postgres (jit=on by default) to spend ~0.4 s compiling a query that runs in a millisecond,
 * which would make a straw man of the baseline. `jit: true` measures the server's default.
 * (PGlite is built without JIT; the setting changes nothing there.)
 */
export async function runCte(database: Database, k: CteKey, assetPath: string, form: CteForm, opts: { jit?: boolean } = {}): Promise<{ ms: number; edges: EdgeTuple[] }> {
	const q = cteSql(k, assetPath, form);
	const t0 = performance.now();
	const edges = opts.jit
		? await database.rows<EdgeTuple>(q)
		: await database.db.transaction(async (tx) => {
				await database.rows(sql`set local jit = off`, tx);
				return database.rows<EdgeTuple>(q, tx);
			});
	return { ms: performance.now() - t0, edges };
}

/** The edge sets must be equal for the comparison to be honest: answers what differs. */
export function compareAnswers(a: EdgeTuple[], b: EdgeTuple[]): { equal: boolean; onlyA: number; onlyB: number; a: number; b: number } {
	const sa = new Set(a.map(tupleKey));
	const sb = new Set(b.map(tupleKey));
	let onlyA = 0;
	let onlyB = 0;
	for (const x of sa) if (!sb.has(x)) onlyA++;
	for (const x of sb) if (!sa.has(x)) onlyB++;
	return { equal: onlyA === 0 && onlyB === 0, onlyA, onlyB, a: sa.size, b: sb.size };
}
