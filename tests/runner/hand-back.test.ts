// A worker stopping with its jobs handed back (Worker.stop({ handBack })), on both databases, with
// the real worker and the real routes: a run stopped before dbt started is re-queued (its log says
// why) and the next worker runs it to its end; a lineage job stopped mid-inference is re-queued with
// its plan, and the next worker infers and stores its lineage; a job whose cancel was asked for is
// never re-queued.
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/lib/server/db';
import { requestCancel } from '../../src/lib/server/repo/queue';
import { Worker } from '../../src/lib/server/runner/worker';
import { runnerIngest } from '../../src/lib/server/runner-ingest';
import { testBackends } from '../support/db';
import { describeFixtures, fixture } from '../support/fixtures';
import { buildRunnerWorld, FOLDER, PG_LOGS, replay, runnerConfig, SANDBOX_INPUTS, WS, type RunnerWorld } from '../support/runner-world';

const OK_RUN = path.join(PG_LOGS, 'run', 'successful_run.log.jsonl');
const RUN_MANIFEST = path.join(PG_LOGS, 'run', 'manifest.json');
const JAFFLE = fixture('jaffle-shop-1.12-duckdb-docs-generate');

/**
 * A dbt whose `--version` waits until it is stopped: a run held in its preparation, before any dbt
 * command started. In the sandbox's read-only inputs.
 */
const SLOW_START_DBT = path.join(SANDBOX_INPUTS, `slow-start-dbt-${process.pid}.sh`);

async function row(database: Database, id: string) {
	const [r] = await database.rows<{ status: string; worker_id: string | null; logs: string; started_at: unknown }>(
		sql`select status, worker_id, logs, started_at from job where id = ${id}::uuid`
	);
	return r;
}

describeFixtures('a worker handing its jobs back when it stops', () => {
	describe.each(testBackends())('on $name', (backend) => {
		let database: Database;
		let w: RunnerWorld;
		const workers: Worker[] = [];
		const worker = (opts: Omit<ConstructorParameters<typeof Worker>[0], 'ingest'>) => {
			const x = new Worker({ ingest: runnerIngest, pollMs: 30, heartbeatMs: 100, ...opts }).start();
			workers.push(x);
			return x;
		};

		beforeAll(async () => {
			writeFileSync(SLOW_START_DBT, '#!/bin/sh\nexec sleep 600\n');
			chmodSync(SLOW_START_DBT, 0o755);
			database = await backend.open();
			w = await buildRunnerWorld(database, { start: false });
			await w.deploy('ok', replay(OK_RUN, { speed: 400 }, RUN_MANIFEST), { manifest: RUN_MANIFEST });
		}, 120_000);
		afterAll(async () => {
			for (const x of workers) await x.stop();
			await w?.close();
			rmSync(SLOW_START_DBT, { force: true });
		});

		it('a run stopped before dbt started goes back to the queue, saying why, and the next worker runs it', async () => {
			const a = worker({ database, slots: 1, lineageSlots: 0, config: runnerConfig({ dbtBin: SLOW_START_DBT }) });
			const id = await w.run('ok', { command: 'run' });
			await expect.poll(async () => (await row(database, id)).logs, { timeout: 30_000 }).toMatch(/sandbox: bubblewrap/);
			await a.stop({ handBack: true, withinMs: 2000, why: 'SIGTERM' });
			const back = await row(database, id);
			expect(back.status, back.logs).toBe('queued');
			expect(back.worker_id).toBeNull();
			expect(back.started_at).toBeNull();
			expect(back.logs).toContain(`claimed by worker ${a.id}`);
			expect(back.logs).toContain(
				'the worker running this job stopped (SIGTERM) before dbt started; the job is back in the queue and runs again from the start on the next worker'
			);
			const b = worker({ database, slots: 1, lineageSlots: 0, config: runnerConfig() });
			const job = await w.waitJob(id, 60_000);
			expect(job.status, job.logs).toBe('success');
			expect(job.logs).toContain(`claimed by worker ${b.id}`);
			expect(job.logs).toContain('fake-dbt argv: ["run"');
			await b.stop();
		}, 120_000);

		it('a job whose cancel was asked for is not re-queued: it ends', async () => {
			// No heartbeat before the stop: the cancel is asked for but not yet noticed when the stop comes.
			const a = worker({ database, slots: 1, lineageSlots: 0, heartbeatMs: 600_000, config: runnerConfig({ dbtBin: SLOW_START_DBT }) });
			const id = await w.run('ok', { command: 'run' });
			await expect.poll(async () => (await row(database, id)).logs, { timeout: 30_000 }).toMatch(/sandbox: bubblewrap/);
			expect(await requestCancel(database, WS, id, 'wendy')).toBe('running');
			await a.stop({ handBack: true, withinMs: 2000, why: 'SIGTERM' });
			const r = await row(database, id);
			expect(r.status, r.logs).toBe('failure');
			expect(r.logs).toContain('not re-queued after all: a cancel was asked for');
		}, 120_000);

		it('a lineage job stopped mid-inference goes back to the queue with its plan; the next worker stores its lineage', async () => {
			process.env.TRIBUTARY_LINEAGE_INFERENCE = '1';
			// Every model changed from any cached answer: the inference has all of them to do.
			const manifest = JSON.parse(readFileSync(path.join(JAFFLE, 'manifest.json'), 'utf8'));
			for (const n of Object.values(manifest.nodes as Record<string, any>)) if (typeof n.compiled_code === 'string') n.compiled_code += `\n-- ${backend.name} hand-back`;
			const form = new FormData();
			form.set('path', `f/${FOLDER}/jaffle`);
			form.set('manifest', new Blob([JSON.stringify(manifest)]), 'manifest.json');
			form.set('catalog', new Blob([readFileSync(path.join(JAFFLE, 'catalog.json'))]), 'catalog.json');
			const d = await w.wendy.call('POST', `/api/w/${WS}/scripts/dbt/deploy`, { form });
			process.env.TRIBUTARY_LINEAGE_INFERENCE = '0';
			expect(d.status, JSON.stringify(d.body)).toBe(201);
			const id = d.body.lineage_job_id as string;
			expect(id).toBeTruthy();

			const a = worker({ database, slots: 0, lineageSlots: 1 });
			await expect.poll(async () => (await row(database, id)).status, { timeout: 30_000, interval: 20 }).toBe('running');
			await a.stop({ handBack: true, withinMs: 2000, why: 'SIGTERM' });
			const back = await row(database, id);
			expect(back.status, back.logs).toBe('queued');
			expect(back.logs).toContain('the worker running this lineage job stopped (SIGTERM); the job is back in the queue');
			expect(await database.rows(sql`select 1 from lineage_plan where job_id = ${id}::uuid`)).toHaveLength(1);

			worker({ database, slots: 0, lineageSlots: 1 });
			const job = await w.waitJob(id, 150_000);
			expect(job.status, job.logs).toBe('success');
			expect(job.result.column_edges).toBeGreaterThan(0);
			expect(await database.rows(sql`select 1 from lineage_plan where job_id = ${id}::uuid`)).toHaveLength(0);
		}, 240_000);
	});
});
