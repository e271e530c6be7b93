import { fail, redirect } from '@sveltejs/kit';
import { attemptLogin, signIn, signOut } from '$lib/server/auth/authenticate';
import { sameSitePath } from '$lib/server/auth/next-path';
import { ApiError } from '$lib/server/http';
import { landingOf } from '$lib/server/api/workspaces/workspaces';
import type { Actions, PageServerLoad } from './$types';

/** A same-site path to return to after signing in; anything else is ignored (open redirect). */
const nextPath = (url: URL) => sameSitePath(url.searchParams.get('next'), url.origin);

export const load: PageServerLoad = async ({ locals, url }) => {
	if (locals.auth?.via === 'session') redirect(303, nextPath(url) ?? '/');
	return {};
};

export const actions: Actions = {
	login: async (event) => {
		const form = await event.request.formData();
		const username = form.get('username');
		const password = form.get('password');
		if (typeof username !== 'string' || typeof password !== 'string' || !username || !password) {
			return fail(400, { username: typeof username === 'string' ? username : '', error: 'Enter your username and password.' });
		}
		let who;
		try {
			who = await attemptLogin(event, username, password);
		} catch (e) {
			if (!(e instanceof ApiError)) throw e;
			if (e.headers) event.setHeaders(e.headers);
			return fail(e.status, { username, error: e.message });
		}
		if (event.locals.auth?.via === 'session') await signOut(event, event.locals.auth);
		await signIn(event, who.accountId);
		const next = nextPath(event.url);
		if (next) redirect(303, next);
		redirect(303, await landingOf(who.accountId));
	},
	logout: async (event) => {
		await signOut(event, event.locals.auth);
		redirect(303, '/login');
	}
};
