// GET jobs/dbt_column_lineage/{id}?asset_path=...: column lineage pinned to one job's graph
// (DESIGN.md §6). The only way to a preview's lineage; empty for a caller who may reach the run
// but not read its project. `include=scan` as on assets/column_lineage.
import { pinnedAccess } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { handleApi, jsonSafe } from '$lib/server/http';
import { jobColumnLineage } from '$lib/server/api/lineage/reads';
import { parseAssetPaths } from '$lib/server/api/graph/parse';
import { parseLineageInclude } from '$lib/server/api/lineage/parse';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const paths = parseAssetPaths(event.url.searchParams);
	const include = parseLineageInclude(event.url.searchParams);
	const gate = await pinnedAccess(event, event.params.ws, event.params.id);
	return jsonSafe(await jobColumnLineage(gate, await getDatabase(), paths, include), { headers: { 'cache-control': 'private, no-store' } });
});
