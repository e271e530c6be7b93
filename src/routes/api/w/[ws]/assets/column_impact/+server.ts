// GET assets/column_impact?asset_path=&column=&direction=downstream|upstream&format=json|csv: every
// column one column feeds (or is fed by) across dbt models, producers and lake tables, gated like
// column lineage.
import { assetReadGrant } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { handleApi } from '$lib/server/http';
import { impactResponse } from '$lib/server/api/impact/respond';
import { parseImpactQuery } from '$lib/server/api/impact/parse';
import { unpinnedColumnImpact } from '$lib/server/api/impact/reads';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const grant = await assetReadGrant(event, event.params.ws);
	const q = parseImpactQuery(event.url.searchParams);
	return impactResponse(await unpinnedColumnImpact(grant, await getDatabase(), q), q);
});
