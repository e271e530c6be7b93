// The real `dbt-ol` (openlineage-dbt 1.54.0 from PyPI) wrapping real dbt-core (an engine of the
// test engine cache, dbt-duckdb) against a small project, its HTTP transport pointed at the app as
// docs/openlineage.md says, on both databases: the project deployed first (its manifest from the
// same engine's `dbt parse`), then `dbt-ol run` made "by another orchestrator". Its events attach
// to the deployed project: a run in the project's run list, its models coloured by what dbt did
// (a model that fails, failed), and no new OpenLineage jobs.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/lib/server/db';
import { testBackends } from '../support/db';
import { describeFixtures } from '../support/fixtures';
import { startBridge } from '../support/http-bridge';
import { openLineageDbt, type DbtOl } from '../support/openlineage-dbt';
import { buildOlWorld, storedCounts, WS, type OlWorld } from '../support/openlineage-in-world';
import { CORE_CURRENT, describeRealDbt, testEngines } from '../support/real-dbt';

const run = promisify(execFile);
const PROJECT = 'f/analytics/tiny_shop';

const FILES: Record<string, string> = {
	'dbt_project.yml': 'name: tiny_shop\nversion: "1.0.0"\nconfig-version: 2\nprofile: tiny_shop\nmodel-paths: [models]\n',
	'profiles.yml': 'tiny_shop:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n      path: tiny_shop.duckdb\n      threads: 1\n',
	'models/stg_orders.sql': "select 1 as id, 'placed' as status\n",
	'models/orders.sql': "select id, upper(status) as status from {{ ref('stg_orders') }}\n",
	'models/broken.sql': 'select * from a_table_nobody_made\n'
};

describeFixtures('OpenLineage in: the real dbt-ol over real dbt-core', () => {
	describeRealDbt('dbt-ol', () => {
		let ol: DbtOl | null = null;
		let dir = '';
		beforeAll(async () => {
			const ac = new AbortController();
			const engine = await testEngines().ensure(
				{ core: `==${CORE_CURRENT}.*`, adapterType: 'duckdb', adapterSpec: null },
				{ log: () => {}, signal: ac.signal, deadline: Date.now() + 1_200_000 }
			);
			const found = await openLineageDbt(engine);
			if ('missing' in found) {
				if (process.env.CI) throw new Error(`OpenLineage in: the real dbt-ol: ${found.missing}`);
				process.stderr.write(`[notice] skipping "OpenLineage in: the real dbt-ol": ${found.missing}\n`);
			} else ol = found;
			dir = mkdtempSync(path.join(tmpdir(), 'tributary-dbt-ol-'));
			for (const [f, text] of Object.entries(FILES)) {
				mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
				writeFileSync(path.join(dir, f), text);
			}
			// The manifest the deploy stores, from the same engine.
			await run(engine.dbtBin, ['parse', '--project-dir', dir, '--profiles-dir', dir], { cwd: dir, timeout: 300_000 });
		}, 1_500_000);
		afterAll(() => {
			if (dir) rmSync(dir, { recursive: true, force: true });
		});

		describe.each(testBackends())('on $name', (backend) => {
			let database: Database;
			let w: OlWorld;
			let bridge: Awaited<ReturnType<typeof startBridge>>;

			beforeAll(async () => {
				database = await backend.open();
				w = await buildOlWorld(database);
				const f = new FormData();
				f.set('path', PROJECT);
				f.set('manifest', new Blob([readFileSync(path.join(dir, 'target', 'manifest.json'))]), 'manifest.json');
				const r = await w.c.alice.call('POST', `/api/w/${WS}/scripts/dbt/deploy`, { form: f });
				expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
				bridge = await startBridge();
			}, 180_000);
			afterAll(async () => {
				await bridge?.close();
				w?.restoreEnv();
				await database?.close();
			});

			it('dbt-ol run: a run of the deployed project in its run list, its models coloured as dbt left them, no new jobs', async () => {
				if (!ol) return;
				const token = (await w.c.alice.post(`/api/w/${WS}/tokens`, { label: 'dbt-ol', scopes: ['lineage:write'] })).body.token as string;
				const before = await storedCounts(database);
				const from = bridge.seen.length;
				const env: Record<string, string> = {
					PATH: ol.pathVar,
					HOME: process.env.HOME ?? dir,
					LANG: 'C.UTF-8',
					DBT_SEND_ANONYMOUS_USAGE_STATS: 'false',
					OPENLINEAGE_URL: `${bridge.url}/api/w/${WS}/openlineage`,
					OPENLINEAGE_API_KEY: token
				};
				// broken.sql fails, so dbt (and dbt-ol after it) exits 1.
				const outcome = await run(ol.dbtOl, ['run', '--project-dir', dir, '--profiles-dir', dir], { cwd: dir, env, timeout: 600_000 }).then(
					(r) => ({ code: 0, out: r.stdout + r.stderr }),
					(e) => ({ code: e.code as number, out: `${e.stdout}${e.stderr}` })
				);
				expect(outcome.code, outcome.out).toBe(1);
				expect(outcome.out).toMatch(/Emitted \d+ OpenLineage events/);
				const posts = bridge.seen.slice(from);
				// The invocation's START and end, and a START and an end per model.
				expect(posts.length, outcome.out).toBe(8);
				expect(new Set(posts.map((p) => p.path))).toEqual(new Set([`/api/w/${WS}/api/v1/lineage`]));

				const runs = await w.c.alice.get(`/api/w/${WS}/jobs/list?script_path=${encodeURIComponent(PROJECT)}`);
				expect(runs.status).toBe(200);
				const mine = runs.body.filter((j: any) => j.kind === 'openlineage');
				expect(mine.length, JSON.stringify(runs.body)).toBe(1);
				const id = mine[0].id as string;
				const job = await w.c.alice.get(`/api/w/${WS}/jobs/get/${id}`);
				expect(job.body.script_path).toBe(PROJECT);
				expect(job.body.status).toBe('failure');
				const progress = await w.c.alice.get(`/api/w/${WS}/jobs/run_progress/${id}`);
				const states = Object.fromEntries(progress.body.map((p: any) => [String(p.asset_path).split('/').pop(), p.status]));
				expect(states).toEqual({ stg_orders: 'materialized', orders: 'materialized', broken: 'failed' });
				// Attached to the project: no OpenLineage job of its own, no producer version.
				const after = await storedCounts(database);
				expect(after.jobs).toBe(before.jobs);
				expect(after.versions).toBe(before.versions);
				// Its page draws the project's graph.
				const canvas = await w.c.alice.get(`/api/w/${WS}/jobs/run_canvas/${id}`);
				expect(JSON.stringify(canvas.body.wire)).toContain('stg_orders');
			}, 900_000);
		});
	});
});
