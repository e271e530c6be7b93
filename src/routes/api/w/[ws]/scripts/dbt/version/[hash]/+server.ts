// GET scripts/dbt/version/{hash}: one deployed version, its liveness and its engine lock.
import { workspaceGrant } from '$lib/server/access';
import { parseVersionHash, readVersion } from '$lib/server/api/scripts/version';
import { getDatabase } from '$lib/server/db';
import { handleApi, jsonSafe } from '$lib/server/http';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const hash = parseVersionHash(event.params.hash);
	const grant = await workspaceGrant(event, event.params.ws);
	return jsonSafe(await readVersion(grant, await getDatabase(), hash));
});
