// A run page: the job, its pinned graph (jobs/dbt_graph/{id}: its own snapshot, else its
// version's) and its progress. Open to whoever may read the job, a public share link without a
// session included — checked here, since the workspace layout lets `?view_token=` through.
import { error, redirect } from '@sveltejs/kit';
import { runPageAccess, type PinnedAccess, type RunGrant } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { ApiError } from '$lib/server/http';
import { jobDetailOf } from '$lib/server/jobs-api';
import { jobRunCanvas } from '$lib/server/lineage-api';
import { directionFromCookies } from '$lib/server/pages/canvas';
import { testStatusesOfRun } from '$lib/server/pages/latest-runs';
import { jobForRunPage, runProgressOf } from '$lib/server/api/jobs/reads';
import { runOffer } from '$lib/server/runner/enqueue';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
	// Re-run by the page while the run is live (statuses, and the graph it stores as it starts).
	event.depends('tributary:run');
	const { ws, id } = event.params;
	const viewToken = event.url.searchParams.get('view_token');
	let run: RunGrant;
	let pinned: PinnedAccess;
	try {
		({ run, pinned } = await runPageAccess(event, ws, id));
	} catch (e) {
		if (!(e instanceof ApiError)) throw e;
		if (e.status === 401 && !event.locals.auth) redirect(303, `/login?next=${encodeURIComponent(event.url.pathname + event.url.search)}`);
		error(e.status, e.message);
	}
	const database = await getDatabase();
	// No log: the page reads its tail when its panel is opened (most viewers never do); only
	// whether there is one, for a viewer who may read it.
	const payload = await jobForRunPage(run);
	if (!payload) error(404, 'no such job');
	const job = jobDetailOf(run, payload);
	// Every row, and the cursor the page's polls continue from (they then read changes only).
	const changes = await runProgressOf(run, 0n);
	// As JSON text: SvelteKit's devalue walks each of thousands of row objects on every open, at
	// ten times the cost of JSON.stringify (bench/README.md, "polling"); a string it copies whole.
	const progressJson = JSON.stringify(changes.rows);
	// The canvas itself is not in the page data: the page reads it from jobs/run_canvas (bytes
	// cached per pinned graph and redaction, with an ETag), so an open no longer serializes it.
	// The shape graph stays here for the test statuses; it is the graph cache's shared object.
	const direction = directionFromCookies(event.cookies);
	let drawn;
	try {
		drawn = await jobRunCanvas(pinned, database, direction);
	} catch (e) {
		if (!(e instanceof ApiError)) throw e;
		error(e.status, e.message);
	}
	const { graph, canvas } = drawn;
	const authored = run.redactRun() === 'authored';
	return {
		job,
		/** RunProgressItem[] as JSON text (parsed by the page). */
		progressJson,
		progressCursor: changes.cursor,
		/** The job has a log this viewer may open (read when its panel opens). */
		hasLog: authored && payload.hasLog,
		/** What jobs/run_canvas answers now: the page re-reads the canvas when this moves. */
		canvasEtag: canvas.etag,
		canvasDirection: direction,
		/** The worst result of each relation's tests in this run (the test lens). */
		testStatuses: await testStatusesOfRun(database, run.job, graph, payload.result),
		ownSnapshot: graph.dbt_snapshot_job === run.job.id,
		graphIngestedAt: graph.dbt_graph_ingested_at ?? null,
		viewToken,
		/** Why the authored parts are missing, or null when this viewer sees them. */
		restricted: authored
			? null
			: run.member
				? 'You can see this run, but not its project: SQL, descriptions, columns and column lineage are hidden.'
				: 'You are viewing this run through a share link: SQL, descriptions, columns and column lineage are not shown.',
		mayShare: run.mayShare,
		mayResume: run.mayResume,
		/** What this viewer can start from this run (resume it, or run a recorded run's project here), or null. */
		runOffer: run.mayResume ? await runOffer(database, run.job) : null
	};
};
