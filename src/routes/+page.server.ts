import { fail, redirect } from '@sveltejs/kit';
import { parseWorkspaceInput } from '$lib/server/auth/admin-input';
import { getDatabase } from '$lib/server/db';
import { ApiError } from '$lib/server/http';
import { createWorkspace, workspacesOf } from '$lib/server/repo/workspaces';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async ({ locals }) => {
	const auth = locals.auth;
	if (!auth) redirect(303, '/login');
	const all = await workspacesOf(await getDatabase(), auth.accountId);
	const workspaces = auth.token ? all.filter((w) => w.id === auth.token!.workspace) : all;
	return { username: auth.username, instanceAdmin: auth.instanceAdmin, workspaces };
};

export const actions: Actions = {
	create: async ({ locals, request }) => {
		const auth = locals.auth;
		if (!auth || auth.via !== 'session') redirect(303, '/login');
		if (!auth.instanceAdmin) return fail(403, { error: 'Only an instance admin can create workspaces.', id: '' });
		const form = await request.formData();
		const body = { id: form.get('id') ?? undefined, name: form.get('name') || undefined };
		try {
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
