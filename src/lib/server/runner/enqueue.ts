// Queueing and canceling runs (the write half of the jobs API). Everything a request can get
// wrong is refused here, before a job exists: the command, the arguments, a version that cannot
// run, a retry of a run that cannot be resumed.
import type { CancelAnswer, QueuedJob } from '$lib/types/runner';
import { isJobId } from '$lib/types/jobs';
import type { Principal } from '../access';
import type { Database } from '../db';
import { ApiError, badRequest, notFound } from '../http';
import { getJobView, insertJob, type JobView } from '../repo/jobs';
import { requestCancel } from '../repo/queue';
import { hasArchive, newestVersion } from '../repo/scripts';
import { parseDescriptor } from '../ingest/descriptor';
import { parseRunArgs } from './run-args';
import { processWorker } from './worker';

export const ARTIFACTS_ONLY =
	'this version was deployed from artifacts alone (no project files), so it can be browsed but not run: ' +
	'deploy it again with its project files (`npx tributary deploy` packs them unless --no-project is given)';

/** The engine kind a version's descriptor asks for (a descriptor that no longer parses fails its run with the reason). */
function engineKindOf(descriptor: string): 'dbt-core' | 'fusion' {
	try {
		return parseDescriptor(descriptor).engine.kind;
	} catch {
		return 'dbt-core';
	}
}

/** Queues a run of the newest version of `path` for the caller. */
export async function queueRun(h: Database, p: Principal, path: string, body: Record<string, unknown>): Promise<QueuedJob> {
	const args = parseRunArgs(body);
	const version = await newestVersion(h.db, p.workspace, path);
	if (!version) throw notFound(`no deployed version at ${path}`);
	if (version.language !== 'dbt') throw badRequest(`${path} is a ${version.language} script; only dbt projects run as jobs`);
	if (!(await hasArchive(h.db, p.workspace, version.hash))) throw badRequest(ARTIFACTS_ONLY);
	// The worker in this process cannot start dbt at all (no Python, no Fusion binary): say so now.
	const problem = await processWorker()?.engineProblem(engineKindOf(version.content));
	if (problem) throw new ApiError(503, problem);
	if (args.command === 'retry') {
		const old = await getJobView(h, p.workspace, args.retry_job!);
		if (!old || old.kind !== 'run' || old.scriptPath !== path) throw badRequest(`retry_job ${args.retry_job} is not a run of ${path}`);
		if (old.status !== 'failure' && old.status !== 'canceled') {
			throw badRequest(`the run ${old.id} is ${old.status}: only a failed or canceled run can be resumed`);
		}
		if (old.scriptHash !== version.hash) {
			throw badRequest(`${path} was deployed again since the run ${old.id}, so its failures no longer describe this version: run it normally instead`);
		}
	}
	const id = await h.db.transaction((tx) =>
		insertJob(tx, {
			workspace: p.workspace,
			kind: 'run',
			scriptPath: path,
			scriptHash: version.hash,
			createdBy: p.username,
			permissionedAs: `u/${p.username}`,
			status: 'queued',
			args,
			timeoutS: args.timeout_s ?? null
		})
	);
	processWorker()?.kick();
	return { job_id: id, url: `/w/${p.workspace}/run/${id}` };
}

/** The job a cancel names (400 for a malformed id, 404 for none). */
export async function jobToCancel(h: Database, ws: string, rawId: string): Promise<JobView> {
	const id = rawId.toLowerCase();
	if (!isJobId(id)) throw badRequest('id must be a job id (a uuid)');
	const job = await getJobView(h, ws, id);
	if (!job) throw notFound('no such job');
	return job;
}

export async function cancelRun(h: Database, p: Principal, job: JobView): Promise<CancelAnswer> {
	// Nothing here runs it: its state is what its events say.
	if (job.kind === 'openlineage') throw new ApiError(409, 'an OpenLineage run is ended by the tool that sends its events (an ABORT or FAIL event), not from here');
	const status = await requestCancel(h, job.workspace, job.id, p.username);
	if (status === null) throw new ApiError(409, `the job has already ended (${(await getJobView(h, job.workspace, job.id))?.status ?? job.status})`);
	return { job_id: job.id, status: status === 'canceled' ? 'canceled' : 'running', cancel_requested: true };
}
