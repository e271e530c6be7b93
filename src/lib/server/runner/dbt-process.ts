// How a dbt invocation is started: the engine behind DBT_BIN, the optional bubblewrap sandbox,
// and the exact argv. Nothing here knows about jobs or the database.
import { constants } from 'node:fs';
import { access, realpath } from 'node:fs/promises';
import path from 'node:path';
import { runProcess, type ProcessLimits } from './child-process';

export interface EngineInfo {
	/** `dbt-core`, `dbt-fusion`, or `dbt` when the version output said neither. */
	name: string;
	version: string;
	/** Whether the CLI has `--write-index` (false for dbt-core 1.x; null when unknown, so the pass is tried). */
	writesIndex: boolean | null;
	/** Only dbt-core 1.x writes node events to its JSON log file while it runs. */
	emitsNodeEvents: boolean;
}

/** Reads `dbt --version` output. */
export function parseEngineVersion(out: string): EngineInfo {
	const core = /installed:\s*v?([0-9][^\s]*)/i.exec(out);
	if (core) {
		const v = core[1];
		const one = /^1\./.test(v);
		return { name: 'dbt-core', version: v, writesIndex: !one, emitsNodeEvents: one };
	}
	const fusion = /dbt[- ]fusion[^\d\n]*v?([0-9][^\s]*)/i.exec(out);
	if (fusion) return { name: 'dbt-fusion', version: fusion[1], writesIndex: true, emitsNodeEvents: false };
	const named = /dbt(?:-core)?\s+v?(\d+\.\d+[^\s]*)/i.exec(out);
	if (named) {
		const one = /^1\./.test(named[1]);
		return { name: one ? 'dbt-core' : 'dbt', version: named[1], writesIndex: one ? false : null, emitsNodeEvents: one };
	}
	return { name: 'dbt', version: 'unknown', writesIndex: null, emitsNodeEvents: false };
}

/** An error a `--write-index` flag draws from a CLI that does not have it. */
export function flagUnsupported(stderr: string): boolean {
	return /(no such option|unrecognized (option|argument)|unexpected argument|unknown (option|flag|argument))/i.test(stderr) && /write-index|static-analysis|write-lineage/i.test(stderr);
}

async function isExecutable(p: string): Promise<boolean> {
	try {
		await access(p, constants.X_OK);
		return true;
	} catch {
		return false;
	}
}

/** Resolves a program name the way a shell would, on the child's PATH. */
export async function resolveProgram(bin: string, pathVar: string): Promise<string | null> {
	if (bin.includes('/')) return (await isExecutable(bin)) ? path.resolve(bin) : null;
	for (const dir of pathVar.split(':')) {
		if (!dir) continue;
		const p = path.join(dir, bin);
		if (await isExecutable(p)) return p;
	}
	return null;
}

/**
 * Resource limits for the child, through the shell's ulimit (which then execs dbt, so the process
 * and its group are unchanged): never a core dump of a process holding warehouse credentials,
 * and an address-space cap when the operator sets one.
 */
export function withLimits(bin: string, argv: string[], limits: { memoryMb: number | null }): { bin: string; argv: string[] } {
	const lines = ['ulimit -c 0'];
	if (limits.memoryMb) lines.push(`ulimit -v ${Math.trunc(limits.memoryMb) * 1024}`);
	return { bin: '/bin/sh', argv: ['-c', `${lines.join('; ')}; exec "$0" "$@"`, bin, ...argv] };
}

export class SandboxUnavailable extends Error {}

/**
 * Wraps a command in bubblewrap: the system read-only, the job directory the only writable place,
 * a private /tmp, its own PID namespace, the network shared (dbt must reach its warehouse), and
 * the sandbox dies with the worker. The dbt install (a virtualenv anywhere on disk) is mounted
 * read-only from the directory above its `bin/`.
 */
export async function sandboxed(
	bin: string,
	argv: string[],
	dirs: { jobRoot: string; cwd: string },
	pathVar: string,
	dbtBin = bin
): Promise<{ bin: string; argv: string[] }> {
	const bwrap = await resolveProgram('bwrap', pathVar);
	if (!bwrap) {
		throw new SandboxUnavailable(
			'TRIBUTARY_SANDBOX=bwrap, but bubblewrap (bwrap) is not installed on this worker: install Debian\'s "bubblewrap" package or unset TRIBUTARY_SANDBOX. The job was not run unsandboxed.'
		);
	}
	const program = await resolveProgram(bin, pathVar);
	const dbt = await resolveProgram(dbtBin, pathVar);
	const args = ['--die-with-parent', '--new-session', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--share-net'];
	for (const dir of ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/etc', '/opt']) args.push('--ro-bind-try', dir, dir);
	if (dbt) {
		const real = await realpath(dbt).catch(() => dbt);
		const install = path.dirname(path.dirname(real));
		if (install !== '/') args.push('--ro-bind-try', install, install);
	}
	// After the tmpfs: a job directory under /tmp is bound on top of the empty one.
	args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--bind', dirs.jobRoot, dirs.jobRoot, '--chdir', dirs.cwd);
	return { bin: bwrap, argv: [...args, '--', program ?? bin, ...argv] };
}

/** `dbt --version`, bounded in time; what it says decides which flags a job may use. */
export async function detectEngine(bin: string, cwd: string, env: Record<string, string>, limits: ProcessLimits): Promise<EngineInfo & { error?: string }> {
	const deadline = Math.min(limits.deadline, Date.now() + 60_000);
	const out = await runProcess({ bin, argv: ['--version'], cwd, env }, { ...limits, deadline }, { captureStdout: 64 * 1024 });
	if (out.end === 'spawn_error') return { ...parseEngineVersion(''), error: out.spawnError };
	return parseEngineVersion(`${out.stdout ?? ''}\n${out.stderrTail.join('\n')}`);
}
