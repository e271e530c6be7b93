// Real dbt-core through the app: engines provisioned by the app's own provisioning (shared cache,
// see tests/support/real-dbt.ts), the demo project's SOURCE deployed without a manifest (the
// deploy job parses it), an embedded DuckDB warehouse, and the runner's promises checked against
// what dbt itself wrote (run_results.json in the kept job directory).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateProject, projectTarGz } from '../../src/lib/server/demo/generator';
import { tarGz } from '../../src/lib/server/demo/tarball';
import { testBackends } from '../support/db';
import { buildRunnerWorld, FOLDER, WS, type RunnerWorld } from '../support/runner-world';
import { CORE_CURRENT, CORE_OLDER, describeRealDbt, testEngines } from '../support/real-dbt';

const LONG = 20 * 60_000;

function form(fields: Record<string, string | Uint8Array>): FormData {
	const f = new FormData();
	for (const [k, v] of Object.entries(fields)) {
		if (typeof v === 'string') f.set(k, v);
		else f.set(k, new Blob([v as Uint8Array<ArrayBuffer>]), `${k}.tar.gz`);
	}
	return f;
}

for (const kind of testBackends()) {
	describeRealDbt(`real dbt-core through the runner (${kind.name})`, () => {
		let world: RunnerWorld;
		let scratch: string;
		const demo = generateProject();

		async function deploySource(name: string, descriptor: string, files?: Map<string, string | Uint8Array>): Promise<any> {
			const project = files ? tarGz(files) : await projectTarGz(await demo);
			const r = await world.wendy.call('POST', `/api/w/${WS}/scripts/dbt/deploy`, { form: form({ path: `f/${FOLDER}/${name}`, descriptor, project }) });
			expect(r.status, JSON.stringify(r.body)).toBe(202);
			expect(r.body.live).toBe(false);
			const end = await world.waitJob(r.body.job_id, LONG);
			return { answer: r.body, end };
		}

		beforeAll(async () => {
			scratch = mkdtempSync(path.join(tmpdir(), 'tributary-real-dbt-'));
			process.env.TRIBUTARY_KEEP_JOB_DIRS = '1';
			world = await buildRunnerWorld(await kind.open(), {
				config: {
					dbtBin: null,
					engines: testEngines(),
					warehouseDir: path.join(scratch, 'warehouses'),
					packageCacheDir: path.join(scratch, 'packages'),
					defaultTimeoutS: 1200,
					killGraceMs: 5000
				}
			});
			const r = await world.admin.post(`/api/w/${WS}/warehouses`, { name: 'lake', default_database: 'demo', settings: { type: 'duckdb', schema: 'analytics', threads: 4 } });
			expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
		}, LONG);

		afterAll(async () => {
			delete process.env.TRIBUTARY_KEEP_JOB_DIRS;
			await world?.close();
			rmSync(scratch, { recursive: true, force: true });
		});

		it(
			'a deploy of the source alone: the job provisions the engine, parses and compiles, pins, and the version goes live',
			async () => {
				const { end } = await deploySource('shop', `profile: {warehouse: lake}\nengine: {version: "${CORE_CURRENT}"}\n`);
				expect(end.status, end.logs).toBe('success');
				expect(end.result.lock).toMatchObject({ engine: 'dbt-core', adapter: 'duckdb', source: 'provisioned' });
				expect(end.result.lock.engine_version).toMatch(new RegExp(`^${CORE_CURRENT.replace('.', '\\.')}\\.\\d+$`));
				expect(end.result.lock.adapter_version).toMatch(/^\d+\.\d+\.\d+/);
				expect(end.result.lock.python_version).toMatch(/^3\.\d+\.\d+$/);
				expect(end.result.live).toBe(true);
				const p = await demo;
				const models = p.manifest.nodes ? Object.values(p.manifest.nodes as Record<string, { resource_type: string }>).filter((n) => n.resource_type === 'model').length : 0;
				expect(end.result.nodes).toBeGreaterThanOrEqual(models);
				expect(end.logs).toMatch(/\$ dbt parse/);
				expect(end.logs).toMatch(/\$ dbt compile/);
			},
			LONG
		);

		it(
			'a build: models are running before the job ends, and the result table equals run_results.json node by node',
			async () => {
				const id = await world.run('shop', { command: 'build' });
				let sawRunning = false;
				for (;;) {
					const job = (await world.wendy.get(`/api/w/${WS}/jobs/get/${id}?logs=false`)).body;
					const rows = await world.progress(id);
					if (rows.some((r) => r.status === 'running') && ['queued', 'running'].includes(job.status)) sawRunning = true;
					if (!['queued', 'running'].includes(job.status)) break;
					await new Promise((r) => setTimeout(r, 100));
				}
				expect(sawRunning).toBe(true);
				const end = await world.waitJob(id, LONG);
				expect(end.status, end.logs).toBe('failure');
				const written = JSON.parse(readFileSync(path.join(world.jobsDir, id, 'target', 'run_results.json'), 'utf8')) as {
					results: { unique_id: string; status: string; message: string | null }[];
				};
				const mine = new Map<string, { status: string }>(end.result.nodes.map((n: { unique_id: string; status: string }) => [n.unique_id, n]));
				expect(mine.size).toBe(written.results.length);
				for (const r of written.results) expect(mine.get(r.unique_id)?.status, r.unique_id).toBe(r.status);
				// The demo's data: one relationships test fails, one accepted_values test warns, and what
				// depends on the failing test's model is skipped.
				const failing = end.result.nodes.find((n: { unique_id: string; status: string }) => n.status === 'fail');
				expect(failing.unique_id).toMatch(/relationships_stg_orders_customer_id/);
				expect(failing.message).toMatch(/Got 1 result/);
				expect(end.result.nodes.filter((n: { status: string }) => n.status === 'warn').map((n: { unique_id: string }) => n.unique_id)).toEqual([
					expect.stringMatching(/accepted_values_stg_payments_payment_method/)
				]);
				expect(end.result.nodes.filter((n: { status: string }) => n.status === 'skipped').length).toBeGreaterThan(0);
				expect(end.result.engine_version).toBe(end.result.engine_version);
				expect(end.logs).toMatch(/engine dbt-core-1\.12\.\d+\+duckdb-[\d.]+\+py3\.\d+ \(installed; found in \d+ ms\)/);
			},
			LONG
		);

		it(
			`pinning: a version pinned to ${CORE_OLDER} runs on ${CORE_OLDER}, while ${CORE_CURRENT} stays with its own version`,
			async () => {
				const { end } = await deploySource('shop-older', `profile: {warehouse: lake}\nengine: {version: "${CORE_OLDER}"}\n`);
				expect(end.status, end.logs).toBe('success');
				expect(end.result.lock.engine_version.startsWith(`${CORE_OLDER}.`)).toBe(true);
				const id = await world.run('shop-older', { command: 'parse' });
				const run = await world.waitJob(id, LONG);
				expect(run.status, run.logs).toBe('success');
				expect(run.result.engine_version).toBe(end.result.lock.engine_version);
			},
			LONG
		);

		it(
			'an engine version that does not exist: the deploy fails naming it, and nothing of it is left',
			async () => {
				const { answer, end } = await deploySource('shop-bogus', 'profile: {warehouse: lake}\nengine: {version: "1.99.3"}\n');
				expect(end.status).toBe('failure');
				expect(end.result.error).toMatch(/dbt-core==1\.99\.3/);
				expect(end.result.live).toBe(false);
				const v = await world.wendy.get(`/api/w/${WS}/scripts/dbt/version/${answer.hash}`);
				expect([404, 410]).toContain(v.status);
			},
			LONG
		);

		it('keeps the job directory of a run for these tests (sanity)', () => {
			expect(existsSync(world.jobsDir)).toBe(true);
		});
	});
}
