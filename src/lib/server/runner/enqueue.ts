// Queueing and canceling runs (the write half of the jobs API). Everything a request can get
// wrong is refused here, before a job exists: the command, the arguments, a version that cannot
// run, a retry of a run that cannot be resumed.
import type { CancelAnswer, QueuedJob } from '$lib/types/runner';
import { isJobId } from '$lib/types/jobs';
import { hashToHex } from '$lib/types/script-hash';
import type { Grant } from '../access';
import type { Database } from '../db';
import { ApiError, badRequest, notFound } from '../http';
import { getJobView, insertJob, type JobView } from '../repo/jobs';
import { requestCancel } from '../repo/queue';
import { hasArchive, newestVersion } from '../repo/scripts';
import { parseDescriptor } from '../dbt-files/descriptor';
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

/** What the run page offers to start from a finished run, and what it will do, said before it does it. */
export interface RunOffer {
	/** The button's words. */
	label: string;
	/** One sentence: what pressing it runs, on what, where. */
	explains: string;
	/** The body of POST jobs/run/p/{path}. */
	body: { command: 'retry'; retry_job: string } | { command: 'build' };
}

/**
 * What can be started again from a finished job, or null when nothing can: a failed or canceled
 * run of the newest version resumes with `dbt retry`; a recorded run (it ran elsewhere, so there
 * is nothing here to retry) offers a build of the project here when it can run here. The same
 * conditions queueRun refuses on, checked before a button is shown rather than after it is
 * pressed. Whether the caller may run the path at all is the run's grant's (RunGrant.mayResume).
 */
export async function runOffer(database: Database, job: JobView): Promise<RunOffer | null> {
	if (!job.scriptPath || (job.kind !== 'run' && job.kind !== 'recorded')) return null;
	if (job.status === 'queued' || job.status === 'running') return null;
	const version = await newestVersion(database.db, job.workspace, job.scriptPath);
	if (!version || version.language !== 'dbt') return null;
	if (!(await hasArchive(database.db, job.workspace, version.hash))) return null;
	if (await processWorker()?.engineProblem(engineKindOf(version.content))) return null;
	const short = hashToHex(version.hash).slice(0, 12);
	if (job.kind === 'run') {
		if (job.status !== 'failure' && job.status !== 'canceled') return null;
		if (job.scriptHash !== version.hash) return null;
		return {
			label: 'Resume this run',
			explains: `dbt retry: runs again what failed or was skipped in this run, on the same version (${short}), with the same command and selection.`,
			body: { command: 'retry', retry_job: job.id }
		};
	}
	const same = job.scriptHash === version.hash;
	return {
		label: 'Run it here',
		explains:
			`This run was recorded elsewhere, so it cannot be resumed. This starts dbt build of ${job.scriptPath} ` +
			`(${same ? 'the version it recorded' : 'the newest version'}, ${short}) here, in its warehouse; the page colours each node as dbt builds it.`,
		body: { command: 'build' }
	};
}

/** Queues a run of the newest version of `path` for the caller (whose grant runs it: the route asked before reading the body). */
export async function queueRun(grant: Grant, database: Database, path: string, body: Record<string, unknown>): Promise<QueuedJob> {
	const args = parseRunArgs(body);
	const version = await newestVersion(database.db, grant.workspace, path);
	if (!version) throw notFound(`no deployed version at ${path}`);
	if (version.language !== 'dbt') throw badRequest(`${path} is a ${version.language} script; only dbt projects run as jobs`);
	if (!(await hasArchive(database.db, grant.workspace, version.hash))) throw badRequest(ARTIFACTS_ONLY);
	// The worker in this process cannot start dbt at all (no Python, no Fusion binary): say so now.
	const problem = await processWorker()?.engineProblem(engineKindOf(version.content));
	if (problem) throw new ApiError(503, problem);
	if (args.command === 'retry') {
		const old = await getJobView(database, grant.workspace, args.retry_job!);
		if (!old || old.kind !== 'run' || old.scriptPath !== path) throw badRequest(`retry_job ${args.retry_job} is not a run of ${path}`);
		if (old.status !== 'failure' && old.status !== 'canceled') {
			throw badRequest(`the run ${old.id} is ${old.status}: only a failed or canceled run can be resumed`);
		}
		if (old.scriptHash !== version.hash) {
			throw badRequest(`${path} was deployed again since the run ${old.id}, so its failures no longer describe this version: run it normally instead`);
		}
	}
	const id = await database.db.transaction((tx) =>
		insertJob(tx, {
			workspace: grant.workspace,
			kind: 'run',
			scriptPath: path,
			scriptHash: version.hash,
			createdBy: grant.username,
			permissionedAs: `u/${grant.username}`,
			status: 'queued',
			args,
			timeoutS: args.timeout_s ?? null
		})
	);
	processWorker()?.kick();
	return { job_id: id, url: `/w/${grant.workspace}/run/${id}` };
}

/** The job a cancel names (400 for a malformed id, 404 for none). */
export async function jobToCancel(database: Database, ws: string, rawId: string): Promise<JobView> {
	const id = rawId.toLowerCase();
	if (!isJobId(id)) throw badRequest('id must be a job id (a uuid)');
	const job = await getJobView(database, ws, id);
	if (!job) throw notFound('no such job');
	return job;
}

/** Cancels `job` for a caller whose grant may stop it (its creator, or a writer of its script). */
export async function cancelRun(grant: Grant, database: Database, job: JobView): Promise<CancelAnswer> {
	grant.requireCancel(job);
	// Nothing here runs it: its state is what its events say.
	if (job.kind === 'openlineage') throw new ApiError(409, 'an OpenLineage run is ended by the tool that sends its events (an ABORT or FAIL event), not from here');
	const status = await requestCancel(database, job.workspace, job.id, grant.username);
	if (status === null) throw new ApiError(409, `the job has already ended (${(await getJobView(database, job.workspace, job.id))?.status ?? job.status})`);
	return { job_id: job.id, status: status === 'canceled' ? 'canceled' : 'running', cancel_requested: true };
}
