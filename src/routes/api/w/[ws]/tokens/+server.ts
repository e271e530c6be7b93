import { json } from '@sveltejs/kit';
import { workspacePrincipal } from '$lib/server/access';
import { listOwnTokens, listWorkspaceTokens, mintTokenAs } from '$lib/server/api/settings/tokens';
import { handleApi, readJsonObject } from '$lib/server/http';
import type { RequestHandler } from './$types';

/** The caller's own tokens in this workspace, or with `?all=true` every member's (an admin's); never the token strings or their hashes. */
export const GET: RequestHandler = handleApi(async (event) => {
	const p = await workspacePrincipal(event, event.params.ws);
	return json(event.url.searchParams.get('all') === 'true' ? await listWorkspaceTokens(p) : await listOwnTokens(p));
});

/** Mints a token acting as the caller; the token string is in this answer and nowhere else. */
export const POST: RequestHandler = handleApi(async (event) => {
	const p = await workspacePrincipal(event, event.params.ws);
	return json(await mintTokenAs(p, await readJsonObject(event.request)), { status: 201 });
});
