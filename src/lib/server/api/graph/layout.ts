// POST /w/{ws}/layout's service: the levels and direction read from the body (a 400 names what is
// wrong), a share link's levels checked against its run's own graph, then the layout (canvas.ts,
// bounded and cached there).
import type { LevelLayout } from '../../../lineage/canvas-layout';
import type { AssetGraph } from '../../../types/asset-graph';
import { pinnedAccessOf, requireLevelsOfRun, type JobAccess } from '../../access';
import { getDatabase } from '../../db';
import { ApiError, badRequest, readJsonObject } from '../../http';
import { isCutOf, layoutRequest, parseDirection, parseLevels } from './canvas';
import { jobAssetGraph } from './reads';

/** `run`: the run a share link opens (its levels only), or null for a member of the workspace. */
export async function layoutFor(run: JobAccess | null, request: Request): Promise<{ layouts: Record<string, LevelLayout> }> {
	// The run page's graph (its shape, from the graph cache), to check a share link's levels.
	const runGraph: AssetGraph | null = run ? await jobAssetGraph(pinnedAccessOf(run), await getDatabase(), { folder: null, assetKinds: null, scriptHash: null }, { fields: 'shape' }) : null;
	const body = await readJsonObject(request);
	const levels = parseLevels(body);
	if (typeof levels === 'string') throw badRequest(levels);
	const direction = parseDirection(body);
	if (direction !== 'LR' && direction !== 'TB') throw badRequest(direction);
	if (runGraph) requireLevelsOfRun(isCutOf(runGraph, levels));
	try {
		return { layouts: layoutRequest(levels, direction) };
	} catch (e) {
		if (e instanceof Error && !(e instanceof ApiError)) throw badRequest(e.message);
		throw e;
	}
}
