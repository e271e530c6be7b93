// The workspace page's list of projects: every dbt project and producer script the caller may
// see, with its newest live version, what that version's deploy stored, and its latest run.
import { sql } from 'drizzle-orm';
import type { Database } from '../db';
import { toBigInt } from '../db';
import { jsonRows, pathAllowed, type ScriptPathFilter } from './lineage';

export interface ProjectListRow {
	path: string;
	language: string;
	hash: bigint;
	deployedAt: Date;
	deployedBy: string;
	/** The version was deployed with its project files (it can run, not only be browsed). */
	hasArchive: boolean;
	/** The engine its lock names (`dbt-fusion`), or null before it is pinned. */
	lockEngine: string | null;
	/** What the version's deploy job stored (`nodes`, `edges` for dbt; `reads`, `writes` for producers). */
	deploy: { jobId: string; nodes: number | null; edges: number | null; reads: number | null; writes: number | null } | null;
	/** The newest run of the path that has started (a run, a recorded run, an OpenLineage run). */
	lastRun: { id: string; kind: string; status: string; command: string | null; createdAt: Date } | null;
}

/** Projects past this many are not listed (the page says how many it shows). */
export const PROJECT_LIST_LIMIT = 200;

export async function listProjects(database: Database, ws: string, f: ScriptPathFilter): Promise<ProjectListRow[]> {
	// The newest live version per path (script_path_idx order), its deploy job's counts (numbers
	// only, read in SQL so no result document travels) and the path's newest started run.
	const rows = await jsonRows<{
		path: string;
		language: string;
		hash: string;
		created_at: string;
		created_by: string;
		has_archive: boolean;
		lock_engine: string | null;
		deploy_id: string | null;
		nodes: number | null;
		edges: number | null;
		reads: number | null;
		writes: number | null;
		run_id: string | null;
		run_kind: string | null;
		run_status: string | null;
		run_command: string | null;
		run_at: string | null;
	}>(
		database,
		sql`with live as materialized (
		      select distinct on (s.path) s.path, s.hash, s.language, s.created_at, s.created_by, s.lock->>'engine' as lock_engine from script s
		       where s.workspace = ${ws} and not s.deleted and not s.archived and not s.pending
		         and ${pathAllowed(sql`s.path`, f)}
		       order by s.path, s.created_at desc, s.hash desc
		    )
		    select l.path, l.language, l.hash::text as hash, l.created_at, l.created_by, l.lock_engine,
		           exists (select 1 from script_archive a where a.workspace = ${ws} and a.hash = l.hash) as has_archive,
		           d.id as deploy_id,
		           case when jsonb_typeof(d.result->'nodes') = 'number' then (d.result->>'nodes')::int end as nodes,
		           case when jsonb_typeof(d.result->'edges') = 'number' then (d.result->>'edges')::int end as edges,
		           case when jsonb_typeof(d.result->'reads') = 'array' then jsonb_array_length(d.result->'reads') end as reads,
		           case when jsonb_typeof(d.result->'writes') = 'array' then jsonb_array_length(d.result->'writes') end as writes,
		           r.id as run_id, r.kind as run_kind, r.status as run_status, r.command as run_command, r.created_at as run_at
		      from live l
		      left join lateral (
		        select j.id, j.result from job j
		         where j.workspace = ${ws} and j.kind = 'deploy' and j.script_hash = l.hash
		         order by j.created_at desc limit 1) d on true
		      left join lateral (
		        select j.id, j.kind, j.status, coalesce(j.args->>'command', j.args->>'which') as command, j.created_at from job j
		         where j.workspace = ${ws} and j.script_path = l.path and j.kind in ('run', 'recorded', 'openlineage') and j.status <> 'queued'
		         order by j.created_at desc, j.id desc limit 1) r on true
		     order by l.path
		     limit ${PROJECT_LIST_LIMIT}`
	);
	return rows.map((r) => ({
		path: r.path,
		language: r.language,
		hash: toBigInt(r.hash),
		deployedAt: new Date(r.created_at),
		deployedBy: r.created_by,
		hasArchive: r.has_archive === true,
		lockEngine: r.lock_engine,
		deploy: r.deploy_id ? { jobId: r.deploy_id, nodes: r.nodes, edges: r.edges, reads: r.reads, writes: r.writes } : null,
		lastRun:
			r.run_id && r.run_kind && r.run_status && r.run_at
				? { id: r.run_id, kind: r.run_kind, status: r.run_status, command: r.run_command, createdAt: new Date(r.run_at) }
				: null
	}));
}
