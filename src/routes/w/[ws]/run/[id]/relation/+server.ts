// GET /w/{ws}/run/{id}/relation?path=: one relation as this run's pinned graph describes it, for
// the run page's details pane; a share link works here as on the run page (and the description
// is redacted the same way).
import { json } from '@sveltejs/kit';
import { pinnedAccess } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { badRequest, handleApi, notFound } from '$lib/server/http';
import { describePinnedRelation } from '$lib/server/api/graph/relation';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const path = event.url.searchParams.get('path');
	if (!path || path.length > 255) throw badRequest('path: a relation path is required');
	const gate = await pinnedAccess(event, event.params.ws, event.params.id);
	const dbt = await describePinnedRelation(gate, await getDatabase(), path);
	if (!dbt) throw notFound('this run does not describe that relation');
	return json(dbt, { headers: { 'cache-control': 'private, no-store' } });
});
