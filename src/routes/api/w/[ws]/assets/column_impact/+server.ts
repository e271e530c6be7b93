// GET assets/column_impact?asset_path=&column=&direction=downstream|upstream&format=json|csv: every
// column one column feeds (or is fed by) across dbt models, producers and lake tables, gated like
// column lineage.
import { requireScope, workspacePrincipal } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { handleApi } from '$lib/server/http';
import { impactResponse, parseImpactQuery, unpinnedColumnImpact } from '$lib/server/impact-api';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const p = await workspacePrincipal(event, event.params.ws);
	requireScope(p, 'assets', 'read');
	const q = parseImpactQuery(event.url.searchParams);
	return impactResponse(await unpinnedColumnImpact(await getDatabase(), p, q), q);
});
