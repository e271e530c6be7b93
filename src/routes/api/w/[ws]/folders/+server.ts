import { json } from '@sveltejs/kit';
import { requireAdminAccess, workspacePrincipal } from '$lib/server/access';
import { parseFolderInput } from '$lib/server/auth/admin-input';
import { getDatabase } from '$lib/server/db';
import { handleApi, readJsonObject } from '$lib/server/http';
import { listFolders, replaceFolder } from '$lib/server/repo/folders';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const p = await workspacePrincipal(event, event.params.ws);
	requireAdminAccess(p, 'folders', 'read');
	return json(await listFolders(await getDatabase(), p.workspace));
});

export const POST: RequestHandler = handleApi(async (event) => {
	const p = await workspacePrincipal(event, event.params.ws);
	requireAdminAccess(p, 'folders', 'write');
	const h = await getDatabase();
	const input = await parseFolderInput(h, p.workspace, await readJsonObject(event.request));
	const { created } = await replaceFolder(h, p.workspace, input);
	return json(input, { status: created ? 201 : 200 });
});
