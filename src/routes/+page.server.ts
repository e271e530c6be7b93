// The landing page: the workspaces the caller sees, and the create form (api/workspaces).
import { pageAuth } from '$lib/server/access';
import { createWorkspaceForm, workspacesVisibleTo } from '$lib/server/api/workspaces/workspaces';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
	const auth = pageAuth(event);
	return { username: auth.username, instanceAdmin: auth.instanceAdmin, workspaces: await workspacesVisibleTo(auth) };
};

export const actions: Actions = {
	create: async (event) => createWorkspaceForm(pageAuth(event), event.request)
};
