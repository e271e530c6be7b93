// The login page's forms: sign in (the throttle and the password through auth/, a failure shown
// beside the form), then to where the caller was going or their first workspace; sign out.
import { fail, redirect, type RequestEvent } from '@sveltejs/kit';
import { attemptLogin, signIn, signOut } from '../../auth/authenticate';
import { sameSitePath } from '../../auth/next-path';
import { ApiError } from '../../api-error';
import { landingOf } from './workspaces';

/** A same-site path to return to after signing in; anything else is ignored (open redirect). */
export const nextPath = (url: URL) => sameSitePath(url.searchParams.get('next'), url.origin);

export async function signInForm(event: RequestEvent) {
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
}

export async function signOutForm(event: RequestEvent): Promise<never> {
	await signOut(event, event.locals.auth);
	redirect(303, '/login');
}
