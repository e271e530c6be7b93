// GET jobs/get/{id}: one job, its result and log tail, for anyone with job read access (a share
// link included); the authored parts only for a caller who may read the job's script.
import { jobAccess, JobNotFoundError } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { handleApi, jsonSafe } from '$lib/server/http';
import { jobDetailOf } from '$lib/server/jobs-api';
import { getJobPayload } from '$lib/server/repo/jobs';
import { JOB_LOG_TAIL } from '$lib/types/jobs';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const a = await jobAccess(event, event.params.ws, event.params.id);
	// A redacted answer carries no log, so it is not read at all.
	const payload = await getJobPayload(await getDatabase(), a.job.workspace, a.job.id, a.canReadScript ? JOB_LOG_TAIL : 0);
	if (!payload) throw new JobNotFoundError();
	return jsonSafe(jobDetailOf(a.job, payload, a.canReadScript), { headers: { 'cache-control': 'private, no-store' } });
});
