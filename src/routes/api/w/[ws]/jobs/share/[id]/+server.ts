// GET jobs/share/{id}?kind=member|public: a link to the run page, minted by someone who sees the
// run on their own account (a link holder forwards the link they have).
import { jobAccess, requireShareMint, workspacePrincipal } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { handleApi, jsonSafe } from '$lib/server/http';
import { parseShareKind } from '$lib/server/jobs-api';
import { mintShareToken, shareUrl } from '$lib/server/share';
import type { ShareLink } from '$lib/types/jobs';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	// Minting is for members: no credentials is a 401 and a non-member a 404, whatever link
	// they hold, before the job is looked at.
	await workspacePrincipal(event, event.params.ws);
	const a = await jobAccess(event, event.params.ws, event.params.id);
	requireShareMint(a);
	const kind = parseShareKind(event.url.searchParams);
	const ws = a.job.workspace;
	const token = await mintShareToken(await getDatabase(), ws, a.job.id, kind);
	const body: ShareLink = { token, url: shareUrl(ws, a.job.id, token) };
	return jsonSafe(body, { headers: { 'cache-control': 'private, no-store' } });
});
