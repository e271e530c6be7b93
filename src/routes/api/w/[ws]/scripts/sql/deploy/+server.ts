// POST scripts/sql/deploy {path, content}: a producer script version, its lineage and its asset
// usage (DESIGN.md §7, §8).
import { workspaceGrant } from '$lib/server/access';
import { deploySqlAs } from '$lib/server/api/scripts/sql-deploy';
import { handleApi, jsonSafe } from '$lib/server/http';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = handleApi(async (event) => {
	const grant = await workspaceGrant(event, event.params.ws);
	return jsonSafe(await deploySqlAs(grant, event.request), { status: 201 });
});
