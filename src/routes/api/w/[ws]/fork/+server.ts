// POST fork {id, name}: a new workspace carrying this one's configuration and live graphs (docs/fork.md).
import { json } from '@sveltejs/kit';
import { requireAuth, requireFork, workspacePrincipal } from '$lib/server/access';
import { parseWorkspaceInput } from '$lib/server/auth/admin-input';
import { getDatabase } from '$lib/server/db';
import { forkWorkspaceAs } from '$lib/server/api/workspaces/fork';
import { handleApi, readJsonObject } from '$lib/server/http';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = handleApi(async (event) => {
	const p = await workspacePrincipal(event, event.params.ws);
	requireFork(p);
	const input = parseWorkspaceInput(await readJsonObject(event.request));
	const auth = requireAuth(event);
	const answer = await forkWorkspaceAs(await getDatabase(), p.workspace, input, { accountId: auth.accountId, username: p.username });
	return json(answer, { status: 201 });
});
