// Several processes on one Postgres (issue 18): two BUILT web processes (`npm run serve`, without
// their in-process worker) and two `npm run worker` processes share one database, with the
// test's own round-robin proxy in front. What one web process writes the other serves at once;
// a run queued through one is claimed by exactly one worker and followed through the other; a
// share link minted on one opens on the other; a worker killed mid-run leaves its job to the
// other; two deploys of one path through both at once leave the newest version owning; a web
// process killed in the middle of a deploy leaves the previous graph and no job behind.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/lib/server/db';
import { generateProject } from '../../src/lib/server/demo/generator';
import { tarGz } from '../../src/lib/server/demo/tarball';
import { newestVersion } from '../../src/lib/server/repo/scripts';
import { hashToHex, hexToHash } from '../../src/lib/types/script-hash';
import { describeFixtures, fixture } from '../support/fixtures';
import { buildRunnerWorld, FAKE_DBT, FOLDER, PG_LOGS, replay, WS, type RunnerWorld, type Scenario } from '../support/runner-world';
import { SANDBOX_READ_ONLY } from '../support/sandbox-inputs';
import { freePort, NO_KEEP_ALIVE, spawnWithOutput, stopProcess, waitForHttp } from './server';

const URL_ = process.env.TEST_DATABASE_URL;
if (!URL_ && process.env.CI) throw new Error('TEST_DATABASE_URL must be set in CI: the processes need a shared Postgres');

const ROOT = { username: 'root', password: 'root-password-1' };
const WENDY = { username: 'wendy', password: 'wendy-password-1' };

interface Proc {
	name: string;
	proc: ChildProcess;
	out: () => string;
}

/** A signed-in HTTP client of one base URL (a web process or the proxy). */
class Http {
	cookie = '';
	constructor(readonly base: string) {}

	async call(method: string, url: string, body?: BodyInit, headers: Record<string, string> = {}) {
		const r = await fetch(`${this.base}${url}`, {
			method,
			body,
			headers: { ...NO_KEEP_ALIVE, origin: this.base, ...(this.cookie ? { cookie: this.cookie } : {}), ...headers }
		});
		const text = await r.text();
		let parsed: any = text;
		try {
			parsed = text ? JSON.parse(text) : null;
		} catch {
			/* not JSON */
		}
		return { status: r.status, body: parsed, headers: r.headers };
	}
	get(url: string, headers?: Record<string, string>) {
		return this.call('GET', url, undefined, headers);
	}
	post(url: string, json: unknown) {
		return this.call('POST', url, JSON.stringify(json), { 'content-type': 'application/json' });
	}
	async login(who: { username: string; password: string }): Promise<this> {
		const r = await this.post('/api/auth/login', who);
		expect(r.status, JSON.stringify(r.body)).toBe(200);
		this.cookie = r.headers.get('set-cookie')!.split(';')[0];
		return this;
	}
	/** Uses the session another client signed in with (sessions live in the database). */
	as(other: Http): this {
		this.cookie = other.cookie;
		return this;
	}
}

/** The test's round-robin: each request goes to the next web process in turn. */
function roundRobin(upstreams: string[]): Promise<{ url: string; served: number[]; close: () => Promise<void> }> {
	const served = upstreams.map(() => 0);
	let next = 0;
	const server: Server = createServer((req, res) => {
		const index = next++ % upstreams.length;
		served[index]++;
		const target = new URL(req.url ?? '/', upstreams[index]);
		const forward = httpRequest(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (up) => {
			res.writeHead(up.statusCode ?? 502, up.headers);
			up.pipe(res);
		});
		forward.on('error', (e) => {
			res.writeHead(502);
			res.end(String(e));
		});
		req.pipe(forward);
	});
	return new Promise((resolve) =>
		server.listen(0, '127.0.0.1', () => {
			const port = (server.address() as { port: number }).port;
			resolve({ url: `http://127.0.0.1:${port}`, served, close: () => new Promise((r) => server.close(() => r())) });
		})
	);
}

function deployForm(name: string, manifest: string, scenario: Scenario): FormData {
	const form = new FormData();
	form.set('path', `f/${FOLDER}/${name}`);
	form.set('manifest', new Blob([new Uint8Array(readFileSync(manifest))]), 'manifest.json');
	const files = new Map<string, string>([
		['dbt_project.yml', 'name: jaffle_shop\nversion: "1.0.0"\nconfig-version: 2\nprofile: jaffle_shop\n'],
		['models/orders.sql', 'select 1 as id\n'],
		['fake-dbt.json', JSON.stringify(scenario)]
	]);
	form.set('project', new Blob([new Uint8Array(tarGz(files))]), 'project.tar.gz');
	// Live at once (what this file tests is processes, not pinning): the first run pins it.
	form.set('pin', 'at_first_run');
	return form;
}

describeFixtures('several web and worker processes on one Postgres', () => {
	describe.skipIf(!URL_)('two web processes and two workers', () => {
		let database: Database;
		let world: RunnerWorld;
		let dbUrl: string;
		let dbName: string;
		let dataDir: string;
		const procs: Proc[] = [];
		let webA: Http;
		let webB: Http;
		let proxy: Awaited<ReturnType<typeof roundRobin>>;
		const workers: Proc[] = [];

		const baseEnv = (): Record<string, string> => ({
			PATH: process.env.PATH ?? '',
			HOME: process.env.HOME ?? '/tmp',
			DATABASE_URL: dbUrl,
			TRIBUTARY_ENCRYPTION_KEY: process.env.TRIBUTARY_ENCRYPTION_KEY!,
			TRIBUTARY_SANDBOX_READ_ONLY: SANDBOX_READ_ONLY.join(':'),
			DBT_BIN: FAKE_DBT,
			TRIBUTARY_JOBS_DIR: world.jobsDir
		});

		function spawnProc(name: string, args: string[], env: Record<string, string>): Proc {
			const child = spawnWithOutput(args, env);
			const p = { name, proc: child.proc, out: child.output };
			procs.push(p);
			return p;
		}

		async function startWeb(name: string): Promise<Http> {
			const port = await freePort();
			// No TRIBUTARY_SECRET: the share-link secret is the one stored in the database, the same
			// for every process. No in-process worker: the worker processes run the jobs.
			const p = spawnProc(name, ['scripts/serve.js'], {
				...baseEnv(),
				PORT: String(port),
				HOST: '127.0.0.1',
				TRIBUTARY_DATA_DIR: dataDir,
				TRIBUTARY_WORKER: '0'
			});
			const url = `http://127.0.0.1:${port}`;
			await waitForHttp(`${url}/login`, { proc: p.proc, output: p.out });
			return new Http(url);
		}

		function startWorker(name: string): Proc {
			const p = spawnProc(name, ['build/worker.js'], {
				...baseEnv(),
				TRIBUTARY_WORKER_STALE_S: '2',
				TRIBUTARY_WORKER_HEARTBEAT_MS: '200',
				TRIBUTARY_WORKER_POLL_MS: '100',
				TRIBUTARY_KILL_GRACE_MS: '500'
			});
			workers.push(p);
			return p;
		}
		const workerId = async (p: Proc) => {
			await expect.poll(() => /worker (\S+) polling/.test(p.out()), { timeout: 30_000 }).toBe(true);
			return /worker (\S+) polling/.exec(p.out())![1];
		};

		async function deployThrough(client: Http, name: string, manifest: string, scenario: Scenario) {
			const r = await client.call('POST', `/api/w/${WS}/scripts/dbt/deploy`, deployForm(name, manifest, scenario));
			expect(r.status, JSON.stringify(r.body)).toBe(201);
			return r.body as { hash: string; job_id: string };
		}

		async function waitJob(client: Http, id: string, timeoutMs = 60_000) {
			let job: any;
			await expect
				.poll(
					async () => {
						job = (await client.get(`/api/w/${WS}/jobs/get/${id}`)).body;
						return ['queued', 'running'].includes(job?.status);
					},
					{ timeout: timeoutMs, interval: 100 }
				)
				.toBe(false);
			return job;
		}

		beforeAll(async () => {
			if (!existsSync('build/worker.js') || !existsSync('build/index.js')) throw new Error('build/ is missing: run `npm run build` (npm test does it first)');
			dbName = `tributary_mp_${randomBytes(6).toString('hex')}`;
			const admin = postgres(URL_!, { max: 1, onnotice: () => {} });
			await admin.unsafe(`CREATE DATABASE ${dbName}`);
			await admin.end({ timeout: 1 });
			const u = new URL(URL_!);
			u.pathname = `/${dbName}`;
			dbUrl = u.toString();
			dataDir = mkdtempSync(path.join(tmpdir(), 'tributary-mp-'));
			database = await openDatabase({ url: dbUrl });
			// The workspace, its members and warehouse, made through the app's own routes in this process.
			world = await buildRunnerWorld(database, { start: false });
			const [a, b] = await Promise.all([startWeb('web A'), startWeb('web B')]);
			webA = await a.login(WENDY);
			webB = b.as(webA);
			proxy = await roundRobin([webA.base, webB.base]);
			await deployThrough(webA, 'ok', path.join(PG_LOGS, 'run', 'manifest.json'), replay(path.join(PG_LOGS, 'run', 'successful_run.log.jsonl'), { speed: 400 }, path.join(PG_LOGS, 'run', 'manifest.json')));
			await deployThrough(webA, 'hang', path.join(PG_LOGS, 'build', 'manifest.json'), replay(path.join(PG_LOGS, 'build', 'dbt.log.jsonl'), { mode: 'grandchild', hangAfter: 90 }));
		}, 240_000);

		afterAll(async () => {
			await proxy?.close();
			await Promise.all(procs.filter((p) => p.proc.exitCode === null && p.proc.signalCode === null).map((p) => stopProcess(p.proc)));
			await world?.close();
			rmSync(dataDir, { recursive: true, force: true });
			const admin = postgres(URL_!, { max: 1, onnotice: () => {} });
			await admin.unsafe(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
			await admin.end({ timeout: 1 });
		}, 60_000);

		it('a session signed in through the round-robin is good on both processes', async () => {
			const viaProxy = await new Http(proxy.url).login(ROOT);
			for (let i = 0; i < 6; i++) {
				const r = await viaProxy.get('/api/whoami');
				expect(r.status, JSON.stringify(r.body)).toBe(200);
				expect(r.body.username).toBe('root');
			}
			// Seven requests alternated over two processes: each served some, the session held on both.
			expect(proxy.served.every((n) => n >= 3)).toBe(true);
		});

		it('a deploy through A is served fresh by B at once: B checks its cache against the database', async () => {
			const graphUrl = `/api/w/${WS}/assets/graph?folder=${FOLDER}`;
			const before = await webB.get(graphUrl);
			expect(before.status).toBe(200);
			const etag = before.headers.get('etag')!;
			expect(etag).toBeTruthy();
			// B answers from its cache: the same bytes, so 304 to the same ETag.
			expect((await webB.get(graphUrl, { 'if-none-match': etag })).status).toBe(304);
			const relationsBefore = new Set((before.body.assets as { path: string }[]).map((a) => a.path));

			const jaffle = fixture('jaffle-shop-1.12-duckdb-docs-generate', 'manifest.json');
			await deployThrough(webA, 'fresh', jaffle, replay(path.join(PG_LOGS, 'run', 'successful_run.log.jsonl')));
			const after = await webB.get(graphUrl, { 'if-none-match': etag });
			expect(after.status).toBe(200);
			const added = (after.body.assets as { path: string }[]).map((a) => a.path).filter((p) => !relationsBefore.has(p));
			expect(added.length).toBeGreaterThan(0);
			expect(after.headers.get('etag')).not.toBe(etag);
		});

		it('a run queued through A is claimed by exactly one of two workers, and its live progress polls through B', async () => {
			const ids = [await workerId(startWorker('worker 1')), await workerId(startWorker('worker 2'))];
			expect(new Set(ids).size).toBe(2);
			const queued = await webA.post(`/api/w/${WS}/jobs/run/p/f/${FOLDER}/ok`, { command: 'run' });
			expect(queued.status, JSON.stringify(queued.body)).toBe(201);
			const id = queued.body.job_id as string;
			const seen = new Set<string>();
			let job: any;
			await expect
				.poll(
					async () => {
						const progress = await webB.get(`/api/w/${WS}/jobs/run_progress/${id}`);
						expect(progress.status).toBe(200);
						for (const row of progress.body as { status: string }[]) seen.add(row.status);
						job = (await webB.get(`/api/w/${WS}/jobs/get/${id}`)).body;
						return job.status;
					},
					{ timeout: 60_000, interval: 100 }
				)
				.toBe('success');
			expect(seen.has('materialized')).toBe(true);
			const claims = [...(job.logs as string).matchAll(/claimed by worker (\S+);/g)].map((m) => m[1]);
			expect(claims).toHaveLength(1);
			expect(ids).toContain(claims[0]);
		}, 120_000);

		it('a share link minted on A opens the run on B, with no session', async () => {
			const jobs = await webA.get(`/api/w/${WS}/jobs/list`);
			const id = (jobs.body as { id: string; kind: string }[]).find((j) => j.kind === 'run')!.id;
			const link = await webA.get(`/api/w/${WS}/jobs/share/${id}?kind=public`);
			expect(link.status, JSON.stringify(link.body)).toBe(200);
			const anonymousB = new Http(webB.base);
			expect((await anonymousB.get(`/api/w/${WS}/jobs/get/${id}`)).status).toBe(401);
			const opened = await anonymousB.get(`/api/w/${WS}/jobs/get/${id}`, { 'x-view-token': link.body.token });
			expect(opened.status, JSON.stringify(opened.body)).toBe(200);
			expect(opened.body.id).toBe(id);
			const page = await fetch(`${webB.base}${link.body.url}`, { headers: NO_KEEP_ALIVE });
			expect(page.status).toBe(200);
		});

		it('two deploys of one path through A and B at once: the newest version owns the relations', async () => {
			const manifests = [fixture('jaffle-shop-1.12-duckdb-docs-generate', 'manifest.json'), path.join(PG_LOGS, 'build', 'manifest.json')];
			const scenario = replay(path.join(PG_LOGS, 'run', 'successful_run.log.jsonl'));
			const answers = await Promise.all([deployThrough(webA, 'raced', manifests[0], scenario), deployThrough(webB, 'raced', manifests[1], scenario)]);
			const newest = await newestVersion(database.db, WS, `f/${FOLDER}/raced`);
			expect(answers.map((a) => a.hash)).toContain(hashToHex(newest!.hash));
			const written = async (hash: bigint) =>
				(
					await database.rows<{ asset_path: string }>(
						sql`select distinct asset_path from dbt_node where workspace = ${WS} and script_hash = ${hash}
						    and asset_path is not null and resource_type in ('model', 'seed', 'snapshot') order by 1`
					)
				).map((r) => r.asset_path);
			const owned = (
				await database.rows<{ asset_path: string }>(
					sql`select asset_path from asset_usage where workspace = ${WS} and script_path = ${`f/${FOLDER}/raced`} and access <> 'r' order by 1`
				)
			).map((r) => r.asset_path);
			const other = answers.map((a) => hexToHash(a.hash)).find((x) => x !== newest!.hash)!;
			expect(owned).toEqual(await written(newest!.hash));
			expect(owned).not.toEqual(await written(other));
		}, 60_000);

		it('a worker killed mid-run: the other reclaims its job and fails it with the reason', async () => {
			const queued = await webA.post(`/api/w/${WS}/jobs/run/p/f/${FOLDER}/hang`, { command: 'build' });
			expect(queued.status).toBe(201);
			const id = queued.body.job_id as string;
			let claimedBy = '';
			await expect
				.poll(
					async () => {
						const job = (await webB.get(`/api/w/${WS}/jobs/get/${id}`)).body;
						claimedBy = /claimed by worker (\S+);/.exec(job.logs ?? '')?.[1] ?? '';
						return job.status === 'running' && claimedBy !== '';
					},
					{ timeout: 30_000, interval: 100 }
				)
				.toBe(true);
			const victim = workers.find((w) => w.out().includes(`worker ${claimedBy} polling`))!;
			const survivor = workers.find((w) => w !== victim && w.proc.exitCode === null)!;
			victim.proc.kill('SIGKILL');
			const job = await waitJob(webB, id, 60_000);
			expect(job.status).toBe('failure');
			expect(job.result.error).toBe('the worker running this job stopped');
			expect(survivor.out()).toContain(`reclaimed job ${id} from ${claimedBy}`);
		}, 120_000);

		it('connections cut under a running job and both web processes: nothing stays running, and the processes recover by themselves', async () => {
			const queued = await webA.post(`/api/w/${WS}/jobs/run/p/f/${FOLDER}/ok`, { command: 'run' });
			expect(queued.status, JSON.stringify(queued.body)).toBe(201);
			const running = queued.body.job_id as string;
			await expect.poll(async () => (await webB.get(`/api/w/${WS}/jobs/get/${running}`)).body.status, { timeout: 30_000, interval: 50 }).toBe('running');
			const admin = postgres(URL_!, { max: 1, onnotice: () => {} });
			try {
				const cut = await admin.unsafe(`select pg_terminate_backend(pid) as ok from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()`, [dbName]);
				expect(cut.length).toBeGreaterThan(0);
			} finally {
				await admin.end({ timeout: 1 });
			}
			// Right after the cut a request either succeeds on a fresh connection or fails with 503
			// and a message: never a 500, never a hang.
			const first = await webB.get('/api/whoami');
			expect([200, 503], JSON.stringify(first.body)).toContain(first.status);
			if (first.status === 503) expect(first.body.error).toMatch(/database/i);
			await expect.poll(async () => (await webB.get('/api/whoami')).status, { timeout: 30_000, interval: 200 }).toBe(200);
			await expect.poll(async () => (await webA.get('/api/whoami')).status, { timeout: 30_000, interval: 200 }).toBe(200);
			// The job whose worker lost its connection mid-run settles (finished or failed with a reason).
			const settled = await waitJob(webB, running, 60_000);
			expect(['success', 'failure']).toContain(settled.status);
			if (settled.status === 'failure') expect(settled.result.error).toBeTruthy();
			const again = await webA.post(`/api/w/${WS}/jobs/run/p/f/${FOLDER}/ok`, { command: 'run' });
			expect(again.status, JSON.stringify(again.body)).toBe(201);
			expect((await waitJob(webB, again.body.job_id)).status).toBe('success');
		}, 120_000);

		it('a web process killed during a deploy: the previous graph stays, and no deploy job is left behind', async () => {
			const before = await newestVersion(database.db, WS, `f/${FOLDER}/fresh`);
			expect(before).not.toBeNull();
			const nodesBefore = await database.rows<{ n: number }>(sql`select count(*)::int as n from dbt_node where workspace = ${WS} and script_hash = ${before!.hash}`);
			const big = await generateProject({ models: 3000, columnEdges: 3000, seed: 5 });
			const form = new FormData();
			form.set('path', `f/${FOLDER}/fresh`);
			form.set('manifest', new Blob([new TextEncoder().encode(JSON.stringify(big.manifest))]), 'manifest.json');
			const victim = procs.find((p) => p.name === 'web B')!;
			const pending = fetch(`${webB.base}/api/w/${WS}/scripts/dbt/deploy`, { method: 'POST', body: form, headers: { ...NO_KEEP_ALIVE, cookie: webB.cookie } }).then(
				(r) => r.status,
				() => 'connection lost'
			);
			// Killed once its transaction is writing the graph: nothing of it may survive.
			await expect
				.poll(
					async () =>
						(
							await database.rows<{ n: number }>(
								sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and xact_start is not null
								     and pid <> pg_backend_pid() and query ilike '%dbt_%'`
							)
						)[0].n,
					{ timeout: 60_000, interval: 20 }
				)
				.toBeGreaterThan(0);
			victim.proc.kill('SIGKILL');
			expect(await pending).toBe('connection lost');
			const after = await newestVersion(database.db, WS, `f/${FOLDER}/fresh`);
			expect(after!.hash).toBe(before!.hash);
			const nodesAfter = await database.rows<{ n: number }>(sql`select count(*)::int as n from dbt_node where workspace = ${WS} and script_hash = ${before!.hash}`);
			expect(nodesAfter[0].n).toBe(nodesBefore[0].n);
			const stuck = await database.rows<{ n: number }>(
				sql`select count(*)::int as n from job where workspace = ${WS} and script_path = ${`f/${FOLDER}/fresh`} and status in ('queued', 'running')`
			);
			expect(stuck[0].n).toBe(0);
			const graph = await webA.get(`/api/w/${WS}/assets/graph?folder=${FOLDER}`);
			expect(graph.status).toBe(200);
			expect(JSON.stringify(graph.body)).not.toContain('stg_reference__country_codes');
		}, 180_000);
	});
});
