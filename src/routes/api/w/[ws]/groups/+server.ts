import { json } from '@sveltejs/kit';
import { workspaceGrant } from '$lib/server/access';
import { listGroupsAs, saveGroupAs } from '$lib/server/api/settings/groups';
import { handleApi, readJsonObject } from '$lib/server/http';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const grant = await workspaceGrant(event, event.params.ws);
	return json(await listGroupsAs(grant));
});

export const POST: RequestHandler = handleApi(async (event) => {
	const grant = await workspaceGrant(event, event.params.ws);
	const { created, group } = await saveGroupAs(grant, await readJsonObject(event.request));
	return json(group, { status: created ? 201 : 200 });
});
