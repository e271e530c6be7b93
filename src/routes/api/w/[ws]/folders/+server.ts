import { json } from '@sveltejs/kit';
import { workspaceGrant } from '$lib/server/access';
import { listFoldersAs, saveFolderAs } from '$lib/server/api/settings/folders';
import { handleApi, readJsonObject } from '$lib/server/http';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const grant = await workspaceGrant(event, event.params.ws);
	return json(await listFoldersAs(grant));
});

export const POST: RequestHandler = handleApi(async (event) => {
	const grant = await workspaceGrant(event, event.params.ws);
	const { created, folder } = await saveFolderAs(grant, await readJsonObject(event.request));
	return json(folder, { status: created ? 201 : 200 });
});
