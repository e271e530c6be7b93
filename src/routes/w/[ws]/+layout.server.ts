import { error } from '@sveltejs/kit';
import { pagePrincipal, workspacePrincipal, type Principal } from '$lib/server/access';
import { ApiError } from '$lib/server/http';
import { workspaceNamed } from '$lib/server/api/workspaces/workspaces';
import type { LayoutServerLoad } from './$types';

export const load: LayoutServerLoad = async (event) => {
	const ws = event.params.ws;
	let p: Principal | null;
	if (event.url.searchParams.has('view_token')) {
		// A share link opens a run page to someone who is not a member (or not signed in). The
		// run page verifies the link itself; this layout then reveals nothing beyond the URL.
		p = await workspacePrincipal(event, ws).catch((e) => {
			if (e instanceof ApiError) return null;
			throw e;
		});
		if (!p) return { workspace: { id: ws, name: ws }, me: null };
	} else {
		p = await pagePrincipal(event, ws);
	}
	const row = await workspaceNamed(p.workspace);
	if (!row) error(404, 'no such workspace');
	return {
		workspace: { id: row.id, name: row.name },
		me: { username: p.username, isAdmin: p.isAdmin }
	};
};
