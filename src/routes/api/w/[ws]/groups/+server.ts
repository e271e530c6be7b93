import { json } from '@sveltejs/kit';
import { requireAdminAccess, workspacePrincipal } from '$lib/server/access';
import { parseGroupInput } from '$lib/server/auth/admin-input';
import { getDatabase } from '$lib/server/db';
import { handleApi, readJsonObject } from '$lib/server/http';
import { listGroups, replaceGroup } from '$lib/server/repo/groups';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const p = await workspacePrincipal(event, event.params.ws);
	requireAdminAccess(p, 'groups', 'read');
	return json(await listGroups(await getDatabase(), p.workspace));
});

export const POST: RequestHandler = handleApi(async (event) => {
	const p = await workspacePrincipal(event, event.params.ws);
	requireAdminAccess(p, 'groups', 'write');
	const h = await getDatabase();
	const input = await parseGroupInput(h, p.workspace, await readJsonObject(event.request));
	const { created } = await replaceGroup(h, p.workspace, input.name, input.members);
	return json(input, { status: created ? 201 : 200 });
});
