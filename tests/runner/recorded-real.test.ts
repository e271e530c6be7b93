// The stand-in replays what real dbt-core wrote (tests/fixtures/real-dbt, recorded by
// scripts/record-dbt-fixtures.ts from a real build of the demo project): the runner settles the
// replay exactly as dbt reported it, node for node, and colours every relation it built. The
// recording itself is checked against a fresh real build by tests/runner/real-dbt.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/lib/server/db';
import { testBackends } from '../support/db';
import { describeFixtures } from '../support/fixtures';
import { buildRunnerWorld, WS, type RunnerWorld } from '../support/runner-world';
import { REAL_DBT_RECORDINGS } from '../support/sandbox-inputs';

const version = readdirSync(REAL_DBT_RECORDINGS).sort().at(-1)!;
const DIR = path.join(REAL_DBT_RECORDINGS, version, 'demo-build');

describeFixtures('the stand-in replays a real dbt-core build', () => {
	describe.each(testBackends())('on $name', (backend) => {
		let database: Database;
		let w: RunnerWorld;

		beforeAll(async () => {
			database = await backend.open();
			w = await buildRunnerWorld(database, { slots: 1 });
			await w.admin.post(`/api/w/${WS}/warehouses`, { name: 'shop', default_database: 'demo', settings: { type: 'duckdb', schema: 'analytics' } });
		}, 120_000);
		afterAll(async () => {
			await w?.close();
		});

		it(`dbt-core ${version}'s demo build: the result table is its run_results.json, and every built relation is coloured`, async () => {
			const manifest = path.join(DIR, 'manifest.json');
			const step = { log: path.join(DIR, 'dbt.log.jsonl'), manifest, run_results: path.join(DIR, 'run_results.json'), exit: 1 };
			await w.deploy('recorded', { version, speed: 200, manifest, commands: { build: step, parse: { manifest } } }, { manifest, descriptor: 'profile: {warehouse: shop}\n' });
			const job = await w.waitJob(await w.run('recorded', { command: 'build' }), 120_000);
			expect(job.status, job.logs).toBe('failure');
			const recorded = JSON.parse(readFileSync(path.join(DIR, 'run_results.json'), 'utf8')) as { results: { unique_id: string; status: string }[] };
			const mine = new Map<string, string>(job.result.nodes.map((n: { unique_id: string; status: string }) => [n.unique_id, n.status]));
			expect(mine.size).toBe(recorded.results.length);
			for (const r of recorded.results) expect(mine.get(r.unique_id), r.unique_id).toBe(r.status);
			const progress = await w.progress(job.id);
			const built = recorded.results.filter((r) => /^(model|seed|snapshot)\./.test(r.unique_id) && r.status === 'success');
			expect(progress.filter((p) => p.status === 'materialized').length).toBe(built.length);
			expect(progress.filter((p) => p.status === 'running')).toEqual([]);
		}, 180_000);
	});
});
