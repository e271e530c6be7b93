import { json } from '@sveltejs/kit';
import { requireAuth } from '$lib/server/access';
import { changePassword } from '$lib/server/api/settings/account';
import { handleApi, readJsonObject } from '$lib/server/http';
import type { RequestHandler } from './$types';

/** Changes the caller's password; every session of the account ends and this one starts anew (a fresh cookie). */
export const POST: RequestHandler = handleApi(async (event) => {
	const auth = requireAuth(event);
	return json(await changePassword(event, auth, await readJsonObject(event.request)));
});
