import { json } from '@sveltejs/kit';
import { requireAuth } from '$lib/server/access';
import { signOut } from '$lib/server/auth/authenticate';
import { badRequest, handleApi } from '$lib/server/http';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = handleApi(async (event) => {
	const auth = requireAuth(event);
	if (auth.via !== 'session') {
		throw badRequest('logout ends a browser session; revoke a token with DELETE /api/w/{ws}/tokens/{id}');
	}
	await signOut(event, auth);
	return json({ ok: true });
});
