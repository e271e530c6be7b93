// The job reads behind jobs/get, jobs/list, jobs/run_progress and the project and run pages:
// each takes the caller's grant (a run's, or the member's in the workspace) and answers in the
// wire types, authored parts left out where the grant redacts them.
import { JobNotFoundError, type Grant, type RunGrant } from '../../access';
import { getDatabase } from '../../db';
import { jobDetailOf, jobSummaryOf, progressItemOf } from './wire';
import type { JobLogQuery } from './parse';
import { getJobPayload, getJobPayloadFrom, getJobPayloadLogPresence, getJobPayloadWithoutLog, jobPollWithoutLog, listJobs, progressSince, type JobListFilter, type JobListRow, type JobPayload } from '../../repo/jobs';
import { JOB_LOG_TAIL, type JobDetail, type JobPoll, type JobSummary, type RunProgressChanges, type RunProgressItem } from '../../../types/jobs';

/** One job as jobs/get answers it, and the progress cursor header when progress was asked. */
export async function jobPoll(grant: RunGrant, q: JobLogQuery): Promise<{ answer: JobPoll; cursor: string | null }> {
	const database = await getDatabase();
	const job = grant.job;
	const authored = grant.redactRun() === 'authored';
	let answer: JobPoll;
	if (q.progressSince !== null && q.progressSince !== 0n && (q.mode === 'none' || !authored)) {
		// The run page's usual poll (no log, progress changes): one statement.
		const p = await jobPollWithoutLog(database, job.workspace, job.id, q.progressSince);
		if (!p) throw new JobNotFoundError();
		answer = jobDetailOf(grant, p.payload);
		if (q.mode === 'from') answer = { ...answer, log_from: 0, log_length: 0 };
		answer.progress = { cursor: p.changes.cursor, total: p.changes.total, rows: p.changes.rows.map((r) => progressItemOf(grant, r)) };
		return { answer, cursor: p.changes.cursor };
	}
	if (q.mode === 'from' && authored) {
		const p = await getJobPayloadFrom(database, job.workspace, job.id, q.offset, JOB_LOG_TAIL);
		if (!p) throw new JobNotFoundError();
		answer = {
			...jobDetailOf(grant, { args: p.args, result: p.result, logs: p.logs, logsTruncated: p.from > q.offset }),
			log_from: p.from,
			log_length: p.length
		};
	} else {
		// A redacted answer carries no log, and neither does logs=false: the log is not read at all.
		const withLog = authored && q.mode === 'tail';
		const payload = withLog ? await getJobPayload(database, job.workspace, job.id, JOB_LOG_TAIL) : await getJobPayloadWithoutLog(database, job.workspace, job.id);
		if (!payload) throw new JobNotFoundError();
		answer = jobDetailOf(grant, payload);
		// A redacted log_offset answer: no log, nothing of it to continue from.
		if (q.mode === 'from') answer = { ...answer, log_from: 0, log_length: 0 };
	}
	if (q.progressSince === null) return { answer, cursor: null };
	const c = await progressSince(database, job.workspace, job.id, q.progressSince);
	answer.progress = { cursor: c.cursor, total: c.total, rows: c.rows.map((r) => progressItemOf(grant, r)) };
	return { answer, cursor: c.cursor };
}

/** A run's progress rows after `since` (every row from 0), redacted as the run's grant says. */
export async function runProgressOf(grant: RunGrant, since: bigint): Promise<RunProgressChanges> {
	const c = await progressSince(await getDatabase(), grant.job.workspace, grant.job.id, since);
	return { cursor: c.cursor, total: c.total, rows: c.rows.map((r) => progressItemOf(grant, r)) };
}

/** The jobs the caller may read, newest first, filtered by the read rule in SQL (jobs:read scope). */
export async function jobListAs(grant: Grant, filter: JobListFilter): Promise<JobSummary[]> {
	grant.require('jobs', 'read');
	return (await jobRowsAs(grant, filter)).map(jobSummaryOf);
}

/** The rows of jobs/list, for pages that read more of each job than its summary. */
export async function jobRowsAs(grant: Grant, filter: JobListFilter): Promise<JobListRow[]> {
	return listJobs(await getDatabase(), grant.workspace, filter, grant.jobListing());
}

/** A job's arguments and result without its log, for a job the caller listed with jobRowsAs. */
export async function jobResultOf(grant: Grant, jobId: string): Promise<JobPayload | null> {
	return getJobPayload(await getDatabase(), grant.workspace, jobId, 0);
}

/** A job for its run page: no log, only whether there is one. */
export async function jobForRunPage(grant: RunGrant): Promise<(JobPayload & { hasLog: boolean }) | null> {
	return getJobPayloadLogPresence(await getDatabase(), grant.job.workspace, grant.job.id);
}

/** A run's status for the MCP run_status tool: its detail without a log, and every progress row, redacted as the grant says. */
export async function runStatusOf(grant: RunGrant): Promise<{ detail: JobDetail; rows: RunProgressItem[] }> {
	const database = await getDatabase();
	const payload = await getJobPayloadWithoutLog(database, grant.job.workspace, grant.job.id);
	const detail = jobDetailOf(grant, payload ?? { args: {}, result: null, logs: '', logsTruncated: false });
	const progress = await progressSince(database, grant.job.workspace, grant.job.id, 0n);
	return { detail, rows: progress.rows.map((r) => progressItemOf(grant, r)) };
}
