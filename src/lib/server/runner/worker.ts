// The job worker: claims queued runs and lineage jobs, runs each under a heartbeat that also carries cancellation,
// and reclaims the jobs of workers that stopped beating. Any number of these may poll one
// Postgres; the in-process one of `npm start` is the same code on the embedded database.
import { randomBytes } from 'node:crypto';
import { readdir, readFile, readlink, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import type { Database } from '../db';
import type { JobKind, JobView } from '../repo/jobs';
import { claimNextJob, finishJob, heartbeat, reapStaleJobs, appendRunningLog, type ClaimedJob } from '../repo/queue';
import { pushRunEvents } from '../openlineage-push';
import { beatWorker, removeWorker } from '../repo/workers';
import { runnerConfigFromEnv, SANDBOX_OFF_WARNING, type RunnerConfig } from './config';
import { deleteLineagePlan } from '../repo/inference';
import { executeJob, UNREPORTED_MESSAGE, type ExecContext, type StopReason } from './execute';
import { handBack } from './hand-back';
import { JobLog } from './job-log';
import { executeLineageJob } from './lineage-job';
import { executeDeployJob } from './deploy-job';
import type { IngestPort } from './ingest-port';
import { enginesOf, FUSION_MISSING } from './engine/for-job';
import { EngineUnavailable, findPython } from './engine/provision';
import { jobDirs } from './workdir';
import { setWorkerWake } from '../wake-worker';

export const WORKER_STOPPED_MESSAGE = 'the worker running this job stopped';

export interface WorkerOptions {
	database: Database;
	/** What run and deploy jobs store their graphs through (the ingest, passed in: see ingest-port.ts). */
	ingest: IngestPort;
	/** Runs at once by this worker (TRIBUTARY_WORKER_SLOTS, default 1). */
	slots?: number;
	/**
	 * Lineage jobs at once (TRIBUTARY_WORKER_LINEAGE_SLOTS, default 1), apart from the run slots:
	 * a long inference never keeps a run waiting for a slot, nor a run an inference.
	 */
	lineageSlots?: number;
	/** Idle wait between claims (TRIBUTARY_WORKER_POLL_MS). */
	pollMs?: number;
	/** TRIBUTARY_WORKER_HEARTBEAT_MS: also how quickly a cancel is noticed. */
	heartbeatMs?: number;
	/** A running job whose heartbeat is older than this is reclaimed (TRIBUTARY_WORKER_STALE_S). */
	staleS?: number;
	config?: RunnerConfig;
	id?: string;
	/** Where the worker reports what it does (one line each). */
	log?: (line: string) => void;
}

const int = (v: string | undefined, fallback: number) => {
	const n = Number(v);
	return v !== undefined && v !== '' && Number.isFinite(n) && n > 0 ? n : fallback;
};

interface Running {
	job: ClaimedJob;
	abort: AbortController;
	done: Promise<void>;
	/** The dbt commands its invocations started, in order (what a hand-back decides by). */
	commands: string[];
}

export interface StopOptions {
	/**
	 * Hand the jobs in flight back (hand-back.ts): re-queue those that changed nothing yet, end the
	 * others failed saying why. Without it every job in flight ends failed.
	 */
	handBack?: boolean;
	/** At most this long between SIGTERM and SIGKILL for their dbt (the runner's kill grace when shorter); default 0, SIGKILL at once. */
	withinMs?: number;
	/** Why the worker stops (a signal's name), for the jobs' logs. */
	why?: string;
}

export class Worker {
	readonly id: string;
	private readonly slots: number;
	private readonly lineageSlots: number;
	private readonly pollMs: number;
	private readonly heartbeatMs: number;
	private readonly staleS: number;
	private readonly config: RunnerConfig;
	private readonly log: (line: string) => void;
	private readonly running = new Map<string, Running>();
	private stopping = false;
	private stopOptions: StopOptions = {};
	private loop: Promise<void> | null = null;
	private wake: (() => void) | null = null;
	private lastReap = 0;
	private lastPresence = 0;

	constructor(private readonly opts: WorkerOptions) {
		this.id = opts.id ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
		this.slots = opts.slots ?? int(process.env.TRIBUTARY_WORKER_SLOTS, 1);
		this.lineageSlots = opts.lineageSlots ?? int(process.env.TRIBUTARY_WORKER_LINEAGE_SLOTS, 1);
		this.pollMs = opts.pollMs ?? int(process.env.TRIBUTARY_WORKER_POLL_MS, 1000);
		this.heartbeatMs = opts.heartbeatMs ?? int(process.env.TRIBUTARY_WORKER_HEARTBEAT_MS, 1000);
		this.staleS = opts.staleS ?? int(process.env.TRIBUTARY_WORKER_STALE_S, 30);
		this.config = opts.config ?? runnerConfigFromEnv();
		this.log = opts.log ?? (() => {});
	}

	/** Ids of the jobs this worker is running now. */
	get active(): string[] {
		return [...this.running.keys()];
	}

	start(): this {
		if (!this.loop && this.config.sandbox === 'off') process.stderr.write(`\n${SANDBOX_OFF_WARNING}\n\n`);
		this.loop ??= this.run();
		return this;
	}

	/**
	 * Why this worker cannot run a project on the engine kind it asks for, in one sentence with the
	 * fix (no Python to provision dbt-core with, no Fusion binary); null when it can. The run route
	 * asks before queueing, so the refusal is the answer rather than a failed job.
	 */
	async engineProblem(kind: 'dbt-core' | 'fusion'): Promise<string | null> {
		if (this.config.dbtBin) return null;
		if (kind === 'fusion') return this.config.fusionBin ? null : FUSION_MISSING;
		try {
			await findPython(enginesOf(this.config).settings);
			return null;
		} catch (e) {
			if (e instanceof EngineUnavailable) return e.message;
			throw e;
		}
	}

	/** Look for work now rather than at the next poll (the run route calls it after queueing). */
	kick(): void {
		this.wake?.();
	}

	/**
	 * Stops claiming, stops the jobs in flight (their process groups are stopped; each is handed back
	 * or ends failed with WORKER_STOPPED_MESSAGE, while the database is reachable), and waits for them.
	 */
	async stop(opts: StopOptions = {}): Promise<void> {
		this.stopping = true;
		this.stopOptions = opts;
		this.wake?.();
		const abortAll = () => {
			for (const r of this.running.values()) r.abort.abort('worker-stopped' satisfies StopReason);
		};
		abortAll();
		await this.loop;
		// A claim in flight when the stop began lands after it: that job is stopped like the rest.
		abortAll();
		await Promise.allSettled([...this.running.values()].map((r) => r.done));
		await removeWorker(this.opts.database, this.id).catch(() => {});
	}

	private async run(): Promise<void> {
		while (!this.stopping) {
			let claimed = false;
			try {
				await this.sayAliveIfDue();
				await this.reapIfDue();
				for (;;) {
					const kinds = this.freeKinds();
					if (this.stopping || kinds.length === 0) break;
					const job = await claimNextJob(this.opts.database, this.id, kinds);
					if (!job) break;
					claimed = true;
					this.begin(job);
				}
			} catch (e) {
				if (this.stopping) break;
				this.log(`worker ${this.id}: ${(e as Error).message}`);
			}
			if (this.stopping) break;
			// A job just claimed may leave a free slot: look again at once.
			if (claimed && this.freeKinds().length > 0) continue;
			await new Promise<void>((resolve) => {
				const t = setTimeout(resolve, this.pollMs);
				this.wake = () => {
					clearTimeout(t);
					resolve();
				};
			});
			this.wake = null;
		}
	}

	/** Presence for the admin's stats: often enough that a live worker never looks stale. */
	private async sayAliveIfDue(): Promise<void> {
		const now = Date.now();
		if (now - this.lastPresence < Math.min(this.staleS * 250, 5_000)) return;
		this.lastPresence = now;
		await beatWorker(this.opts.database, { workerId: this.id, host: hostname(), pid: process.pid, slots: this.slots + this.lineageSlots, running: this.running.size });
	}

	/** The kinds of job this worker has a free slot for. */
	private freeKinds(): ('run' | 'deploy' | 'lineage')[] {
		let runs = 0;
		let lineage = 0;
		for (const r of this.running.values()) {
			if (r.job.kind === 'lineage') lineage++;
			else runs++;
		}
		const out: ('run' | 'deploy' | 'lineage')[] = [];
		// A deploy job runs dbt (deps, parse) like a run, so it takes a run slot.
		if (runs < this.slots) out.push('run', 'deploy');
		if (lineage < this.lineageSlots) out.push('lineage');
		return out;
	}

	private async reapIfDue(): Promise<void> {
		const now = Date.now();
		if (now - this.lastReap < Math.min(this.staleS * 500, 10_000)) return;
		this.lastReap = now;
		const reaped = await reapStaleJobs(this.opts.database, this.staleS, WORKER_STOPPED_MESSAGE, UNREPORTED_MESSAGE);
		for (const r of reaped) {
			this.log(`worker ${this.id}: reclaimed job ${r.id} from ${r.workerId ?? 'an unknown worker'}, which stopped beating; marked failed`);
			// A lineage job's plan goes with it (a run has none): its graph keeps what the deploy stored.
			await deleteLineagePlan(this.opts.database, r.id);
			await killStrayGroup(r.id);
		}
	}

	private begin(job: ClaimedJob): void {
		const abort = new AbortController();
		const entry: Running = { job, abort, done: Promise.resolve(), commands: [] };
		this.running.set(job.id, entry);
		entry.done = this.execute(entry).finally(() => {
			this.running.delete(job.id);
			this.kick();
		});
	}

	/** What a run tells its worker's stop (the commands it started), and what the stop grants its dbt. */
	private stopHooks(entry: Running): Pick<ExecContext, 'stopGraceMs' | 'onInvocation'> {
		return {
			stopGraceMs: () => Math.min(this.config.killGraceMs, this.stopOptions.withinMs ?? 0),
			onInvocation: (command) => entry.commands.push(command)
		};
	}

	private async execute(entry: Running): Promise<void> {
		const { job, abort } = entry;
		const { database, ingest } = this.opts;
		const log = new JobLog((text) => appendRunningLog(database, job.id, this.id, text), {
			consoleBytes: this.config.consoleLogBytes,
			flushMs: this.config.logFlushMs
		});
		const timeoutS = job.timeoutS ?? this.config.defaultTimeoutS;
		const deadline = job.startedAt.getTime() + timeoutS * 1000;
		log.say(`claimed by worker ${this.id}; deadline in ${timeoutS} s`);
		this.log(`worker ${this.id}: running job ${job.id} (${job.scriptPath})`);
		const beat = setInterval(() => {
			heartbeat(database, job.id, this.id).then(
				(b) => {
					if (!b.owned) abort.abort('lost' satisfies StopReason);
					else if (b.cancelRequested) abort.abort('canceled' satisfies StopReason);
				},
				() => {}
			);
		}, this.heartbeatMs);
		try {
			const end =
				job.kind === 'lineage'
					? await executeLineageJob({ database, job, workerId: this.id, signal: abort.signal, deadline, log })
					: job.kind === 'deploy'
						? await executeDeployJob({ database, ingest, job, workerId: this.id, signal: abort.signal, deadline, config: this.config, log, ...this.stopHooks(entry) })
						: await executeJob({ database, ingest, job, workerId: this.id, signal: abort.signal, deadline, config: this.config, log, ...this.stopHooks(entry) });
			clearInterval(beat);
			let unwritten = '';
			const stoppedByUs = abort.signal.reason === ('worker-stopped' satisfies StopReason);
			if (stoppedByUs && this.stopOptions.handBack && end.status === 'failure') {
				const back = await handBack(database, job, this.id, entry.commands, this.stopOptions.why, log);
				if (back.requeued) {
					this.log(`worker ${this.id}: job ${job.id} handed back to the queue`);
					return;
				}
				unwritten = back.unwritten;
			}
			// Not re-queued: its plan goes with it, as with a reclaimed job.
			if (stoppedByUs && job.kind === 'lineage') await deleteLineagePlan(database, job.id).catch(() => {});
			if (this.config.openLineage && job.kind === 'run') {
				await pushRunEvents(database, settledView(job, end.status), { status: end.status, result: end.result, completedAt: new Date() }, this.config.openLineage, (l) => log.say(l));
			}
			await log.settled();
			const finished = await finishJob(database, job.id, this.id, { status: end.status, result: end.result, log: unwritten + log.drain() });
			if (!finished) this.log(`worker ${this.id}: job ${job.id} was no longer ours when it ended (reclaimed)`);
			this.log(`worker ${this.id}: job ${job.id} ${end.status}`);
		} catch (e) {
			clearInterval(beat);
			this.log(`worker ${this.id}: job ${job.id} could not be finished: ${(e as Error).message}`);
		}
	}
}

/**
 * A reclaimed job may have left dbt running on this host (its worker was killed, the child's
 * group was not): the pid file beside the job directory names the group, and a process of that
 * group whose working directory is inside the job directory proves it is ours to kill.
 */
export async function killStrayGroup(jobId: string): Promise<boolean> {
	const d = jobDirs(jobId);
	const text = await readFile(d.pidFile, 'utf8').catch(() => null);
	let killed = false;
	if (text) {
		const pgid = Number(text.split('\n')[0]);
		if (Number.isInteger(pgid) && pgid > 1 && (await groupRunsIn(pgid, d.root))) {
			try {
				process.kill(-pgid, 'SIGKILL');
				killed = true;
			} catch {
				/* already gone */
			}
		}
	}
	await rm(d.root, { recursive: true, force: true }).catch(() => {});
	await rm(d.pidFile, { force: true }).catch(() => {});
	return killed;
}

async function groupRunsIn(pgid: number, dir: string): Promise<boolean> {
	const pids = await readdir('/proc').catch(() => [] as string[]);
	for (const pid of pids) {
		if (!/^\d+$/.test(pid)) continue;
		const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
		if (!stat) continue;
		// Fields after the parenthesised command name: state, ppid, pgrp, ...
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		if (Number(fields[2]) !== pgid) continue;
		const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => null);
		if (cwd && (cwd === dir || cwd.startsWith(`${dir}/`))) return true;
	}
	return false;
}

/** A claimed job as it is about to be stored settled (what the OpenLineage push describes). */
function settledView(job: ClaimedJob, status: 'success' | 'failure' | 'canceled'): JobView {
	return {
		id: job.id,
		workspace: job.workspace,
		kind: job.kind as JobKind,
		status,
		scriptPath: job.scriptPath,
		scriptHash: job.scriptHash,
		createdBy: job.createdBy,
		permissionedAs: job.permissionedAs,
		parentJob: null,
		createdAt: job.startedAt,
		startedAt: job.startedAt,
		completedAt: new Date()
	};
}

let inProcess: Worker | null = null;

/** The worker of this process (npm start), if one was started. */
export function processWorker(): Worker | null {
	return inProcess;
}

export function startProcessWorker(opts: WorkerOptions): Worker {
	inProcess ??= new Worker(opts).start();
	setWorkerWake(() => inProcess?.kick());
	return inProcess;
}

export async function stopProcessWorker(opts?: StopOptions): Promise<void> {
	const w = inProcess;
	inProcess = null;
	setWorkerWake(null);
	await w?.stop(opts);
}

