import { json } from '@sveltejs/kit';
import { requireAuth, visibleWorkspaces } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { handleApi } from '$lib/server/http';
import { workspacesOf } from '$lib/server/repo/workspaces';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const auth = requireAuth(event);
	const visible = visibleWorkspaces(auth, await workspacesOf(await getDatabase(), auth.accountId));
	return json({
		username: auth.username,
		instance_admin: auth.instanceAdmin,
		via: auth.via,
		workspaces: visible.map((w) => ({ id: w.id, name: w.name, is_admin: w.isAdmin }))
	});
});
