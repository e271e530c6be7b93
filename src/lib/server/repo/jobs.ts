// Job rows and their live progress. The runner (its own room) will add claiming; deploys and
// previews create finished jobs here so every upload has a page and a log.
import { randomUUID } from 'node:crypto';
import { and, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { JobKind, JobStatus, ProgressStatus } from '../../types/jobs';
import type { JobListAccess } from '../access';
import type { Database, Tx } from '../db';
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
export async function getJobView(h: Database, ws: string, id: string, tx?: Tx): Promise<JobView | null> {
	const [r] = await (tx ?? h.db)
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
export async function getJobPayload(h: Database, ws: string, id: string, tailChars: number): Promise<JobPayload | null> {
	const [r] = await h.rows<{ args: unknown; result: unknown; logs: string; truncated: boolean }>(
		sql`select args, result, right(logs, ${tailChars}::int) as logs, length(logs) > ${tailChars}::int as truncated
		      from job
		     where workspace = ${ws} and id = ${id}::uuid`
	);
	return r ? { args: r.args, result: r.result, logs: r.logs, logsTruncated: r.truncated } : null;
}

/** How far up the parent chain a share link reaches: deeper chains are not a thing we create. */
export const MAX_JOB_DEPTH = 32;

/**
 * Whether `jobId` is `ancestorId` or lies below it on the parent_job chain (at most
 * MAX_JOB_DEPTH steps up, inside the workspace). Walked upwards from the asked job, so the cost
 * is the depth of one chain, never the size of a tree; the depth bound also ends a cycle.
 */
export async function isJobWithin(h: Database, ws: string, jobId: string, ancestorId: string): Promise<boolean> {
	if (jobId === ancestorId) return true;
	const [r] = await h.rows<{ found: boolean }>(
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
}

/**
 * The jobs the caller may read, newest first. The read rule is part of the WHERE clause, so the
 * LIMIT counts readable jobs only (filtering after it would starve a page of results).
 */
export async function listJobs(h: Database, ws: string, filter: JobListFilter, access: JobListAccess): Promise<JobListRow[]> {
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
	const rows = await h.db
		.select({
			id: job.id,
			kind: job.kind,
			status: job.status,
			scriptPath: job.scriptPath,
			scriptHash: job.scriptHash,
			createdBy: job.createdBy,
			createdAt: job.createdAt,
			completedAt: job.completedAt
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
export async function progressOf(h: Database, ws: string, jobId: string): Promise<ProgressRow[]> {
	const rows = await h.db
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

export type ProgressUpdate = Omit<ProgressRow, 'rowCount' | 'error'> & { rowCount?: number | null; error?: string | null };

const PROGRESS_BATCH = 1000;

/**
 * Writes the latest state of each relation of a job (the last event wins: a row count or error
 * not carried by the new state is cleared). Batched so a 3000-model settlement is a few
 * statements.
 */
export async function upsertProgress(h: Database, ws: string, jobId: string, updates: ProgressUpdate[], tx?: Tx): Promise<void> {
	// One statement may not touch a row twice, so repeated relations keep their last update.
	const latest = new Map<string, ProgressUpdate>();
	for (const u of updates) latest.set(`${u.assetKind}\u0000${u.assetPath}`, u);
	const unique = [...latest.values()];
	for (let i = 0; i < unique.length; i += PROGRESS_BATCH) {
		const batch = unique.slice(i, i + PROGRESS_BATCH);
		await (tx ?? h.db)
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
