import { json } from '@sveltejs/kit';
import { workspaceGrant } from '$lib/server/access';
import { revokeTokenAs } from '$lib/server/api/settings/tokens';
import { handleApi } from '$lib/server/http';
import type { RequestHandler } from './$types';

/** Revokes a token: the caller's own, or any token of the workspace for an admin. */
export const DELETE: RequestHandler = handleApi(async (event) => {
	const grant = await workspaceGrant(event, event.params.ws);
	const { id, deleted } = await revokeTokenAs(grant, event.params.id);
	return json({ id, deleted });
});
