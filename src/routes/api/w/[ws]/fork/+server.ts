// POST fork {id, name}: a new workspace carrying this one's configuration and live graphs (docs/fork.md).
import { json } from '@sveltejs/kit';
import { workspaceGrant } from '$lib/server/access';
import { parseWorkspaceInput } from '$lib/server/auth/admin-input';
import { getDatabase } from '$lib/server/db';
import { forkWorkspaceAs } from '$lib/server/api/workspaces/fork';
import { handleApi, readJsonObject } from '$lib/server/http';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = handleApi(async (event) => {
	const grant = await workspaceGrant(event, event.params.ws);
	grant.requireFork();
	const input = parseWorkspaceInput(await readJsonObject(event.request));
	const answer = await forkWorkspaceAs(grant, await getDatabase(), input);
	return json(answer, { status: 201 });
});
