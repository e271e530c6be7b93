// GET jobs/list: the jobs the caller may read, newest first, filtered by the read rule in SQL.
import { workspaceGrant } from '$lib/server/access';
import { jobListAs } from '$lib/server/api/jobs/reads';
import { handleApi, jsonSafe } from '$lib/server/http';
import { parseJobListQuery } from '$lib/server/api/jobs/parse';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const grant = await workspaceGrant(event, event.params.ws);
	const rows = await jobListAs(grant, parseJobListQuery(event.url.searchParams));
	return jsonSafe(rows, { headers: { 'cache-control': 'private, no-store' } });
});
