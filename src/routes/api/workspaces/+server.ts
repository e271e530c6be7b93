import { json } from '@sveltejs/kit';
import { requireAuth } from '$lib/server/access';
import { createWorkspaceAs } from '$lib/server/api/workspaces/workspaces';
import { handleApi, readJsonObject } from '$lib/server/http';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = handleApi(async (event) => {
	const auth = requireAuth(event);
	return json(await createWorkspaceAs(auth, await readJsonObject(event.request)), { status: 201 });
});
