// The queue on both databases: a job is claimed once however many claimers race for it (on
// Postgres through a pool of real connections), two workers on one queue run each job once, a
// dead worker's job is reclaimed and settled (its stray dbt process killed), and a worker that
// loses its job stops the child.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/lib/server/db';
import { insertJob, progressOf, upsertProgress } from '../../src/lib/server/repo/jobs';
import { claimNextJob, heartbeat, requestCancel } from '../../src/lib/server/repo/queue';
import { jobDirs } from '../../src/lib/server/runner/workdir';
import { Worker, WORKER_STOPPED_MESSAGE } from '../../src/lib/server/runner/worker';
import { runnerIngest } from '../../src/lib/server/runner-ingest';
import { testBackends } from '../support/db';
import { describeFixtures } from '../support/fixtures';
import { buildRunnerWorld, hostPidOf, PG_LOGS, replay, runnerConfig, WS, type RunnerWorld } from '../support/runner-world';

const OK_RUN = path.join(PG_LOGS, 'run', 'successful_run.log.jsonl');
const RUN_MANIFEST = path.join(PG_LOGS, 'run', 'manifest.json');
const BUILD_LOG = path.join(PG_LOGS, 'build', 'dbt.log.jsonl');

const alive = (pid: number) => {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
	} catch {
		return false;
	}
};

describeFixtures('the job queue', () => {
	describe.each(testBackends())('on $name', (backend) => {
		let database: Database;
		let w: RunnerWorld;

		beforeAll(async () => {
			database = await backend.open();
			// The world's own worker stays stopped: each test starts the workers it needs.
			w = await buildRunnerWorld(database, { start: false });
			await w.deploy('ok', replay(OK_RUN, { speed: 400 }, RUN_MANIFEST), { manifest: RUN_MANIFEST });
			await w.deploy('hang', replay(BUILD_LOG, { mode: 'grandchild', hangAfter: 90 }));
		}, 120_000);
		afterAll(async () => {
			await w?.close();
		});

		async function queued(n: number, path = 'f/data/ok'): Promise<string[]> {
			const ids: string[] = [];
			for (let i = 0; i < n; i++) {
				ids.push(
					await database.db.transaction((tx) =>
						insertJob(tx, { workspace: WS, kind: 'run', scriptPath: path, scriptHash: 1n, createdBy: 'wendy', permissionedAs: 'u/wendy', status: 'queued', args: { command: 'run' } })
					)
				);
			}
			return ids;
		}

		it('racing claimers take each job exactly once', async () => {
			const ids = await queued(60);
			const claimers = Array.from({ length: 12 }, (_, i) => `claimer-${i}`);
			const taken = new Map<string, string[]>();
			await Promise.all(
				claimers.map(async (c) => {
					for (;;) {
						const job = await claimNextJob(database, c);
						if (!job) return;
						taken.set(job.id, [...(taken.get(job.id) ?? []), c]);
					}
				})
			);
			expect([...taken.keys()].sort()).toEqual([...ids].sort());
			expect([...taken.values()].every((by) => by.length === 1)).toBe(true);
			const rows = await database.rows<{ id: string; status: string; worker_id: string }>(sql`select id::text as id, status, worker_id from job where id = any(${sql.param(ids)}::uuid[])`);
			for (const r of rows) expect([r.status, r.worker_id]).toEqual(['running', taken.get(r.id)![0]]);
			if (backend.name === 'postgres') expect(new Set([...taken.values()].map((v) => v[0])).size).toBeGreaterThan(1);
			// Cleared so the workers below do not pick them up as theirs to reap.
			await database.rows(sql`update job set status = 'canceled', completed_at = now() where id = any(${sql.param(ids)}::uuid[])`);
		});

		it('a canceled queued job is never claimed', async () => {
			const [id] = await queued(1);
			expect(await requestCancel(database, WS, id, 'wendy')).toBe('canceled');
			expect(await claimNextJob(database, 'anyone')).toBeNull();
		});

		it('two workers polling one queue run each job once', async () => {
			const ids = [];
			for (let i = 0; i < 8; i++) ids.push(await w.run('ok', { command: 'run' }));
			const a = new Worker({ database, ingest: runnerIngest, id: 'worker-a', slots: 1, pollMs: 20, heartbeatMs: 100, staleS: 30, config: runnerConfig() }).start();
			const b = new Worker({ database, ingest: runnerIngest, id: 'worker-b', slots: 1, pollMs: 20, heartbeatMs: 100, staleS: 30, config: runnerConfig() }).start();
			try {
				const by = new Map<string, number>();
				for (const id of ids) {
					const job = await w.waitJob(id, 60_000);
					expect(job.status, job.logs).toBe('success');
					const claims = job.logs.match(/claimed by worker (\S+);/g) ?? [];
					expect(claims).toHaveLength(1);
					const who = /claimed by worker (\S+);/.exec(claims[0])![1];
					by.set(who, (by.get(who) ?? 0) + 1);
				}
				expect([...by.keys()].every((k) => k === 'worker-a' || k === 'worker-b')).toBe(true);
				expect([...by.values()].reduce((x, y) => x + y, 0)).toBe(8);
			} finally {
				await Promise.all([a.stop(), b.stop()]);
			}
		}, 90_000);

		it('a dead worker\'s job is reclaimed: failed with the reason, progress settled, its stray dbt killed', async () => {
			const [id] = await queued(1, 'f/data/hang');
			const claimed = await claimNextJob(database, 'dead-worker');
			expect(claimed?.id).toBe(id);
			await upsertProgress(database, WS, id, [
				{ assetKind: 'dbt', assetPath: 'main/public/raw_customers', status: 'materialized', rowCount: 100 },
				{ assetKind: 'dbt', assetPath: 'main/public/raw_orders', status: 'running' }
			]);
			// What the dead worker left on this host: its dbt, still running in its job directory.
			const dirs = jobDirs(id);
			mkdirSync(dirs.project, { recursive: true });
			const stray = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { cwd: dirs.project, detached: true, stdio: 'ignore' });
			writeFileSync(dirs.pidFile, `${stray.pid}\n${dirs.project}\n`);
			await database.rows(sql`update job set heartbeat_at = now() - interval '1 hour' where id = ${id}::uuid`);

			const reaper = new Worker({ database, ingest: runnerIngest, id: 'reaper', pollMs: 20, heartbeatMs: 100, staleS: 1, config: runnerConfig() }).start();
			try {
				const job = await w.waitJob(id, 20_000);
				expect(job.status).toBe('failure');
				expect(job.result.error).toBe(WORKER_STOPPED_MESSAGE);
				expect(job.logs).toContain(WORKER_STOPPED_MESSAGE);
				expect(await progressOf(database, WS, id)).toEqual([
					{ assetKind: 'dbt', assetPath: 'main/public/raw_customers', status: 'materialized', rowCount: 100, error: null },
					{ assetKind: 'dbt', assetPath: 'main/public/raw_orders', status: 'failed', rowCount: null, error: 'the run ended before this model finished' }
				]);
				await expect.poll(() => alive(stray.pid!), { timeout: 5000 }).toBe(false);
				// And it goes on serving the queue.
				expect((await w.waitJob(await w.run('ok', { command: 'run' }), 30_000)).status).toBe('success');
			} finally {
				await reaper.stop();
			}
		}, 60_000);

		it('a worker whose job was taken from it stops the child at once', async () => {
			const worker = new Worker({ database, ingest: runnerIngest, id: 'loser', pollMs: 20, heartbeatMs: 100, staleS: 30, config: runnerConfig() }).start();
			try {
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
						{ timeout: 20_000 }
					)
					.toBeGreaterThan(0);
				// Another worker reclaimed it (its heartbeats were late, say).
				await database.rows(sql`update job set worker_id = 'someone-else' where id = ${id}::uuid`);
				expect((await heartbeat(database, id, 'loser')).owned).toBe(false);
				await expect.poll(() => alive(pid), { timeout: 10_000 }).toBe(false);
				await expect.poll(() => worker.active.length, { timeout: 10_000 }).toBe(0);
				// The job is the new owner's to end: the loser wrote nothing over it.
				const row = await database.rows<{ status: string }>(sql`select status from job where id = ${id}::uuid`);
				expect(row[0].status).toBe('running');
				await database.rows(sql`update job set status = 'failure', completed_at = now() where id = ${id}::uuid`);
			} finally {
				await worker.stop();
			}
		}, 120_000);
	});
});
