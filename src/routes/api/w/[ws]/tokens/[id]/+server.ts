import { json } from '@sveltejs/kit';
import { requireTokenRevoke, workspacePrincipal } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { handleApi } from '$lib/server/http';
import { deleteToken, getToken } from '$lib/server/repo/tokens';
import type { RequestHandler } from './$types';

/** Revokes a token: the caller's own, or any token of the workspace for an admin (requireTokenRevoke). */
export const DELETE: RequestHandler = handleApi(async (event) => {
	const p = await workspacePrincipal(event, event.params.ws);
	const h = await getDatabase();
	const t = await getToken(h, p.workspace, event.params.id);
	requireTokenRevoke(p, t);
	await deleteToken(h, p.workspace, t.id);
	return json({ id: t.id, deleted: true });
});
