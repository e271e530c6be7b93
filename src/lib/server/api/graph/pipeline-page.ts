// The pipeline page of a folder: its asset graph (the same read and grant question as
// GET assets/graph?folder=&fields=shape: the details pane reads a relation's authored fields on
// selection), reduced to the canvas and laid out; both cached (graph-cache.ts), in process and
// in the database, so the first open after a restart reads what it would rebuild. The latest run
// of each of its dbt projects colours the run lens.
import { error, type Cookies } from '@sveltejs/kit';
import type { Grant } from '../../access';
import { getDatabase } from '../../db';
import { ApiError } from '../../http';
import { directionFromCookies, storedCanvasPayload } from './canvas';
import { latestRuns } from '../jobs/latest-runs';
import { unpinnedAssetGraph } from './reads';

export async function pipelinePage(grant: Grant, folder: string, view: { select: string | null; cookies: Pick<Cookies, 'get'> }) {
	const t0 = performance.now();
	let graph;
	try {
		// GET assets/graph's question.
		grant.require('assets', 'read');
		graph = await unpinnedAssetGraph(grant, await getDatabase(), { folder, assetKinds: null, scriptHash: null }, { fields: 'shape' });
	} catch (e) {
		if (e instanceof ApiError) error(e.status, e.message);
		throw e;
	}
	const graphMs = Math.round(performance.now() - t0);
	const payload = await storedCanvasPayload(await getDatabase(), grant.workspace, graph, { focus: view.select, direction: directionFromCookies(view.cookies) });
	// GET jobs/list's question, inside: the run lens's latest statuses, for whoever may list the runs.
	const runs = await latestRuns(grant, await getDatabase(), graph);
	// The deploy panel for whoever may upload into the folder (scripts:write, as the upload's gate);
	// the producers this caller may delete, by path (the button beside a selected one). Any name
	// in the folder stands for a new project's path (a scope names paths by folder).
	const mayDeploy = grant.mayWrite(`f/${folder}/new_project`);
	const deletable = graph.runnables.filter((r) => r.language !== 'dbt' && grant.mayDelete(r.path)).map((r) => r.path);
	// The canvas as JSON text: the page parses it natively, and the server sends the text it keeps.
	return { folder, canvas: payload.canvas, latestRuns: runs, timing: { ...payload.timing, graphMs }, mayDeploy, deletable };
}
