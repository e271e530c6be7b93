// A run's share links: GET lists them (who made each, when, its expiry and last use; never a
// token), POST makes one ({kind, expires_in?}). Both for whoever may share the run
// (requireShareMint): someone who sees it on their own account, not through a link.
import { jobAccess, requireShareMint, workspacePrincipal } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { handleApi, jsonSafe, readJsonObject } from '$lib/server/http';
import { parseShareLinkBody, shareLinkInfoOf } from '$lib/server/jobs-api';
import { createShareLink, shareLinksOf } from '$lib/server/share';
import type { ShareLink } from '$lib/types/jobs';
import type { RequestHandler } from './$types';

const PRIVATE = { 'cache-control': 'private, no-store' };

export const GET: RequestHandler = handleApi(async (event) => {
	await workspacePrincipal(event, event.params.ws);
	const a = await jobAccess(event, event.params.ws, event.params.id);
	requireShareMint(a);
	const now = new Date();
	const links = await shareLinksOf(await getDatabase(), a.job.workspace, a.job.id, now);
	return jsonSafe(
		links.map((l) => shareLinkInfoOf(l, now)),
		{ headers: PRIVATE }
	);
});

export const POST: RequestHandler = handleApi(async (event) => {
	await workspacePrincipal(event, event.params.ws);
	const a = await jobAccess(event, event.params.ws, event.params.id);
	const p = requireShareMint(a);
	const input = parseShareLinkBody(await readJsonObject(event.request));
	const now = new Date();
	const made = await createShareLink(await getDatabase(), a.job.workspace, a.job.id, { ...input, createdBy: p.username }, now);
	const body: ShareLink = { ...shareLinkInfoOf(made.link, now), token: made.token, url: made.url };
	return jsonSafe(body, { status: 201, headers: PRIVATE });
});
