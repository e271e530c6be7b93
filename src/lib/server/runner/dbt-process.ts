// How a dbt invocation is started: the engine behind DBT_BIN, the bubblewrap sandbox,
// and the exact argv. Nothing here knows about jobs or the database.
import { constants } from 'node:fs';
import { access, lstat, open, readFile, readlink, realpath } from 'node:fs/promises';
import { endianness } from 'node:os';
import path from 'node:path';
import { runProcess, type ProcessLimits } from './child-process';
import { compileSeccomp, seccompArchOf } from './seccomp';

export interface EngineInfo {
	/** `dbt-core`, `dbt-fusion`, or `dbt` when the version output said neither. */
	name: string;
	version: string;
	/** Whether the CLI has `--write-index` (false for dbt-core 1.x; null when unknown, so the pass is tried). */
	writesIndex: boolean | null;
	/** Only dbt-core 1.x writes node events to its JSON log file while it runs. */
	emitsNodeEvents: boolean;
	/** The first adapter plugin `dbt --version` lists (`duckdb`), and its version. */
	adapter?: string | null;
	adapterVersion?: string | null;
}

/** The `Plugins:` section of `dbt --version`: `  - duckdb: 1.11.1 - Up to date!`. */
function pluginOf(out: string): { adapter: string | null; adapterVersion: string | null } {
	const section = /Plugins:\s*\n((?:\s+-\s+.*\n?)+)/i.exec(out)?.[1] ?? '';
	const m = /-\s+([A-Za-z0-9_-]+):\s+v?([0-9][^\s]*)/.exec(section);
	return m ? { adapter: m[1], adapterVersion: m[2] } : { adapter: null, adapterVersion: null };
}

/** Reads `dbt --version` output. */
export function parseEngineVersion(out: string): EngineInfo {
	const core = /installed:\s*v?([0-9][^\s]*)/i.exec(out);
	if (core) {
		const v = core[1];
		const one = /^1\./.test(v);
		return { name: 'dbt-core', version: v, writesIndex: !one, emitsNodeEvents: one, ...pluginOf(out) };
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

/** The sandbox cannot run here: the job fails with this message and dbt is never started bare. */
export class SandboxUnavailable extends Error {}

const HOW_TO_FIX =
	"Install Debian's bubblewrap 0.8 or newer (apt-get install bubblewrap) on this worker, or point TRIBUTARY_BWRAP at it, on a kernel that allows unprivileged user namespaces and seccomp filters; or set TRIBUTARY_SANDBOX=off to run dbt unisolated, knowingly. The job was not run.";

/** What bubblewrap said when it could not build the sandbox (it writes `bwrap: …` and exits 1 before starting dbt). */
export function sandboxStartError(o: { exitCode: number | null; stderrTail: string[] }): string | null {
	if (o.exitCode !== 1) return null;
	const first = o.stderrTail.find((l) => l.trim() !== '');
	return first && first.startsWith('bwrap: ') ? first : null;
}

export function sandboxFailure(detail: string): SandboxUnavailable {
	return new SandboxUnavailable(`the sandbox could not start: ${detail}. ${HOW_TO_FIX}`);
}

/** The bubblewrap binary to use, or why there is none. */
export async function resolveBwrap(configured: string | null, pathVar: string): Promise<string> {
	if (configured) {
		if (await isExecutable(configured)) return path.resolve(configured);
		throw sandboxFailure(`TRIBUTARY_BWRAP=${configured} does not exist or is not executable`);
	}
	const found = (await resolveProgram('bwrap', pathVar)) ?? ((await isExecutable('/usr/bin/bwrap')) ? '/usr/bin/bwrap' : null);
	if (!found) throw sandboxFailure('bubblewrap (bwrap) is not installed on this worker');
	return found;
}

/** Top-level system directories: bound read-only, or re-created as the symlinks they are (a merged-/usr system). */
const SYSTEM_DIRS = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
/** The only files of /etc a run sees: certificates, the linker cache, alternatives' symlinks. Never passwd, shadow, or the rest. */
const ETC_ALWAYS = ['/etc/ssl', '/etc/ca-certificates', '/etc/ld.so.cache', '/etc/alternatives'];
/** Name resolution, for a run that has the network. */
const ETC_NETWORK = ['/etc/resolv.conf', '/etc/hosts', '/etc/nsswitch.conf', '/etc/host.conf', '/etc/gai.conf'];

const underSystem = (p: string) => p === '/usr' || p.startsWith('/usr/') || SYSTEM_DIRS.some((d) => p === d || p.startsWith(`${d}/`));

/** `…/venv/bin/dbt` → `…/venv`; a script elsewhere → its own directory. */
const installRoot = (real: string) => (path.basename(path.dirname(real)) === 'bin' ? path.dirname(path.dirname(real)) : path.dirname(real));

async function firstLine(file: string): Promise<string> {
	const fh = await open(file, 'r').catch(() => null);
	if (!fh) return '';
	try {
		const buf = Buffer.alloc(512);
		const { bytesRead } = await fh.read(buf, 0, 512, 0);
		return buf.subarray(0, bytesRead).toString('utf8').split('\n')[0];
	} finally {
		await fh.close();
	}
}

/**
 * The directories a program needs besides the system's: its own installation (a virtualenv, a
 * script's folder), the interpreter its `#!` line names (through `env` too) and a virtualenv's
 * base Python. System directories are left out (they are bound anyway).
 */
export async function installationOf(program: string, pathVar: string): Promise<string[]> {
	const roots = new Set<string>();
	const add = async (p: string | null): Promise<string | null> => {
		if (!p) return null;
		const real = await realpath(p).catch(() => null);
		if (!real) return null;
		const root = installRoot(real);
		if (root !== '/' && !underSystem(root)) roots.add(root);
		return real;
	};
	const real = await add(program);
	if (!real) return [];
	const shebang = /^#!\s*(\S+)(?:\s+(?:-S\s+)?(\S+))?/.exec(await firstLine(real));
	if (shebang) {
		const interp = path.basename(shebang[1]) === 'env' && shebang[2] ? await resolveProgram(shebang[2], pathVar) : shebang[1];
		await add(interp);
	}
	const cfg = await readFile(path.join(installRoot(real), 'pyvenv.cfg'), 'utf8').catch(() => '');
	const home = /^home\s*=\s*(.+)$/m.exec(cfg)?.[1]?.trim();
	if (home) await add(path.join(home, 'python3'));
	return [...roots].sort();
}

export interface SandboxSpec {
	bwrap: string;
	/** dbt's installation and its interpreter's (installationOf). */
	installs: string[];
	/** Operator-named extra read-only paths. */
	readOnly: string[];
	jobRoot: string;
	cwd: string;
	/** The warehouse's runs reach the network; otherwise none at all, loopback included. */
	network: boolean;
	/** Host folders bound writable besides the job directory (an embedded warehouse's). */
	writable?: string[];
	/** The descriptor bubblewrap reads the system-call filter from (see seccomp.ts). */
	seccompFd: number;
}

/**
 * bubblewrap's argv around a command. The profile: new user, PID, IPC, UTS and cgroup namespaces
 * (and network unless the warehouse needs it), and no further user namespace inside; uid/gid
 * 65534 with no capabilities; the system-call filter; a fresh /proc and /dev; a private /tmp;
 * read-only /usr and the system library directories, a handful of /etc files, dbt's
 * installation; the job directory the only writable place; a new session, and the sandbox dies
 * with the worker.
 */
export function bwrapArgv(s: SandboxSpec, bin: string, argv: string[], systemDirs: Map<string, string | null>): string[] {
	const args = ['--unshare-user', '--uid', '65534', '--gid', '65534', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try'];
	args.push(s.network ? '--share-net' : '--unshare-net');
	// The kernel's own limit (user.max_user_namespaces, set inside and locked by a second user namespace), besides the filter's refusal of unshare and clone.
	args.push('--disable-userns', '--seccomp', String(s.seccompFd));
	args.push('--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--hostname', 'tributary-run');
	args.push('--ro-bind', '/usr', '/usr');
	for (const [dir, link] of systemDirs) {
		if (link !== null) args.push('--symlink', link, dir);
		else args.push('--ro-bind-try', dir, dir);
	}
	for (const f of [...ETC_ALWAYS, ...(s.network ? ETC_NETWORK : [])]) args.push('--ro-bind-try', f, f);
	args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
	// After the tmpfs, so that an installation or job directory under /tmp is bound on top of it.
	for (const p of [...s.installs, ...s.readOnly]) args.push('--ro-bind-try', p, p);
	// The sandbox's own root (where bwrap made the mount points) is read-only too: /tmp and the job directory are the only writable places.
	for (const p of s.writable ?? []) args.push('--bind', p, p);
	args.push('--bind', s.jobRoot, s.jobRoot, '--remount-ro', '/', '--chdir', s.cwd);
	return [...args, '--', bin, ...argv];
}

/** The top-level system directories as they are on this host: a symlink's target, or null for a real directory (absent ones left out). */
export async function systemDirsOfHost(): Promise<Map<string, string | null>> {
	const out = new Map<string, string | null>();
	for (const dir of SYSTEM_DIRS) {
		const st = await lstat(dir).catch(() => null);
		if (!st) continue;
		if (st.isSymbolicLink()) out.set(dir, await readlink(dir));
		else if (st.isDirectory()) out.set(dir, null);
	}
	return out;
}

/** The system-call filter for this worker's architecture, or why there is none. */
export function seccompFilter(nodeArch: string = process.arch, order: 'BE' | 'LE' = endianness()): Buffer {
	const arch = seccompArchOf(nodeArch, order);
	if (!arch) throw sandboxFailure(`the system-call filter knows x86_64 and aarch64 (little-endian), and this worker is ${nodeArch} (${order})`);
	return compileSeccomp(arch);
}

/** A sandboxed command: bubblewrap's argv, and what it reads from descriptors 3, 4, … (the filter). */
export interface SandboxedCommand {
	bin: string;
	argv: string[];
	extraFds: Uint8Array[];
}

/** Wraps a command in the sandbox (see bwrapArgv). Throws SandboxUnavailable when bubblewrap is missing or the architecture has no filter. */
export async function sandboxed(
	cmd: { bin: string; argv: string[] },
	opts: { bwrapPath: string | null; dbtBin: string; pathVar: string; jobRoot: string; cwd: string; network: boolean; readOnly: string[]; writable?: string[] }
): Promise<SandboxedCommand> {
	const filter = seccompFilter();
	const bwrap = await resolveBwrap(opts.bwrapPath, opts.pathVar);
	const dbt = await resolveProgram(opts.dbtBin, opts.pathVar);
	const installs = dbt ? await installationOf(dbt, opts.pathVar) : [];
	const program = (await resolveProgram(cmd.bin, opts.pathVar)) ?? cmd.bin;
	const spec: SandboxSpec = { bwrap, installs, readOnly: opts.readOnly, jobRoot: opts.jobRoot, cwd: opts.cwd, network: opts.network, writable: opts.writable, seccompFd: 3 };
	return { bin: bwrap, argv: bwrapArgv(spec, program, cmd.argv, await systemDirsOfHost()), extraFds: [filter] };
}

/** `dbt --version` (the command given already wrapped, as every invocation is), bounded in time; what it says decides which flags a job may use. */
export async function detectEngine(
	cmd: { bin: string; argv: string[]; supervised?: boolean; extraFds?: Uint8Array[] },
	cwd: string,
	env: Record<string, string>,
	limits: ProcessLimits
): Promise<EngineInfo & { error?: string; sandboxError?: string }> {
	const deadline = Math.min(limits.deadline, Date.now() + 60_000);
	const out = await runProcess({ bin: cmd.bin, argv: cmd.argv, cwd, env, supervised: cmd.supervised, extraFds: cmd.extraFds }, { ...limits, deadline }, { captureStdout: 64 * 1024 });
	if (out.end === 'spawn_error') return { ...parseEngineVersion(''), error: out.spawnError };
	const sandboxError = sandboxStartError(out);
	if (sandboxError) return { ...parseEngineVersion(''), sandboxError };
	// The shell that applies the limits answers 126/127 when the program is missing or not executable.
	if (out.exitCode === 126 || out.exitCode === 127) return { ...parseEngineVersion(''), error: out.stderrTail.filter((l) => l.trim()).at(-1) ?? `exit code ${out.exitCode}` };
	return parseEngineVersion(`${out.stdout ?? ''}\n${out.stderrTail.join('\n')}`);
}
