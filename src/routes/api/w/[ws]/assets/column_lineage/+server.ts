// GET assets/column_lineage?asset_path=...&dbt_script_hash=: the direct column lineage component
// of the asked relations in every project version the caller may read (DESIGN.md §6);
// `include=scan` adds the scan edges touching them, in their own list.
import { requireScope, workspacePrincipal } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { handleApi, jsonSafe } from '$lib/server/http';
import { parseAssetPaths, parseLineageInclude, parseScriptHash, unpinnedColumnLineage } from '$lib/server/lineage-api';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const p = await workspacePrincipal(event, event.params.ws);
	requireScope(p, 'assets', 'read');
	const q = event.url.searchParams;
	const paths = parseAssetPaths(q);
	const hash = parseScriptHash(q);
	const include = parseLineageInclude(q);
	return jsonSafe(await unpinnedColumnLineage(await getDatabase(), p, paths, hash, include), { headers: { 'cache-control': 'private, no-store' } });
});
