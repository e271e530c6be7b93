import { error } from '@sveltejs/kit';
import { pageGrant, workspaceGrant, type Grant } from '$lib/server/access';
import { ApiError } from '$lib/server/http';
import { workspaceNamed } from '$lib/server/api/workspaces/workspaces';
import type { LayoutServerLoad } from './$types';

export const load: LayoutServerLoad = async (event) => {
	const ws = event.params.ws;
	let grant: Grant | null;
	if (event.url.searchParams.has('view_token')) {
		// A share link opens a run page to someone who is not a member (or not signed in). The
		// run page verifies the link itself; this layout then reveals nothing beyond the URL.
		grant = await workspaceGrant(event, ws).catch((e) => {
			if (e instanceof ApiError) return null;
			throw e;
		});
		if (!grant) return { workspace: { id: ws, name: ws }, me: null };
	} else {
		grant = await pageGrant(event, ws);
	}
	const row = await workspaceNamed(grant.workspace);
	if (!row) error(404, 'no such workspace');
	return {
		workspace: { id: row.id, name: row.name },
		me: { username: grant.username, isAdmin: grant.isAdmin }
	};
};
