// POST jobs/run/p/{path}: queue a dbt run of the newest version of a script; answers {job_id}.
import { workspaceGrant } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { handleApi, jsonSafe, readJsonObject } from '$lib/server/http';
import { queueRun } from '$lib/server/runner/enqueue';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = handleApi(async (event) => {
	const grant = await workspaceGrant(event, event.params.ws);
	const path = event.params.path;
	grant.requireRun(path);
	const body = await readJsonObject(event.request);
	return jsonSafe(await queueRun(grant, await getDatabase(), path, body), { status: 201 });
});
