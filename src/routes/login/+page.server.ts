// The sign-in page: a signed-in visitor goes on at once; the forms are api/workspaces/sign-in.ts.
import { redirect } from '@sveltejs/kit';
import { nextPath, signInForm, signOutForm } from '$lib/server/api/workspaces/sign-in';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = async ({ locals, url }) => {
	if (locals.auth?.via === 'session') redirect(303, nextPath(url) ?? '/');
	return {};
};

export const actions: Actions = {
	login: (event) => signInForm(event),
	logout: (event) => signOutForm(event)
};
