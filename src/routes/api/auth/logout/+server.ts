import { json } from '@sveltejs/kit';
import { signOut } from '$lib/server/auth/authenticate';
import { badRequest, handleApi, unauthorized } from '$lib/server/http';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = handleApi(async (event) => {
	const auth = event.locals.auth;
	if (!auth) throw unauthorized();
	if (auth.via !== 'session') {
		throw badRequest('logout ends a browser session; revoke a token with DELETE /api/w/{ws}/tokens/{id}');
	}
	await signOut(event, auth);
	return json({ ok: true });
});
