import { fail, redirect } from '@sveltejs/kit';
import { pageAuth, requireWorkspaceCreate, visibleWorkspaces } from '$lib/server/access';
import { parseWorkspaceInput } from '$lib/server/auth/admin-input';
import { getDatabase } from '$lib/server/db';
import { ApiError } from '$lib/server/http';
import { createWorkspace, workspacesOf } from '$lib/server/repo/workspaces';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
	const auth = pageAuth(event);
	const workspaces = visibleWorkspaces(auth, await workspacesOf(await getDatabase(), auth.accountId));
	return { username: auth.username, instanceAdmin: auth.instanceAdmin, workspaces };
};

export const actions: Actions = {
	create: async (event) => {
		const auth = pageAuth(event);
		const form = await event.request.formData();
		const body = { id: form.get('id') ?? undefined, name: form.get('name') || undefined };
		try {
			requireWorkspaceCreate(auth);
			const input = parseWorkspaceInput(body);
			const created = await createWorkspace(await getDatabase(), {
				...input,
				creator: { accountId: auth.accountId, username: auth.username }
			});
			if (!created) return fail(409, { error: `A workspace with id ${input.id} already exists.`, id: input.id });
			redirect(303, `/w/${created.id}`);
		} catch (e) {
			if (e instanceof ApiError) return fail(e.status, { error: e.message, id: String(body.id ?? '') });
			throw e;
		}
	}
};
