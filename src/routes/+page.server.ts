import { fail, redirect } from '@sveltejs/kit';
import { pageAuth } from '$lib/server/access';
import { createWorkspaceAs, workspacesVisibleTo } from '$lib/server/api/workspaces/workspaces';
import { ApiError } from '$lib/server/http';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
	const auth = pageAuth(event);
	return { username: auth.username, instanceAdmin: auth.instanceAdmin, workspaces: await workspacesVisibleTo(auth) };
};

export const actions: Actions = {
	create: async (event) => {
		const auth = pageAuth(event);
		const form = await event.request.formData();
		const body = { id: form.get('id') ?? undefined, name: form.get('name') || undefined };
		let created: { id: string };
		try {
			created = await createWorkspaceAs(auth, body);
		} catch (e) {
			if (e instanceof ApiError && e.status === 409) return fail(409, { error: `A workspace with id ${String(body.id)} already exists.`, id: String(body.id ?? '') });
			if (e instanceof ApiError) return fail(e.status, { error: e.message, id: String(body.id ?? '') });
			throw e;
		}
		redirect(303, `/w/${created.id}`);
	}
};
