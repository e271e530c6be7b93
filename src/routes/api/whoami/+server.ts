import { json } from '@sveltejs/kit';
import { requireAuth } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { handleApi } from '$lib/server/http';
import { workspacesOf } from '$lib/server/repo/workspaces';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const auth = requireAuth(event);
	const all = await workspacesOf(await getDatabase(), auth.accountId);
	// A token belongs to one workspace and must not reveal the owner's others.
	const visible = auth.token ? all.filter((w) => w.id === auth.token!.workspace) : all;
	return json({
		username: auth.username,
		instance_admin: auth.instanceAdmin,
		via: auth.via,
		workspaces: visible.map((w) => ({ id: w.id, name: w.name, is_admin: w.isAdmin }))
	});
});
