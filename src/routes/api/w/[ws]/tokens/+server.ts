import { json } from '@sveltejs/kit';
import { workspaceGrant } from '$lib/server/access';
import { listOwnTokens, listWorkspaceTokens, mintTokenAs } from '$lib/server/api/settings/tokens';
import { handleApi, readJsonObject } from '$lib/server/http';
import type { RequestHandler } from './$types';

/** The caller's own tokens in this workspace, or with `?all=true` every member's (an admin's); never the token strings or their hashes. */
export const GET: RequestHandler = handleApi(async (event) => {
	const grant = await workspaceGrant(event, event.params.ws);
	return json(event.url.searchParams.get('all') === 'true' ? await listWorkspaceTokens(grant) : await listOwnTokens(grant));
});

/** Mints a token acting as the caller; the token string is in this answer and nowhere else. */
export const POST: RequestHandler = handleApi(async (event) => {
	const grant = await workspaceGrant(event, event.params.ws);
	return json(await mintTokenAs(grant, await readJsonObject(event.request)), { status: 201 });
});
