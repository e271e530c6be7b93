import { json } from '@sveltejs/kit';
import { workspaceGrant } from '$lib/server/access';
import { addMemberAs, listMembersAs } from '$lib/server/api/settings/members';
import { handleApi, readJsonObject } from '$lib/server/http';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const grant = await workspaceGrant(event, event.params.ws);
	return json(await listMembersAs(grant));
});

export const POST: RequestHandler = handleApi(async (event) => {
	const grant = await workspaceGrant(event, event.params.ws);
	const { created, ...user } = await addMemberAs(grant, await readJsonObject(event.request));
	return json(user, { status: created ? 201 : 200 });
});
