// GET dbt/diff?path=&from=&to=: the lineage diff between two graphs of one project (a version
// hash, a preview or run job id, or `latest`, the default `from`). Both refs pass their gate.
import { diffRefAccess } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { lineageDiff } from '$lib/server/api/diff/reads';
import { badRequest, handleApi, jsonSafe } from '$lib/server/http';
import { requireScriptPath } from '$lib/server/paths';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const q = event.url.searchParams;
	const path = requireScriptPath(q.get('path'));
	const to = q.get('to');
	if (!to) throw badRequest('to: name the ref to compare (a version hash, a preview or run job id, or latest)');
	const database = await getDatabase();
	const fromGrant = await diffRefAccess(event, database, event.params.ws, path, q.get('from') || 'latest');
	const toGrant = await diffRefAccess(event, database, event.params.ws, path, to);
	return jsonSafe(await lineageDiff(fromGrant, toGrant, database));
});
