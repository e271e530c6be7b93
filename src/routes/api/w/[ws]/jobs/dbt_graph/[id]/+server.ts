// GET jobs/dbt_graph/{id}: the asset graph pinned to one job (DESIGN.md §6). Path and hash come
// from the job row; `folder` and `asset_kinds` only shape the answer.
import { getDatabase } from '$lib/server/db';
import { handleApi, jsonSafe } from '$lib/server/http';
import { jobAssetGraph, parseGraphQuery, pinnedAccess } from '$lib/server/lineage-api';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const q = parseGraphQuery(event.url.searchParams);
	const gate = await pinnedAccess(event, event.params.ws, event.params.id);
	return jsonSafe(await jobAssetGraph(await getDatabase(), gate, q), { headers: { 'cache-control': 'private, no-store' } });
});
