// GET /w/{ws}/relation?path=<asset path>[&hash=<version>]: one dbt relation's description for the
// details pane, read on selection (the canvas itself carries only what its cards show). The
// gates are the asset graph's: `assets:read`, and a named version the caller may read (404
// otherwise, like `dbt_script_hash=`).
import { json } from '@sveltejs/kit';
import { assetReadGrant } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { badRequest, handleApi, notFound } from '$lib/server/http';
import { parseScriptHash } from '$lib/server/api/graph/parse';
import { describeRelation } from '$lib/server/api/graph/relation';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const grant = await assetReadGrant(event, event.params.ws);
	const path = event.url.searchParams.get('path');
	if (!path || path.length > 255) throw badRequest('path: a relation path is required');
	const hash = parseScriptHash(new URLSearchParams(event.url.searchParams.has('hash') ? { dbt_script_hash: event.url.searchParams.get('hash')! } : {}));
	const database = await getDatabase();
	const named = await grant.readableVersion(database, hash, 'hash');
	const dbt = await describeRelation(grant, database, path, named);
	if (!dbt) throw notFound('no dbt project you can read describes this relation');
	return json(dbt, { headers: { 'cache-control': 'private, no-store' } });
});
