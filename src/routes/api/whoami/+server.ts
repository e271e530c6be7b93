import { json } from '@sveltejs/kit';
import { requireAuth } from '$lib/server/access';
import { workspacesVisibleTo } from '$lib/server/api/workspaces/workspaces';
import { handleApi } from '$lib/server/http';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const auth = requireAuth(event);
	const visible = await workspacesVisibleTo(auth);
	return json({
		username: auth.username,
		instance_admin: auth.instanceAdmin,
		via: auth.via,
		workspaces: visible.map((w) => ({ id: w.id, name: w.name, is_admin: w.isAdmin }))
	});
});
