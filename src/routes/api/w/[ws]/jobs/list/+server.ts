// GET jobs/list: the jobs the caller may read, newest first, filtered by the read rule in SQL.
import { jobListAccess, requireScope, workspacePrincipal } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { handleApi, jsonSafe } from '$lib/server/http';
import { jobSummaryOf, parseJobListQuery } from '$lib/server/jobs-api';
import { listJobs } from '$lib/server/repo/jobs';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const p = await workspacePrincipal(event, event.params.ws);
	requireScope(p, 'jobs', 'read');
	const filter = parseJobListQuery(event.url.searchParams);
	const rows = await listJobs(await getDatabase(), p.workspace, filter, jobListAccess(p));
	return jsonSafe(rows.map(jobSummaryOf), { headers: { 'cache-control': 'private, no-store' } });
});
