// Job rows and their live progress. The runner (its own room) will add claiming; deploys and
// previews create finished jobs here so every upload has a page and a log.
import { randomUUID } from 'node:crypto';
import { and, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { JobKind, JobStatus, ProgressStatus } from '../../types/jobs';
import { toNumber, type Database, type Tx } from '../db';
import { dbtRunProgress, job } from '../schema';

export type { JobKind, JobStatus } from '../../types/jobs';

export interface NewJob {
	workspace: string;
	kind: JobKind;
	scriptPath: string | null;
	scriptHash: bigint | null;
	createdBy: string;
	permissionedAs: string;
	status: JobStatus;
	args?: Record<string, unknown>;
	result?: unknown;
	logs?: string;
	parentJob?: string | null;
	timeoutS?: number | null;
	/** Defaults to now; set by tests (and imports of recorded runs) that need a given order. */
	createdAt?: Date;
}

export async function insertJob(tx: Tx, j: NewJob, id: string = randomUUID()): Promise<string> {
	const now = new Date();
	const finished = j.status === 'success' || j.status === 'failure' || j.status === 'canceled';
	await tx.insert(job).values({
		id,
		...j,
		args: j.args ?? {},
		result: j.result ?? null,
		logs: j.logs ?? '',
		startedAt: j.status === 'queued' ? null : now,
		completedAt: finished ? now : null
	});
	return id;
}

export async function getJob(tx: Tx, workspace: string, id: string) {
	const r = await tx
		.select()
		.from(job)
		.where(and(eq(job.workspace, workspace), eq(job.id, id)))
		.limit(1);
	return r[0] ?? null;
}

export async function appendJobLog(tx: Tx, id: string, text: string): Promise<void> {
	await tx
		.update(job)
		.set({ logs: sql`${job.logs} || ${text}` })
		.where(eq(job.id, id));
}

// ─── Reads for the jobs/* API ──────────────────────────────────────────────────────────────

/** What a gate and a pinned read need to know about a job: everything but its payload. */
export interface JobView {
	id: string;
	workspace: string;
	kind: JobKind;
	status: JobStatus;
	scriptPath: string | null;
	scriptHash: bigint | null;
	createdBy: string;
	permissionedAs: string;
	parentJob: string | null;
	createdAt: Date;
	startedAt: Date | null;
	completedAt: Date | null;
}

const viewColumns = {
	id: job.id,
	workspace: job.workspace,
	kind: job.kind,
	status: job.status,
	scriptPath: job.scriptPath,
	scriptHash: job.scriptHash,
	createdBy: job.createdBy,
	permissionedAs: job.permissionedAs,
	parentJob: job.parentJob,
	createdAt: job.createdAt,
	startedAt: job.startedAt,
	completedAt: job.completedAt
};

const asView = (r: { kind: string; status: string } & Omit<JobView, 'kind' | 'status'>): JobView => ({
	...r,
	kind: r.kind as JobKind,
	status: r.status as JobStatus
});

/** The job `id` of workspace `ws` (without args, result or log), or null. */
export async function getJobView(database: Database, ws: string, id: string, tx?: Tx): Promise<JobView | null> {
	const [r] = await (tx ?? database.db)
		.select(viewColumns)
		.from(job)
		.where(and(eq(job.workspace, ws), eq(job.id, id)))
		.limit(1);
	return r ? asView(r) : null;
}

export interface JobPayload {
	args: unknown;
	result: unknown;
	/** The last `tailChars` characters of the log. */
	logs: string;
	logsTruncated: boolean;
}

/** A job's args, result and log tail (cut in SQL, so a long log never crosses the wire whole). */
export async function getJobPayload(database: Database, ws: string, id: string, tailChars: number): Promise<JobPayload | null> {
	const [r] = await database.rows<{ args: unknown; result: unknown; logs: string; truncated: boolean }>(
		sql`select args, result, right(logs, ${tailChars}::int) as logs, length(logs) > ${tailChars}::int as truncated
		      from job
		     where workspace = ${ws} and id = ${id}::uuid`
	);
	return r ? { args: r.args, result: r.result, logs: r.logs, logsTruncated: r.truncated } : null;
}

/** A job's args and result without its log (`logs=false`: the log is not even read). */
export async function getJobPayloadWithoutLog(database: Database, ws: string, id: string): Promise<JobPayload | null> {
	const [r] = await database.rows<{ args: unknown; result: unknown }>(sql`select args, result from job where workspace = ${ws} and id = ${id}::uuid`);
	return r ? { args: r.args, result: r.result, logs: '', logsTruncated: false } : null;
}

/**
 * A job's args and result, and whether it has a log, without reading the log: text equality
 * compares stored lengths first, so `<> ''` leaves a long log in its TOAST.
 */
export async function getJobPayloadLogPresence(database: Database, ws: string, id: string): Promise<(JobPayload & { hasLog: boolean }) | null> {
	const [r] = await database.rows<{ args: unknown; result: unknown; has_log: boolean }>(sql`select args, result, logs <> '' as has_log from job where workspace = ${ws} and id = ${id}::uuid`);
	return r ? { args: r.args, result: r.result, logs: '', logsTruncated: false, hasLog: r.has_log } : null;
}

/** A job's args, result and the part of its log from character `offset` on (`log_offset=`). */
export interface JobPayloadFrom {
	args: unknown;
	result: unknown;
	/** The log from `from` to its end (at most `tailChars` characters). */
	logs: string;
	/** Where `logs` starts, in characters: `offset`, or later when the part after it was longer than the tail. */
	from: number;
	/** The whole log's length in characters (Postgres `length`, i.e. code points): the next `offset`. */
	length: number;
}

/**
 * The log after `offset` characters, for a page that already holds the first `offset` (a live
 * log read incrementally): only the new part crosses the wire, and at most its last `tailChars`.
 * The inner query runs once (`offset 0` keeps it from being flattened), so the log is measured
 * once and cut once.
 */
export async function getJobPayloadFrom(database: Database, ws: string, id: string, offset: number, tailChars: number): Promise<JobPayloadFrom | null> {
	const [r] = await database.rows<{ args: unknown; result: unknown; logs: string; from: unknown; length: unknown }>(
		sql`select args, result, len as length,
		           greatest(least(${offset}::bigint, len), len - ${tailChars}::int) as "from",
		           substr(logs, (greatest(least(${offset}::bigint, len), len - ${tailChars}::int) + 1)::int) as logs
		      from (select args, result, logs, length(logs)::bigint as len
		              from job
		             where workspace = ${ws} and id = ${id}::uuid
		            offset 0) j`
	);
	return r ? { args: r.args, result: r.result, logs: r.logs, from: toNumber(r.from), length: toNumber(r.length) } : null;
}

/** How far up the parent chain a share link reaches: deeper chains are not a thing we create. */
export const MAX_JOB_DEPTH = 32;

/**
 * Whether `jobId` is `ancestorId` or lies below it on the parent_job chain (at most
 * MAX_JOB_DEPTH steps up, inside the workspace). Walked upwards from the asked job, so the cost
 * is the depth of one chain, never the size of a tree; the depth bound also ends a cycle.
 */
export async function isJobWithin(database: Database, ws: string, jobId: string, ancestorId: string): Promise<boolean> {
	if (jobId === ancestorId) return true;
	const [r] = await database.rows<{ found: boolean }>(
		sql`with recursive chain (id, parent_job, depth) as (
		        select id, parent_job, 0 from job where workspace = ${ws} and id = ${jobId}::uuid
		        union all
		        select j.id, j.parent_job, c.depth + 1
		          from job j join chain c on j.id = c.parent_job
		         where j.workspace = ${ws} and c.depth < ${MAX_JOB_DEPTH}::int
		    )
		    select exists (select 1 from chain where id = ${ancestorId}::uuid) as found`
	);
	return r?.found === true;
}

export interface JobListFilter {
	scriptPath?: string;
	kind?: JobKind;
	status?: JobStatus;
	limit: number;
}

export interface JobListRow {
	id: string;
	kind: JobKind;
	status: JobStatus;
	scriptPath: string | null;
	scriptHash: bigint | null;
	createdBy: string;
	createdAt: Date;
	completedAt: Date | null;
	/** The dbt command it ran (`build`, `run`, …; a recorded run's `which`), or null. */
	command: string | null;
}

/** A token's narrowing of a domain's paths, as data for SQL (built by scopePathFilter in access/). */
export type ScopePathFilter = { all: true } | { all: false; exact: string[]; prefixes: string[] };

/** What listJobs needs to apply the job read rule and the token's `jobs:read` paths in SQL (built by jobListAccess in access/). */
export interface JobListAccess {
	username: string;
	readable: { all: boolean; folders: string[]; userPrefix: string };
	scope: ScopePathFilter;
}

/**
 * The jobs the caller may read, newest first. The read rule is part of the WHERE clause, so the
 * LIMIT counts readable jobs only (filtering after it would starve a page of results).
 */
export async function listJobs(database: Database, ws: string, filter: JobListFilter, access: JobListAccess): Promise<JobListRow[]> {
	const conds: SQL[] = [eq(job.workspace, ws)];
	if (filter.scriptPath !== undefined) conds.push(eq(job.scriptPath, filter.scriptPath));
	if (filter.kind !== undefined) conds.push(eq(job.kind, filter.kind));
	if (filter.status !== undefined) conds.push(eq(job.status, filter.status));
	if (!access.readable.all) {
		// Mirrors canReadPath: a folder's scripts are `f/<folder>/...`; a user's own `u/<me>/...`.
		conds.push(
			sql`(${job.createdBy} = ${access.username}
			     or (split_part(${job.scriptPath}, '/', 1) = 'f'
			         and split_part(${job.scriptPath}, '/', 2) = any(${sql.param(access.readable.folders)}::text[]))
			     or starts_with(${job.scriptPath}, ${access.readable.userPrefix}))`
		);
	}
	if (!access.scope.all) {
		// A token narrowed to paths reads only jobs of those paths (prefixes end with `/`).
		conds.push(
			sql`(${job.scriptPath} = any(${sql.param(access.scope.exact)}::text[])
			     or exists (select 1 from unnest(${sql.param(access.scope.prefixes)}::text[]) as pre(p)
			                 where length(${job.scriptPath}) > length(pre.p) and starts_with(${job.scriptPath}, pre.p)))`
		);
	}
	const rows = await database.db
		.select({
			id: job.id,
			kind: job.kind,
			status: job.status,
			scriptPath: job.scriptPath,
			scriptHash: job.scriptHash,
			createdBy: job.createdBy,
			createdAt: job.createdAt,
			completedAt: job.completedAt,
			command: sql<string | null>`coalesce(${job.args}->>'command', ${job.args}->>'which')`
		})
		.from(job)
		.where(and(...conds))
		.orderBy(desc(job.createdAt), desc(job.id))
		.limit(filter.limit);
	return rows.map((r) => ({ ...r, kind: r.kind as JobKind, status: r.status as JobStatus }));
}

// ─── Run progress ──────────────────────────────────────────────────────────────────────────

export interface ProgressRow {
	assetKind: string;
	assetPath: string;
	status: ProgressStatus;
	rowCount: number | null;
	error: string | null;
}

/** The progress rows of one job, in asset-path order (stable for a polling page). */
export async function progressOf(database: Database, ws: string, jobId: string): Promise<ProgressRow[]> {
	const rows = await database.db
		.select({
			assetKind: dbtRunProgress.assetKind,
			assetPath: dbtRunProgress.assetPath,
			status: dbtRunProgress.status,
			rowCount: dbtRunProgress.rowCount,
			error: dbtRunProgress.error
		})
		.from(dbtRunProgress)
		.where(and(eq(dbtRunProgress.workspace, ws), eq(dbtRunProgress.jobId, jobId)))
		.orderBy(dbtRunProgress.assetPath, dbtRunProgress.assetKind);
	return rows.map((r) => ({ ...r, status: r.status as ProgressStatus }));
}

/**
 * Progress changes since a cursor (`jobs/run_progress/{id}?since=`). The cursor is a
 * transaction id, not a time: `updated_at` is the writing transaction's start time, so a row
 * written by a transaction that began before a read but committed after it would carry a time
 * older than that read's and be missed forever by a time cursor, whatever the clock's
 * granularity.
 *
 * Instead each answer comes from one statement (one snapshot) that also returns the snapshot's
 * xmin: every transaction whose writes the snapshot could not see (in progress then, or begun
 * later) has an xid at or above it, and so has every row version it writes (an upsert writes a
 * new version; a savepoint's subtransaction id is above its parent's). The next read returns
 * the rows whose version's xid is at or above that cursor. A row may come twice (a long
 * transaction elsewhere holds xmin back), never not at all; clients merge by key.
 *
 * A row's `xmin` is 32 bits: it is compared with the cursor through `age()` (both measured
 * from the same current xid, so valid while both are within 2^31 of it). A cursor from the
 * future (another database) or more than 2^31 transactions old answers every row. Deleted rows cannot be seen as changes:
 * `total` (rows now) lets a client notice that it holds more rows than exist and re-read in full.
 */
export interface ProgressChanges {
	rows: ProgressRow[];
	/** The cursor of the next read (decimal 64-bit transaction id). */
	cursor: string;
	/** How many progress rows the job has now. */
	total: number;
}

const XID_WRAP = 4294967296n;
const XID_HORIZON = 2147483648n;

/** Rows of `jobId` changed since `since` (a cursor from an earlier answer; 0n for all of them). */
export async function progressSince(database: Database, ws: string, jobId: string, since: bigint): Promise<ProgressChanges> {
	if (since === 0n) {
		// Every row: the cursor is read first, so it is at or before the rows' snapshot (a row
		// may come again at the next read, none can be missed); the plain read is the cheapest.
		const [c] = await database.rows<{ lo: string }>(sql`select pg_snapshot_xmin(pg_current_snapshot())::text as lo`);
		const all = await progressOf(database, ws, jobId);
		return { cursor: c.lo, total: all.length, rows: all };
	}
	const [r] = await database.rows<ChangesRow>(sql`${changesSelect(ws, jobId, since)}`);
	return changesOf(r);
}

interface ChangesRow {
	lo: string;
	total: unknown;
	rows: unknown;
}

/**
 * The one-row statement behind progressSince (since > 0). `age()` measures both xids from the
 * same current xid in 32-bit arithmetic, so a row is at or after the cursor when its age is at
 * most the cursor's (both within 2^31 of now). One scan of the job's rows answers both the count
 * and the changed rows (as JSON, in asset-path order); the snapshot's xmin and xmax come from
 * the same statement's snapshot.
 */
function changesSelect(ws: string, jobId: string, since: bigint): SQL {
	const c32 = (since % XID_WRAP).toString();
	return sql`select (select pg_snapshot_xmin(pg_current_snapshot())::text) as lo,
	                  count(*) as total,
	                  coalesce(json_agg(json_build_array(p.asset_kind, p.asset_path, p.status, p.row_count, p.error) order by p.asset_path, p.asset_kind)
	                           filter (where age(p.xmin) <= age(${c32}::xid)
	                                      or ${since.toString()}::bigint > (select pg_snapshot_xmax(pg_current_snapshot())::text::bigint)
	                                      or (select pg_snapshot_xmax(pg_current_snapshot())::text::bigint) - ${since.toString()}::bigint > ${XID_HORIZON.toString()}::bigint),
	                           '[]'::json) as rows
	             from dbt_run_progress p
	            where p.workspace = ${ws} and p.job_id = ${jobId}::uuid`;
}

function changesOf(r: ChangesRow): ProgressChanges {
	const list = (typeof r.rows === 'string' ? JSON.parse(r.rows) : r.rows) as [string, string, string, number | null, string | null][];
	return {
		cursor: r.lo,
		total: toNumber(r.total),
		rows: list.map(([assetKind, assetPath, status, rowCount, error]) => ({ assetKind, assetPath, status: status as ProgressStatus, rowCount, error }))
	};
}

/**
 * A run page's poll without the log, in ONE statement: the job's args and result and its
 * progress changes since `since` (a cursor; for 0n use progressSince, whose full read is
 * cheaper). Null when the job is gone.
 */
export async function jobPollWithoutLog(database: Database, ws: string, id: string, since: bigint): Promise<{ payload: JobPayload; changes: ProgressChanges } | null> {
	if (since === 0n) {
		const payload = await getJobPayloadWithoutLog(database, ws, id);
		return payload && { payload, changes: await progressSince(database, ws, id, 0n) };
	}
	const [r] = await database.rows<ChangesRow & { args: unknown; result: unknown }>(
		sql`select j.args, j.result, pr.lo, pr.total, pr.rows
		      from job j
		      cross join lateral (${changesSelect(ws, id, since)}) pr
		     where j.workspace = ${ws} and j.id = ${id}::uuid`
	);
	return r ? { payload: { args: r.args, result: r.result, logs: '', logsTruncated: false }, changes: changesOf(r) } : null;
}

/** A `since` cursor as a client sends it: a decimal transaction id, or null when malformed. */
export function parseProgressCursor(s: string): bigint | null {
	if (!/^[0-9]{1,19}$/.test(s)) return null;
	const v = BigInt(s);
	return v <= 9223372036854775807n ? v : null;
}

export type ProgressUpdate = Omit<ProgressRow, 'rowCount' | 'error'> & { rowCount?: number | null; error?: string | null };

const PROGRESS_BATCH = 1000;

/**
 * Writes the latest state of each relation of a job (the last event wins: a row count or error
 * not carried by the new state is cleared). Batched so a 3000-model settlement is a few
 * statements.
 */
export async function upsertProgress(database: Database, ws: string, jobId: string, updates: ProgressUpdate[], tx?: Tx): Promise<void> {
	// One statement may not touch a row twice, so repeated relations keep their last update.
	const latest = new Map<string, ProgressUpdate>();
	for (const u of updates) latest.set(`${u.assetKind}\u0000${u.assetPath}`, u);
	const unique = [...latest.values()];
	for (let i = 0; i < unique.length; i += PROGRESS_BATCH) {
		const batch = unique.slice(i, i + PROGRESS_BATCH);
		await (tx ?? database.db)
			.insert(dbtRunProgress)
			.values(
				batch.map((u) => ({
					workspace: ws,
					jobId,
					assetKind: u.assetKind,
					assetPath: u.assetPath,
					status: u.status,
					rowCount: u.rowCount ?? null,
					error: u.error ?? null
				}))
			)
			.onConflictDoUpdate({
				target: [dbtRunProgress.workspace, dbtRunProgress.jobId, dbtRunProgress.assetKind, dbtRunProgress.assetPath],
				set: {
					status: sql`excluded.status`,
					rowCount: sql`excluded.row_count`,
					error: sql`excluded.error`,
					updatedAt: sql`now()`
				}
			});
	}
}
