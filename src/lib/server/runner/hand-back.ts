// What a stopping worker does with a job its stop ended (docs/operating.md, "Stopping and
// restarting"). A job that cannot have changed anything yet goes back to the queue and runs again
// from the start on the next worker; one that may have changed the warehouse ends failed, saying
// the worker stopped: whether to run it again (incremental models, snapshots and seeds do not all
// repeat safely) is its owner's decision, not the queue's.
import type { Database } from '../db';
import { requeueJob, type ClaimedJob } from '../repo/queue';
import type { JobLog } from './job-log';
import { BUILDING_COMMANDS } from './run-args';

export interface HandBackRule {
	requeue: boolean;
	/** For the job's log: what happened to the job and why. */
	line: string;
}

const AGAIN = 'the job is back in the queue and runs again from the start on the next worker';

/**
 * The rule. A lineage job stores its result in one transaction at its very end, so a stopped one
 * changed nothing: re-queued. A run is re-queued while no dbt command it started builds: none
 * started yet (it was preparing), or only commands that read (deps, parse, compile and the
 * column-lineage pass, show). A building command (build, run, test, seed, snapshot, retry) may
 * have written relations or stored test failures: not re-queued. A deploy job (pinning a version)
 * is re-queued. Any other kind of job is not re-queued (nothing here knows whether repeating it
 * is safe).
 */
export function handBackRule(kind: string, commands: readonly string[], why?: string): HandBackRule {
	const stopped = `the worker running this ${kind === 'lineage' ? 'lineage job' : 'job'} stopped${why ? ` (${why})` : ''}`;
	if (kind === 'lineage') return { requeue: true, line: `${stopped}; ${AGAIN} (the graph keeps the column lineage it had until then)` };
	// A deploy job only reads until it makes its version live in its last transaction: pinning again is safe.
	if (kind === 'deploy') return { requeue: true, line: `${stopped}; ${AGAIN} (the version stays pending until it is pinned)` };
	if (kind !== 'run') return { requeue: false, line: `${stopped}: not re-queued` };
	const building = commands.filter((c) => BUILDING_COMMANDS.has(c as never));
	if (building.length) {
		return { requeue: false, line: `${stopped} while dbt ${building.at(-1)} ran: not re-queued, as it may already have changed the warehouse (run it again to finish it)` };
	}
	if (commands.length === 0) return { requeue: true, line: `${stopped} before dbt started; ${AGAIN}` };
	const read = [...new Set(commands)];
	return { requeue: true, line: `${stopped}; dbt ${read.join(' and ')} only read${read.length === 1 ? 's' : ''}, so ${AGAIN}` };
}

/**
 * Applies the rule to a job its worker's stop ended (`commands`: the dbt commands it started, in
 * order). `requeued` false: the caller finishes the job as failed, writing `unwritten` with its end
 * (a cancel asked for meanwhile, or a job no longer this worker's, is never re-queued).
 */
export async function handBack(
	database: Database,
	job: ClaimedJob,
	workerId: string,
	commands: readonly string[],
	why: string | undefined,
	log: JobLog
): Promise<{ requeued: boolean; unwritten: string }> {
	const rule = handBackRule(job.kind, commands, why);
	log.say(rule.line);
	if (!rule.requeue) return { requeued: false, unwritten: '' };
	await log.settled();
	const text = log.drain();
	if (await requeueJob(database, job.id, workerId, text)) return { requeued: true, unwritten: '' };
	return { requeued: false, unwritten: `${text}not re-queued after all: a cancel was asked for, or the job is no longer this worker's\n` };
}
