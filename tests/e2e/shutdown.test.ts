// Stopping Tributary's processes (docs/operating.md, "Stopping and restarting"), as real BUILT
// processes: SIGTERM to the web server (with its in-process worker) or to `npm run worker` lets
// the requests in flight finish, claims nothing new, hands the runs back (a run that only read is
// re-queued, one that built ends failed saying the worker stopped; none is left `running`), stops
// their dbt process groups with SIGTERM first, closes the database and exits 0. A second signal
// ends the process at once, its dbt children killed; a SIGTERM to the whole process group (as
// systemd and `kill -- -pgid` send it) ends it as cleanly as one to the process; SIGINT (Ctrl-C)
// is the same stop. On PGlite and on Postgres (TEST_DATABASE_URL); `npm run worker` on Postgres.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/lib/server/db';
import { tarGz } from '../../src/lib/server/demo/tarball';
import { describeFixtures } from '../support/fixtures';
import { buildRunnerWorld, FAKE_DBT, PG_LOGS, WS, type RunnerWorld, type Scenario } from '../support/runner-world';
import { SANDBOX_READ_ONLY } from '../support/sandbox-inputs';
import { apiLogin, freePort, NO_KEEP_ALIVE, waitForHttp } from './server';

const PG_URL = process.env.TEST_DATABASE_URL;
if (!PG_URL && process.env.CI) throw new Error('TEST_DATABASE_URL must be set in CI: the shutdown tests run on PGlite and Postgres');
if (!PG_URL) process.stderr.write('[notice] shutdown tests: TEST_DATABASE_URL is not set, so the Postgres half and `npm run worker` are skipped\n');

const BUILD_LOG = path.join(PG_LOGS, 'build', 'dbt.log.jsonl');
const BUILD_MANIFEST = path.join(PG_LOGS, 'build', 'manifest.json');
const STOPPED = 'the worker running this job stopped';

/** The projects every test deploys: what their stand-in dbt does when run. */
const SCENARIOS: Record<string, Scenario> = {
	// dbt build: replays its first nodes, leaves a grandchild, then waits; says so when SIGTERM stops it.
	build: { speed: 100, commands: { build: { log: BUILD_LOG, manifest: BUILD_MANIFEST, mode: 'grandchild', hangAfter: 90, sayOnSigterm: true } } },
	// dbt compile, which only reads: waits until stopped.
	compile: { manifest: BUILD_MANIFEST, commands: { compile: { mode: 'hang', sayOnSigterm: true } } },
	// dbt build that ignores SIGTERM: only SIGKILL ends it.
	stubborn: { speed: 100, commands: { build: { log: BUILD_LOG, manifest: BUILD_MANIFEST, mode: 'hang', hangAfter: 90, ignoreSigterm: true } } }
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Live (not zombie) processes whose working directory is inside `dir`: the jobs' dbt, sandbox and grandchildren. */
function processesIn(dir: string): number[] {
	const out: number[] = [];
	for (const name of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
		try {
			if (!readlinkSync(`/proc/${name}/cwd`).startsWith(dir)) continue;
			const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
			if (stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z') out.push(Number(name));
		} catch {
			/* gone meanwhile */
		}
	}
	return out;
}

/** Live processes of process group `pgid`. */
function groupMembers(pgid: number): number[] {
	const out: number[] = [];
	for (const name of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
		try {
			const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
			const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
			if (Number(fields[2]) === pgid && fields[0] !== 'Z') out.push(Number(name));
		} catch {
			/* gone meanwhile */
		}
	}
	return out;
}

/** A process the test started, with what it printed and how it ended. */
class Proc {
	out = '';
	readonly ended: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
	constructor(readonly proc: ChildProcess) {
		proc.stdout!.on('data', (d) => (this.out += d));
		proc.stderr!.on('data', (d) => (this.out += d));
		this.ended = new Promise((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));
	}
	static start(cmd: 'node' | 'npm', args: string[], env: Record<string, string>): Proc {
		// Its own process group, so a test can signal the group as a service manager does.
		return new Proc(spawn(cmd === 'node' ? process.execPath : 'npm', args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true }));
	}
	get running(): boolean {
		return this.proc.exitCode === null && this.proc.signalCode === null;
	}
	signal(sig: NodeJS.Signals = 'SIGTERM', group = false): void {
		process.kill(group ? -this.proc.pid! : this.proc.pid!, sig);
	}
	kill(): void {
		for (const pid of [-this.proc.pid!, this.proc.pid!]) {
			try {
				process.kill(pid, 'SIGKILL');
			} catch {
				/* gone */
			}
		}
	}
}

/** Where a process keeps its data: the embedded database in a directory, or a fresh Postgres database. */
interface Store {
	env: Record<string, string>;
	/** Opens the store from the test (PGlite: only once the process that owns it has exited). */
	open(): Promise<Database>;
	drop(): Promise<void>;
}

async function newStore(backend: 'pglite' | 'postgres'): Promise<Store> {
	const dataDir = mkdtempSync(path.join(tmpdir(), 'tributary-stop-'));
	if (backend === 'pglite') {
		return {
			env: { TRIBUTARY_DATA_DIR: dataDir },
			open: () => openDatabase({ dataDir: path.join(dataDir, 'pglite'), migrate: false }),
			drop: async () => rmSync(dataDir, { recursive: true, force: true })
		};
	}
	const name = `tributary_stop_${randomBytes(6).toString('hex')}`;
	const admin = postgres(PG_URL!, { max: 1, onnotice: () => {} });
	await admin.unsafe(`CREATE DATABASE ${name}`);
	await admin.end({ timeout: 1 });
	const u = new URL(PG_URL!);
	u.pathname = `/${name}`;
	return {
		env: { TRIBUTARY_DATA_DIR: dataDir, DATABASE_URL: u.toString() },
		open: () => openDatabase({ url: u.toString(), migrate: false }),
		drop: async () => {
			rmSync(dataDir, { recursive: true, force: true });
			const a = postgres(PG_URL!, { max: 1, onnotice: () => {} });
			await a.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
			await a.end({ timeout: 1 });
		}
	};
}

interface JobRow {
	status: string;
	worker_id: string | null;
	logs: string;
	result: { error?: string } | null;
}

async function jobRow(database: Database, id: string): Promise<JobRow> {
	const [r] = await database.rows<JobRow>(sql`select status, worker_id, logs, result from job where id = ${id}::uuid`);
	return r;
}

async function runningProgress(database: Database, id: string): Promise<number> {
	const [r] = await database.rows<{ n: number }>(sql`select count(*)::int as n from dbt_run_progress where job_id = ${id}::uuid and status = 'running'`);
	return Number(r.n);
}

/** The web server as `npm run serve` starts it (or `node scripts/serve.js`), with a workspace whose projects are SCENARIOS. */
class Server {
	cookie = '';
	private constructor(
		readonly p: Proc,
		readonly url: string,
		readonly jobsDir: string
	) {}

	static async start(store: Store, opts: { via?: 'node' | 'npm'; env?: Record<string, string>; setUp?: boolean } = {}): Promise<Server> {
		const port = await freePort();
		const jobsDir = mkdtempSync(path.join(tmpdir(), 'tributary-stop-jobs-'));
		const env = {
			PATH: process.env.PATH ?? '',
			HOME: process.env.HOME ?? '/tmp',
			PORT: String(port),
			HOST: '127.0.0.1',
			ORIGIN: `http://127.0.0.1:${port}`,
			TRIBUTARY_ADMIN_USER: 'admin',
			TRIBUTARY_ADMIN_PASSWORD: 'correct horse battery staple',
			TRIBUTARY_DEMO: '0',
			TRIBUTARY_LINEAGE_INFERENCE: '0',
			TRIBUTARY_SANDBOX_READ_ONLY: SANDBOX_READ_ONLY.join(':'),
			DBT_BIN: FAKE_DBT,
			TRIBUTARY_JOBS_DIR: jobsDir,
			TRIBUTARY_WORKER_POLL_MS: '100',
			TRIBUTARY_WORKER_HEARTBEAT_MS: '200',
			TRIBUTARY_WORKER_SLOTS: '2',
			TRIBUTARY_KILL_GRACE_MS: '5000',
			...store.env,
			...opts.env
		};
		const p = opts.via === 'npm' ? Proc.start('npm', ['run', 'serve'], env) : Proc.start('node', ['scripts/serve.js'], env);
		const url = `http://127.0.0.1:${port}`;
		await waitForHttp(`${url}/login`, { proc: p.proc, output: () => p.out });
		const s = new Server(p, url, jobsDir);
		if (opts.setUp !== false) await s.setUp();
		return s;
	}

	async call(method: string, url: string, body?: unknown): Promise<{ status: number; body: any }> {
		const headers: Record<string, string> = { ...NO_KEEP_ALIVE, cookie: this.cookie };
		let payload: BodyInit | undefined;
		if (body instanceof FormData) payload = body;
		else if (body !== undefined) {
			payload = JSON.stringify(body);
			headers['content-type'] = 'application/json';
		}
		const r = await fetch(`${this.url}${url}`, { method, headers, body: payload });
		const text = await r.text();
		return { status: r.status, body: text ? JSON.parse(text) : null };
	}

	private async setUp(): Promise<void> {
		this.cookie = await apiLogin(this.url);
		const ok = (r: { status: number; body: unknown }) => expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
		ok(await this.call('POST', '/api/workspaces', { id: 'acme', name: 'Acme' }));
		ok(await this.call('POST', '/api/w/acme/folders', { name: 'data', readers: [], writers: [] }));
		ok(
			await this.call('POST', '/api/w/acme/warehouses', {
				name: 'main',
				default_database: 'postgres',
				settings: { type: 'postgres', host: 'localhost', user: 'dbt', schema: 'public', secrets: { password: 'stop-test-password' } }
			})
		);
		for (const [name, scenario] of Object.entries(SCENARIOS)) {
			const form = new FormData();
			form.set('path', `f/data/${name}`);
			form.set('manifest', new Blob([readFileSync(BUILD_MANIFEST)]), 'manifest.json');
			const files = new Map([
				['dbt_project.yml', 'name: jaffle_shop\nversion: "1.0.0"\nconfig-version: 2\nprofile: jaffle_shop\n'],
				['fake-dbt.json', JSON.stringify(scenario)]
			]);
			form.set('project', new Blob([tarGz(files) as Uint8Array<ArrayBuffer>]), 'project.tar.gz');
			form.set('pin', 'at_first_run');
			const r = await this.call('POST', '/api/w/acme/scripts/dbt/deploy', form);
			expect(r.status, JSON.stringify(r.body)).toBe(201);
		}
	}

	async run(name: string, command: string): Promise<string> {
		const r = await this.call('POST', `/api/w/acme/jobs/run/p/f/data/${name}`, { command });
		expect(r.status, JSON.stringify(r.body)).toBe(201);
		return r.body.job_id;
	}

	/** Waits until the job's log (read over HTTP while the server serves) matches. */
	async waitLog(id: string, re: RegExp): Promise<void> {
		await expect.poll(async () => (await this.call('GET', `/api/w/acme/jobs/get/${id}`)).body.logs, { timeout: 60_000, interval: 100 }).toMatch(re);
	}
}

/**
 * A POST whose body arrives in two halves, the second only when the test says: a request that is
 * in flight for as long as the test wants.
 */
function slowPost(url: string, cookie: string, body: string): { response: Promise<{ status: number; body: string }>; finish(): void } {
	const u = new URL(url);
	const req = httpRequest({
		host: u.hostname,
		port: u.port,
		path: u.pathname,
		method: 'POST',
		agent: false,
		headers: { cookie, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close' }
	});
	const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
		req.on('response', (res) => {
			let text = '';
			res.on('data', (d) => (text += d));
			res.on('end', () => resolve({ status: res.statusCode!, body: text }));
		});
		req.on('error', reject);
	});
	const cut = Math.floor(body.length / 2);
	req.write(body.slice(0, cut));
	return { response, finish: () => req.end(body.slice(cut)) };
}

const refused = (url: string) =>
	fetch(`${url}/login`, { headers: NO_KEEP_ALIVE }).then(
		() => false,
		() => true
	);

describeFixtures('stopping the processes', () => {
	const live: Proc[] = [];
	const stores: Store[] = [];
	const dirs: string[] = [];
	const track = <T extends { p: Proc } | Proc>(x: T): T => {
		live.push('p' in x ? x.p : x);
		if ('jobsDir' in x) dirs.push(x.jobsDir as string);
		return x;
	};

	beforeAll(() => {
		if (!existsSync('build/index.js') || !existsSync('build/worker.js')) throw new Error('build/ is missing: run `npm run build` (npm test does it first)');
	});
	afterEach(async () => {
		for (const p of live.splice(0)) if (p.running) p.kill();
	});
	afterAll(async () => {
		for (const s of stores) await s.drop();
		for (const d of dirs) rmSync(d, { recursive: true, force: true });
	});

	const backends: ('pglite' | 'postgres')[] = PG_URL ? ['pglite', 'postgres'] : ['pglite'];
	describe.each(backends)('the web server on %s', (backend) => {
		const store = async () => {
			const s = await newStore(backend);
			stores.push(s);
			return s;
		};

		it('SIGTERM during a slow request: no new connection, the request completes, its run waits in the queue, exit 0', async () => {
			const db = await store();
			const s = track(await Server.start(db));
			const slow = slowPost(`${s.url}/api/w/acme/jobs/run/p/f/data/build`, s.cookie, JSON.stringify({ command: 'build' }));
			// Time for the server to take the request's head (the body's second half is held back).
			await sleep(1000);
			s.p.signal('SIGTERM');
			await expect.poll(() => refused(s.url), { timeout: 10_000 }).toBe(true);
			expect(s.p.running).toBe(true);
			slow.finish();
			const t0 = Date.now();
			const r = await slow.response;
			expect(r.status, r.body).toBe(201);
			const id = JSON.parse(r.body).job_id as string;
			expect(await s.p.ended, s.p.out).toEqual({ code: 0, signal: null });
			process.stdout.write(`[measure] web server on ${backend}: last body byte of the request in flight to exit ${Date.now() - t0} ms\n`);
			const database = await db.open();
			try {
				// A stopping process starts no new work: the run is the next process's to claim.
				const job = await jobRow(database, id);
				expect(job.status, job.logs).toBe('queued');
				expect(job.worker_id).toBeNull();
			} finally {
				await database.close();
			}
		}, 120_000);

		it('SIGTERM during runs: dbt gets SIGTERM, no process remains, the build fails saying why, the compile is re-queued, exit 0', async () => {
			const db = await store();
			const s = track(await Server.start(db));
			const build = await s.run('build', 'build');
			const compile = await s.run('compile', 'compile');
			await s.waitLog(build, /fake-dbt: hanging until stopped/);
			await s.waitLog(compile, /fake-dbt: hanging until stopped/);
			expect(processesIn(s.jobsDir).length).toBeGreaterThan(0);
			const t0 = Date.now();
			s.p.signal('SIGTERM');
			expect(await s.p.ended, s.p.out).toEqual({ code: 0, signal: null });
			process.stdout.write(`[measure] web server on ${backend}, two runs in flight: SIGTERM to exit ${Date.now() - t0} ms\n`);
			await expect.poll(() => processesIn(s.jobsDir), { timeout: 5000 }).toEqual([]);
			const database = await db.open();
			try {
				const b = await jobRow(database, build);
				expect(b.status, b.logs).toBe('failure');
				expect(b.result?.error).toBe(STOPPED);
				expect(b.logs).toContain('fake-dbt: SIGTERM received, stopping');
				expect(b.logs).toMatch(/stopped \(SIGTERM\) while dbt build ran: not re-queued/);
				expect(await runningProgress(database, build)).toBe(0);
				const c = await jobRow(database, compile);
				expect(c.status, c.logs).toBe('queued');
				expect(c.worker_id).toBeNull();
				expect(c.logs).toContain('fake-dbt: SIGTERM received, stopping');
				expect(c.logs).toMatch(/stopped \(SIGTERM\); dbt compile only reads, so the job is back in the queue/);
			} finally {
				await database.close();
			}
		}, 120_000);

		it('SIGTERM to the process group of `npm run serve` during a run: npm exits 0, the whole group is gone, the run is settled', async () => {
			const db = await store();
			const s = track(await Server.start(db, { via: 'npm' }));
			const build = await s.run('build', 'build');
			await s.waitLog(build, /fake-dbt: hanging until stopped/);
			s.p.signal('SIGTERM', true);
			expect(await s.p.ended, s.p.out).toEqual({ code: 0, signal: null });
			await expect.poll(() => groupMembers(s.p.proc.pid!), { timeout: 5000 }).toEqual([]);
			await expect.poll(() => processesIn(s.jobsDir), { timeout: 5000 }).toEqual([]);
			// npm passes the signal on too: the second copy, a moment after the first, is the same stop.
			expect(s.p.out.match(/SIGTERM, stopping/g)).toHaveLength(1);
			const database = await db.open();
			try {
				const b = await jobRow(database, build);
				expect(b.status, b.logs).toBe('failure');
				expect(b.result?.error).toBe(STOPPED);
			} finally {
				await database.close();
			}
		}, 120_000);

		it('a second SIGTERM during the grace: the process exits at once, non-zero, its dbt killed; the next start settles the run', async () => {
			const db = await store();
			const s = track(await Server.start(db, { env: { TRIBUTARY_KILL_GRACE_MS: '120000', TRIBUTARY_SHUTDOWN_GRACE_MS: '120000' } }));
			const id = await s.run('stubborn', 'build');
			await s.waitLog(id, /fake-dbt: hanging until stopped/);
			s.p.signal('SIGTERM');
			// The first stop waits for dbt, which ignores its SIGTERM, within the kill grace.
			await expect.poll(() => s.p.out, { timeout: 10_000 }).toMatch(/SIGTERM, stopping/);
			await sleep(1500);
			expect(s.p.running).toBe(true);
			expect(processesIn(s.jobsDir).length).toBeGreaterThan(0);
			s.p.signal('SIGTERM');
			const end = await s.p.ended;
			expect(end.code, s.p.out).not.toBe(0);
			expect(end.code).not.toBeNull();
			await expect.poll(() => processesIn(s.jobsDir), { timeout: 5000 }).toEqual([]);
			const database = await db.open();
			try {
				const job = await jobRow(database, id);
				expect(job.logs).toContain('fake-dbt: ignoring SIGTERM');
			} finally {
				await database.close();
			}
			// Nothing was handed back: the next start's worker finds the run's heartbeat stale and settles it.
			const again = track(await Server.start(db, { setUp: false, env: { TRIBUTARY_WORKER_STALE_S: '2' } }));
			again.cookie = await apiLogin(again.url);
			await expect.poll(async () => (await again.call('GET', `/api/w/acme/jobs/get/${id}`)).body.status, { timeout: 60_000, interval: 250 }).toBe('failure');
			expect((await again.call('GET', `/api/w/acme/jobs/get/${id}`)).body.result.error).toBe(STOPPED);
			again.p.signal('SIGTERM');
			expect(await again.p.ended, again.p.out).toEqual({ code: 0, signal: null });
		}, 180_000);
	});

	describe.skipIf(!PG_URL)('npm run worker on postgres', () => {
		let dbName: string;
		let dbUrl: string;
		let database: Database;
		let w: RunnerWorld;

		beforeAll(async () => {
			dbName = `tributary_stop_w_${randomBytes(6).toString('hex')}`;
			const admin = postgres(PG_URL!, { max: 1, onnotice: () => {} });
			await admin.unsafe(`CREATE DATABASE ${dbName}`);
			await admin.end({ timeout: 1 });
			const u = new URL(PG_URL!);
			u.pathname = `/${dbName}`;
			dbUrl = u.toString();
			database = await openDatabase({ url: dbUrl });
			w = await buildRunnerWorld(database, { start: false });
			for (const [name, scenario] of Object.entries(SCENARIOS)) await w.deploy(name, scenario);
		}, 120_000);
		afterAll(async () => {
			await w?.close();
			const admin = postgres(PG_URL!, { max: 1, onnotice: () => {} });
			await admin.unsafe(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
			await admin.end({ timeout: 1 });
		});

		const startWorker = (via: 'node' | 'npm', env: Record<string, string> = {}) =>
			track(
				Proc.start(via, via === 'npm' ? ['run', 'worker'] : ['build/worker.js'], {
					PATH: process.env.PATH ?? '',
					HOME: process.env.HOME ?? '/tmp',
					DATABASE_URL: dbUrl,
					TRIBUTARY_ENCRYPTION_KEY: process.env.TRIBUTARY_ENCRYPTION_KEY!,
					TRIBUTARY_SANDBOX_READ_ONLY: SANDBOX_READ_ONLY.join(':'),
					DBT_BIN: FAKE_DBT,
					TRIBUTARY_JOBS_DIR: w.jobsDir,
					TRIBUTARY_WORKER_POLL_MS: '100',
					TRIBUTARY_WORKER_HEARTBEAT_MS: '200',
					TRIBUTARY_WORKER_SLOTS: '2',
					TRIBUTARY_KILL_GRACE_MS: '5000',
					...env
				})
			);
		const polling = (p: Proc) => expect.poll(() => p.out, { timeout: 30_000 }).toMatch(/worker \S+ polling/);
		const waitLog = (id: string, re: RegExp) =>
			expect.poll(async () => (await w.wendy.get(`/api/w/${WS}/jobs/get/${id}`)).body.logs, { timeout: 60_000, interval: 100 }).toMatch(re);
		/** A job this test left queued is no later test's to run. */
		const cancel = async (id: string) => {
			await w.wendy.post(`/api/w/${WS}/jobs/cancel/${id}`);
		};

		it('SIGTERM during runs: dbt gets SIGTERM, no process remains, the build fails saying why, the compile is re-queued, exit 0', async () => {
			const p = startWorker('node');
			await polling(p);
			const build = await w.run('build', { command: 'build' });
			const compile = await w.run('compile', { command: 'compile' });
			await waitLog(build, /fake-dbt: hanging until stopped/);
			await waitLog(compile, /fake-dbt: hanging until stopped/);
			expect(processesIn(w.jobsDir).length).toBeGreaterThan(0);
			const t0 = Date.now();
			p.signal('SIGTERM');
			expect(await p.ended, p.out).toEqual({ code: 0, signal: null });
			process.stdout.write(`[measure] npm run worker, two runs in flight: SIGTERM to exit ${Date.now() - t0} ms\n`);
			await expect.poll(() => processesIn(w.jobsDir), { timeout: 5000 }).toEqual([]);
			const b = await jobRow(database, build);
			expect(b.status, b.logs).toBe('failure');
			expect(b.result?.error).toBe(STOPPED);
			expect(b.logs).toContain('fake-dbt: SIGTERM received, stopping');
			expect(b.logs).toMatch(/stopped \(SIGTERM\) while dbt build ran: not re-queued/);
			expect(await runningProgress(database, build)).toBe(0);
			const c = await jobRow(database, compile);
			expect(c.status, c.logs).toBe('queued');
			expect(c.worker_id).toBeNull();
			expect(c.logs).toMatch(/stopped \(SIGTERM\); dbt compile only reads, so the job is back in the queue/);
			await cancel(compile);
		}, 120_000);

		it('SIGTERM to the process group of `npm run worker` during a run: npm exits 0, the whole group is gone, the run is settled', async () => {
			const p = startWorker('npm');
			await polling(p);
			const build = await w.run('build', { command: 'build' });
			await waitLog(build, /fake-dbt: hanging until stopped/);
			p.signal('SIGTERM', true);
			expect(await p.ended, p.out).toEqual({ code: 0, signal: null });
			await expect.poll(() => groupMembers(p.proc.pid!), { timeout: 5000 }).toEqual([]);
			await expect.poll(() => processesIn(w.jobsDir), { timeout: 5000 }).toEqual([]);
			expect(p.out.match(/SIGTERM, stopping/g)).toHaveLength(1);
			const b = await jobRow(database, build);
			expect(b.status, b.logs).toBe('failure');
			expect(b.result?.error).toBe(STOPPED);
		}, 120_000);

		it('SIGINT (Ctrl-C) stops a worker the same way', async () => {
			const p = startWorker('node');
			await polling(p);
			const build = await w.run('build', { command: 'build' });
			await waitLog(build, /fake-dbt: hanging until stopped/);
			p.signal('SIGINT');
			expect(await p.ended, p.out).toEqual({ code: 0, signal: null });
			expect(p.out).toMatch(/SIGINT, stopping/);
			await expect.poll(() => processesIn(w.jobsDir), { timeout: 5000 }).toEqual([]);
			const b = await jobRow(database, build);
			expect(b.status, b.logs).toBe('failure');
			expect(b.logs).toContain('fake-dbt: SIGTERM received, stopping');
			expect(b.logs).toMatch(/stopped \(SIGINT\) while dbt build ran: not re-queued/);
		}, 120_000);

		it('a second SIGTERM during the grace: the worker exits at once, non-zero, its dbt killed', async () => {
			const p = startWorker('node', { TRIBUTARY_KILL_GRACE_MS: '120000', TRIBUTARY_SHUTDOWN_GRACE_MS: '120000' });
			await polling(p);
			const id = await w.run('stubborn', { command: 'build' });
			await waitLog(id, /fake-dbt: hanging until stopped/);
			p.signal('SIGTERM');
			await waitLog(id, /fake-dbt: ignoring SIGTERM/);
			await sleep(1500);
			expect(p.running).toBe(true);
			p.signal('SIGTERM');
			const end = await p.ended;
			expect(end.code, p.out).not.toBe(0);
			expect(end.code).not.toBeNull();
			await expect.poll(() => processesIn(w.jobsDir), { timeout: 5000 }).toEqual([]);
			await cancel(id);
		}, 120_000);
	});
});
