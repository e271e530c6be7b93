import { json } from '@sveltejs/kit';
import { workspacePrincipal } from '$lib/server/access';
import { listFoldersAs, saveFolderAs } from '$lib/server/api/settings/folders';
import { handleApi, readJsonObject } from '$lib/server/http';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const p = await workspacePrincipal(event, event.params.ws);
	return json(await listFoldersAs(p));
});

export const POST: RequestHandler = handleApi(async (event) => {
	const p = await workspacePrincipal(event, event.params.ws);
	const { created, folder } = await saveFolderAs(p, await readJsonObject(event.request));
	return json(folder, { status: created ? 201 : 200 });
});
