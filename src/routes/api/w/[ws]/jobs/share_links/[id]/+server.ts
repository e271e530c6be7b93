// A run's share links: GET lists them (who made each, when, its expiry and last use; never a
// token), POST makes one ({kind, expires_in?}). Both for whoever may share the run
// (shareGrant): someone who sees it on their own account, not through a link.
import { shareGrant } from '$lib/server/access';
import { mintShareLink, shareLinksOfRun } from '$lib/server/api/jobs/share';
import { handleApi, jsonSafe, readJsonObject } from '$lib/server/http';
import { parseShareLinkBody } from '$lib/server/api/jobs/parse';
import type { RequestHandler } from './$types';

const PRIVATE = { 'cache-control': 'private, no-store' };

export const GET: RequestHandler = handleApi(async (event) => {
	const grant = await shareGrant(event, event.params.ws, event.params.id);
	return jsonSafe(await shareLinksOfRun(grant), { headers: PRIVATE });
});

export const POST: RequestHandler = handleApi(async (event) => {
	const grant = await shareGrant(event, event.params.ws, event.params.id);
	const input = parseShareLinkBody(await readJsonObject(event.request));
	return jsonSafe(await mintShareLink(grant, input), { status: 201, headers: PRIVATE });
});
