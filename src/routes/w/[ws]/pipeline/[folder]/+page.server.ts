// The pipeline canvas of a folder: its asset graph (the same read and gates as
// GET assets/graph?folder=&fields=shape: the details pane reads a relation's authored fields
// on selection), reduced to the canvas and laid out here; both cached (graph-cache.ts), in
// process and in the database, so the first open after a restart reads what it would rebuild.
// The latest run of each of its dbt projects colours the run lens.
import { error } from '@sveltejs/kit';
import { grantOf, mayDelete, mayWritePath, pagePrincipal, requireScope } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { ApiError } from '$lib/server/http';
import { unpinnedAssetGraph } from '$lib/server/lineage-api';
import { directionFromCookies, storedCanvasPayload } from '$lib/server/pages/canvas';
import { latestRuns } from '$lib/server/pages/latest-runs';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
	const p = await pagePrincipal(event, event.params.ws);
	// Re-run by the page while an OpenLineage job's run goes (its card's colour).
	event.depends('tributary:pipeline-runs');
	const t0 = performance.now();
	let graph;
	try {
		// GET assets/graph's gate.
		requireScope(p, 'assets', 'read');
		graph = await unpinnedAssetGraph(grantOf(p), await getDatabase(), { folder: event.params.folder, assetKinds: null, scriptHash: null }, { fields: 'shape' });
	} catch (e) {
		if (e instanceof ApiError) error(e.status, e.message);
		throw e;
	}
	const graphMs = Math.round(performance.now() - t0);
	const payload = await storedCanvasPayload(await getDatabase(), p.workspace, graph, { focus: event.url.searchParams.get('select'), direction: directionFromCookies(event.cookies) });
	// GET jobs/list's gate, inside: the run lens's latest statuses, for whoever may list the runs.
	const runs = await latestRuns(grantOf(p), await getDatabase(), graph);
	// The deploy panel for whoever may upload into the folder (scripts:write, as the upload's gate);
	// the producers this caller may delete, by path (the button beside a selected one).
	const folder = event.params.folder;
	// Any name in the folder stands for a new project's path (a scope names paths by folder).
	const mayDeploy = mayWritePath(p, `f/${folder}/new_project`);
	const deletable = graph.runnables.filter((r) => r.language !== 'dbt' && mayDelete(p, r.path)).map((r) => r.path);
	// The canvas as JSON text: the page parses it natively, and the server sends the text it keeps.
	return { folder, canvas: payload.canvas, latestRuns: runs, timing: { ...payload.timing, graphMs }, mayDeploy, deletable };
};
