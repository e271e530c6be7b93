// The job queue (DESIGN.md §2, §7): `job` rows claimed with FOR UPDATE SKIP LOCKED by any number
// of worker processes, kept alive by heartbeats, reclaimed from workers that stopped beating.
// Time comes from the database clock, so workers on different hosts agree on what is stale.
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { JobStatus } from '../../types/jobs';
import type { Database, Tx } from '../db';
import { toBigInt, toNumber } from '../db';
import { dbtNode, dbtRunProgress, scriptArchive } from '../schema';
import { upsertProgress, type ProgressUpdate } from './jobs';
import type { GraphKey } from './graph';

export interface ClaimedJob {
	id: string;
	workspace: string;
	kind: string;
	scriptPath: string | null;
	scriptHash: bigint | null;
	createdBy: string;
	permissionedAs: string;
	args: Record<string, unknown>;
	timeoutS: number | null;
	startedAt: Date;
}

interface ClaimRow {
	id: string;
	workspace: string;
	kind: string;
	script_path: string | null;
	script_hash: unknown;
	created_by: string;
	permissioned_as: string;
	args: unknown;
	timeout_s: number | null;
	started_ms: unknown;
}

/**
 * Takes the next queued job of `kinds` (runs and lineage jobs) for `workerId`, or null. Runs go
 * oldest first. Lineage jobs go fairly across workspaces: the oldest of the workspace that least
 * recently had one claimed (one that never had one first), so one workspace's backlog of deploys
 * delays another's first lineage job by at most the job already running per slot, never by the
 * whole backlog. The inner SELECT locks the row it picks and skips rows other claimers hold, so
 * two workers never take one job; a job canceled before it was claimed is no longer `queued` and
 * is never picked.
 */
export async function claimNextJob(database: Database, workerId: string, kinds: readonly ('run' | 'deploy' | 'lineage')[] = ['run', 'deploy', 'lineage']): Promise<ClaimedJob | null> {
	const [r] = await database.rows<ClaimRow>(
		sql`update job set status = 'running', worker_id = ${workerId}, started_at = now(), heartbeat_at = now()
		     where id = (with waiting as (select distinct workspace from job
		                                   where status = 'queued' and kind = 'lineage' and not cancel_requested),
		                      last_claim as (select w.workspace,
		                                            (select max(l.started_at) from job l
		                                              where l.workspace = w.workspace and l.kind = 'lineage') as at
		                                       from waiting w)
		                 select j.id from job j
		                   left join last_claim c on j.kind = 'lineage' and c.workspace = j.workspace
		                  where j.status = 'queued' and j.kind = any(${sql.param([...kinds])}::text[]) and not j.cancel_requested
		                  order by coalesce(c.at, '-infinity'::timestamptz), j.created_at, j.id
		                  for update of j skip locked
		                  limit 1)
		       and status = 'queued'
		 returning id::text as id, workspace, kind, script_path, script_hash::text as script_hash, created_by, permissioned_as,
		           args, timeout_s, (extract(epoch from started_at) * 1000)::float8 as started_ms`
	);
	if (!r) return null;
	return {
		id: r.id,
		workspace: r.workspace,
		kind: r.kind,
		scriptPath: r.script_path,
		scriptHash: r.script_hash === null ? null : toBigInt(r.script_hash),
		createdBy: r.created_by,
		permissionedAs: r.permissioned_as,
		args: (r.args && typeof r.args === 'object' ? r.args : {}) as Record<string, unknown>,
		timeoutS: r.timeout_s === null ? null : toNumber(r.timeout_s),
		startedAt: new Date(toNumber(r.started_ms))
	};
}

export interface Beat {
	/** False when the job is no longer this worker's (reclaimed, or finished elsewhere). */
	owned: boolean;
	cancelRequested: boolean;
}

/** Proves the worker alive for `jobId`; answers whether someone asked to cancel it. */
export async function heartbeat(database: Database, jobId: string, workerId: string): Promise<Beat> {
	const [r] = await database.rows<{ cancel_requested: boolean }>(
		sql`update job set heartbeat_at = now()
		     where id = ${jobId}::uuid and worker_id = ${workerId} and status = 'running'
		 returning cancel_requested`
	);
	return r ? { owned: true, cancelRequested: r.cancel_requested === true } : { owned: false, cancelRequested: false };
}

/**
 * Ends a running job held by `workerId`: status, result, and the last of its log in one
 * statement. False when the job was no longer this worker's (a reclaim already ended it).
 */
export async function finishJob(
	database: Database,
	jobId: string,
	workerId: string,
	end: { status: Extract<JobStatus, 'success' | 'failure' | 'canceled'>; result: unknown; log: string }
): Promise<boolean> {
	const rows = await database.rows<{ id: string }>(
		sql`update job set status = ${end.status}, result = ${JSON.stringify(end.result ?? null)}::jsonb, completed_at = now(),
		                   logs = logs || ${end.log}
		     where id = ${jobId}::uuid and worker_id = ${workerId} and status = 'running'
		 returning id::text as id`
	);
	return rows.length > 0;
}

/**
 * Puts a running job held by `workerId` back in the queue, as if never claimed, with `log` appended:
 * its worker stopped before the job did anything that cannot be done again. False when the job
 * was no longer this worker's, or someone asked to cancel it (it then ends instead).
 */
export async function requeueJob(database: Database, jobId: string, workerId: string, log: string): Promise<boolean> {
	const rows = await database.rows<{ id: string }>(
		sql`update job set status = 'queued', worker_id = null, started_at = null, heartbeat_at = null, result = null,
		                   logs = logs || ${log}
		     where id = ${jobId}::uuid and worker_id = ${workerId} and status = 'running' and not cancel_requested
		 returning id::text as id`
	);
	return rows.length > 0;
}

/** Appends to a running job's log, only while `workerId` holds it. */
export async function appendRunningLog(database: Database, jobId: string, workerId: string, text: string): Promise<boolean> {
	const rows = await database.rows<{ id: string }>(
		sql`update job set logs = logs || ${text}
		     where id = ${jobId}::uuid and worker_id = ${workerId} and status = 'running'
		 returning id::text as id`
	);
	return rows.length > 0;
}

export interface ReapedJob {
	id: string;
	workspace: string;
	workerId: string | null;
}

/**
 * Fails every running run or lineage job whose worker has not beaten for `staleSeconds` (the worker died, or
 * lost its database), appends `message` to its log, and settles its progress rows. Locked rows
 * are skipped, so two reapers (or a reaper and a live heartbeat) never fight over one job.
 */
export async function reapStaleJobs(database: Database, staleSeconds: number, message: string, progressMessage: string): Promise<ReapedJob[]> {
	// One transaction: nobody reads a reaped job as failed while its progress still says running.
	const reaped = await database.db.transaction(async (tx) => {
		const rows = await database.rows<{ id: string; workspace: string; worker_id: string | null; kind: string }>(
			sql`update job set status = 'failure', completed_at = now(),
			                   logs = logs || ${`\n${message}\n`},
			                   result = coalesce(result, '{}'::jsonb) || jsonb_build_object('error', ${message}::text)
			     where id in (select id from job
			                   where status = 'running' and kind in ('run', 'deploy', 'lineage')
			                     and coalesce(heartbeat_at, started_at) < now() - make_interval(secs => ${staleSeconds}::double precision)
			                   for update skip locked)
			 returning id::text as id, workspace, worker_id, kind`,
			tx
		);
		for (const r of rows) await failRunningProgress(database, r.workspace, r.id, progressMessage, tx);
		// A deploy whose worker died never pinned its version: a pending one goes with its job.
		const deploys = rows.filter((r) => r.kind === 'deploy').map((r) => r.id);
		if (deploys.length) {
			await database.rows(
				sql`delete from script s using job j
				     where j.id = any(${sql.param(deploys)}::uuid[]) and s.workspace = j.workspace and s.hash = j.script_hash and s.pending`,
				tx
			);
		}
		return rows;
	});
	return reaped.map((r) => ({ id: r.id, workspace: r.workspace, workerId: r.worker_id }));
}

/** Every `running` progress row of a job becomes failed with `message` (its run ended without finishing it). */
export async function failRunningProgress(database: Database, ws: string, jobId: string, message: string, tx?: Tx): Promise<number> {
	const rows = await database.rows<{ n: unknown }>(
		sql`with u as (update dbt_run_progress set status = 'failed', error = coalesce(error, ${message}), updated_at = now()
		                where workspace = ${ws} and job_id = ${jobId}::uuid and status = 'running' returning 1)
		    select count(*)::int as n from u`,
		tx
	);
	return toNumber(rows[0]?.n);
}

/**
 * The end-of-run settlement of a job's progress rows: the relations dbt reported a terminal
 * state for are written; a `running` row of one it reported but did not build (warn, skipped,
 * no-op) is removed; any other `running` row failed with `unreportedMessage`.
 */
export async function settleProgress(
	database: Database,
	ws: string,
	jobId: string,
	plan: { updates: ProgressUpdate[]; untouched: string[] },
	unreportedMessage: string,
	tx?: Tx
): Promise<void> {
	const apply = async (t: Tx) => {
		await upsertProgress(database, ws, jobId, plan.updates, t);
		const settled = new Set(plan.updates.map((u) => u.assetPath));
		const untouched = [...new Set(plan.untouched)].filter((p) => !settled.has(p));
		if (untouched.length) {
			await t
				.delete(dbtRunProgress)
				.where(
					and(
						eq(dbtRunProgress.workspace, ws),
						eq(dbtRunProgress.jobId, jobId),
						eq(dbtRunProgress.status, 'running'),
						inArray(dbtRunProgress.assetPath, untouched)
					)
				);
		}
		await failRunningProgress(database, ws, jobId, unreportedMessage, t);
	};
	if (tx) await apply(tx);
	else await database.db.transaction(apply);
}

/** The status of a job whose cancel was asked for, or null when there is nothing to cancel. */
export async function requestCancel(database: Database, ws: string, jobId: string, by: string): Promise<JobStatus | null> {
	return database.db.transaction(async (tx) => {
		const [r] = await database.rows<{ status: JobStatus; kind: string; script_hash: string | null }>(
			sql`update job set cancel_requested = true,
			                   status = case when status = 'queued' then 'canceled' else status end,
			                   completed_at = case when status = 'queued' then now() else completed_at end,
			                   logs = logs || ${`canceled by ${by}\n`}
			     where workspace = ${ws} and id = ${jobId}::uuid and status in ('queued', 'running')
			 returning status, kind, script_hash::text as script_hash`,
			tx
		);
		// A deploy canceled before a worker took it never pins its version: a pending one goes too.
		if (r?.status === 'canceled' && r.kind === 'deploy' && r.script_hash !== null) {
			await database.rows(sql`delete from script where workspace = ${ws} and hash = ${r.script_hash}::bigint and pending`, tx);
		}
		return r?.status ?? null;
	});
}

/** The project archive of a version, or null when it was deployed from artifacts alone. */
export async function readArchive(database: Database, ws: string, hash: bigint): Promise<Uint8Array | null> {
	const [r] = await database.db
		.select({ data: scriptArchive.data })
		.from(scriptArchive)
		.where(and(eq(scriptArchive.workspace, ws), eq(scriptArchive.hash, hash)))
		.limit(1);
	return r ? new Uint8Array(r.data) : null;
}

/** unique_id → asset path of one stored graph's nodes that have a relation. */
export async function nodeAssetPaths(database: Database, key: GraphKey): Promise<Map<string, string>> {
	const where =
		key.scriptHash === null
			? and(eq(dbtNode.workspace, key.workspace), eq(dbtNode.jobId, key.jobId), isNull(dbtNode.scriptHash))
			: and(
					eq(dbtNode.workspace, key.workspace),
					eq(dbtNode.scriptPath, key.scriptPath),
					eq(dbtNode.scriptHash, key.scriptHash),
					eq(dbtNode.jobId, key.jobId)
				);
	const rows = await database.db.select({ u: dbtNode.uniqueId, p: dbtNode.assetPath }).from(dbtNode).where(where);
	const out = new Map<string, string>();
	for (const r of rows) if (r.p) out.set(r.u, r.p);
	return out;
}

/** Whether cancellation was asked for (a worker checks between phases). */
export async function cancelRequested(database: Database, jobId: string): Promise<boolean> {
	const [r] = await database.rows<{ c: boolean }>(sql`select cancel_requested as c from job where id = ${jobId}::uuid`);
	return r?.c === true;
}
