// The job reads behind jobs/get, jobs/list, jobs/run_progress and the project and run pages:
// each takes what the access layer decided (a job's access, or the caller's principal) and
// answers in the wire types, authored parts left out where the caller may not read them.
import { jobListAccess, JobNotFoundError, requireScope, type JobAccess, type Principal } from '../../access';
import { getDatabase } from '../../db';
import { jobDetailOf, jobSummaryOf, progressItemOf, type JobLogQuery } from '../../jobs-api';
import { getJobPayload, getJobPayloadFrom, getJobPayloadLogPresence, getJobPayloadWithoutLog, jobPollWithoutLog, listJobs, progressSince, type JobListFilter, type JobListRow, type JobPayload } from '../../repo/jobs';
import { JOB_LOG_TAIL, type JobPoll, type JobSummary, type RunProgressChanges } from '../../../types/jobs';

/** One job as jobs/get answers it, and the progress cursor header when progress was asked. */
export async function jobPoll(a: JobAccess, q: JobLogQuery): Promise<{ answer: JobPoll; cursor: string | null }> {
	const database = await getDatabase();
	let answer: JobPoll;
	if (q.progressSince !== null && q.progressSince !== 0n && (q.mode === 'none' || !a.canReadScript)) {
		// The run page's usual poll (no log, progress changes): one statement.
		const p = await jobPollWithoutLog(database, a.job.workspace, a.job.id, q.progressSince);
		if (!p) throw new JobNotFoundError();
		answer = jobDetailOf(a.job, p.payload, a.canReadScript);
		if (q.mode === 'from') answer = { ...answer, log_from: 0, log_length: 0 };
		answer.progress = { cursor: p.changes.cursor, total: p.changes.total, rows: p.changes.rows.map((r) => progressItemOf(r, a.canReadScript)) };
		return { answer, cursor: p.changes.cursor };
	}
	if (q.mode === 'from' && a.canReadScript) {
		const p = await getJobPayloadFrom(database, a.job.workspace, a.job.id, q.offset, JOB_LOG_TAIL);
		if (!p) throw new JobNotFoundError();
		answer = {
			...jobDetailOf(a.job, { args: p.args, result: p.result, logs: p.logs, logsTruncated: p.from > q.offset }, true),
			log_from: p.from,
			log_length: p.length
		};
	} else {
		// A redacted answer carries no log, and neither does logs=false: the log is not read at all.
		const withLog = a.canReadScript && q.mode === 'tail';
		const payload = withLog ? await getJobPayload(database, a.job.workspace, a.job.id, JOB_LOG_TAIL) : await getJobPayloadWithoutLog(database, a.job.workspace, a.job.id);
		if (!payload) throw new JobNotFoundError();
		answer = jobDetailOf(a.job, payload, a.canReadScript);
		// A redacted log_offset answer: no log, nothing of it to continue from.
		if (q.mode === 'from') answer = { ...answer, log_from: 0, log_length: 0 };
	}
	if (q.progressSince === null) return { answer, cursor: null };
	const c = await progressSince(database, a.job.workspace, a.job.id, q.progressSince);
	answer.progress = { cursor: c.cursor, total: c.total, rows: c.rows.map((r) => progressItemOf(r, a.canReadScript)) };
	return { answer, cursor: c.cursor };
}

/** A run's progress rows after `since` (every row from 0), redacted as the job's access says. */
export async function runProgressOf(a: JobAccess, since: bigint): Promise<RunProgressChanges> {
	const c = await progressSince(await getDatabase(), a.job.workspace, a.job.id, since);
	return { cursor: c.cursor, total: c.total, rows: c.rows.map((r) => progressItemOf(r, a.canReadScript)) };
}

/** The jobs the caller may read, newest first, filtered by the read rule in SQL (jobs:read scope). */
export async function jobListAs(p: Principal, filter: JobListFilter): Promise<JobSummary[]> {
	requireScope(p, 'jobs', 'read');
	return (await jobRowsAs(p, filter)).map(jobSummaryOf);
}

/** The rows of jobs/list, for pages that read more of each job than its summary. */
export async function jobRowsAs(p: Principal, filter: JobListFilter): Promise<JobListRow[]> {
	return listJobs(await getDatabase(), p.workspace, filter, jobListAccess(p));
}

/** A job's arguments and result without its log (the caller already holds the job's access). */
export async function jobResultOf(ws: string, jobId: string): Promise<JobPayload | null> {
	return getJobPayload(await getDatabase(), ws, jobId, 0);
}

/** A job for its run page: no log, only whether there is one. */
export async function jobForRunPage(a: JobAccess): Promise<(JobPayload & { hasLog: boolean }) | null> {
	return getJobPayloadLogPresence(await getDatabase(), a.job.workspace, a.job.id);
}
