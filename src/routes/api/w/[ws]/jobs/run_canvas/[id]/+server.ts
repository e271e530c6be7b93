// GET jobs/run_canvas/{id}?direction=LR|TB: the run page's canvas (its pinned graph's compact
// canvas and first cut laid out), the same bytes for every viewer of one redaction, with an
// ETag (304 on If-None-Match). Gated exactly like the run page (runPageAccess).
import { runPageAccess } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { graphResponse } from '$lib/server/graph-cache';
import { badRequest, handleApi } from '$lib/server/http';
import { jobRunCanvas } from '$lib/server/api/graph/reads';
import { isDirection } from '$lib/lineage/canvas-sizes';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const direction = event.url.searchParams.get('direction') ?? 'LR';
	if (!isDirection(direction)) throw badRequest('direction: "LR" or "TB"');
	const { pinned } = await runPageAccess(event, event.params.ws, event.params.id);
	const { canvas } = await jobRunCanvas(pinned, await getDatabase(), direction);
	return graphResponse(canvas, event.request.headers.get('if-none-match'));
});
