// Recorded runs through the real route on both databases: every real run_results fixture, a real
// JSON log with its manifest, and the project's own generated demo project, stored as if they had
// run here and read back through jobs/get, jobs/run_progress and jobs/dbt_graph.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/lib/server/db';
import { generateProject, projectTarGz } from '../../src/lib/server/demo/generator';
import { testBackends } from '../support/db';
import { describeFixtures, FIXTURES, fixture } from '../support/fixtures';
import { buildRunnerWorld, PG_LOGS, WS, type RunnerWorld } from '../support/runner-world';
import type { ApiClient } from '../support/api';

const BUILD_LOG = path.join(PG_LOGS, 'build', 'dbt.log.jsonl');
const BUILD_MANIFEST = path.join(PG_LOGS, 'build', 'manifest.json');

function recordForm(fields: Record<string, string | Uint8Array | undefined>): FormData {
	const f = new FormData();
	for (const [k, v] of Object.entries(fields)) {
		if (v === undefined) continue;
		if (typeof v === 'string' && (k === 'path' || k === 'script_hash')) f.set(k, v);
		else f.set(k, new Blob([typeof v === 'string' ? new TextEncoder().encode(v) : (v as Uint8Array<ArrayBuffer>)]), k === 'log' ? 'dbt.log' : `${k}.json`);
	}
	return f;
}

/** run_results.json as dbt writes it from the same results its log reports (NodeFinished). */
function runResultsOfLog(log: string): string {
	const results = readFileSync(log, 'utf8')
		.split('\n')
		.filter((l) => l.includes('"NodeFinished"'))
		.map((l) => JSON.parse(l).data)
		.map((d) => ({
			status: d.run_result.status,
			timing: d.run_result.timing_info,
			thread_id: d.run_result.thread,
			execution_time: d.run_result.execution_time,
			adapter_response: d.run_result.adapter_response,
			message: d.run_result.message || null,
			failures: d.node_info.resource_type === 'test' ? d.run_result.num_failures : null,
			unique_id: d.node_info.unique_id,
			relation_name: d.node_info.node_relation.relation_name || null
		}));
	return JSON.stringify({ metadata: { dbt_schema_version: 'https://schemas.getdbt.com/dbt/run-results/v6.json', dbt_version: '1.8.2' }, results, elapsed_time: 1, args: { which: 'build' } });
}

const file = (p: string) => new Uint8Array(readFileSync(p));

describeFixtures('recorded runs', () => {
	describe.each(testBackends())('on $name', (backend) => {
		let database: Database;
		let w: RunnerWorld;
		const record = (client: ApiClient, fields: Record<string, string | Uint8Array | undefined>) => client.call('POST', `/api/w/${WS}/jobs/record`, { form: recordForm(fields) });

		beforeAll(async () => {
			database = await backend.open();
			w = await buildRunnerWorld(database, { start: false });
			await w.deploy('jaffle', {}, { manifest: BUILD_MANIFEST });
		}, 120_000);
		afterAll(async () => {
			await w?.close();
		});

		it('a build from CI, with its JSON log: the same result, progress and log as a run here', async () => {
			const r = await record(w.wendy, { path: 'f/data/jaffle', run_results: runResultsOfLog(BUILD_LOG), manifest: file(BUILD_MANIFEST), log: file(BUILD_LOG) });
			expect(r.status, JSON.stringify(r.body)).toBe(201);
			expect(r.body).toMatchObject({ status: 'failure', totals: { total: 20, success: 19, error: 1, warn: 0, skipped: 0 }, progress_rows: 8, graph_snapshot: false });
			const job = (await w.wendy.get(`/api/w/${WS}/jobs/get/${r.body.job_id}`)).body;
			expect(job).toMatchObject({ kind: 'recorded', status: 'failure', script_path: 'f/data/jaffle' });
			expect(job.result.error).toMatch(/1 dbt node did not succeed:\n {2}test\.jaffle_shop\.accepted_values_customers_first_name__Jane\.21e890a312 \[fail\] 78 failing rows/);
			expect(job.logs).toContain('── the recorded log ──');
			expect(job.logs).toContain('Done. PASS=19 WARN=0 ERROR=1 SKIP=0 TOTAL=20');
			const progress = await w.progress(r.body.job_id);
			expect(progress.map((p) => p.status)).toEqual(Array(8).fill('materialized'));
			expect(progress.find((p) => p.asset_path === 'main/public/raw_customers')?.row_count).toBe(100);
			// Its graph is its version's (same manifest): read through the job, pinned.
			const g = await w.wendy.get(`/api/w/${WS}/jobs/dbt_graph/${r.body.job_id}`);
			expect(g.status).toBe(200);
			expect(g.body.assets.some((a: any) => a.path === 'main/public/customers')).toBe(true);
		});

		for (const rr of readdirSync(FIXTURES, { recursive: true, encoding: 'utf8' }).filter((p) => /run_results[^/]*\.json$/.test(p)).sort()) {
			it(`every run_results fixture records: ${rr}`, async () => {
				const raw = JSON.parse(readFileSync(path.join(FIXTURES, rr), 'utf8'));
				const r = await record(w.wendy, { path: 'f/data/jaffle', run_results: file(path.join(FIXTURES, rr)) });
				expect(r.status, JSON.stringify(r.body)).toBe(201);
				expect(r.body.totals.total).toBe(raw.results.length);
				const bad = raw.results.filter((x: any) => !['success', 'pass', 'warn', 'skipped', 'no-op'].includes(String(x.status).toLowerCase())).length;
				expect(r.body.totals.error).toBe(bad);
				expect(r.body.status).toBe(bad ? 'failure' : 'success');
				const rows = await w.progress(r.body.job_id);
				expect(rows.some((x) => x.status === 'running')).toBe(false);
			});
		}

		it('a run of a path with no version: its graph lives under the job only', async () => {
			const dir = fixture('jaffle-shop-1.9-bigquery-build');
			const r = await record(w.wendy, { path: 'f/data/elsewhere', run_results: file(path.join(dir, 'run_results.json')), manifest: file(path.join(dir, 'manifest.json')) });
			expect(r.status, JSON.stringify(r.body)).toBe(201);
			expect(r.body.graph_snapshot).toBe(true);
			const g = await w.wendy.get(`/api/w/${WS}/jobs/dbt_graph/${r.body.job_id}`);
			expect(g.status).toBe(200);
			expect(g.body.dbt_snapshot_job).toBe(r.body.job_id);
			expect(g.body.assets.length).toBeGreaterThan(20);
			// dbt 1.9 on BigQuery writes no relation_name for seeds: the manifest names their relation.
			const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
			const built = JSON.parse(readFileSync(path.join(dir, 'run_results.json'), 'utf8')).results.filter(
				(x: any) => x.status === 'success' && (x.relation_name || manifest.nodes[x.unique_id]?.relation_name)
			);
			expect((await w.progress(r.body.job_id)).filter((x) => x.status === 'materialized').length).toBe(built.length);
		});

		it('refuses bad input before storing anything, naming the file', async () => {
			const count = async () => (await w.wendy.get(`/api/w/${WS}/jobs/list?kind=recorded&limit=500`)).body.length;
			const before = await count();
			const cases: [Record<string, string | Uint8Array | undefined>, number, RegExp][] = [
				[{ path: 'f/data/jaffle', run_results: '{"results": [' }, 400, /run_results\.json: is not valid JSON/],
				[{ path: 'f/data/jaffle', run_results: '{"nodes": {}}' }, 400, /is not a dbt run_results\.json/],
				[{ path: 'f/data/jaffle' }, 400, /run_results: the run_results\.json file is required/],
				[{ path: 'f/data/jaffle', run_results: runResultsOfLog(BUILD_LOG), manifest: file(fixture('tuva-1.3.1-snowflake-build-with-warn', 'manifest.json')) }, 400, /manifest.*v7/],
				[{ path: 'f/data/jaffle', run_results: runResultsOfLog(BUILD_LOG), script_hash: 'zz' }, 400, /script_hash must be 16 hexadecimal digits/],
				[{ path: 'not a path', run_results: runResultsOfLog(BUILD_LOG) }, 400, /path must be/]
			];
			for (const [fields, status, message] of cases) {
				const r = await record(w.wendy, fields);
				expect(r.status, JSON.stringify(r.body)).toBe(status);
				expect(r.body.error).toMatch(message);
			}
			expect(await count()).toBe(before);
		});

		it('gates: write access and jobs:run on the path', async () => {
			const fields = { path: 'f/data/jaffle', run_results: runResultsOfLog(BUILD_LOG) };
			expect((await record(w.rita, fields)).status).toBe(403);
			expect((await record(w.carl, fields)).status).toBe(404);
			expect((await record(await w.token(['jobs:read']), fields)).status).toBe(403);
			expect((await record(await w.token(['jobs:run:f/data/*']), fields)).status).toBe(201);
		});

		it('the demo project recorded: its run page API answers (jobs/get, jobs/run_progress, jobs/dbt_graph)', async () => {
			const project = await generateProject({ failures: true });
			const deploy = new FormData();
			deploy.set('path', 'f/data/demo');
			deploy.set('descriptor', 'profile:\n  warehouse: shop\n');
			deploy.set('manifest', new Blob([JSON.stringify(project.manifest)]), 'manifest.json');
			deploy.set('column_lineage', new Blob([project.columnLineageParquet as Uint8Array<ArrayBuffer>]), 'dbt.column_lineage.parquet');
			deploy.set('node_columns', new Blob([project.nodeColumnsParquet as Uint8Array<ArrayBuffer>]), 'dbt.node_columns.parquet');
			deploy.set('project', new Blob([await projectTarGz(project) as Uint8Array<ArrayBuffer>]), 'project.tar.gz');
			// Recorded runs need no engine here: the version is live at once, pinned by a run of its own if it ever has one.
			deploy.set('pin', 'at_first_run');
			await w.admin.post(`/api/w/${WS}/warehouses`, { name: 'shop', default_database: project.meta.database });
			expect((await w.wendy.call('POST', `/api/w/${WS}/scripts/dbt/deploy`, { form: deploy })).status).toBe(201);
			const r = await record(w.wendy, {
				path: 'f/data/demo',
				run_results: JSON.stringify(project.runResults),
				manifest: JSON.stringify(project.manifest),
				log: project.eventLog
			});
			expect(r.status, JSON.stringify(r.body)).toBe(201);
			const results = (project.runResults as { results: { unique_id: string; status: string; relation_name?: string | null }[] }).results;
			const nodes = (project.manifest as { nodes: Record<string, { relation_name?: string | null }> }).nodes;
			const relationOf = (x: { unique_id: string; relation_name?: string | null }) => x.relation_name || nodes[x.unique_id]?.relation_name;
			const job = (await w.wendy.get(`/api/w/${WS}/jobs/get/${r.body.job_id}`)).body;
			expect(job.result.totals.total).toBe(results.length);
			expect(job.result.totals.error).toBe(results.filter((x) => x.status === 'error' || x.status === 'fail').length);
			expect(job.result.totals.error).toBeGreaterThan(0);
			const progress = await w.progress(r.body.job_id);
			const withRelation = results.filter((x) => relationOf(x) && ['success', 'error'].includes(x.status));
			expect(progress).toHaveLength(withRelation.length);
			expect(progress.filter((p) => p.status === 'failed').length).toBe(withRelation.filter((x) => x.status === 'error').length);
			expect(progress.every((p) => p.asset_path.startsWith('shop/'))).toBe(true);
			const g = await w.wendy.get(`/api/w/${WS}/jobs/dbt_graph/${r.body.job_id}`);
			expect(g.status).toBe(200);
			const paths = new Set(g.body.assets.map((a: any) => a.path));
			for (const p of progress) expect(paths, p.asset_path).toContain(p.asset_path);
			// The same project as its version, recorded without the index: no snapshot of its own, so
			// the run reads its version's graph, column lineage included.
			expect(r.body.graph_snapshot).toBe(false);
			const pick = project.meta.components[0];
			const cl = await w.wendy.get(`/api/w/${WS}/jobs/dbt_column_lineage/${r.body.job_id}?asset_path=${encodeURIComponent(pick.assetPath.replace(/^main\//, 'shop/'))}`);
			expect(cl.status, JSON.stringify(cl.body)).toBe(200);
			expect(cl.body.edges.length).toBeGreaterThan(0);
		});
	});
});
