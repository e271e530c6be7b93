// `npm run worker` as real processes (the BUILT build/worker.js) on one Postgres: a worker killed
// with SIGKILL mid-run leaves its job to another, which fails it with the reason, settles its
// progress and kills the dbt it left behind; two workers polling the queue run each job once;
// SIGTERM stops a worker cleanly.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/lib/server/db';
import { describeFixtures } from '../support/fixtures';
import { buildRunnerWorld, FAKE_DBT, PG_LOGS, replay, WS, type RunnerWorld } from '../support/runner-world';
import { stopProcess } from './server';

const URL_ = process.env.TEST_DATABASE_URL;
if (!URL_ && process.env.CI) throw new Error('TEST_DATABASE_URL must be set in CI: worker processes need a shared Postgres');

const alive = (pid: number) => {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
	} catch {
		return false;
	}
};

describeFixtures('worker processes on one Postgres', () => {
	describe.skipIf(!URL_)('npm run worker (build/worker.js)', () => {
		let h: Database;
		let w: RunnerWorld;
		let dbUrl: string;
		let dbName: string;
		const procs: ChildProcess[] = [];
		const output = new Map<ChildProcess, string>();

		function startWorker(): ChildProcess {
			const p = spawn(process.execPath, ['build/worker.js'], {
				env: {
					PATH: process.env.PATH ?? '',
					HOME: process.env.HOME ?? '/tmp',
					DATABASE_URL: dbUrl,
					DBT_BIN: FAKE_DBT,
					TRIBUTARY_JOBS_DIR: w.jobsDir,
					TRIBUTARY_WORKER_STALE_S: '2',
					TRIBUTARY_WORKER_HEARTBEAT_MS: '200',
					TRIBUTARY_WORKER_POLL_MS: '100',
					TRIBUTARY_KILL_GRACE_MS: '500'
				},
				stdio: ['ignore', 'pipe', 'pipe']
			});
			output.set(p, '');
			p.stdout!.on('data', (d) => output.set(p, output.get(p) + d));
			p.stderr!.on('data', (d) => output.set(p, output.get(p) + d));
			procs.push(p);
			return p;
		}
		const workerId = async (p: ChildProcess) => {
			await expect.poll(() => /worker (\S+) polling/.test(output.get(p) ?? ''), { timeout: 20_000 }).toBe(true);
			return /worker (\S+) polling/.exec(output.get(p)!)![1];
		};

		beforeAll(async () => {
			if (!existsSync('build/worker.js')) throw new Error('build/worker.js is missing: run `npm run build` (npm test does it first)');
			dbName = `tributary_w_${randomBytes(6).toString('hex')}`;
			const admin = postgres(URL_!, { max: 1, onnotice: () => {} });
			await admin.unsafe(`CREATE DATABASE ${dbName}`);
			await admin.end({ timeout: 1 });
			const u = new URL(URL_!);
			u.pathname = `/${dbName}`;
			dbUrl = u.toString();
			h = await openDatabase({ url: dbUrl });
			w = await buildRunnerWorld(h, { start: false });
			await w.deploy('hang', replay(path.join(PG_LOGS, 'build', 'dbt.log.jsonl'), { mode: 'grandchild', hangAfter: 90 }));
			const runManifest = path.join(PG_LOGS, 'run', 'manifest.json');
			await w.deploy('ok', replay(path.join(PG_LOGS, 'run', 'successful_run.log.jsonl'), { speed: 400 }, runManifest), { manifest: runManifest });
		}, 120_000);

		afterAll(async () => {
			for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
			await w?.close();
			const admin = postgres(URL_!, { max: 1, onnotice: () => {} });
			await admin.unsafe(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
			await admin.end({ timeout: 1 });
		});

		it('a worker killed with SIGKILL mid-run: another reclaims the job, settles it, and kills the dbt left behind', async () => {
			const a = startWorker();
			const aId = await workerId(a);
			const id = await w.run('hang', { command: 'build' });
			let pid = 0;
			await expect
				.poll(
					async () => {
						pid = Number(/grandchild pid (\d+)/.exec((await w.wendy.get(`/api/w/${WS}/jobs/get/${id}`)).body.logs)?.[1] ?? 0);
						return pid;
					},
					{ timeout: 30_000 }
				)
				.toBeGreaterThan(0);
			await expect.poll(async () => (await w.progress(id)).some((r) => r.status === 'running'), { timeout: 10_000 }).toBe(true);
			a.kill('SIGKILL');
			await new Promise((r) => a.once('exit', r));
			// Its dbt outlived it: a process group of its own is exactly what a SIGKILL cannot reach.
			expect(alive(pid)).toBe(true);

			const b = startWorker();
			const bId = await workerId(b);
			const job = await w.waitJob(id, 30_000);
			expect(job.status).toBe('failure');
			expect(job.result.error).toBe('the worker running this job stopped');
			expect(job.logs).toContain(`claimed by worker ${aId}`);
			const rows = await w.progress(id);
			expect(rows.some((r) => r.status === 'running')).toBe(false);
			expect(rows.find((r) => r.status === 'failed')?.error).toBe('the run ended before this model finished');
			await expect.poll(() => alive(pid), { timeout: 10_000 }).toBe(false);
			expect(output.get(b)).toContain(`reclaimed job ${id} from ${aId}`);
			expect(bId).not.toBe(aId);
		}, 120_000);

		it('two worker processes on one queue: each job runs once, and SIGTERM stops them cleanly', async () => {
			const c = startWorker();
			await workerId(c);
			const ids = [];
			for (let i = 0; i < 8; i++) ids.push(await w.run('ok', { command: 'run' }));
			const by = new Map<string, number>();
			for (const id of ids) {
				const job = await w.waitJob(id, 60_000);
				expect(job.status, job.logs).toBe('success');
				const claims = [...job.logs.matchAll(/claimed by worker (\S+);/g)].map((m) => m[1]);
				expect(claims).toHaveLength(1);
				by.set(claims[0], (by.get(claims[0]) ?? 0) + 1);
			}
			expect([...by.values()].reduce((x, y) => x + y, 0)).toBe(8);
			for (const p of procs.filter((x) => x.exitCode === null && x.signalCode === null)) {
				expect(await stopProcess(p)).toBe(0);
				expect(output.get(p)).toMatch(/SIGTERM, stopping/);
			}
		}, 120_000);
	});
});
