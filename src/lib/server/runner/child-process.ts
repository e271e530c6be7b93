// One external program under the job's deadline and cancellation. The child leads a process
// group of its own (detached), so stopping it stops everything it started: SIGTERM to the group,
// SIGKILL after a grace period, and a final SIGKILL to the group once the leader is gone, so a
// grandchild left behind by a project's macro does not outlive the job.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import type { Writable } from 'node:stream';

/** Console lines longer than this are cut (with a marker) before they reach the job log. */
export const CONSOLE_LINE_MAX = 8 * 1024;

export interface ProcessSpec {
	bin: string;
	argv: string[];
	cwd: string;
	env: Record<string, string>;
	/** Where the process group id is written while the child runs, so a reclaiming worker on this host can stop it. */
	pidFile?: string;
	/**
	 * The leader supervises a session of its own (bubblewrap: dbt runs in a new session, and the
	 * sandbox dies with bwrap). A stop's SIGTERM then goes to the processes under the leader, which
	 * may stop cleanly, and not to the leader, whose death would SIGKILL them at once.
	 */
	supervised?: boolean;
	/**
	 * What the child reads from file descriptors 3, 4, …: each a pipe, written whole and closed at
	 * spawn (bubblewrap reads its system-call filter from one, to its end).
	 */
	extraFds?: Uint8Array[];
}

export interface ProcessLimits {
	/** Epoch ms after which the child is stopped. */
	deadline: number;
	/** Aborted when the job is canceled (or its worker stops). */
	signal: AbortSignal;
	/** Between SIGTERM and SIGKILL; a function is asked at stop time (a worker shutting down allows what its stop grants). */
	killGraceMs: number | (() => number);
}

export type ProcessEnd = 'exited' | 'deadline' | 'aborted' | 'spawn_error';

export interface ProcessOutcome {
	end: ProcessEnd;
	exitCode: number | null;
	signal: string | null;
	/** The error when the program could not be started. */
	spawnError?: string;
	/** Captured stdout (only when asked for), up to its limit. */
	stdout?: string;
	stdoutTruncated?: boolean;
	/** The last lines of stderr (diagnostics for a failure message). */
	stderrTail: string[];
	/** The group was still alive at SIGKILL time after the grace period. */
	escalated: boolean;
	pgid: number | null;
}

export interface OutputOptions {
	/** Each complete console line (stdout unless captured, and stderr). */
	onLine?: (line: string, stream: 'stdout' | 'stderr') => void;
	/** Capture stdout instead of streaming it, up to this many bytes. */
	captureStdout?: number;
	stderrTailLines?: number;
}

/** Splits console output into lines, cutting (not dropping) over-long ones. */
export class ConsoleLines {
	private carry = '';
	private cutting = false;
	private readonly decoder = new TextDecoder('utf-8');

	constructor(private readonly max = CONSOLE_LINE_MAX) {}

	push(chunk: Uint8Array, flush = false): string[] {
		const text = this.carry + this.decoder.decode(chunk, { stream: !flush });
		const parts = text.split('\n');
		this.carry = flush ? '' : (parts.pop() ?? '');
		const out: string[] = [];
		const last = flush ? parts.length - 1 : -1;
		for (const [i, p] of parts.entries()) {
			if (i === last && p === '') break;
			if (this.cutting) {
				this.cutting = false;
				continue;
			}
			out.push(p.length > this.max ? `${p.slice(0, this.max)} … [line cut at ${this.max} characters]` : p.replace(/\r$/, ''));
		}
		if (this.carry.length > this.max) {
			if (!this.cutting) out.push(`${this.carry.slice(0, this.max)} … [line cut at ${this.max} characters]`);
			this.cutting = true;
			this.carry = '';
		}
		return out;
	}
}

function killGroup(pgid: number, sig: NodeJS.Signals): boolean {
	try {
		process.kill(-pgid, sig);
		return true;
	} catch {
		return false;
	}
}

/** (pid, parent pid, process group) of every process on the host, from /proc. */
function processTable(): { pid: number; ppid: number; pgrp: number }[] {
	const out: { pid: number; ppid: number; pgrp: number }[] = [];
	for (const name of readdirSync('/proc')) {
		if (!/^\d+$/.test(name)) continue;
		try {
			const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
			const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
			out.push({ pid: Number(name), ppid: Number(fields[1]), pgrp: Number(fields[2]) });
		} catch {
			/* gone meanwhile */
		}
	}
	return out;
}

/** SIGTERM to the descendants of a supervising leader that left its process group (the sandbox's session). */
function terminateSupervised(leader: number): void {
	const table = processTable();
	const children = new Map<number, number[]>();
	for (const p of table) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
	const pgrpOf = new Map(table.map((p) => [p.pid, p.pgrp]));
	const queue = [...(children.get(leader) ?? [])];
	while (queue.length) {
		const pid = queue.shift()!;
		if (pgrpOf.get(pid) !== leader) {
			try {
				process.kill(pid, 'SIGTERM');
			} catch {
				/* gone */
			}
		}
		queue.push(...(children.get(pid) ?? []));
	}
}

/** The process groups of the children running now (each child leads one). */
const liveGroups = new Set<number>();

/**
 * SIGKILL to every child's process group, at once and synchronously: for a process that is about
 * to exit without waiting for its jobs (a second stop signal), so no dbt outlives it. A supervising
 * leader (bubblewrap) takes its sandbox with it.
 */
export function killChildGroups(): number {
	let killed = 0;
	for (const pgid of liveGroups) if (killGroup(pgid, 'SIGKILL')) killed++;
	return killed;
}

/** Whether any process of the group is alive. */
export function groupAlive(pgid: number): boolean {
	try {
		process.kill(-pgid, 0);
		return true;
	} catch (e) {
		return (e as NodeJS.ErrnoException).code === 'EPERM';
	}
}

export async function runProcess(spec: ProcessSpec, limits: ProcessLimits, out: OutputOptions = {}): Promise<ProcessOutcome> {
	const tailMax = out.stderrTailLines ?? 40;
	const stderrTail: string[] = [];
	const capture = out.captureStdout;
	const stdoutParts: Buffer[] = [];
	let stdoutBytes = 0;
	let stdoutTruncated = false;

	if (limits.signal.aborted) return { end: 'aborted', exitCode: null, signal: null, stderrTail, escalated: false, pgid: null };
	if (Date.now() >= limits.deadline) return { end: 'deadline', exitCode: null, signal: null, stderrTail, escalated: false, pgid: null };

	const extraFds = spec.extraFds ?? [];
	const child = spawn(spec.bin, spec.argv, {
		cwd: spec.cwd,
		env: spec.env,
		detached: true,
		stdio: ['ignore', 'pipe', 'pipe', ...extraFds.map(() => 'pipe' as const)]
	});
	const pgid = child.pid ?? null;
	const inputs = extraFds.flatMap((bytes, i) => {
		const s = child.stdio[3 + i] as Writable | null;
		if (!s) return [];
		// A child that exits without reading (bubblewrap refusing its arguments) breaks the pipe: its exit says why, not EPIPE.
		s.on('error', () => {});
		s.end(bytes);
		return [s];
	});
	// Every listener before the first await: a quick child can exit (and close its pipes) while
	// this function waits, and an event with no listener yet is gone for good.
	const ended = new Promise<{ code: number | null; sig: string | null; error?: Error }>((resolve) => {
		child.once('error', (error) => resolve({ code: null, sig: null, error }));
		child.once('exit', (code, sig) => resolve({ code, sig }));
	});
	const pipesClosed = Promise.all([new Promise((r) => child.stdout!.once('close', r)), new Promise((r) => child.stderr!.once('close', r))]);
	const outLines = new ConsoleLines();
	const errLines = new ConsoleLines();
	const emitErr = (lines: string[]) => {
		for (const l of lines) {
			stderrTail.push(l);
			if (stderrTail.length > tailMax) stderrTail.shift();
			out.onLine?.(l, 'stderr');
		}
	};
	child.stdout!.on('data', (d: Buffer) => {
		if (capture !== undefined) {
			if (stdoutBytes < capture) {
				const part = d.subarray(0, capture - stdoutBytes);
				stdoutParts.push(part);
				stdoutBytes += part.length;
			}
			if (stdoutBytes >= capture && d.length > 0) stdoutTruncated = stdoutTruncated || stdoutBytes + d.length > capture;
			return;
		}
		for (const l of outLines.push(d)) out.onLine?.(l, 'stdout');
	});
	child.stderr!.on('data', (d: Buffer) => emitErr(errLines.push(d)));
	if (pgid !== null) liveGroups.add(pgid);
	if (pgid !== null && spec.pidFile) await writeFile(spec.pidFile, `${pgid}\n${spec.cwd}\n`).catch(() => {});

	let end: ProcessEnd = 'exited';
	let escalated = false;
	let killTimer: NodeJS.Timeout | null = null;
	const stop = (why: ProcessEnd) => {
		if (end !== 'exited' || pgid === null) return;
		end = why;
		const grace = typeof limits.killGraceMs === 'function' ? limits.killGraceMs() : limits.killGraceMs;
		if (grace > 0 && spec.supervised) terminateSupervised(pgid);
		else killGroup(pgid, grace > 0 ? 'SIGTERM' : 'SIGKILL');
		killTimer = setTimeout(() => {
			if (groupAlive(pgid)) escalated = true;
			killGroup(pgid, 'SIGKILL');
		}, grace);
	};
	const onAbort = () => stop('aborted');
	limits.signal.addEventListener('abort', onAbort, { once: true });
	// An abort during the pid-file write above had no listener yet.
	if (limits.signal.aborted) onAbort();
	const deadlineTimer = setTimeout(() => stop('deadline'), Math.max(0, limits.deadline - Date.now()));

	const result = await ended;
	clearTimeout(deadlineTimer);
	limits.signal.removeEventListener('abort', onAbort);
	if (killTimer) clearTimeout(killTimer);
	if (pgid !== null) {
		// Whatever the leader left in its group goes with it.
		if (groupAlive(pgid)) killGroup(pgid, 'SIGKILL');
		liveGroups.delete(pgid);
	}
	// The pipes close when the last writer is gone; a process that escaped the group could hold
	// them open for ever, so the wait is bounded.
	let bound: NodeJS.Timeout | undefined;
	await Promise.race([pipesClosed, new Promise((r) => (bound = setTimeout(r, 2000)))]);
	clearTimeout(bound);
	child.stdout!.destroy();
	child.stderr!.destroy();
	for (const s of inputs) s.destroy();
	for (const l of outLines.push(new Uint8Array(), true)) out.onLine?.(l, 'stdout');
	emitErr(errLines.push(new Uint8Array(), true));
	if (spec.pidFile) await rm(spec.pidFile, { force: true }).catch(() => {});

	if (result.error) {
		return { end: 'spawn_error', exitCode: null, signal: null, spawnError: result.error.message, stderrTail, escalated, pgid };
	}
	return {
		end,
		exitCode: result.code,
		signal: result.sig,
		stdout: capture !== undefined ? Buffer.concat(stdoutParts).toString('utf8') : undefined,
		stdoutTruncated,
		stderrTail,
		escalated,
		pgid
	};
}
