// GET jobs/dbt_graph/{id}: the asset graph pinned to one job (DESIGN.md §6). Path and hash come
// from the job row; `folder`, `asset_kinds` and `fields` only shape the answer. Served from the
// graph cache with an ETag (a pinned graph never changes while its stored marker stays).
import { pinnedAccess } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { graphResponse } from '$lib/server/graph-cache';
import { handleApi } from '$lib/server/http';
import { jobAssetGraphBody } from '$lib/server/api/graph/reads';
import { parseGraphFields, parseGraphQuery } from '$lib/server/api/graph/parse';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const q = parseGraphQuery(event.url.searchParams);
	const fields = parseGraphFields(event.url.searchParams);
	const gate = await pinnedAccess(event, event.params.ws, event.params.id);
	const body = await jobAssetGraphBody(gate, await getDatabase(), q, { fields });
	return graphResponse(body, event.request.headers.get('if-none-match'));
});
