// GET jobs/dbt_column_impact/{id}?asset_path=&column=&direction=&format=: the impact list in one
// job's pinned graph, with dbt_column_lineage's gate and fallbacks; empty for a caller who may
// reach the run but not read its project.
import { pinnedAccess } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { handleApi } from '$lib/server/http';
import { impactResponse } from '$lib/server/api/impact/respond';
import { jobColumnImpact } from '$lib/server/api/impact/reads';
import { parseImpactQuery } from '$lib/server/api/impact/parse';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const q = parseImpactQuery(event.url.searchParams);
	const gate = await pinnedAccess(event, event.params.ws, event.params.id);
	return impactResponse(await jobColumnImpact(gate, await getDatabase(), q), q);
});
