// GET assets/graph?folder=&asset_kinds=&dbt_script_hash=&fields=: the unpinned asset graph
// (DESIGN.md §6), served from the graph cache (graph-cache.ts) with an ETag: a client sending
// If-None-Match with it gets 304 while nothing it may see has changed.
import { assetReadGrant } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { graphResponse } from '$lib/server/graph-cache';
import { handleApi } from '$lib/server/http';
import { parseGraphFields, parseGraphQuery } from '$lib/server/api/graph/parse';
import { unpinnedAssetGraphBody } from '$lib/server/api/graph/reads';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const grant = await assetReadGrant(event, event.params.ws);
	const q = parseGraphQuery(event.url.searchParams);
	const fields = parseGraphFields(event.url.searchParams);
	const body = await unpinnedAssetGraphBody(grant, await getDatabase(), q, { fields });
	return graphResponse(body, event.request.headers.get('if-none-match'));
});
