// GET jobs/get/{id}: one job, its result and log tail, for anyone with job read access (a share
// link included); the authored parts only for a caller who may read the job's script.
// `?logs=false` leaves the log out (a poll that does not show it); `?log_offset=N` sends only
// the log after the N characters the caller already holds (a live log read incrementally);
// `?progress_since=<cursor>` adds the run's progress changes since the cursor (what
// jobs/run_progress?since= answers), so a run page polls with one request, one authentication
// and one access check instead of two.
import { jobAccess, JobNotFoundError } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { handleApi, jsonSafe } from '$lib/server/http';
import { jobDetailOf, parseJobGetQuery, progressItemOf } from '$lib/server/jobs-api';
import { getJobPayload, getJobPayloadFrom, getJobPayloadWithoutLog, jobPollWithoutLog, progressSince } from '$lib/server/repo/jobs';
import { JOB_LOG_TAIL, type JobPoll } from '$lib/types/jobs';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const q = parseJobGetQuery(event.url.searchParams);
	const a = await jobAccess(event, event.params.ws, event.params.id);
	const database = await getDatabase();
	let answer: JobPoll;
	const headers: Record<string, string> = { 'cache-control': 'private, no-store' };
	if (q.progressSince !== null && q.progressSince !== 0n && (q.mode === 'none' || !a.canReadScript)) {
		// The run page's usual poll (no log, progress changes): one statement.
		const p = await jobPollWithoutLog(database, a.job.workspace, a.job.id, q.progressSince);
		if (!p) throw new JobNotFoundError();
		answer = jobDetailOf(a.job, p.payload, a.canReadScript);
		if (q.mode === 'from') answer = { ...answer, log_from: 0, log_length: 0 };
		answer.progress = { cursor: p.changes.cursor, total: p.changes.total, rows: p.changes.rows.map((r) => progressItemOf(r, a.canReadScript)) };
		headers['x-progress-cursor'] = p.changes.cursor;
		return jsonSafe(answer, { headers });
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
	if (q.progressSince !== null) {
		const c = await progressSince(database, a.job.workspace, a.job.id, q.progressSince);
		answer.progress = { cursor: c.cursor, total: c.total, rows: c.rows.map((r) => progressItemOf(r, a.canReadScript)) };
		headers['x-progress-cursor'] = c.cursor;
	}
	return jsonSafe(answer, { headers });
});
