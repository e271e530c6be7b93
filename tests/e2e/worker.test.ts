// `npm run worker` as real processes (the BUILT build/worker.js) on one Postgres: a worker killed
// with SIGKILL mid-run takes its sandbox with it and leaves its job to another, which fails it
// with the reason and settles its progress; two workers polling the queue run each job once;
// SIGTERM stops a worker cleanly; a worker runs with only the database and the encryption key;
// project code it runs finds nothing of the server.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/lib/server/db';
import { describeFixtures } from '../support/fixtures';
import { buildRunnerWorld, FAKE_DBT, hostPidOf, PG_LOGS, replay, SECRET, WS, type RunnerWorld } from '../support/runner-world';
import { SANDBOX_READ_ONLY } from '../support/sandbox-inputs';
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
		let database: Database;
		let w: RunnerWorld;
		let dbUrl: string;
		let dbName: string;
		const procs: ChildProcess[] = [];
		const output = new Map<ChildProcess, string>();

		/** The whole environment of a worker process: the database, the encryption key, and the runner's knobs; never the share-link secret or the admin password. */
		const workerEnv = (): Record<string, string> => ({
			PATH: process.env.PATH ?? '',
			HOME: process.env.HOME ?? '/tmp',
			DATABASE_URL: dbUrl,
			TRIBUTARY_ENCRYPTION_KEY: process.env.TRIBUTARY_ENCRYPTION_KEY!,
			TRIBUTARY_SANDBOX_READ_ONLY: SANDBOX_READ_ONLY.join(':'),
			DBT_BIN: FAKE_DBT,
			TRIBUTARY_JOBS_DIR: w.jobsDir,
			TRIBUTARY_WORKER_STALE_S: '2',
			TRIBUTARY_WORKER_HEARTBEAT_MS: '200',
			TRIBUTARY_WORKER_POLL_MS: '100',
			TRIBUTARY_KILL_GRACE_MS: '500'
		});

		function startWorker(env = workerEnv()): ChildProcess {
			const p = spawn(process.execPath, ['build/worker.js'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
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
			database = await openDatabase({ url: dbUrl });
			w = await buildRunnerWorld(database, { start: false });
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

		it('a worker killed with SIGKILL mid-run: its sandbox dies with it, another reclaims the job and settles it', async () => {
			const a = startWorker();
			const aId = await workerId(a);
			const id = await w.run('hang', { command: 'build' });
			let pid = 0;
			await expect
				.poll(
					async () => {
						// The stand-in sees its sandbox's PID namespace: find the grandchild's host pid.
						const nsPid = Number(/grandchild pid (\d+)/.exec((await w.wendy.get(`/api/w/${WS}/jobs/get/${id}`)).body.logs)?.[1] ?? 0);
						pid = hostPidOf(nsPid, w.jobsDir) ?? 0;
						return pid;
					},
					{ timeout: 30_000 }
				)
				.toBeGreaterThan(0);
			await expect.poll(async () => (await w.progress(id)).some((r) => r.status === 'running'), { timeout: 10_000 }).toBe(true);
			a.kill('SIGKILL');
			await new Promise((r) => a.once('exit', r));
			// The sandbox dies with its worker (bubblewrap's --die-with-parent): nothing of the run outlives a SIGKILL.
			await expect.poll(() => alive(pid), { timeout: 10_000 }).toBe(false);

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

		it('a worker holds only the database and the encryption key, and opens the warehouse secrets with them', async () => {
			const p = startWorker();
			await workerId(p);
			const names = readFileSync(`/proc/${p.pid}/environ`, 'utf8').split('\0').filter(Boolean).map((kv) => kv.slice(0, kv.indexOf('=')));
			expect(names).toContain('DATABASE_URL');
			expect(names).toContain('TRIBUTARY_ENCRYPTION_KEY');
			expect(names.filter((n) => ['TRIBUTARY_SECRET', 'TRIBUTARY_ADMIN_PASSWORD', 'TRIBUTARY_ADMIN_USER'].includes(n))).toEqual([]);
			// The run's profile needs the warehouse password, sealed at rest: only the key opens it.
			const job = await w.waitJob(await w.run('ok', { command: 'run' }), 60_000);
			expect(job.status, job.logs).toBe('success');
			expect(job.logs).toContain('profile "jaffle_shop", target main');
			expect(job.logs).not.toContain(SECRET);
			expect(await stopProcess(p)).toBe(0);
		}, 120_000);

		it('a worker without the encryption key refuses the run, saying which key it needs', async () => {
			const { TRIBUTARY_ENCRYPTION_KEY: _key, ...env } = workerEnv();
			const p = startWorker(env);
			await workerId(p);
			const job = await w.waitJob(await w.run('ok', { command: 'run' }), 60_000);
			expect(job.status).toBe('failure');
			expect(job.result.error).toMatch(/the stored secret runs\/main\/password does not open with this process's key: set TRIBUTARY_ENCRYPTION_KEY/);
			expect(job.logs).not.toContain('fake-dbt argv');
			expect(await stopProcess(p)).toBe(0);
		}, 120_000);

		it('project code run by a worker process finds nothing of the server', async () => {
			const dir = mkdtempSync(path.join(tmpdir(), 'tributary-attacker-'));
			const attacker = path.join(dir, 'dbt');
			copyFileSync(path.resolve('tests/support/fake-dbt/attacker.mjs'), attacker);
			copyFileSync(path.resolve('tests/support/sandbox-syscalls.py'), path.join(dir, 'sandbox-syscalls.py'));
			try {
				const r = await w.admin.post(`/api/w/${WS}/warehouses`, { name: 'local', settings: { type: 'duckdb', path: 'local.duckdb' } });
				expect(r.status, JSON.stringify(r.body)).toBe(201);
				const targets = {
					dataDirs: ['/var/lib/postgresql', path.resolve('data')],
					appDir: path.resolve('.'),
					writePaths: [path.resolve('build', 'evil.js'), path.join(path.dirname(w.jobsDir), 'written-by-a-worker-run')],
					ports: [['127.0.0.1', 5432]],
					syscalls: true
				};
				await w.deploy('attack', { attack: targets } as never, { descriptor: 'profile:\n  warehouse: local\n' });
				const p = startWorker({ ...workerEnv(), DBT_BIN: attacker });
				await workerId(p);
				const job = await w.waitJob(await w.run('attack', { command: 'build' }), 60_000);
				const lines = job.logs.split('\n').filter((l: string) => l.startsWith('attack '));
				// Two environ reads, the /proc scan, 2 data dirs + the app + /root + /etc, 2 reads, 2 writes, 1 connection; the system calls (one more on x86_64: i386's).
				expect(lines, job.logs).toHaveLength(3 + 5 + 2 + 2 + 1 + (process.arch === 'x64' ? 23 : 22));
				for (const l of lines) expect(l, job.logs).toMatch(/^attack [^:]+(:\d+)?: denied /);
				expect(lines).toContain('attack connect 127.0.0.1:5432: denied ECONNREFUSED');
				expect(lines).toContain('attack unshare -Ur id: denied EPERM (unshare: unshare failed: Operation not permitted)');
				expect(lines).toContain('attack ptrace(PTRACE_ATTACH) a child: denied EPERM');
				expect(job.logs).toContain('syscall attacks done');
				expect(job.logs).not.toContain(dbUrl);
				expect(existsSync(path.resolve('build', 'evil.js'))).toBe(false);
				expect(await stopProcess(p)).toBe(0);
			} finally {
				rmSync(dir, { recursive: true, force: true });
			}
		}, 120_000);
	});
});
