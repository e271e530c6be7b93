// GET jobs/get/{id}: one job, its result and log tail, for anyone with job read access (a share
// link included); the authored parts only for a caller who may read the job's script.
// `?logs=false` leaves the log out (a poll that does not show it); `?log_offset=N` sends only
// the log after the N characters the caller already holds (a live log read incrementally);
// `?progress_since=<cursor>` adds the run's progress changes since the cursor (what
// jobs/run_progress?since= answers), so a run page polls with one request, one authentication
// and one access check instead of two.
import { runGrant } from '$lib/server/access';
import { jobPoll } from '$lib/server/api/jobs/reads';
import { handleApi, jsonSafe } from '$lib/server/http';
import { parseJobGetQuery } from '$lib/server/api/jobs/parse';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const q = parseJobGetQuery(event.url.searchParams);
	const grant = await runGrant(event, event.params.ws, event.params.id);
	const { answer, cursor } = await jobPoll(grant, q);
	return jsonSafe(answer, { headers: { 'cache-control': 'private, no-store', ...(cursor === null ? {} : { 'x-progress-cursor': cursor }) } });
});
