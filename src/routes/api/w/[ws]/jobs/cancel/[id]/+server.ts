// POST jobs/cancel/{id}: cancel a queued or running job (its dbt process tree is stopped).
import { workspaceGrant } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { handleApi, jsonSafe } from '$lib/server/http';
import { cancelRun, jobToCancel } from '$lib/server/runner/enqueue';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = handleApi(async (event) => {
	const grant = await workspaceGrant(event, event.params.ws);
	const database = await getDatabase();
	const job = await jobToCancel(database, grant.workspace, event.params.id);
	return jsonSafe(await cancelRun(grant, database, job));
});
