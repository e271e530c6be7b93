import { json } from '@sveltejs/kit';
import { requireScope, workspacePrincipal } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { handleApi, notFound } from '$lib/server/http';
import { deleteToken, getToken } from '$lib/server/repo/tokens';
import type { RequestHandler } from './$types';

/** Revokes a token: the caller's own, or any token of the workspace for an admin. */
export const DELETE: RequestHandler = handleApi(async (event) => {
	const p = await workspacePrincipal(event, event.params.ws);
	requireScope(p, 'tokens', 'write');
	const h = await getDatabase();
	const t = await getToken(h, p.workspace, event.params.id);
	if (!t || (t.owner !== p.username && !p.isAdmin)) throw notFound('no such token');
	await deleteToken(h, p.workspace, t.id);
	return json({ id: t.id, deleted: true });
});
