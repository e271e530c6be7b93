// GET jobs/run_progress/{id}: the live state of each relation of a run, in asset-path order.
import { jobAccess } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { handleApi, jsonSafe } from '$lib/server/http';
import { progressItemOf } from '$lib/server/jobs-api';
import { progressOf } from '$lib/server/repo/jobs';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const a = await jobAccess(event, event.params.ws, event.params.id);
	const rows = await progressOf(await getDatabase(), a.job.workspace, a.job.id);
	return jsonSafe(rows.map(progressItemOf), { headers: { 'cache-control': 'private, no-store' } });
});
