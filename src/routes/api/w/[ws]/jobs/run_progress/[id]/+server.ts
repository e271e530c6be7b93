// GET jobs/run_progress/{id}: the live state of each relation of a run, in asset-path order.
// Without `since` a JSON array of every row (DESIGN.md §6); with `?since=<cursor>` only the rows
// changed after that cursor, as `{cursor, total, rows}` (a polling page reads in full once, then
// changes). Both carry the next cursor in the X-Progress-Cursor header.
import { runGrant } from '$lib/server/access';
import { runProgressOf } from '$lib/server/api/jobs/reads';
import { handleApi, jsonSafe } from '$lib/server/http';
import { parseProgressQuery } from '$lib/server/api/jobs/parse';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const q = parseProgressQuery(event.url.searchParams);
	const c = await runProgressOf(await runGrant(event, event.params.ws, event.params.id), q.since ?? 0n);
	const headers = { 'cache-control': 'private, no-store', 'x-progress-cursor': c.cursor };
	return jsonSafe(q.since === null ? c.rows : c, { headers });
});
