import { json } from '@sveltejs/kit';
import { attemptLogin, signIn, signOut } from '$lib/server/auth/authenticate';
import { badRequest, handleApi, readJsonObject } from '$lib/server/http';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = handleApi(async (event) => {
	const body = await readJsonObject(event.request);
	const { username, password } = body;
	if (typeof username !== 'string' || typeof password !== 'string' || !username || !password) {
		throw badRequest('send {"username": "...", "password": "..."}');
	}
	// Throttled (429 with Retry-After), then one message for every failure: which half was wrong
	// is not the caller's business.
	const who = await attemptLogin(event, username, password);
	// A fresh session per sign-in; the one the browser held before (if any) ends here.
	if (event.locals.auth?.via === 'session') await signOut(event, event.locals.auth);
	await signIn(event, who.accountId);
	return json({ username: who.username });
});
