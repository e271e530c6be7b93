import { json } from '@sveltejs/kit';
import { requireTokenList, requireTokenMint, workspacePrincipal } from '$lib/server/access';
import { mintTokenFor } from '$lib/server/auth/admin';
import { parseTokenInput, tokenView } from '$lib/server/auth/admin-input';
import { getDatabase } from '$lib/server/db';
import { handleApi, readJsonObject } from '$lib/server/http';
import { listTokensOf } from '$lib/server/repo/tokens';
import type { RequestHandler } from './$types';

/** The caller's own tokens in this workspace (never the token strings or their hashes). */
export const GET: RequestHandler = handleApi(async (event) => {
	const p = await workspacePrincipal(event, event.params.ws);
	requireTokenList(p);
	return json((await listTokensOf(await getDatabase(), p.workspace, p.username)).map(tokenView));
});

/** Mints a token acting as the caller; the token string is in this answer and nowhere else. */
export const POST: RequestHandler = handleApi(async (event) => {
	const p = await workspacePrincipal(event, event.params.ws);
	requireTokenMint(p);
	const input = parseTokenInput(await readJsonObject(event.request));
	const { token, info } = await mintTokenFor(await getDatabase(), p, input);
	return json({ token, ...tokenView(info) }, { status: 201 });
});
