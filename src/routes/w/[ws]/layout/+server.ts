// POST /w/{ws}/layout {levels, direction?}: lays out the levels of a canvas cut (an expanded group and the
// groups around it). The page holds the graph; this holds the layout library and the cache, so
// layout stays on the server. Open to members (it reads nothing stored for them), and to holders
// of a share link for the levels of the run they may see (`?job=`, the run page's job); its
// work is bounded (limits.ts: nodes × edges, ranks spanned, time).
import { json } from '@sveltejs/kit';
import { layoutAccess, pinnedAccessOf, requireLevelsOfRun } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { ApiError, badRequest, handleApi, readJsonObject } from '$lib/server/http';
import { jobAssetGraph } from '$lib/server/api/graph/reads';
import { isCutOf, layoutRequest, parseDirection, parseLevels } from '$lib/server/api/graph/canvas';
import type { AssetGraph } from '$lib/types/asset-graph';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = handleApi(async (event) => {
	const access = await layoutAccess(event, event.params.ws);
	// The run page's graph (its shape, from the graph cache), to check a share link's levels.
	const runGraph: AssetGraph | null = access.run
		? await jobAssetGraph(pinnedAccessOf(access.run), await getDatabase(), { folder: null, assetKinds: null, scriptHash: null }, { fields: 'shape' })
		: null;
	const body = await readJsonObject(event.request);
	const levels = parseLevels(body);
	if (typeof levels === 'string') throw badRequest(levels);
	const direction = parseDirection(body);
	if (direction !== 'LR' && direction !== 'TB') throw badRequest(direction);
	if (runGraph) requireLevelsOfRun(isCutOf(runGraph, levels));
	try {
		return json({ layouts: layoutRequest(levels, direction) });
	} catch (e) {
		if (e instanceof Error && !(e instanceof ApiError)) throw badRequest(e.message);
		throw e;
	}
});
