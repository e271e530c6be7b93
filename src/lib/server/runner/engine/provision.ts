// dbt engines installed for the projects that ask for them: one virtualenv per (dbt-core
// version, adapter, adapter version, Python series) under TRIBUTARY_ENGINE_DIR. uv installs them
// (found on PATH, or installed once with the machine's pip): pip alone cannot apply the override
// dbt-core 1.12 needs where its experimental parser cannot be built (see DEFAULT_OVERRIDES).
//
// An engine is built aside (a relocatable venv under .building/) and renamed into place only when
// complete, so an interrupted install is never used; one build per key at a time across every
// process of the host (a kernel file lock); the least recently used engines beyond
// TRIBUTARY_ENGINE_KEEP are removed when no job holds them.
import { execFile } from 'node:child_process';
import { randomBytes, createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { runProcess, type ProcessOutcome } from '../child-process';
import { resolveProgram } from '../dbt-process';
import { acquireFileLock, withFileLock } from './file-lock';
import { adapterPackage, compareVersions, isExact, satisfies } from '../../dbt-engine-spec';

const execFileP = promisify(execFile);

/**
 * dbt-core 1.12 requires dbt-core-experimental-parser ≥ 2.0.0b1, and every release of it since is
 * a source package that downloads its binary from GitHub while it builds: on a machine that
 * reaches only the package index it cannot be installed. 2.0.0a4 is the newest release published
 * as wheels; dbt-core runs it only behind its opt-in experimental parser flag.
 */
export const DEFAULT_OVERRIDES = 'dbt-core-experimental-parser==2.0.0a4\n';

/** The oldest Python dbt-core 1.10+ supports. */
const MIN_PYTHON: [number, number] = [3, 10];

export interface EngineSettings {
	/** TRIBUTARY_ENGINE_DIR: where engines live (default `<data dir>/engines`). */
	dir: string;
	/** TRIBUTARY_ENGINE_KEEP: engines kept before the least recently used are removed. */
	keep: number;
	/** TRIBUTARY_PYTHON: the interpreter engines are built on. */
	python: string;
	/** TRIBUTARY_UV: the uv binary; null looks on PATH, then installs it with pip. */
	uv: string | null;
	/** TRIBUTARY_WHEELHOUSE: install only from this folder of wheels (no index). */
	wheelhouse: string | null;
	/** TRIBUTARY_ENGINE_OVERRIDES: a uv overrides file; null: none; undefined: DEFAULT_OVERRIDES. */
	overridesFile: string | null | undefined;
	/** How long a resolved specifier (`1.12` → 1.12.6) is trusted before the index is asked again. */
	resolveTtlMs: number;
	/** PATH the installer and the interpreter probe see. */
	pathVar: string;
}

export function engineSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): EngineSettings {
	const keep = Number(env.TRIBUTARY_ENGINE_KEEP);
	const dataDir = env.TRIBUTARY_DATA_DIR || './data';
	return {
		dir: path.resolve(env.TRIBUTARY_ENGINE_DIR || path.join(dataDir, 'engines')),
		keep: Number.isInteger(keep) && keep >= 1 ? keep : 8,
		python: env.TRIBUTARY_PYTHON?.trim() || 'python3',
		uv: env.TRIBUTARY_UV?.trim() || null,
		wheelhouse: env.TRIBUTARY_WHEELHOUSE?.trim() ? path.resolve(env.TRIBUTARY_WHEELHOUSE.trim()) : null,
		overridesFile: env.TRIBUTARY_ENGINE_OVERRIDES === undefined ? undefined : env.TRIBUTARY_ENGINE_OVERRIDES.trim() || null,
		resolveTtlMs: 3600_000,
		pathVar: env.PATH ?? '/usr/local/bin:/usr/bin:/bin'
	};
}

/** The worker cannot provision engines (no Python, no uv and no pip): said in one sentence, with the fix. */
export class EngineUnavailable extends Error {}

/** An engine could not be resolved or installed: the message names the key and the installer's last lines. */
export class EngineInstallFailed extends Error {}

export interface PythonInfo {
	executable: string;
	/** `3.11.7` */
	version: string;
	/** `3.11` */
	series: string;
}

export interface EngineRequestResolved {
	/** Specifier for dbt-core (`==1.12.6`, `==1.12.*`). */
	core: string;
	/** The warehouse type (`duckdb`). */
	adapterType: string;
	/** Specifier for the adapter package, or null. */
	adapterSpec: string | null;
}

export interface Engine {
	key: string;
	dir: string;
	dbtBin: string;
	coreVersion: string;
	adapterType: string;
	adapterPackage: string;
	adapterVersion: string;
	python: PythonInfo;
}

export interface ProvisionOptions {
	log: (line: string) => void;
	signal: AbortSignal;
	/** Epoch ms. */
	deadline: number;
}

export interface Provisioned extends Engine {
	/** Already installed (no installer ran). */
	hit: boolean;
	/** Wall time of this call. */
	ms: number;
}

interface EngineRecord {
	key: string;
	core: string;
	adapter_type: string;
	adapter_package: string;
	adapter_version: string;
	python_version: string;
	python_series: string;
	built_at: string;
	build_ms: number;
	installer: string;
	overrides: string;
	/** `uv pip freeze` of the engine: every package it holds, pinned. */
	freeze: string;
}

const RECORD = 'tributary-engine.json';
const tail = (lines: string[], n = 15) => lines.filter((l) => l.trim() !== '').slice(-n).join('\n');

export function engineKey(core: string, adapterType: string, adapterVersion: string, pythonSeries: string): string {
	return `dbt-core-${core}+${adapterType}-${adapterVersion}+py${pythonSeries}`;
}

let setprivFound: Promise<string | null> | null = null;
function setprivPath(pathVar: string): Promise<string | null> {
	setprivFound ??= resolveProgram('setpriv', `${pathVar}:/usr/bin:/bin`);
	return setprivFound;
}

let pythonProbe: { python: string; at: number; info: PythonInfo | EngineUnavailable } | null = null;

/** The interpreter engines are built on (≥ 3.10), or EngineUnavailable saying what is missing and how to fix it. */
export async function findPython(settings: Pick<EngineSettings, 'python' | 'pathVar'>): Promise<PythonInfo> {
	if (pythonProbe && pythonProbe.python === settings.python && Date.now() - pythonProbe.at < 60_000) {
		if (pythonProbe.info instanceof EngineUnavailable) throw pythonProbe.info;
		return pythonProbe.info;
	}
	const info = await probePython(settings);
	pythonProbe = { python: settings.python, at: Date.now(), info };
	if (info instanceof EngineUnavailable) throw info;
	return info;
}

async function probePython(settings: Pick<EngineSettings, 'python' | 'pathVar'>): Promise<PythonInfo | EngineUnavailable> {
	const how = 'install it (Debian: `apt-get install python3 python3-venv`) or point TRIBUTARY_PYTHON at one, or set DBT_BIN to a dbt you installed yourself';
	const bin = await resolveProgram(settings.python, settings.pathVar);
	if (!bin) return new EngineUnavailable(`Running dbt needs Python ${MIN_PYTHON.join('.')} or newer on the worker, and ${settings.python} was not found on its PATH: ${how}.`);
	try {
		const { stdout } = await execFileP(bin, ['-c', 'import sys; print("%d.%d.%d" % sys.version_info[:3]); print(sys.executable)'], { timeout: 20_000 });
		const [version, executable] = stdout.trim().split('\n');
		const [major, minor] = version.split('.').map(Number);
		if (major < MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor < MIN_PYTHON[1])) {
			return new EngineUnavailable(`Running dbt needs Python ${MIN_PYTHON.join('.')} or newer on the worker, and ${bin} is Python ${version}: ${how}.`);
		}
		return { executable: executable || bin, version, series: `${major}.${minor}` };
	} catch (e) {
		return new EngineUnavailable(`Running dbt needs Python ${MIN_PYTHON.join('.')} or newer on the worker, and ${bin} did not start: ${(e as Error).message.split('\n')[0]}. ${how}.`);
	}
}

/** pip's configuration (files and PIP_* variables) as uv's flags and environment, so uv reaches the index pip would. */
export async function pipIndexSettings(python: string, env: Record<string, string>): Promise<{ args: string[]; env: Record<string, string> }> {
	const args: string[] = [];
	const out: Record<string, string> = {};
	let text = '';
	try {
		text = (await execFileP(python, ['-m', 'pip', 'config', 'list'], { timeout: 20_000, env })).stdout;
	} catch {
		return { args, env: out };
	}
	const values = new Map<string, string>();
	for (const line of text.split('\n')) {
		const m = /^(?:global|install|:env:)\.([a-z-]+)='(.*)'$/.exec(line.trim());
		// A later line (an install section, the environment) overrides an earlier one.
		if (m) values.set(m[1], m[2]);
	}
	const words = (v: string | undefined) => (v ?? '').split(/\s+/).filter(Boolean);
	const index = values.get('index-url');
	if (index) args.push('--index-url', index);
	const extra = words(values.get('extra-index-url'));
	for (const u of extra) args.push('--extra-index-url', u);
	// pip picks the best version across all its indexes; uv by default stops at the first index
	// that has a package at all, which turns a partial local mirror into a resolution failure.
	if (extra.length) args.push('--index-strategy', 'unsafe-best-match');
	for (const f of words(values.get('find-links'))) args.push('--find-links', f);
	for (const h of words(values.get('trusted-host'))) args.push('--allow-insecure-host', h);
	for (const c of words(values.get('constraint'))) if (existsSync(c)) args.push('--constraint', c);
	const proxy = values.get('proxy');
	if (proxy) {
		out.HTTPS_PROXY = proxy;
		out.HTTP_PROXY = proxy;
	}
	const cert = values.get('cert');
	if (cert) out.SSL_CERT_FILE = cert;
	const timeout = values.get('timeout') ?? values.get('default-timeout');
	if (timeout && /^\d+$/.test(timeout)) out.UV_HTTP_TIMEOUT = timeout;
	return { args, env: out };
}

/** What an installer run needs besides its arguments: a clean environment and our cache. */
function installerEnv(settings: EngineSettings, extra: Record<string, string>): Record<string, string> {
	const pass: Record<string, string> = {};
	for (const k of ['HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY', 'https_proxy', 'http_proxy', 'no_proxy', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'PIP_INDEX_URL', 'PIP_EXTRA_INDEX_URL', 'PIP_FIND_LINKS', 'PIP_CERT', 'PIP_PROXY', 'PIP_TRUSTED_HOST', 'PIP_DEFAULT_TIMEOUT', 'PIP_CONFIG_FILE']) {
		const v = process.env[k];
		if (v) pass[k] = v;
	}
	return {
		...pass,
		PATH: settings.pathVar,
		HOME: process.env.HOME ?? settings.dir,
		LANG: 'C.UTF-8',
		UV_CACHE_DIR: path.join(settings.dir, '.cache'),
		// Never fetch an interpreter: engines are built on the machine's Python.
		UV_PYTHON_DOWNLOADS: 'never',
		UV_NO_PROGRESS: '1',
		...extra
	};
}

export interface EngineEntry {
	key: string;
	dir: string;
	lastUsed: Date;
	inUse: number;
	record: EngineRecord | null;
}

export class EngineCache {
	private uvPath: string | null = null;

	constructor(readonly settings: EngineSettings) {}

	private p(...parts: string[]): string {
		return path.join(this.settings.dir, ...parts);
	}

	/**
	 * The engine for a request, installing it if this host has none: exact versions are looked up
	 * directly (a cache hit touches two files); a specifier is resolved against the index first
	 * (remembered for an hour).
	 */
	async ensure(req: EngineRequestResolved, opts: ProvisionOptions): Promise<Provisioned> {
		const started = Date.now();
		const python = await findPython(this.settings);
		const adapterPkg = adapterPackage(req.adapterType);
		if (isExact(req.core) && req.adapterSpec && isExact(req.adapterSpec)) {
			const key = engineKey(req.core.slice(2), req.adapterType, req.adapterSpec.slice(2), python.series);
			const found = await this.installed(key, python);
			if (found) return { ...found, hit: true, ms: Date.now() - started };
		}
		const resolved = await this.resolve(req, python, opts);
		const key = engineKey(resolved.core, req.adapterType, resolved.adapter, python.series);
		const found = await this.installed(key, python);
		if (found) return { ...found, hit: true, ms: Date.now() - started };
		const built = await this.build(key, req.adapterType, adapterPkg, resolved, python, opts);
		return { ...built, hit: false, ms: Date.now() - started };
	}

	/** An installed engine by key (its last-use time refreshed), or null. */
	private async installed(key: string, python: PythonInfo): Promise<Engine | null> {
		const dir = this.p(key);
		const record = await readRecord(dir);
		if (!record) return null;
		await this.touch(key);
		return engineOf(dir, record, python);
	}

	private async touch(key: string): Promise<void> {
		const f = this.p('.used', key);
		const now = new Date();
		try {
			await utimes(f, now, now);
		} catch {
			await mkdir(this.p('.used'), { recursive: true });
			await writeFile(f, '');
		}
	}

	/** Exact versions for a request: the resolution cache, else `uv pip compile` against the index. */
	async resolve(req: EngineRequestResolved, python: PythonInfo, opts: ProvisionOptions): Promise<{ core: string; adapter: string; requirements: string }> {
		const pkg = adapterPackage(req.adapterType);
		const input = `dbt-core${req.core}\n${pkg}${req.adapterSpec ?? ''}\n`;
		const overrides = await this.overrides();
		const id = createHash('sha256').update(`${input}\0${python.version}\0${overrides}\0${this.settings.wheelhouse ?? ''}`).digest('hex').slice(0, 24);
		const cacheFile = this.p('.resolved', `${id}.json`);
		const cached = await readFile(cacheFile, 'utf8').then((t) => JSON.parse(t) as { core: string; adapter: string; requirements: string; at: number }, () => null);
		if (cached && Date.now() - cached.at < this.settings.resolveTtlMs) return cached;

		const uv = await this.uv(opts);
		const { args: index, env } = await this.indexSettings(python);
		const spec = `dbt-core${req.core} and ${pkg}${req.adapterSpec ?? ''}`;
		opts.log(`resolving ${spec} for Python ${python.series}`);
		await mkdir(this.p('.resolved'), { recursive: true });
		const inputFile = this.p('.resolved', `${id}.in`);
		await writeFile(inputFile, input);
		const overridesArgs = overrides ? ['--override', await this.overridesPath(overrides)] : [];
		const out = await this.run(uv, ['pip', 'compile', inputFile, '--python', python.executable, '--no-header', '--no-annotate', ...overridesArgs, ...index], env, opts, { capture: true });
		if (out.exitCode !== 0) {
			const text = out.stderrTail.join('\n');
			// Offline, or the index failing: an engine already here that satisfies the request still serves.
			if (!/No solution found|not found in the package registry|unsatisfiable/i.test(text)) {
				const local = await this.newestSatisfying(req, python);
				if (local) {
					opts.log(`the package index could not be reached; using the installed engine ${local.key}`);
					return { core: local.record!.core, adapter: local.record!.adapter_version, requirements: '' };
				}
			}
			throw new EngineInstallFailed(`${spec} cannot be installed for Python ${python.series}: the resolver said\n${tail(out.stderrTail, 12)}`);
		}
		const requirements = out.stdout ?? '';
		const pinned = (name: string) => new RegExp(`^${name.replace(/[-_.]/g, '[-_.]')}==(\\S+)`, 'im').exec(requirements)?.[1];
		const core = pinned('dbt-core');
		const adapter = pinned(pkg);
		if (!core || !adapter) throw new EngineInstallFailed(`${spec}: the resolver's answer names no version of ${core ? pkg : 'dbt-core'}`);
		const value = { core, adapter, requirements, at: Date.now() };
		await writeFile(cacheFile, JSON.stringify(value));
		return value;
	}

	private async newestSatisfying(req: EngineRequestResolved, python: PythonInfo): Promise<EngineEntry | null> {
		const all = (await this.list()).filter(
			(e) =>
				e.record &&
				e.record.adapter_type === req.adapterType &&
				e.record.python_series === python.series &&
				satisfies(e.record.core, req.core) &&
				(!req.adapterSpec || satisfies(e.record.adapter_version, req.adapterSpec))
		);
		all.sort((a, b) => compareVersions(b.record!.core, a.record!.core));
		return all[0] ?? null;
	}

	private async overrides(): Promise<string> {
		const f = this.settings.overridesFile;
		if (f === undefined) return DEFAULT_OVERRIDES;
		if (f === null) return '';
		try {
			return await readFile(f, 'utf8');
		} catch (e) {
			throw new EngineInstallFailed(`TRIBUTARY_ENGINE_OVERRIDES=${f} cannot be read: ${(e as Error).message}`);
		}
	}

	private async overridesPath(text: string): Promise<string> {
		const f = this.p('.resolved', `overrides-${createHash('sha256').update(text).digest('hex').slice(0, 12)}.txt`);
		if (!existsSync(f)) await writeFile(f, text);
		return f;
	}

	private async indexSettings(python: PythonInfo): Promise<{ args: string[]; env: Record<string, string> }> {
		if (this.settings.wheelhouse) return { args: ['--no-index', '--find-links', this.settings.wheelhouse], env: {} };
		return pipIndexSettings(python.executable, installerEnv(this.settings, {}));
	}

	/** uv: TRIBUTARY_UV, on PATH, or installed once with pip into the engine directory. */
	private async uv(opts: ProvisionOptions): Promise<string> {
		if (this.uvPath) return this.uvPath;
		if (this.settings.uv) {
			const found = await resolveProgram(this.settings.uv, this.settings.pathVar);
			if (!found) throw new EngineUnavailable(`TRIBUTARY_UV=${this.settings.uv} is not an executable file.`);
			return (this.uvPath = found);
		}
		const onPath = await resolveProgram('uv', this.settings.pathVar);
		if (onPath) return (this.uvPath = onPath);
		const tools = this.p('.tools', 'uv');
		const bin = path.join(tools, 'bin', 'uv');
		if (existsSync(bin)) return (this.uvPath = bin);
		const python = await findPython(this.settings);
		await withFileLock(this.p('.locks', 'tools-uv.lock'), async () => {
			if (existsSync(bin)) return;
			opts.log('uv is not on PATH: installing it with pip (once per engine directory)');
			const aside = `${tools}.${randomBytes(4).toString('hex')}`;
			await mkdir(path.dirname(aside), { recursive: true });
			const env = installerEnv(this.settings, {});
			let out = await this.run(python.executable, ['-m', 'venv', aside], env, opts);
			if (out.exitCode !== 0) {
				await rm(aside, { recursive: true, force: true });
				throw new EngineUnavailable(`Python's venv module failed (Debian: \`apt-get install python3-venv\`):\n${tail(out.stderrTail)}`);
			}
			const wheels = this.settings.wheelhouse ? ['--no-index', '--find-links', this.settings.wheelhouse] : [];
			out = await this.run(path.join(aside, 'bin', 'python'), ['-m', 'pip', 'install', '--disable-pip-version-check', 'uv', ...wheels], env, opts);
			if (out.exitCode !== 0) {
				await rm(aside, { recursive: true, force: true });
				throw new EngineInstallFailed(`pip could not install uv:\n${tail(out.stderrTail)}`);
			}
			await rename(aside, tools);
		}, { signal: opts.signal, onWait: () => opts.log('waiting for another worker installing uv') });
		return (this.uvPath = bin);
	}

	private async build(key: string, adapterType: string, adapterPkg: string, resolved: { core: string; adapter: string; requirements: string }, python: PythonInfo, opts: ProvisionOptions): Promise<Engine> {
		const lock = await acquireFileLock(this.p('.locks', `${key}.lock`), {
			signal: opts.signal,
			onWait: () => opts.log(`waiting for another worker provisioning ${key}`)
		});
		try {
			const found = await this.installed(key, python);
			if (found) {
				opts.log(`engine ${key} was provisioned by another worker meanwhile`);
				return found;
			}
			// Leftovers of a build that was interrupted: never used, removed under the key's lock. The
			// installer of a killed worker may outlive it and still be writing there, so a leftover
			// is first renamed out of the way and its removal is best effort.
			await mkdir(this.p('.building'), { recursive: true });
			for (const name of await readdir(this.p('.building'))) {
				if (!name.startsWith(`${key}.`)) continue;
				const trash = name.includes('.removed-') ? this.p('.building', name) : this.p('.building', `${key}.removed-${randomBytes(4).toString('hex')}`);
				if (trash !== this.p('.building', name)) await rename(this.p('.building', name), trash);
				await rm(trash, { recursive: true, force: true, maxRetries: 3 }).catch((e) => opts.log(`a leftover of an interrupted build is still being written (${(e as Error).message}); it is never used and is removed later`));
			}
			const started = Date.now();
			opts.log(`provisioning engine ${key} (dbt-core ${resolved.core}, ${adapterPkg} ${resolved.adapter}, Python ${python.version})`);
			const aside = this.p('.building', `${key}.${randomBytes(4).toString('hex')}`);
			const uv = await this.uv(opts);
			const { args: index, env } = await this.indexSettings(python);
			const overrides = await this.overrides();
			const overridesArgs = overrides ? ['--override', await this.overridesPath(overrides)] : [];
			const fail = async (what: string, out: ProcessOutcome) => {
				await rm(aside, { recursive: true, force: true });
				return new EngineInstallFailed(`provisioning ${key} failed: ${what} (${out.exitCode !== null ? `exit code ${out.exitCode}` : out.end}):\n${tail(out.stderrTail)}`);
			};
			let out = await this.run(uv, ['venv', '--relocatable', '--python', python.executable, aside], env, opts);
			if (out.exitCode !== 0) throw await fail('uv venv', out);
			const pins = [`dbt-core==${resolved.core}`, `${adapterPkg}==${resolved.adapter}`];
			out = await this.run(uv, ['pip', 'install', '--python', path.join(aside, 'bin', 'python'), '--compile-bytecode', ...overridesArgs, ...index, ...pins], env, opts, { progress: true });
			if (out.exitCode !== 0) throw await fail('uv pip install', out);
			const freeze = await this.run(uv, ['pip', 'freeze', '--python', path.join(aside, 'bin', 'python')], env, opts, { capture: true });
			const record: EngineRecord = {
				key,
				core: resolved.core,
				adapter_type: adapterType,
				adapter_package: adapterPkg,
				adapter_version: resolved.adapter,
				python_version: python.version,
				python_series: python.series,
				built_at: new Date().toISOString(),
				build_ms: Date.now() - started,
				installer: uv,
				overrides,
				freeze: freeze.stdout ?? ''
			};
			await writeFile(path.join(aside, RECORD), JSON.stringify(record, null, 1));
			if (!existsSync(path.join(aside, 'bin', 'dbt'))) throw await fail('the install left no bin/dbt', out);
			await rename(aside, this.p(key));
			await this.touch(key);
			opts.log(`engine ${key} provisioned in ${((Date.now() - started) / 1000).toFixed(1)} s`);
			return engineOf(this.p(key), record, python);
		} finally {
			await lock.release();
			await this.evict(opts.log).catch((e) => opts.log(`removing unused engines failed: ${(e as Error).message}`));
		}
	}

	private async run(bin: string, argv: string[], env: Record<string, string>, opts: ProvisionOptions, how: { capture?: boolean; progress?: boolean } = {}): Promise<ProcessOutcome> {
		// The installer runs in a process group of its own (so a cancel stops all of it), which a
		// killed worker's group kill does not reach: util-linux's setpriv has the kernel kill it with
		// its parent, so no orphan keeps writing into a build folder the next worker cleans.
		const setpriv = await setprivPath(this.settings.pathVar);
		const spec = setpriv ? { bin: setpriv, argv: ['--pdeathsig', 'KILL', bin, ...argv] } : { bin, argv };
		const out = await runProcess(
			{ ...spec, cwd: this.settings.dir, env },
			{ deadline: opts.deadline, signal: opts.signal, killGraceMs: 2000 },
			{ captureStdout: how.capture ? 4 * 1024 * 1024 : undefined, onLine: how.progress ? (line) => line.trim() && opts.log(`  ${line.trim()}`) : undefined, stderrTailLines: 60 }
		);
		if (out.end === 'spawn_error') throw new EngineUnavailable(`${bin} could not be started: ${out.spawnError}`);
		if (out.end === 'aborted') throw new EngineInstallFailed('provisioning was stopped');
		if (out.end === 'deadline') throw new EngineInstallFailed(`provisioning ran out of the job's time during ${path.basename(bin)} ${argv.slice(0, 2).join(' ')}`);
		return out;
	}

	/** Marks an engine in use by a job until the returned function is called (eviction skips it). */
	async use(engine: Pick<Engine, 'key'>, jobId: string): Promise<() => Promise<void>> {
		const dir = this.p('.in-use', engine.key);
		await mkdir(dir, { recursive: true });
		const marker = path.join(dir, `${hostname()}:${process.pid}:${jobId}`);
		await writeFile(marker, '');
		await this.touch(engine.key);
		return () => rm(marker, { force: true });
	}

	/** Every complete engine of this directory, with its last use and live users. */
	async list(): Promise<EngineEntry[]> {
		const names = await readdir(this.settings.dir).catch(() => [] as string[]);
		const out: EngineEntry[] = [];
		for (const key of names) {
			if (key.startsWith('.')) continue;
			const dir = this.p(key);
			const record = await readRecord(dir);
			if (!record) continue;
			const used = await stat(this.p('.used', key)).catch(() => null);
			out.push({ key, dir, lastUsed: used?.mtime ?? new Date(0), inUse: await this.liveUsers(key), record });
		}
		return out;
	}

	private async liveUsers(key: string): Promise<number> {
		const markers = await readdir(this.p('.in-use', key)).catch(() => [] as string[]);
		let live = 0;
		for (const m of markers) {
			const [host, pid] = m.split(':');
			if (host !== hostname()) {
				live++;
				continue;
			}
			if (pidAlive(Number(pid))) live++;
			else await rm(this.p('.in-use', key, m), { force: true });
		}
		return live;
	}

	/** Removes the least recently used engines beyond `keep` that no job uses; returns their keys. */
	async evict(log: (line: string) => void = () => {}): Promise<string[]> {
		const all = await this.list();
		if (all.length <= this.settings.keep) return [];
		all.sort((a, b) => a.lastUsed.getTime() - b.lastUsed.getTime());
		const removed: string[] = [];
		let excess = all.length - this.settings.keep;
		for (const e of all) {
			if (excess <= 0) break;
			if (e.inUse > 0) continue;
			// Under the key's lock, so a worker that just found it installed is not mid-way into using it.
			await withFileLock(this.p('.locks', `${e.key}.lock`), async () => {
				if ((await this.liveUsers(e.key)) > 0) return;
				const trash = this.p('.building', `${e.key}.removed-${randomBytes(4).toString('hex')}`);
				await mkdir(this.p('.building'), { recursive: true });
				await rename(e.dir, trash);
				await rm(trash, { recursive: true, force: true });
				await rm(this.p('.used', e.key), { force: true });
				removed.push(e.key);
				excess--;
				log(`removed the unused engine ${e.key} (more than TRIBUTARY_ENGINE_KEEP=${this.settings.keep} engines)`);
			});
		}
		return removed;
	}
}

function pidAlive(pid: number): boolean {
	if (!Number.isInteger(pid) || pid <= 0) return false;
	try {
		process.kill(pid, 0);
		return true;
	} catch (e) {
		return (e as NodeJS.ErrnoException).code === 'EPERM';
	}
}

async function readRecord(dir: string): Promise<EngineRecord | null> {
	try {
		return JSON.parse(await readFile(path.join(dir, RECORD), 'utf8')) as EngineRecord;
	} catch {
		return null;
	}
}

function engineOf(dir: string, r: EngineRecord, python: PythonInfo): Engine {
	return {
		key: r.key,
		dir,
		dbtBin: path.join(dir, 'bin', 'dbt'),
		coreVersion: r.core,
		adapterType: r.adapter_type,
		adapterPackage: r.adapter_package,
		adapterVersion: r.adapter_version,
		python: r.python_series === python.series ? { ...python, version: r.python_version } : python
	};
}
