// POST fork {id, name}: a new workspace carrying this one's configuration and live graphs (docs/fork.md).
import { json } from '@sveltejs/kit';
import { requireAuth, requireFork, workspacePrincipal } from '$lib/server/access';
import { parseWorkspaceInput } from '$lib/server/auth/admin-input';
import { getDatabase } from '$lib/server/db';
import { ApiError, handleApi, readJsonObject } from '$lib/server/http';
import { forkWorkspace } from '$lib/server/repo/fork';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = handleApi(async (event) => {
	const p = await workspacePrincipal(event, event.params.ws);
	requireFork(p);
	const input = parseWorkspaceInput(await readJsonObject(event.request));
	const auth = requireAuth(event);
	const answer = await forkWorkspace(await getDatabase(), {
		source: p.workspace,
		id: input.id,
		name: input.name,
		caller: { accountId: auth.accountId, username: p.username }
	});
	if (!answer) throw new ApiError(409, `id: workspace ${input.id} already exists`);
	return json(answer, { status: 201 });
});
