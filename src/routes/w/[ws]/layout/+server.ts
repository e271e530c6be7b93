// POST /w/{ws}/layout {levels}: lays out the levels of a canvas cut (an expanded group and the
// groups around it). The page holds the graph; this holds the layout library and the cache, so
// layout stays on the server. Open to members (it reads nothing stored for them), and to holders
// of a share link for the levels of the run they may see (`?job=`, the run page's job); its
// work is bounded (limits.ts: nodes × edges, ranks spanned, time).
import { json } from '@sveltejs/kit';
import { jobAccess, requireScope, viewTokenOf, workspacePrincipal } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { ApiError, badRequest, forbidden, handleApi, readJsonObject } from '$lib/server/http';
import { jobAssetGraph } from '$lib/server/lineage-api';
import { isCutOf, layoutRequest, parseLevels } from '$lib/server/pages/canvas';
import type { AssetGraph } from '$lib/types/asset-graph';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = handleApi(async (event) => {
	const ws = event.params.ws;
	let runGraph: AssetGraph | null = null;
	if (viewTokenOf(event) !== null) {
		const job = event.url.searchParams.get('job');
		if (!job) throw badRequest('job: a share link lays out the levels of its run; name the run (?job=<id>)');
		// The run page's own gate and graph (the shape, from the graph cache).
		const access = await jobAccess(event, ws, job);
		if (access.principal) requireScope(access.principal, 'assets', 'read');
		runGraph = await jobAssetGraph(await getDatabase(), { kind: 'job', access }, { folder: null, assetKinds: null, scriptHash: null }, { fields: 'shape' });
	} else {
		await workspacePrincipal(event, ws);
	}
	const levels = parseLevels(await readJsonObject(event.request));
	if (typeof levels === 'string') throw badRequest(levels);
	if (runGraph && !isCutOf(runGraph, levels)) throw forbidden('this share link lays out the levels of its run only');
	try {
		return json({ layouts: layoutRequest(levels) });
	} catch (e) {
		if (e instanceof Error && !(e instanceof ApiError)) throw badRequest(e.message);
		throw e;
	}
});
