// The latest run of each dbt project on a folder's canvas, for the canvas's run lens: the jobs
// this caller may list (GET jobs/list's rule, applied in SQL), their progress and results
// reduced to a status per relation of the canvas on screen, and its tests' worst result. Statuses only: no row counts, no
// dbt messages, and nothing about a relation the canvas does not show.
import type { Grant } from '$lib/server/access';
import { latestOpenLineageRuns } from '$lib/server/repo/openlineage-in';
import { OPENLINEAGE_LANGUAGE } from '$lib/lineage/openlineage-in';
import type { Database } from '$lib/server/db';
import { progressShapeOf } from '$lib/server/api/jobs/wire';
import { getJobPayloadWithoutLog, listJobs, progressOf } from '$lib/server/repo/jobs';
import { pinnedGraphOf, testOwnersOf } from '$lib/server/repo/lineage';
import { testStatusesByOwner, type RunState, type TestState } from '$lib/lineage/canvas-lens';
import { assetNodeId, scriptNodeId } from '$lib/lineage/canvas-model';
import { runStatuses } from '$lib/lineage/run-status';
import type { AssetGraph } from '$lib/types/asset-graph';
import type { LatestRuns } from '$lib/types/canvas';

/** Projects looked at per page: a folder with more shows the latest runs of the first ones. */
const MAX_PROJECTS = 10;
/** Jobs read per project to find its latest run among previews and deploys. */
const LOOK_BACK = 10;

/**
 * The worst test result of each relation of `graph` in a job's result (dbt's outcomes per node),
 * each test attributed to what it tests as the job's own graph records it.
 */
export async function testStatusesOfRun(
	database: Database,
	job: { workspace: string; id: string; scriptPath: string | null; scriptHash: bigint | null },
	graph: AssetGraph,
	result: unknown
): Promise<Record<string, TestState>> {
	const nodes = (result as { nodes?: unknown } | null)?.nodes;
	if (!Array.isArray(nodes)) return {};
	const results = nodes.filter((n): n is { unique_id: string; outcome: string } => typeof n?.unique_id === 'string' && typeof n?.outcome === 'string');
	const relations = graph.assets.filter((a) => a.dbt).map((a) => ({ id: assetNodeId(a.kind, a.path), uniqueId: a.dbt!.unique_id, kinds: a.dbt!.data_tests.map((t) => t.kind) }));
	const pinned = await pinnedGraphOf(database, job);
	const owners = pinned ? await testOwnersOf(database, pinned.key) : new Map<string, string[]>();
	return Object.fromEntries(testStatusesByOwner(results, owners, relations));
}

/** An OpenLineage run's status as a card shows it. */
const JOB_RUN_STATE: Record<string, RunState> = { running: 'running', success: 'passed', failure: 'failed', canceled: 'skipped' };

export async function latestRuns(grant: Grant, database: Database, graph: AssetGraph): Promise<LatestRuns | null> {
	if (!grant.allows('jobs', 'read')) return null;
	const projects = graph.runnables
		.filter((r) => r.language === 'dbt')
		.map((r) => r.path)
		.sort()
		.slice(0, MAX_PROJECTS);
	// The runnables drawn are paths the caller reads: a job's runs are readable unless the token's jobs:read narrows them.
	const jobs = graph.runnables.filter((r) => r.language === OPENLINEAGE_LANGUAGE && grant.reachesJobsOf(r.path)).map((r) => r.path);
	if (!projects.length && !jobs.length) return null;
	const onCanvas = new Set(graph.assets.map((a) => assetNodeId(a.kind, a.path)));
	const byUniqueId = new Map<string, string>();
	for (const a of graph.assets) if (a.dbt?.unique_id) byUniqueId.set(a.dbt.unique_id, assetNodeId(a.kind, a.path));
	const out: LatestRuns = { runs: [], statuses: {}, tests: {}, jobs: {} };
	for (const run of await latestOpenLineageRuns(database, grant.workspace, jobs)) {
		const state = JOB_RUN_STATE[run.status] ?? 'running';
		out.jobs[scriptNodeId(run.scriptPath)] = state;
		out.statuses[scriptNodeId(run.scriptPath)] = state;
		out.runs.push({ id: run.id, scriptPath: run.scriptPath, status: run.status, createdAt: run.createdAt.toISOString() });
	}
	const access = grant.jobListing();
	for (const scriptPath of projects) {
		const jobs = await listJobs(database, grant.workspace, { scriptPath, limit: LOOK_BACK }, access);
		const run = jobs.find((j) => (j.kind === 'run' || j.kind === 'recorded') && j.status !== 'queued');
		if (!run) continue;
		const progress = (await progressOf(database, grant.workspace, run.id)).map(progressShapeOf);
		const payload = await getJobPayloadWithoutLog(database, grant.workspace, run.id);
		const result = payload?.result && typeof payload.result === 'object' ? (payload.result as Record<string, unknown>) : null;
		for (const [id, s] of runStatuses(progress, result, (u) => byUniqueId.get(u))) {
			if (onCanvas.has(id)) out.statuses[id] = s.status;
		}
		Object.assign(out.tests, await testStatusesOfRun(database, { workspace: grant.workspace, id: run.id, scriptPath: run.scriptPath, scriptHash: run.scriptHash }, graph, result));
		out.runs.push({ id: run.id, scriptPath, status: run.status, createdAt: run.createdAt.toISOString() });
	}
	return out;
}
