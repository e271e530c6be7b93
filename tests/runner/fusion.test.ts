// dbt Fusion stays usable: `engine: {kind: fusion}` runs TRIBUTARY_FUSION_BIN (it cannot be
// installed from a package index), its version is what the deploy pins, and its column-lineage
// pass (--write-index) gives the run its column lineage. Without that binary the deploy still
// goes live, unpinned and saying why, and a run fails with the same one sentence. Driven by the
// stand-in dbt answering as Fusion.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/lib/server/db';
import { generateProject } from '../../src/lib/server/demo/generator';
import { FUSION_MISSING } from '../../src/lib/server/runner/engine/for-job';
import { testBackends } from '../support/db';
import { describeFixtures } from '../support/fixtures';
import { buildRunnerWorld, FAKE_DBT, PG_LOGS, SANDBOX_INPUTS, WS, type RunnerWorld } from '../support/runner-world';

const OK_RUN = path.join(PG_LOGS, 'run', 'successful_run.log.jsonl');

describeFixtures('dbt Fusion through TRIBUTARY_FUSION_BIN', () => {
	const dir = mkdtempSync(path.join(SANDBOX_INPUTS, 'fusion-'));
	let manifest = '';
	let indexDir = '';
	let expectedColumnEdges = 0;

	beforeAll(async () => {
		const project = await generateProject({ seed: 5 });
		manifest = path.join(dir, 'manifest.json');
		writeFileSync(manifest, JSON.stringify(project.manifest));
		indexDir = path.join(dir, 'index');
		mkdirSync(indexDir);
		writeFileSync(path.join(indexDir, 'dbt.column_lineage.parquet'), project.columnLineageParquet);
		writeFileSync(path.join(indexDir, 'dbt.node_columns.parquet'), project.nodeColumnsParquet);
		expectedColumnEdges = project.meta.columnEdges.total;
	});
	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	const scenario = () => ({ engine: 'dbt-fusion' as const, version: '2.0.0-beta.2', speed: 100, manifest, commands: { build: { log: OK_RUN } }, lineage: { mode: 'lineage-ok', index: indexDir } });
	const descriptor = 'engine: {kind: fusion}\ncolumn_lineage: true\n';

	describe.each(testBackends())('on $name', (backend) => {
		let database: Database;
		let w: RunnerWorld;

		beforeAll(async () => {
			database = await backend.open();
			w = await buildRunnerWorld(database, { slots: 1, config: { dbtBin: null, fusionBin: FAKE_DBT } });
		}, 120_000);
		afterAll(async () => {
			await w?.close();
		});

		it('the deploy pins the Fusion binary\'s version, and a build runs it with its column-lineage pass', async () => {
			const hash = await w.deploy('fusion', scenario(), { manifest, descriptor, pin: 'before_live' });
			const version = (await w.wendy.get(`/api/w/${WS}/scripts/dbt/version/${hash}`)).body;
			expect(version.live).toBe(true);
			expect(version.lock).toMatchObject({ engine: 'dbt-fusion', engine_version: '2.0.0-beta.2', source: 'fusion_bin' });
			const job = await w.waitJob(await w.run('fusion', { command: 'build' }));
			expect(job.status, job.logs).toBe('success');
			expect(job.logs).toContain('engine: dbt-fusion 2.0.0-beta.2');
			expect(job.logs).toContain('--static-analysis strict --write-index --write-lineage');
			expect(job.result.engine).toBe('dbt-fusion');
			expect(job.result.graph_snapshot).toBe(true);
			expect(job.logs).toMatch(new RegExp(`${expectedColumnEdges.toLocaleString('en-US')} column edges|column edges stored`));
		}, 120_000);

		it('without TRIBUTARY_FUSION_BIN: the deploy goes live unpinned with the reason, and a run fails saying what to install', async () => {
			const saved = w.config.fusionBin;
			w.config.fusionBin = null;
			try {
				await w.deploy('fusion_missing', scenario(), { manifest, descriptor, pin: 'before_live' });
				const pin = await w.waitJob(w.lastDeploy.pin.job_id);
				expect(pin.status).toBe('success');
				expect(pin.result.lock).toBeNull();
				expect(pin.result.warnings.join('\n')).toContain('TRIBUTARY_FUSION_BIN');
				const job = await w.waitJob(await w.run('fusion_missing', { command: 'build' }));
				expect(job.status).toBe('failure');
				expect(job.result.error).toContain(FUSION_MISSING.replace(/\.$/, ''));
				expect(job.result.error).toContain('dbt was not started');
			} finally {
				w.config.fusionBin = saved;
			}
		}, 120_000);
	});
});
