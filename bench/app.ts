// The BUILT app as the benchmarks measure it: `build/` (built when missing, or when BENCH_BUILD=1)
// copied to a private snapshot so a rebuild by someone else in the same checkout cannot change
// the code under a running benchmark, started like scripts/serve.js on 127.0.0.1 with a fresh
// database (a PGlite data dir in a temp dir, or a new database on BENCH_DATABASE_URL), and an
// HTTP client that signs in and times whole responses (headers + body read). Traffic goes to
// 127.0.0.1 only.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { OUT } from './lib';

export type Backend = 'pglite' | 'postgres';

/** pglite always; postgres too when BENCH_DATABASE_URL is set. BENCH_BACKENDS=pglite|postgres picks one. */
export function backends(): Backend[] {
	const all: Backend[] = ['pglite', ...(process.env.BENCH_DATABASE_URL ? (['postgres'] as const) : [])];
	const only = (process.env.BENCH_BACKENDS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
	const picked = only.length ? all.filter((b) => only.includes(b)) : all;
	if (picked.length === 0) throw new Error(`BENCH_BACKENDS=${process.env.BENCH_BACKENDS} names no available backend (postgres needs BENCH_DATABASE_URL)`);
	return picked;
}

export const QUICK = process.env.BENCH_QUICK === '1' || process.argv.includes('--quick');

const ADMIN = { username: 'bench', password: 'bench-password-not-secret' };
let snapshot: string | null = null;

function newestMtime(dir: string): number {
	let newest = 0;
	for (const e of readdirSync(dir, { withFileTypes: true })) {
		const p = path.join(dir, e.name);
		newest = Math.max(newest, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
	}
	return newest;
}

/**
 * The app's build, copied once per benchmark process. BENCH_APP_BUILD=<dir> measures a build made
 * elsewhere; otherwise `build/`, built with `npx vite build` when it is missing or BENCH_BUILD=1
 * (a build older than src/ is measured with a warning).
 */
export function appBuild(): string {
	if (snapshot) return snapshot;
	let from = process.env.BENCH_APP_BUILD;
	if (!from) {
		from = 'build';
		const built = existsSync('build/index.js') && existsSync('build/handler.js');
		// Rebuilding build/ under someone else's running server would pull chunks from under it:
		// only when it is missing or asked for; a stale one is measured with a warning.
		if (built && process.env.BENCH_BUILD !== '1' && newestMtime('src') > statSync('build/handler.js').mtimeMs) {
			process.stderr.write('warning: build/ is older than src/: measuring it anyway (BENCH_BUILD=1 rebuilds first)\n');
		}
		if (!built || process.env.BENCH_BUILD === '1') {
			process.stderr.write('building the app (npx vite build) …\n');
			const r = spawnSync('npx', ['vite', 'build'], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', maxBuffer: 64 << 20 });
			if (r.status !== 0 || !existsSync('build/handler.js')) {
				throw new Error(`npx vite build failed (the benchmarks measure the BUILT app; BENCH_APP_BUILD=<dir> measures a build made elsewhere):\n${String(r.stderr).slice(-3000)}`);
			}
		}
	}
	if (!existsSync(path.join(from, 'index.js'))) throw new Error(`${from}/index.js is missing`);
	const dir = path.join(OUT, `app-build-${process.pid}`);
	rmSync(dir, { recursive: true, force: true });
	cpSync(from, dir, { recursive: true });
	process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
	snapshot = dir;
	return dir;
}

async function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const s = createServer();
		s.listen(0, '127.0.0.1', () => {
			const port = (s.address() as { port: number }).port;
			s.close(() => resolve(port));
		});
		s.on('error', reject);
	});
}

/** user + system CPU seconds of a process so far (/proc/<pid>/stat fields 14 and 15). */
export function cpuSeconds(pid: number): number {
	const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
	const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	return (Number(fields[11]) + Number(fields[12])) / 100; // USER_HZ is 100 on Linux
}

/** CPU seconds of the whole machine so far: busy (everything but idle and iowait) and total. */
export function machineCpu(): { busy: number; total: number } {
	const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
	const f = line.trim().split(/\s+/).slice(1).map(Number);
	const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
	const idle = f[3] + f[4];
	return { busy: (total - idle) / 100, total: total / 100 };
}

/** CPU seconds of the Postgres backends serving a database now (processes on this machine). */
export async function postgresBackendCpu(url: string): Promise<Map<number, number>> {
	const c = postgres(url, { max: 1, onnotice: () => {} });
	try {
		const rows = await c<{ pid: number }[]>`select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`;
		const out = new Map<number, number>();
		for (const r of rows) {
			try {
				out.set(r.pid, cpuSeconds(r.pid));
			} catch {
				/* gone */
			}
		}
		return out;
	} finally {
		await c.end();
	}
}

/** Resident memory of a process now, in MB. */
export function rssMb(pid: number): number {
	const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
	return m ? Number(m[1]) / 1024 : 0;
}

export interface BenchDb {
	backend: Backend;
	/** PGlite: the app's data dir (its files are under `<dir>/pglite`). */
	dataDir?: string;
	/** Postgres: the fresh database's URL. */
	url?: string;
	/** Opens the same database from this process (the server must be stopped first on PGlite). */
	openArgs: { url: string } | { dataDir: string };
	drop(): Promise<void>;
}

/** A fresh, empty database for one app. */
export async function freshDatabase(backend: Backend, label: string): Promise<BenchDb> {
	if (backend === 'pglite') {
		const dataDir = mkdtempSync(path.join(tmpdir(), `tributary-bench-${label}-`));
		return {
			backend,
			dataDir,
			openArgs: { dataDir: path.join(dataDir, 'pglite') },
			drop: async () => rmSync(dataDir, { recursive: true, force: true })
		};
	}
	const base = process.env.BENCH_DATABASE_URL!;
	const name = `tributary_bench_${label.replace(/[^a-z0-9_]/gi, '_')}_${process.pid}`.toLowerCase();
	const admin = postgres(base, { max: 1, onnotice: () => {} });
	await admin.unsafe(`drop database if exists ${name} with (force)`);
	await admin.unsafe(`create database ${name}`);
	await admin.end();
	const u = new URL(base);
	u.pathname = `/${name}`;
	return {
		backend,
		url: u.toString(),
		openArgs: { url: u.toString() },
		drop: async () => {
			const a = postgres(base, { max: 1, onnotice: () => {} });
			await a.unsafe(`drop database if exists ${name} with (force)`);
			await a.end();
		}
	};
}

export interface RunningApp {
	url: string;
	pid: number;
	proc: ChildProcess;
	db: BenchDb;
	output(): string;
	/** SIGTERM and wait (PGlite closes its files on the way out). */
	stop(): Promise<void>;
}

export async function startApp(db: BenchDb, env: Record<string, string> = {}): Promise<RunningApp> {
	const build = appBuild();
	const port = await freePort();
	let out = '';
	// BENCH_APP_NODE_ARGS: Node flags for the server, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
	const nodeArgs = (process.env.BENCH_APP_NODE_ARGS ?? '').split(' ').filter(Boolean);
	const proc = spawn(process.execPath, [...nodeArgs, path.join(build, 'index.js')], {
		cwd: process.cwd(),
		env: {
			PATH: process.env.PATH ?? '',
			HOME: process.env.HOME ?? '/tmp',
			PORT: String(port),
			HOST: '127.0.0.1',
			ORIGIN: `http://127.0.0.1:${port}`,
			BODY_SIZE_LIMIT: '1G',
			TRIBUTARY_ADMIN_USER: ADMIN.username,
			TRIBUTARY_ADMIN_PASSWORD: ADMIN.password,
			TRIBUTARY_DEMO: '0',
			TRIBUTARY_WORKER: '0',
			...(db.backend === 'pglite' ? { TRIBUTARY_DATA_DIR: db.dataDir! } : { DATABASE_URL: db.url! }),
			...env
		},
		stdio: ['ignore', 'pipe', 'pipe']
	});
	proc.stdout!.on('data', (d) => (out = (out + d).slice(-200_000)));
	proc.stderr!.on('data', (d) => (out = (out + d).slice(-200_000)));
	// BENCH_APP_LOG=<file>: the server's output appended there too (to read what it logs meanwhile).
	if (process.env.BENCH_APP_LOG) {
		const log = process.env.BENCH_APP_LOG;
		const append = (d: Buffer) => appendFileSync(log, d);
		proc.stdout!.on('data', append);
		proc.stderr!.on('data', append);
	}
	const url = `http://127.0.0.1:${port}`;
	const deadline = Date.now() + 120_000;
	for (;;) {
		if (proc.exitCode !== null) throw new Error(`the app exited with ${proc.exitCode}:\n${out}`);
		try {
			const r = await fetch(`${url}/login`);
			await r.arrayBuffer();
			if (r.status === 200) break;
		} catch {
			/* not listening yet */
		}
		if (Date.now() > deadline) throw new Error(`the app did not answer within 120 s:\n${out}`);
		await new Promise((r) => setTimeout(r, 250));
	}
	return {
		url,
		pid: proc.pid!,
		proc,
		db,
		output: () => out,
		stop: () =>
			new Promise<void>((resolve) => {
				if (proc.exitCode !== null) return resolve();
				const kill = setTimeout(() => proc.kill('SIGKILL'), 30_000);
				proc.once('exit', () => {
					clearTimeout(kill);
					resolve();
				});
				proc.kill('SIGTERM');
			})
	};
}

export interface Timed<T = unknown> {
	ms: number;
	status: number;
	bytes: number;
	body: T;
}

/** A signed-in HTTP client of one app (session cookie, no Origin header: like the CLI). */
export class Client {
	private constructor(
		readonly url: string,
		private cookie: string
	) {}

	/** The session cookie (`name=value`), for a load generator in another process. */
	get cookieHeader(): string {
		return this.cookie;
	}

	static async login(url: string): Promise<Client> {
		const r = await fetch(`${url}/api/auth/login`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(ADMIN)
		});
		if (r.status !== 200) throw new Error(`login failed: ${r.status} ${await r.text()}`);
		const cookie = r.headers.get('set-cookie');
		if (!cookie) throw new Error('login set no cookie');
		return new Client(url, cookie.split(';')[0]);
	}

	/** GET, timed from the request to the last byte of the body; the body is parsed after the clock stops. */
	async get<T = unknown>(pathAndQuery: string, timeoutMs?: number): Promise<Timed<T>> {
		const t0 = performance.now();
		const r = await fetch(`${this.url}${pathAndQuery}`, { headers: { cookie: this.cookie }, signal: timeoutMs ? AbortSignal.timeout(timeoutMs) : undefined });
		const buf = await r.arrayBuffer();
		const ms = performance.now() - t0;
		const text = new TextDecoder().decode(buf);
		let body: unknown = text;
		try {
			body = JSON.parse(text);
		} catch {
			/* not JSON */
		}
		return { ms, status: r.status, bytes: buf.byteLength, body: body as T };
	}

	/** GET that must answer 200. */
	async ok<T = unknown>(pathAndQuery: string, timeoutMs?: number): Promise<Timed<T>> {
		const r = await this.get<T>(pathAndQuery, timeoutMs);
		if (r.status !== 200) throw new Error(`GET ${pathAndQuery}: ${r.status} ${JSON.stringify(r.body).slice(0, 500)}`);
		return r;
	}

	async post<T = Record<string, unknown>>(p: string, body: unknown): Promise<T> {
		const r = await fetch(`${this.url}${p}`, {
			method: 'POST',
			headers: { cookie: this.cookie, 'content-type': 'application/json' },
			body: JSON.stringify(body)
		});
		const text = await r.text();
		if (r.status >= 300) throw new Error(`POST ${p}: ${r.status} ${text.slice(0, 1000)}`);
		return JSON.parse(text) as T;
	}

	/** Multipart POST: strings as fields, bytes as files. */
	async postForm<T = Record<string, unknown>>(p: string, fields: Record<string, string | Uint8Array | undefined>): Promise<T> {
		const form = new FormData();
		for (const [k, v] of Object.entries(fields)) {
			if (v === undefined) continue;
			if (typeof v === 'string') form.set(k, v);
			else form.set(k, new Blob([v as Uint8Array<ArrayBuffer>]), k);
		}
		const r = await fetch(`${this.url}${p}`, { method: 'POST', headers: { cookie: this.cookie }, body: form });
		const text = await r.text();
		if (r.status >= 300) throw new Error(`POST ${p}: ${r.status} ${text.slice(0, 1000)}`);
		return JSON.parse(text) as T;
	}
}

/** Workspace `ws`, folder `folder`, warehouse `main` whose default database is the generated project's. */
export async function setupWorkspace(c: Client, ws: string, folder: string, defaultDatabase: string, settings: Record<string, unknown> = {}): Promise<void> {
	await c.post('/api/workspaces', { id: ws, name: ws });
	await c.post(`/api/w/${ws}/folders`, { name: folder, readers: [], writers: [] });
	await c.post(`/api/w/${ws}/warehouses`, { name: 'main', default_database: defaultDatabase, settings });
}

export interface DeployAnswer {
	hash: string;
	job_id: string;
	nodes: number;
	edges: number;
	column_edges: number | null;
	dropped: Record<string, unknown>;
	warnings: string[];
}

/** Uploads a generated target/ directory (manifest, index, run_results) through the real deploy/preview route. */
export async function uploadTarget(
	c: Client,
	ws: string,
	kind: 'deploy' | 'preview',
	scriptPath: string,
	target: string,
	extra: { project?: Uint8Array; columnLineage?: string; descriptor?: string } = {}
): Promise<DeployAnswer> {
	const read = (f: string) => new Uint8Array(readFileSync(path.join(target, f)));
	return c.postForm<DeployAnswer>(`/api/w/${ws}/scripts/dbt/${kind}`, {
		path: scriptPath,
		descriptor: extra.descriptor,
		manifest: read('manifest.json'),
		column_lineage: extra.columnLineage ? new Uint8Array(readFileSync(extra.columnLineage)) : read('index/dbt.column_lineage.parquet'),
		node_columns: read('index/dbt.node_columns.parquet'),
		project: extra.project,
		// Live at once: a benchmark of reads or runs does not wait for a deploy job to pin it.
		pin: extra.project ? 'at_first_run' : undefined
	});
}

/** p-th percentile (0..100) by nearest rank. */
export function percentile(xs: number[], p: number): number {
	if (xs.length === 0) return NaN;
	const s = [...xs].sort((a, b) => a - b);
	return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

/** A figure in the shape issue 8 asks bench/results.json to carry. */
export interface Figure {
	name: string;
	value: number;
	unit: string;
	goal: string;
	met: boolean | null;
	database: Backend;
}
