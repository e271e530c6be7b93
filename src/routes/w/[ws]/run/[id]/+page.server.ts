// A run page: the job, its pinned graph (jobs/dbt_graph/{id}: its own snapshot, else its
// version's) and its progress. Open to whoever may read the job, a public share link without a
// session included — checked here, since the workspace layout lets `?view_token=` through.
import { error, redirect } from '@sveltejs/kit';
import { canWritePath, jobAccess, type JobAccess } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { ApiError } from '$lib/server/http';
import { jobDetailOf, progressItemOf } from '$lib/server/jobs-api';
import { jobAssetGraph, pinnedAccess } from '$lib/server/lineage-api';
import { canvasPayload } from '$lib/server/pages/canvas';
import { getJobPayload, progressOf } from '$lib/server/repo/jobs';
import { JOB_LOG_TAIL } from '$lib/types/jobs';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
	// Re-run by the page while the run is live (statuses, and the graph it stores as it starts).
	event.depends('tributary:run');
	const { ws, id } = event.params;
	const viewToken = event.url.searchParams.get('view_token');
	let access: JobAccess;
	try {
		access = await jobAccess(event, ws, id);
	} catch (e) {
		if (!(e instanceof ApiError)) throw e;
		if (e.status === 401 && !event.locals.auth) redirect(303, `/login?next=${encodeURIComponent(event.url.pathname + event.url.search)}`);
		error(e.status, e.message);
	}
	const h = await getDatabase();
	const payload = await getJobPayload(h, access.job.workspace, access.job.id, access.canReadScript ? JOB_LOG_TAIL : 0);
	if (!payload) error(404, 'no such job');
	const job = jobDetailOf(access.job, payload, access.canReadScript);
	const progress = (await progressOf(h, access.job.workspace, access.job.id)).map(progressItemOf);
	let graph;
	try {
		graph = await jobAssetGraph(h, await pinnedAccess(event, ws, id), { folder: null, assetKinds: null, scriptHash: null });
	} catch (e) {
		if (!(e instanceof ApiError)) throw e;
		error(e.status, e.message);
	}
	const p = access.principal;
	return {
		job,
		progress,
		...canvasPayload(graph),
		ownSnapshot: graph.dbt_snapshot_job === access.job.id,
		graphIngestedAt: graph.dbt_graph_ingested_at ?? null,
		viewToken,
		/** Why the authored parts are missing, or null when this viewer sees them. */
		restricted: access.canReadScript
			? null
			: p
				? 'You can see this run, but not its project: SQL, descriptions, columns and column lineage are hidden.'
				: 'You are viewing this run through a share link: SQL, descriptions, columns and column lineage are not shown.',
		mayShare: p !== null && access.via !== 'share_link',
		mayResume: p !== null && access.job.scriptPath !== null && canWritePath(p, access.job.scriptPath)
	};
};
