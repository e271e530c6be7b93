// A run page: the job, its pinned graph (jobs/dbt_graph/{id}: its own snapshot, else its
// version's) and its progress, for whoever the run's grant lets in (a public share link without
// a session included: the page's gate checks it, since the workspace layout lets `?view_token=`
// through).
import { error, type Cookies } from '@sveltejs/kit';
import type { PinnedAccess, RunGrant } from '../../access';
import { getDatabase } from '../../db';
import { ApiError } from '../../http';
import { directionFromCookies } from '../graph/canvas';
import { runOffer } from '../../runner/enqueue';
import { jobRunCanvas } from '../graph/reads';
import { testStatusesOfRun } from './latest-runs';
import { jobForRunPage, runProgressOf } from './reads';
import { jobDetailOf } from './wire';

export async function runPage({ run, pinned }: { run: RunGrant; pinned: PinnedAccess }, view: { viewToken: string | null; cookies: Pick<Cookies, 'get'> }) {
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
	const direction = directionFromCookies(view.cookies);
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
		viewToken: view.viewToken,
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
}
