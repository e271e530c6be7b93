// GET jobs/run_progress/{id}: the live state of each relation of a run, in asset-path order.
// Without `since` a JSON array of every row (DESIGN.md §6); with `?since=<cursor>` only the rows
// changed after that cursor, as `{cursor, total, rows}` (a polling page reads in full once, then
// changes). Both carry the next cursor in the X-Progress-Cursor header.
import { jobAccess } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { handleApi, jsonSafe } from '$lib/server/http';
import { parseProgressQuery, progressItemOf } from '$lib/server/jobs-api';
import type { RunProgressChanges } from '$lib/types/jobs';
import { progressSince } from '$lib/server/repo/jobs';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const q = parseProgressQuery(event.url.searchParams);
	const a = await jobAccess(event, event.params.ws, event.params.id);
	const c = await progressSince(await getDatabase(), a.job.workspace, a.job.id, q.since ?? 0n);
	const headers = { 'cache-control': 'private, no-store', 'x-progress-cursor': c.cursor };
	const rows = c.rows.map((r) => progressItemOf(r, a.canReadScript));
	if (q.since === null) return jsonSafe(rows, { headers });
	return jsonSafe({ cursor: c.cursor, total: c.total, rows } satisfies RunProgressChanges, { headers });
});
