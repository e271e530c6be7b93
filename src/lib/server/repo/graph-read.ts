// The stamp of what an unpinned asset-graph read depends on (graph-cache.ts): one statement,
// digests of the stored rows the read consults, so any write that could change an answer
// changes the stamp. What it covers, workspace-wide unless said:
//   - every script version row (path, hash, language, deleted, archived, created_at): deploys,
//     deletes and archiving; which version of a path is live; which project describes what;
//   - every version graph's marker (id, path, hash, digest, ingested_at): a replace writes a new
//     marker (a new id), a prune or cascade deletes one, so the rows behind it are unchanged
//     while the marker is;
//   - the usage rows in the asked scope (the folder, or the workspace): which script reads and
//     writes which asset, the hidden counts. Thousands of rows: an order-free digest (count and
//     two 64-bit hash sums), since sorting them under a libc collation is slow on
//     Postgres. They are only ever rewritten by a deploy, which also adds a script row;
//     this part is the second line;
//   - producer column lineage (count and newest id): written with each producer version.
// Folders and grants are not in it: the caller's access is part of the cache key instead.
// `userHasScripts` lets members with the same folders and scopes share entries: a username
// matters to the gates only through its own `u/` paths, and without any it decides nothing.
import { sql } from 'drizzle-orm';
import type { Database, Tx } from '../db';
import { ZERO_UUID } from '../schema';

export interface GraphStamp {
	stamp: string;
	/** Whether any script version (live or not) lies under `userPrefix`: the caller's own `u/` paths. */
	userHasScripts: boolean;
}

export async function graphInputsStamp(database: Database, ws: string, folderPrefix: string | null, userPrefix: string, tx?: Tx): Promise<GraphStamp> {
	const usageScope = folderPrefix === null ? sql`true` : sql`starts_with(a.script_path, ${folderPrefix})`;
	const [r] = await database.rows<{ scripts: string; graphs: string; usage: string; producers: string; own: boolean }>(
		sql`select
		      exists (select 1 from script s where s.workspace = ${ws} and starts_with(s.path, ${userPrefix})) as own,
		      (select md5(coalesce(string_agg(row(s.path, s.hash, s.language, s.deleted, s.archived, s.pending, s.created_at)::text, E'\\n' order by s.hash), ''))
		         from script s where s.workspace = ${ws}) as scripts,
		      (select md5(coalesce(string_agg(row(g.id, g.script_path, g.script_hash, g.digest, g.ingested_at)::text, E'\\n' order by g.id), ''))
		         from dbt_graph_snapshot g where g.workspace = ${ws} and g.job_id = ${ZERO_UUID}::uuid) as graphs,
		      (select count(*)::text || '/' || coalesce(sum(hashtextextended(u.r, 0)), 0)::text || '/' || coalesce(sum(hashtextextended(u.r, 1)), 0)::text
		         from (select concat_ws(chr(31), a.script_path, a.asset_kind, a.asset_path, a.access) as r
		                 from asset_usage a
		                 join asset_usage_current c on c.workspace = a.workspace and c.script_path = a.script_path and c.script_hash = a.script_hash
		                where a.workspace = ${ws} and ${usageScope}) u) as usage,
		      (select count(*)::text || '/' || coalesce(max(p.id), 0)::text
		         from producer_column_lineage p where p.workspace = ${ws}) as producers`,
		tx
	);
	return { stamp: `${r.scripts}.${r.graphs}.${r.usage}.${r.producers}`, userHasScripts: r.own === true };
}
