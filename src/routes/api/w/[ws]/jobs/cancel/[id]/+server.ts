// POST jobs/cancel/{id}: cancel a queued or running job (its dbt process tree is stopped).
import { requireCancelAccess, workspacePrincipal } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { handleApi, jsonSafe } from '$lib/server/http';
import { cancelRun, jobToCancel } from '$lib/server/runner/enqueue';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = handleApi(async (event) => {
	const p = await workspacePrincipal(event, event.params.ws);
	const database = await getDatabase();
	const job = await jobToCancel(database, p.workspace, event.params.id);
	requireCancelAccess(p, job);
	return jsonSafe(await cancelRun(database, p, job));
});
