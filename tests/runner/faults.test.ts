// Bad input and faults (issue 5), each a test on both databases: a stand-in dbt that exits before
// writing anything, writes a truncated run_results, writes a 10 MB log line, rewrites its log
// mid-run, writes half lines, prints a million lines; and the column-lineage pass failing every
// way it can. Every job ends with a message a user can act on, no progress row stays
// `running`, and the worker goes on to serve the next job.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/lib/server/db';
import { generateProject } from '../../src/lib/server/demo/generator';
import { graphCounts } from '../../src/lib/server/repo/graph';
import { hexToHash } from '../../src/lib/types/script-hash';
import { testBackends } from '../support/db';
import { describeFixtures } from '../support/fixtures';
import { buildRunnerWorld, PG_LOGS, replay, SANDBOX_INPUTS, WS, type RunnerWorld } from '../support/runner-world';

const OK_RUN = path.join(PG_LOGS, 'run', 'successful_run.log.jsonl');
const RUN_MANIFEST = path.join(PG_LOGS, 'run', 'manifest.json');
const BUILD_LOG = path.join(PG_LOGS, 'build', 'dbt.log.jsonl');

describeFixtures('faults', () => {
	/** Relations the successful run materializes, from the raw log. */
	const OK_RELATIONS = readFileSync(OK_RUN, 'utf8')
		.split('\n')
		.filter((l) => l.includes('"NodeFinished"'))
		.map((l) => JSON.parse(l).data.node_info.node_relation.relation_name as string);

	// The generated demo project: a manifest and an index that belong together.
	const dir = mkdtempSync(path.join(SANDBOX_INPUTS, 'faults-'));
	let demoManifest = '';
	let indexDir = '';
	let expectedColumnEdges = 0;

	beforeAll(async () => {
		const project = await generateProject({ seed: 3 });
		demoManifest = path.join(dir, 'manifest.json');
		writeFileSync(demoManifest, JSON.stringify(project.manifest));
		indexDir = path.join(dir, 'index');
		mkdirSync(indexDir);
		writeFileSync(path.join(indexDir, 'dbt.column_lineage.parquet'), project.columnLineageParquet);
		writeFileSync(path.join(indexDir, 'dbt.node_columns.parquet'), project.nodeColumnsParquet);
		expectedColumnEdges = project.meta.columnEdges.total;
	});
	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	describe.each(testBackends())('on $name', (backend) => {
		let database: Database;
		let w: RunnerWorld;

		beforeAll(async () => {
			database = await backend.open();
			w = await buildRunnerWorld(database, { slots: 1 });
		}, 120_000);
		afterAll(async () => {
			await w?.close();
		});

		const noneRunning = async (id: string) => expect((await w.progress(id)).filter((r) => r.status === 'running')).toEqual([]);

		it('exits non-zero before writing anything: failed, with dbt\'s own words', async () => {
			await w.deploy('early', replay(OK_RUN, { mode: 'exit-early', exit: 2 }, RUN_MANIFEST), { manifest: RUN_MANIFEST });
			const job = await w.waitJob(await w.run('early', { command: 'run' }));
			expect(job.status).toBe('failure');
			expect(job.result.error).toMatch(/^dbt exited with exit code 2 before writing run_results\.json/);
			expect(job.result.error).toContain("Could not find profile named 'jaffle_shop'");
			expect(await w.progress(job.id)).toEqual([]);
		});

		it('a truncated run_results: failed saying so; what the log settled stays, nothing running', async () => {
			await w.deploy('truncated', replay(OK_RUN, { mode: 'truncated-run-results', exit: 0 }, RUN_MANIFEST), { manifest: RUN_MANIFEST });
			const job = await w.waitJob(await w.run('truncated', { command: 'run' }));
			expect(job.status).toBe('failure');
			expect(job.result.error).toMatch(/^run_results\.json could not be read: run_results\.json: is not valid JSON .*cut short/);
			const rows = await w.progress(job.id);
			expect(rows.filter((r) => r.status === 'materialized')).toHaveLength(OK_RELATIONS.length);
			await noneRunning(job.id);
		});

		it('a 10 MB log line: skipped by the reader, cut in the job log, and progress after it still arrives', async () => {
			await w.deploy('huge', replay(OK_RUN, { mode: 'huge-line', splitWrites: true, splitPauseMs: 5 }, RUN_MANIFEST), { manifest: RUN_MANIFEST });
			const job = await w.waitJob(await w.run('huge', { command: 'run' }));
			expect(job.status, job.logs).toBe('success');
			expect(job.logs).toContain('live progress skipped 1 over-long line');
			expect(job.logs).toMatch(/huge y{100,} … \[line cut at 8192 characters\]/);
			expect(job.logs.length).toBeLessThan(400_000);
			expect((await w.progress(job.id)).map((r) => r.status)).toEqual(Array(OK_RELATIONS.length).fill('materialized'));
		});

		it('a log rewritten mid-run: the reader starts over, every relation still settles', async () => {
			await w.deploy('rewrite', replay(OK_RUN, { mode: 'rewrite-log', rewritePauseMs: 400 }, RUN_MANIFEST), { manifest: RUN_MANIFEST });
			const job = await w.waitJob(await w.run('rewrite', { command: 'run' }));
			expect(job.status, job.logs).toBe('success');
			expect((await w.progress(job.id)).map((r) => r.status)).toEqual(Array(OK_RELATIONS.length).fill('materialized'));
		});

		it('a million lines of output: the log keeps its budget, the end and a count; the next job runs', async () => {
			await w.deploy('chatty', replay(OK_RUN, { mode: 'million-lines' }, RUN_MANIFEST), { manifest: RUN_MANIFEST });
			const job = await w.waitJob(await w.run('chatty', { command: 'run' }), 120_000);
			expect(job.status, job.logs.slice(-2000)).toBe('success');
			expect(job.logs.length).toBeLessThan(300_000);
			expect(job.logs).toMatch(/… [\d,]+ lines of dbt output were left out of this log \(over its 200,000-byte budget\); the last 200 follow …/);
			expect(job.logs).toContain('Completed successfully');
			const next = await w.waitJob(await w.run('rewrite', { command: 'run' }));
			expect(next.status).toBe('success');
		}, 120_000);

		describe('the column-lineage pass', () => {
			const lineageProject = (name: string, lineage: Record<string, unknown>, engine: 'dbt-core' | 'dbt-fusion' = 'dbt-fusion') =>
				w.deploy(
					name,
					{ engine, version: engine === 'dbt-fusion' ? '2.0.0-beta.2' : '1.8.2', speed: 100, manifest: demoManifest, commands: { build: { log: OK_RUN } }, lineage },
					{ manifest: demoManifest, descriptor: 'column_lineage: true\n' }
				);

			it('succeeds: the run stores its graph with the index\'s column lineage', async () => {
				await lineageProject('cll_ok', { mode: 'lineage-ok', index: indexDir });
				const job = await w.waitJob(await w.run('cll_ok', { command: 'build' }));
				expect(job.status, job.logs).toBe('success');
				expect(job.result.graph_snapshot).toBe(true);
				const counts = await graphCounts(database.db, { workspace: WS, scriptPath: 'f/data/cll_ok', scriptHash: hexToHash(job.script_hash)!, jobId: job.id });
				expect(counts.columnEdges).toBe(expectedColumnEdges);
				expect(job.logs).toContain('--static-analysis strict --write-index --write-lineage');
				expect(job.logs).toMatch(/column edges stored/);
			});

			for (const [mode, said] of [
				['lineage-fail', /No column lineage: the analysis pass failed \(exit code 1\) and wrote no index\.\nerror: dbt1000: static analysis failed/],
				['lineage-missing', /No column lineage: the analysis pass wrote no dbt\.column_lineage\.parquet/],
				['lineage-unreadable', /No column lineage: dbt\.column_lineage\.parquet: .*the graph is stored without column lineage/],
				['lineage-hang', /No column lineage: the analysis pass did not finish within \d+ s \(half of what was left of this job's time\)/],
				['lineage-unsupported', /column_lineage is set, but this dbt has no --write-index; skipped\.\n.*No such option: --write-index/s]
			] as const) {
				it(`${mode}: costs only the lineage, says which, and the build runs`, async () => {
					await lineageProject(mode, { mode, index: indexDir });
					const job = await w.waitJob(await w.run(mode, { command: 'build', timeout_s: mode === 'lineage-hang' ? 6 : 60 }));
					expect(job.status, job.logs).toBe('success');
					expect(job.logs).toMatch(said);
					expect(job.result.graph_snapshot).toBe(false);
					expect(job.logs).toContain('fake-dbt argv: ["build"');
				});
			}

			it('partial: strict analysis rejected part of the project, the rest is stored', async () => {
				await lineageProject('cll_partial', { mode: 'lineage-partial', index: indexDir });
				const job = await w.waitJob(await w.run('cll_partial', { command: 'build' }));
				expect(job.status, job.logs).toBe('success');
				expect(job.logs).toMatch(/Column lineage is partial: --static-analysis strict rejected part of the project \(exit code 1\)/);
				expect(job.result.graph_snapshot).toBe(true);
			});

			it('dbt-core 1.x has no --write-index: logged and skipped without trying', async () => {
				await lineageProject('cll_core', { mode: 'lineage-ok', index: indexDir }, 'dbt-core');
				const job = await w.waitJob(await w.run('cll_core', { command: 'build' }));
				expect(job.status, job.logs).toBe('success');
				expect(job.logs).toMatch(/column_lineage is set, but dbt-core 1\.8\.2 has no --write-index/);
				expect(job.logs).not.toContain('--write-index --write-lineage');
			});

			it('a cancellation during the pass still ends the job, before the build', async () => {
				await lineageProject('cll_cancel', { mode: 'lineage-hang' });
				const id = await w.run('cll_cancel', { command: 'build', timeout_s: 60 });
				await expect.poll(async () => (await w.wendy.get(`/api/w/${WS}/jobs/get/${id}`)).body.logs, { timeout: 10_000 }).toContain('--write-index');
				await w.wendy.post(`/api/w/${WS}/jobs/cancel/${id}`);
				const job = await w.waitJob(id);
				expect(job.status).toBe('canceled');
				expect(job.result.error).toBe('canceled during dbt column lineage');
				expect(job.logs).not.toContain('fake-dbt argv: ["build"');
			});
		});

		it('after all of it, the worker still serves a plain build', async () => {
			await w.deploy('plain', replay(BUILD_LOG));
			const job = await w.waitJob(await w.run('plain', { command: 'build' }));
			expect(job.status).toBe('failure');
			expect(job.result.totals.total).toBe(20);
			await noneRunning(job.id);
		});
	});
});
