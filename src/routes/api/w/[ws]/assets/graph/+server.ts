// GET assets/graph?folder=&asset_kinds=&dbt_script_hash=: the unpinned asset graph (DESIGN.md §6).
import { requireScope, workspacePrincipal } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { handleApi, jsonSafe } from '$lib/server/http';
import { parseGraphQuery, unpinnedAssetGraph } from '$lib/server/lineage-api';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const p = await workspacePrincipal(event, event.params.ws);
	requireScope(p, 'assets', 'read');
	const q = parseGraphQuery(event.url.searchParams);
	return jsonSafe(await unpinnedAssetGraph(await getDatabase(), p, q), { headers: { 'cache-control': 'private, no-store' } });
});
