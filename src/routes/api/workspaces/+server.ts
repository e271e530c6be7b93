import { json } from '@sveltejs/kit';
import { requireAuth, requireWorkspaceCreate } from '$lib/server/access';
import { parseWorkspaceInput } from '$lib/server/auth/admin-input';
import { getDatabase } from '$lib/server/db';
import { ApiError, handleApi, readJsonObject } from '$lib/server/http';
import { createWorkspace } from '$lib/server/repo/workspaces';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = handleApi(async (event) => {
	const auth = requireAuth(event);
	requireWorkspaceCreate(auth);
	const input = parseWorkspaceInput(await readJsonObject(event.request));
	const created = await createWorkspace(await getDatabase(), {
		...input,
		creator: { accountId: auth.accountId, username: auth.username }
	});
	if (!created) throw new ApiError(409, `id: workspace ${input.id} already exists`);
	return json({ id: created.id, name: created.name }, { status: 201 });
});
