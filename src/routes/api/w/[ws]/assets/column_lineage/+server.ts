// GET assets/column_lineage?asset_path=...&dbt_script_hash=: the direct column lineage component
// of the asked relations in every project version the caller may read (DESIGN.md §6).
import { requireScope, workspacePrincipal } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { handleApi, jsonSafe } from '$lib/server/http';
import { parseAssetPaths, parseScriptHash, unpinnedColumnLineage } from '$lib/server/lineage-api';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const p = await workspacePrincipal(event, event.params.ws);
	requireScope(p, 'assets', 'read');
	const q = event.url.searchParams;
	const paths = parseAssetPaths(q);
	const hash = parseScriptHash(q);
	return jsonSafe(await unpinnedColumnLineage(await getDatabase(), p, paths, hash), { headers: { 'cache-control': 'private, no-store' } });
});
