// POST jobs/run/p/{path}: queue a dbt run of the newest version of a script; answers {job_id}.
import { requireRunAccess, workspacePrincipal } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { handleApi, jsonSafe, readJsonObject } from '$lib/server/http';
import { queueRun } from '$lib/server/runner/enqueue';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = handleApi(async (event) => {
	const p = await workspacePrincipal(event, event.params.ws);
	const path = event.params.path;
	requireRunAccess(p, path);
	const body = await readJsonObject(event.request);
	return jsonSafe(await queueRun(await getDatabase(), p, path, body), { status: 201 });
});
