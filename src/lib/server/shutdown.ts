// How Tributary's processes stop (docs/operating.md, "Stopping and restarting"), the web server and
// `npm run worker` alike: the first SIGTERM or SIGINT starts a graceful stop bounded by
// TRIBUTARY_SHUTDOWN_GRACE_MS, after which the process exits 0; a second one ends the process at
// once. However the process exits, the dbt process groups it started are killed on the way out:
// they lead groups of their own, so nothing else would.
import { closeDatabase } from './db';
import { killChildGroups } from './runner/child-process';

export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

/** What a stop may take past the grace (handing runs back, closing the database) before it is forced. */
const SETTLE_MS = 5_000;

/**
 * A signal this soon after the first is the same stop, not a second one: `npm run` passes on the
 * SIGTERM a service manager sends to its whole process group (and a terminal's Ctrl-C), so the
 * process under it gets one signal twice at once.
 */
const REPEAT_MS = 1_000;

/** TRIBUTARY_SHUTDOWN_GRACE_MS: how long requests in flight (and dbt after its SIGTERM) get. */
export function shutdownGraceMs(env: NodeJS.ProcessEnv = process.env): number {
	const v = env.TRIBUTARY_SHUTDOWN_GRACE_MS;
	if (v === undefined || v.trim() === '') return DEFAULT_SHUTDOWN_GRACE_MS;
	const n = Number(v);
	if (!Number.isInteger(n) || n < 0) throw new Error(`TRIBUTARY_SHUTDOWN_GRACE_MS must be a whole number of milliseconds (0 or more), got "${v}"`);
	return n;
}

export interface StopOnSignals {
	graceMs: number;
	log: (line: string) => void;
	/** The graceful stop: the process exits 0 once it resolves, 1 when it throws or outlasts the grace by SETTLE_MS. */
	stop: (signal: NodeJS.Signals) => Promise<void>;
}

let installed = false;

/** Makes SIGTERM and SIGINT stop this process as the header says (once per process). */
export function exitOnStopSignals(opts: StopOnSignals): void {
	if (installed) return;
	installed = true;
	process.on('exit', () => killChildGroups());
	let firstAt = 0;
	const onSignal = (signal: NodeJS.Signals) => {
		if (firstAt === 0) {
			firstAt = Date.now();
			opts.log(`${signal}, stopping: requests in flight get up to ${opts.graceMs} ms, runs are handed back (a second signal stops at once)`);
			const limit = opts.graceMs + SETTLE_MS;
			setTimeout(() => {
				opts.log(`the stop did not finish within ${limit} ms: exiting now`);
				process.exit(1);
			}, limit);
			opts.stop(signal).then(
				() => {
					opts.log('stopped');
					process.exit(0);
				},
				(e) => {
					opts.log(`the stop failed: ${(e as Error).stack ?? e}`);
					process.exit(1);
				}
			);
			return;
		}
		if (Date.now() - firstAt < REPEAT_MS) return;
		opts.log(`${signal} again: stopping at once; dbt is killed and the runs in flight are left to the next worker's reaper`);
		process.exit(1);
	};
	process.on('SIGTERM', onSignal);
	process.on('SIGINT', onSignal);
}

/**
 * adapter-node closes the listening socket on the signal and emits this once the last connection
 * has ended (its own handler, beside ours).
 */
const HTTP_CLOSED_EVENT = 'sveltekit:shutdown';

/** Resolves true once the HTTP server has closed, false when the grace ran out first. */
function requestsDrained(graceMs: number): Promise<boolean> {
	return new Promise((resolve) => {
		const done = () => {
			clearTimeout(timer);
			resolve(true);
		};
		const timer = setTimeout(() => {
			process.off(HTTP_CLOSED_EVENT as never, done);
			resolve(false);
		}, graceMs);
		process.once(HTTP_CLOSED_EVENT as never, done);
	});
}

/**
 * The web process's graceful stop: the requests in flight finish while the in-process worker (if
 * any) hands its runs back; the database closes after both, since either may still need it.
 */
export async function stopWebProcess(signal: NodeJS.Signals, graceMs: number, log: (line: string) => void): Promise<void> {
	// Listening before anything awaits: a server with nothing in flight closes at once.
	const drainedOrGrace = requestsDrained(graceMs);
	const { stopProcessWorker } = await import('./runner/worker');
	const [drained] = await Promise.all([drainedOrGrace, stopProcessWorker({ handBack: true, withinMs: graceMs, why: signal })]);
	if (!drained) log(`requests still in flight after ${graceMs} ms are cut`);
	await closeDatabase();
}
