import { json } from '@sveltejs/kit';
import { requireAdminAccess, workspacePrincipal } from '$lib/server/access';
import { addUser } from '$lib/server/auth/admin';
import { parseUserInput } from '$lib/server/auth/admin-input';
import { getDatabase } from '$lib/server/db';
import { handleApi, readJsonObject } from '$lib/server/http';
import { listMembers } from '$lib/server/repo/workspaces';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const p = await workspacePrincipal(event, event.params.ws);
	requireAdminAccess(p, 'users', 'read');
	const members = await listMembers(await getDatabase(), p.workspace);
	return json(members.map((m) => ({ username: m.username, is_admin: m.isAdmin, groups: m.groups })));
});

export const POST: RequestHandler = handleApi(async (event) => {
	const p = await workspacePrincipal(event, event.params.ws);
	requireAdminAccess(p, 'users', 'write');
	const input = parseUserInput(await readJsonObject(event.request));
	const { created, ...user } = await addUser(await getDatabase(), p, input);
	return json(user, { status: created ? 201 : 200 });
});
