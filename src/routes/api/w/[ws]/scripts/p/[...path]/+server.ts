// GET scripts/p/{path}: what deleting a project or producer would take away (its versions,
// graphs, runs and previews). DELETE scripts/p/{path}: deletes them, for a writer of the path.
import { workspaceGrant } from '$lib/server/access';
import { deleteScriptPath, readPathFootprint } from '$lib/server/api/scripts/delete';
import { getDatabase } from '$lib/server/db';
import { handleApi, jsonSafe } from '$lib/server/http';
import { requireScriptPath } from '$lib/server/paths';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const path = event.params.path;
	requireScriptPath(path);
	const grant = await workspaceGrant(event, event.params.ws);
	return jsonSafe(await readPathFootprint(grant, await getDatabase(), path));
});

export const DELETE: RequestHandler = handleApi(async (event) => {
	const path = event.params.path;
	requireScriptPath(path);
	const grant = await workspaceGrant(event, event.params.ws);
	return jsonSafe(await deleteScriptPath(grant, await getDatabase(), path));
});
