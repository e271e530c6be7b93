// GET assets/column_lineage?asset_path=...&dbt_script_hash=: the direct column lineage component
// of the asked relations in every project version the caller may read (DESIGN.md §6);
// `include=scan` adds the scan edges touching them, in their own list.
import { columnLineageAccess } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { handleApi, jsonSafe } from '$lib/server/http';
import { parseAssetPaths, parseScriptHash } from '$lib/server/api/graph/parse';
import { parseLineageInclude } from '$lib/server/api/lineage/parse';
import { unpinnedColumnLineage } from '$lib/server/api/lineage/reads';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const q = event.url.searchParams;
	const { grant, query, candidates } = await columnLineageAccess(event, event.params.ws, () => ({
		assetPaths: parseAssetPaths(q),
		scriptHash: parseScriptHash(q),
		include: parseLineageInclude(q)
	}));
	const answer = await unpinnedColumnLineage(grant, await getDatabase(), query.assetPaths, query.scriptHash, query.include, candidates);
	return jsonSafe(answer, { headers: { 'cache-control': 'private, no-store' } });
});
