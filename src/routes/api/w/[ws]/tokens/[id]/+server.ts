import { json } from '@sveltejs/kit';
import { workspacePrincipal } from '$lib/server/access';
import { revokeTokenAs } from '$lib/server/api/settings/tokens';
import { handleApi } from '$lib/server/http';
import type { RequestHandler } from './$types';

/** Revokes a token: the caller's own, or any token of the workspace for an admin. */
export const DELETE: RequestHandler = handleApi(async (event) => {
	const p = await workspacePrincipal(event, event.params.ws);
	const { id, deleted } = await revokeTokenAs(p, event.params.id);
	return json({ id, deleted });
});
