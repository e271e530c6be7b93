// Postgres restarting under load (issue 18): a built web process and a worker process on a
// throwaway Postgres cluster of the test's own (so stopping it disturbs no other test), with
// requests in flight while the cluster is stopped and started again. While it is down every
// request answers 503 with a message (never a 500, never a hang); once it is back the same
// processes serve and run jobs again, without being restarted.
import { execFileSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/lib/server/db';
import { describeFixtures } from '../support/fixtures';
import { buildRunnerWorld, FAKE_DBT, PG_LOGS, replay, WS, FOLDER, type RunnerWorld } from '../support/runner-world';
import { SANDBOX_READ_ONLY } from '../support/sandbox-inputs';
import { apiLogin, freePort, NO_KEEP_ALIVE, spawnWithOutput, stopProcess, waitForHttp } from './server';

const PG_BIN = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin'].find((d) => existsSync(path.join(d, 'pg_ctl')));
if (!PG_BIN && process.env.CI) throw new Error('no Postgres server binaries (pg_ctl) under /usr/lib/postgresql: the restart test needs them');

/** Postgres refuses to run as root: as root, the cluster belongs to the postgres user. */
const asOwner = (cmd: string, args: string[]) =>
	process.getuid?.() === 0 ? execFileSync('runuser', ['-u', 'postgres', '--', cmd, ...args], { stdio: 'pipe' }) : execFileSync(cmd, args, { stdio: 'pipe' });

describeFixtures('Postgres restarting under load', () => {
	describe.skipIf(!PG_BIN)('a web process and a worker on a cluster that stops and starts', () => {
		let dir: string;
		let port: number;
		let database: Database;
		let world: RunnerWorld;
		let web: ChildProcess;
		let worker: ChildProcess;
		let webUrl: string;
		let workerOutput = () => '';
		const pgCtl = (...args: string[]) => asOwner(path.join(PG_BIN!, 'pg_ctl'), ['-D', path.join(dir, 'data'), ...args]);
		const startCluster = () => pgCtl('-w', '-l', path.join(dir, 'log'), '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`, 'start');

		beforeAll(async () => {
			if (!existsSync('build/index.js') || !existsSync('build/worker.js')) throw new Error('build/ is missing: run `npm run build` (npm test does it first)');
			dir = mkdtempSync(path.join(tmpdir(), 'tributary-pg-'));
			if (process.getuid?.() === 0) {
				const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
				const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
				chownSync(dir, uid, gid);
			}
			port = await freePort();
			asOwner(path.join(PG_BIN!, 'initdb'), ['-D', path.join(dir, 'data'), '-U', 'postgres', '--auth=trust', '--no-sync']);
			startCluster();
			const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
			database = await openDatabase({ url });
			world = await buildRunnerWorld(database, { start: false });
			await world.deploy('ok', replay(path.join(PG_LOGS, 'run', 'successful_run.log.jsonl'), { speed: 400 }, path.join(PG_LOGS, 'run', 'manifest.json')), {
				manifest: path.join(PG_LOGS, 'run', 'manifest.json')
			});
			const env = {
				PATH: process.env.PATH ?? '',
				HOME: process.env.HOME ?? '/tmp',
				DATABASE_URL: url,
				TRIBUTARY_ENCRYPTION_KEY: process.env.TRIBUTARY_ENCRYPTION_KEY!,
				TRIBUTARY_SANDBOX_READ_ONLY: SANDBOX_READ_ONLY.join(':'),
				DBT_BIN: FAKE_DBT,
				TRIBUTARY_JOBS_DIR: world.jobsDir
			};
			const webPort = await freePort();
			webUrl = `http://127.0.0.1:${webPort}`;
			const webChild = spawnWithOutput(['scripts/serve.js'], { ...env, PORT: String(webPort), HOST: '127.0.0.1', TRIBUTARY_WORKER: '0', TRIBUTARY_DATA_DIR: dir });
			web = webChild.proc;
			const workerChild = spawnWithOutput(['build/worker.js'], { ...env, TRIBUTARY_WORKER_POLL_MS: '100', TRIBUTARY_WORKER_HEARTBEAT_MS: '200' });
			worker = workerChild.proc;
			workerOutput = workerChild.output;
			await waitForHttp(`${webUrl}/login`, webChild);
		}, 180_000);

		afterAll(async () => {
			for (const p of [web, worker]) if (p && p.exitCode === null && p.signalCode === null) await stopProcess(p);
			await world?.close().catch(() => {});
			if (dir) {
				try {
					pgCtl('-m', 'immediate', 'stop');
				} catch {
					/* already stopped */
				}
				rmSync(dir, { recursive: true, force: true });
			}
		}, 60_000);

		it('answers 503 with a message while the database is down, and recovers without a restart', async () => {
			const cookie = await apiLogin(webUrl, 'wendy', 'wendy-password-1');
			const statuses: number[] = [];
			const failures: string[] = [];
			let load = true;
			const hammer = async () => {
				while (load) {
					const started = Date.now();
					const r = await fetch(`${webUrl}/api/w/${WS}/jobs/list`, { headers: { ...NO_KEEP_ALIVE, cookie } });
					const body = await r.text();
					statuses.push(r.status);
					if (r.status !== 200 && r.status !== 503) failures.push(`${r.status}: ${body}`);
					if (r.status === 503 && !/database is unavailable/.test(body)) failures.push(`503 without the message: ${body}`);
					if (Date.now() - started > 15_000) failures.push(`a request took ${Date.now() - started} ms`);
					await new Promise((res) => setTimeout(res, 20));
				}
			};
			const loops = [hammer(), hammer(), hammer()];
			await new Promise((res) => setTimeout(res, 500));
			pgCtl('-m', 'fast', '-w', 'stop');
			await expect.poll(() => statuses.slice(-3).every((s) => s === 503), { timeout: 20_000, interval: 100 }).toBe(true);
			startCluster();
			await expect.poll(() => statuses.slice(-3).every((s) => s === 200), { timeout: 30_000, interval: 100 }).toBe(true);
			load = false;
			await Promise.all(loops);
			expect(failures).toEqual([]);
			expect(statuses).toContain(503);
			expect(web.exitCode).toBeNull();
			expect(worker.exitCode).toBeNull();

			// The worker, which polled through the outage, claims and runs a new job.
			const queued = await fetch(`${webUrl}/api/w/${WS}/jobs/run/p/f/${FOLDER}/ok`, {
				method: 'POST',
				headers: { ...NO_KEEP_ALIVE, cookie, 'content-type': 'application/json' },
				body: JSON.stringify({ command: 'run' })
			});
			expect(queued.status).toBe(201);
			const { job_id: id } = (await queued.json()) as { job_id: string };
			await expect
				.poll(async () => ((await (await fetch(`${webUrl}/api/w/${WS}/jobs/get/${id}`, { headers: { ...NO_KEEP_ALIVE, cookie } })).json()) as { status: string }).status, {
					timeout: 60_000,
					interval: 200
				})
				.toBe('success');
			expect(workerOutput()).toMatch(/polling/);
		}, 180_000);
	});
});
