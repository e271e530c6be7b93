// DELETE jobs/share_links/{id}/{link}: revokes one link of a run, for whoever may share it
// (requireShareMint). From then on the link answers as any invalid one. The row stays, listed
// as revoked (by whom, when); revoking it again changes nothing.
import { jobAccess, requireShareMint, workspacePrincipal } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { handleApi, jsonSafe, notFound } from '$lib/server/http';
import { shareLinkInfoOf } from '$lib/server/jobs-api';
import { revokeShareLink } from '$lib/server/share';
import type { RequestHandler } from './$types';

export const DELETE: RequestHandler = handleApi(async (event) => {
	await workspacePrincipal(event, event.params.ws);
	const a = await jobAccess(event, event.params.ws, event.params.id);
	const p = requireShareMint(a);
	const now = new Date();
	const link = await revokeShareLink(await getDatabase(), a.job.workspace, a.job.id, event.params.link.toLowerCase(), p.username, now);
	if (!link) throw notFound('no such share link');
	return jsonSafe(shareLinkInfoOf(link, now), { headers: { 'cache-control': 'private, no-store' } });
});
