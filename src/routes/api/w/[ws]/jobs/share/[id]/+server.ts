// GET jobs/share/{id}?kind=member|public&expires_in=: makes a share link to the run page, for
// someone who sees the run on their own account (a link holder forwards the link they have).
// Kept for the clients written before POST jobs/share_links/{id}; the link is stored, listed
// and revocable the same way.
import { jobAccess, requireShareMint, workspacePrincipal } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { handleApi, jsonSafe } from '$lib/server/http';
import { parseShareQuery, shareLinkInfoOf } from '$lib/server/jobs-api';
import { createShareLink } from '$lib/server/share';
import type { ShareLink } from '$lib/types/jobs';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	// Minting is for members: no credentials is a 401 and a non-member a 404, whatever link
	// they hold, before the job is looked at.
	await workspacePrincipal(event, event.params.ws);
	const a = await jobAccess(event, event.params.ws, event.params.id);
	const p = requireShareMint(a);
	const input = parseShareQuery(event.url.searchParams);
	const now = new Date();
	const made = await createShareLink(await getDatabase(), a.job.workspace, a.job.id, { ...input, createdBy: p.username }, now);
	const body: ShareLink = { ...shareLinkInfoOf(made.link, now), token: made.token, url: made.url };
	return jsonSafe(body, { headers: { 'cache-control': 'private, no-store' } });
});
