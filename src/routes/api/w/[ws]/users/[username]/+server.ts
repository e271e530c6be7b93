import { json } from '@sveltejs/kit';
import { workspaceGrant } from '$lib/server/access';
import { removeMemberAs } from '$lib/server/api/settings/members';
import { handleApi } from '$lib/server/http';
import type { RequestHandler } from './$types';

/** Removes a member with its groups, folder grants and tokens in this workspace; the account stays. */
export const DELETE: RequestHandler = handleApi(async (event) => {
	const grant = await workspaceGrant(event, event.params.ws);
	return json(await removeMemberAs(grant, event.params.username));
});
