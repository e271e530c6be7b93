// GET jobs/share/{id}?kind=member|public&expires_in=: makes a share link to the run page, for
// someone who sees the run on their own account (a link holder forwards the link they have).
// Kept for the clients written before POST jobs/share_links/{id}; the link is stored, listed
// and revocable the same way.
import { shareGrant } from '$lib/server/access';
import { mintShareLink } from '$lib/server/api/jobs/share';
import { handleApi, jsonSafe } from '$lib/server/http';
import { parseShareQuery } from '$lib/server/api/jobs/parse';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const grant = await shareGrant(event, event.params.ws, event.params.id);
	const input = parseShareQuery(event.url.searchParams);
	return jsonSafe(await mintShareLink(grant, input), { headers: { 'cache-control': 'private, no-store' } });
});
