// Runs through the real routes and the real worker on both databases, with the stand-in dbt
// replaying REAL recorded output (../shared/fixtures): queueing and its gates, live progress,
// settlement, the child's environment, cancellation and the deadline, show/parse, after_all,
// node retries and `retry`.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/lib/server/db';
import { getJobView } from '../../src/lib/server/repo/jobs';
import { runOffer } from '../../src/lib/server/runner/enqueue';
import { testBackends } from '../support/db';
import { describeFixtures } from '../support/fixtures';
import { buildRunnerWorld, hostPidOf, PG_LOGS, replay, SECRET, WS, type RunnerWorld } from '../support/runner-world';

const BUILD_LOG = path.join(PG_LOGS, 'build', 'dbt.log.jsonl');
const OK_RUN = path.join(PG_LOGS, 'run', 'successful_run.log.jsonl');
const FAILED_RUN = path.join(PG_LOGS, 'run', 'failed_run.log.jsonl');
const TEST_LOG = path.join(PG_LOGS, 'test', 'dbt.log.jsonl');
const RUN_MANIFEST = path.join(PG_LOGS, 'run', 'manifest.json');

/** NodeFinished events of a recorded log, counted from the raw JSON. */
function finished(log: string): { status: string; relation: string; rows: number | null; uid: string }[] {
	return readFileSync(log, 'utf8')
		.split('\n')
		.filter((l) => l.includes('"NodeFinished"'))
		.map((l) => JSON.parse(l).data)
		.map((d) => ({
			status: d.node_info.node_status,
			relation: d.node_info.node_relation.relation_name,
			uid: d.node_info.unique_id,
			rows: typeof d.run_result.adapter_response?.rows_affected === 'number' ? d.run_result.adapter_response.rows_affected : null
		}));
}

const alive = (pid: number) => {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
	} catch {
		return false;
	}
};

describeFixtures('dbt runs through the worker', () => {
	describe.each(testBackends())('on $name', (backend) => {
		let database: Database;
		let w: RunnerWorld;

		beforeAll(async () => {
			database = await backend.open();
			w = await buildRunnerWorld(database);
			await w.deploy('build', replay(BUILD_LOG, { speed: 4 }));
			await w.deploy('ok', replay(OK_RUN, {}, RUN_MANIFEST), { manifest: RUN_MANIFEST });
		}, 120_000);
		afterAll(async () => {
			await w?.close();
		});

		it('a build: progress rows appear while it runs, and it settles from run_results at the end', async () => {
			const id = await w.run('build', { command: 'build' });
			let seenWhileRunning = 0;
			for (;;) {
				const job = (await w.wendy.get(`/api/w/${WS}/jobs/get/${id}`)).body;
				if (job.status !== 'running' && job.status !== 'queued') break;
				const rows = await w.progress(id);
				if (job.status === 'running') seenWhileRunning = Math.max(seenWhileRunning, rows.length);
				await new Promise((r) => setTimeout(r, 40));
			}
			expect(seenWhileRunning).toBeGreaterThan(0);
			const job = await w.waitJob(id);
			const events = finished(BUILD_LOG);
			// One test fails (accepted_values ... 78 rows): dbt exits 1, the job fails.
			expect(job.status).toBe('failure');
			const r = job.result;
			expect(r.command).toBe('build');
			expect(r.engine).toBe('dbt-core');
			expect(r.engine_version).toBe('1.8.2');
			expect(r.totals).toEqual({
				total: events.length,
				success: events.filter((e) => e.status === 'success' || e.status === 'pass').length,
				error: events.filter((e) => e.status === 'fail' || e.status === 'error').length,
				warn: 0,
				skipped: 0
			});
			const failing = events.find((e) => e.status === 'fail')!;
			expect(r.error).toContain(`${failing.uid} [fail] 78 failing rows`);
			expect(r.nodes.find((n: any) => n.unique_id === failing.uid)).toMatchObject({ outcome: 'failed', failures: 78 });

			const rows = await w.progress(id);
			const built = events.filter((e) => e.relation && e.status === 'success');
			expect(rows.filter((x) => x.status === 'materialized')).toHaveLength(built.length);
			expect(rows.some((x) => x.status === 'running')).toBe(false);
			for (const e of built.filter((b) => b.rows !== null && b.rows >= 0)) {
				const [db, schema, name] = e.relation.split('"."').map((x) => x.replaceAll('"', ''));
				expect(db).toBe('postgres');
				expect(rows.find((x) => x.asset_path === `main/${schema}/${name}`)?.row_count).toBe(e.rows);
			}
			// dbt's console output is the job log; the secret never is.
			expect(job.logs).toContain('Running with dbt=1.8.2');
			expect(job.logs).toContain('Done. PASS=19 WARN=0 ERROR=1 SKIP=0 TOTAL=20');
			expect(job.logs).not.toContain(SECRET);
			expect(job.logs).toMatch(/--log-format-file.*json/);
		});

		it('a successful run is a success, every model materialized', async () => {
			const job = await w.waitJob(await w.run('ok', { command: 'run' }));
			expect(job.status, job.logs).toBe('success');
			expect(job.result.totals).toMatchObject({ total: 5, success: 5, error: 0 });
			const rows = await w.progress(job.id);
			expect(rows.map((x) => x.status)).toEqual(Array(5).fill('materialized'));
			expect(job.result.error).toBeUndefined();
		});

		it('refuses a command outside the allowlist, and bad arguments, before any job exists', async () => {
			const before = (await w.wendy.get(`/api/w/${WS}/jobs/list?kind=run&limit=500`)).body.length;
			for (const body of [{ command: 'clean' }, { command: 'run-operation' }, { command: 'show' }, { command: 'show', model: 'a b' }, { select: ['--x'] }, { command: 'retry' }]) {
				const r = await w.wendy.post(`/api/w/${WS}/jobs/run/p/f/data/ok`, body);
				expect(r.status, JSON.stringify(body)).toBe(400);
				expect(typeof r.body.error).toBe('string');
			}
			expect((await w.wendy.get(`/api/w/${WS}/jobs/list?kind=run&limit=500`)).body.length).toBe(before);
		});

		it('a version deployed from artifacts alone cannot run', async () => {
			await w.deploy('artifacts', replay(OK_RUN), { withProject: false });
			const r = await w.wendy.post(`/api/w/${WS}/jobs/run/p/f/data/artifacts`, { command: 'build' });
			expect(r.status).toBe(400);
			expect(r.body.error).toMatch(/deployed from artifacts alone/);
			expect((await w.wendy.post(`/api/w/${WS}/jobs/run/p/f/data/nothing_here`, {})).status).toBe(404);
		});

		it('gates: write access to the path and the jobs:run scope', async () => {
			expect((await w.rita.post(`/api/w/${WS}/jobs/run/p/f/data/ok`, {})).status).toBe(403);
			expect((await w.carl.post(`/api/w/${WS}/jobs/run/p/f/data/ok`, {})).status).toBe(404);
			expect((await (await w.token(['jobs:read'])).post(`/api/w/${WS}/jobs/run/p/f/data/ok`, {})).status).toBe(403);
			expect((await (await w.token(['jobs:run:f/other/*'])).post(`/api/w/${WS}/jobs/run/p/f/data/ok`, {})).status).toBe(403);
			const scoped = await w.token(['jobs:run:f/data/*', 'jobs:read']);
			const r = await scoped.post(`/api/w/${WS}/jobs/run/p/f/data/ok`, { command: 'run' });
			expect(r.status, JSON.stringify(r.body)).toBe(201);
			expect(r.body.url).toBe(`/w/${WS}/run/${r.body.job_id}`);
			expect((await w.waitJob(r.body.job_id)).status).toBe('success');
		});

		it('the child sees an environment built from scratch: no DATABASE_URL, no TRIBUTARY_SECRET, the secret masked', async () => {
			await w.deploy('env', replay(OK_RUN, { mode: 'print-env' }, RUN_MANIFEST), { manifest: RUN_MANIFEST });
			const saved = { db: process.env.DATABASE_URL, secret: process.env.TRIBUTARY_SECRET };
			process.env.DATABASE_URL = 'postgres://leak:leak@server-only/db';
			process.env.TRIBUTARY_SECRET = 'server-only-secret-material';
			try {
				const job = await w.waitJob(await w.run('env', { command: 'run' }));
				expect(job.status, job.logs).toBe('success');
				const env = Object.fromEntries(
					job.logs
						.split('\n')
						.filter((l: string) => l.startsWith('env '))
						.map((l: string) => [l.slice(4, l.indexOf('=')), l.slice(l.indexOf('=') + 1)])
				);
				expect(env.PATH).toBeTruthy();
				expect(env.HOME).toBe(path.join(w.jobsDir, job.id));
				expect(env.FAKE_DBT_SPEED).toBe('200');
				expect(env.DBT_ENV_SECRET_PASSWORD).toBe('***');
				expect(Object.keys(env).filter((k) => k === 'DATABASE_URL' || k.startsWith('TRIBUTARY'))).toEqual([]);
				expect(job.logs).not.toContain(SECRET);
				expect(job.logs).not.toContain('server-only');
			} finally {
				for (const [k, v] of [['DATABASE_URL', saved.db], ['TRIBUTARY_SECRET', saved.secret]] as const) {
					if (v === undefined) delete process.env[k];
					else process.env[k] = v;
				}
			}
		});

		it('profiles.yml names the secret only through env_var, and dbt gets the project, profile and target paths', async () => {
			const job = await w.waitJob(await w.run('ok', { command: 'run', select: ['orders+'], exclude: ['customers'] }));
			expect(job.status, job.logs).toBe('success');
			const argv = JSON.parse(job.logs.split('\n').find((l: string) => l.startsWith('fake-dbt argv: ') && l.includes('"run"')).slice(15));
			expect(argv[0]).toBe('run');
			const at = (f: string) => argv[argv.indexOf(f) + 1];
			expect(at('--project-dir')).toBe(path.join(w.jobsDir, job.id, 'project'));
			expect(at('--profiles-dir')).toBe(path.join(w.jobsDir, job.id, 'profiles'));
			expect(at('--target-path')).toBe(path.join(w.jobsDir, job.id, 'target'));
			expect(at('--log-format-file')).toBe('json');
			expect(argv.slice(argv.indexOf('--select') + 1, argv.indexOf('--select') + 2)).toEqual(['orders+']);
			expect(at('--exclude')).toBe('customers');
			// A run whose selection is its own parses first (its own graph, suppressed when identical).
			expect(job.logs).toContain('parsing it first');
		});

		it('a placeholder without a value fails before dbt starts; with one, it reaches dbt typed', async () => {
			await w.deploy('dated', replay(OK_RUN, {}, RUN_MANIFEST), { manifest: RUN_MANIFEST, descriptor: 'vars:\n  start: "{{ start }}"\n  full: "{{ full }}"\n  label: "from {{ start }}"\n' });
			const missing = await w.waitJob(await w.run('dated', { command: 'run', start: '2024-01-01' }));
			expect(missing.status).toBe('failure');
			expect(missing.result.error).toMatch(/\{\{ full \}\}.*pass "full"/);
			expect(missing.logs).not.toContain('fake-dbt argv');
			const job = await w.waitJob(await w.run('dated', { command: 'run', start: '2024-01-01', full: false }));
			expect(job.status, job.logs).toBe('success');
			const vars = job.logs.split('\n').find((l: string) => l.startsWith('fake-dbt vars: '));
			expect(JSON.parse(vars.slice(15))).toEqual({ start: '2024-01-01', full: false, label: 'from 2024-01-01' });
		});

		it('a run whose graph differs from its version\'s stores a snapshot, read back through jobs/dbt_graph', async () => {
			// Deployed from one manifest; this run's parse yields another (a different invocation).
			await w.deploy('moved', { speed: 100, commands: { run: { log: OK_RUN, manifest: RUN_MANIFEST }, parse: { manifest: path.join(PG_LOGS, 'seed', 'manifest.json') } } });
			const job = await w.waitJob(await w.run('moved', { command: 'run', vars: { x: 1 } }));
			expect(job.status, job.logs).toBe('success');
			expect(job.result.graph_snapshot).toBe(true);
			const g = await w.wendy.get(`/api/w/${WS}/jobs/dbt_graph/${job.id}`);
			expect(g.status, JSON.stringify(g.body).slice(0, 300)).toBe(200);
			expect(g.body.dbt_snapshot_job).toBe(job.id);
			const seed = JSON.parse(readFileSync(path.join(PG_LOGS, 'seed', 'manifest.json'), 'utf8'));
			const seedModels = Object.values(seed.nodes).filter((n: any) => n.resource_type === 'model').length;
			expect(g.body.assets.filter((a: any) => a.dbt?.resource_type === 'model')).toHaveLength(seedModels);
		});

		it('cancel: the whole process tree goes, the job ends canceled, nothing stays running', async () => {
			await w.deploy('hang', replay(BUILD_LOG, { mode: 'grandchild', hangAfter: 90 }));
			const id = await w.run('hang', { command: 'build' });
			let pid = 0;
			await expect
				.poll(
					async () => {
						const j = (await w.wendy.get(`/api/w/${WS}/jobs/get/${id}`)).body;
						const logs = j.logs as string;
						if (j.status !== 'running' && j.status !== 'queued') throw new Error(`ended early:\n${logs}`);
						// The stand-in sees its sandbox's PID namespace: find the grandchild's host pid.
						pid = hostPidOf(Number(/grandchild pid (\d+)/.exec(logs)?.[1] ?? 0), w.jobsDir) ?? 0;
						return pid;
					},
					{ timeout: 20_000 }
				)
				.toBeGreaterThan(0);
			expect(alive(pid)).toBe(true);
			await expect.poll(async () => (await w.progress(id)).length, { timeout: 10_000 }).toBeGreaterThan(0);
			expect((await w.rita.post(`/api/w/${WS}/jobs/cancel/${id}`)).status).toBe(403);
			const c = await w.wendy.post(`/api/w/${WS}/jobs/cancel/${id}`);
			expect(c.status, JSON.stringify(c.body)).toBe(200);
			expect(c.body).toEqual({ job_id: id, status: 'running', cancel_requested: true });
			const job = await w.waitJob(id);
			expect(job.status).toBe('canceled');
			expect(job.logs).toContain('canceled by wendy');
			await expect.poll(() => alive(pid), { timeout: 5000 }).toBe(false);
			// One seed had finished, one was in flight when the run was stopped.
			const rows = await w.progress(id);
			expect(rows.some((r) => r.status === 'running')).toBe(false);
			expect(rows.filter((r) => r.status === 'materialized').map((r) => r.asset_path)).toEqual(['main/public/raw_customers']);
			expect(rows.filter((r) => r.status === 'failed')).toEqual([{ asset_kind: 'dbt', asset_path: 'main/public/raw_orders', status: 'failed', error: 'the run ended before this model finished' }]);
			expect((await w.wendy.post(`/api/w/${WS}/jobs/cancel/${id}`)).status).toBe(409);
		});

		it('cancel of a queued job: it never starts', async () => {
			await w.deploy('queued', replay(OK_RUN, {}, RUN_MANIFEST), { manifest: RUN_MANIFEST });
			const ids = [await w.run('hang', { command: 'build' }), await w.run('hang', { command: 'build' }), await w.run('queued', { command: 'run' })];
			const queued = ids[2];
			const c = await w.wendy.post(`/api/w/${WS}/jobs/cancel/${queued}`);
			expect(c.body.status).toBe('canceled');
			for (const id of ids.slice(0, 2)) await w.wendy.post(`/api/w/${WS}/jobs/cancel/${id}`);
			const job = await w.waitJob(queued);
			expect(job.status).toBe('canceled');
			expect(job.started_at).toBeNull();
			for (const id of ids.slice(0, 2)) expect((await w.waitJob(id)).status).toBe('canceled');
		});

		it('the deadline: a dbt that never exits (and ignores SIGTERM) is killed, the job fails saying so', async () => {
			await w.deploy('stuck', replay(BUILD_LOG, { mode: 'hang', ignoreSigterm: true, hangAfter: 90 }));
			const job = await w.waitJob(await w.run('stuck', { command: 'build', timeout_s: 3 }));
			expect(job.status).toBe('failure');
			expect(job.result.error).toMatch(/ran out of time: its 3 s deadline passed during dbt build/);
			expect(job.logs).toContain('ignoring SIGTERM');
			expect(job.logs).toMatch(/did not stop within .* of SIGTERM; its process group was killed/);
			expect((await w.progress(job.id)).some((r) => r.status === 'running')).toBe(false);
		});

		it('a project that declares packages gets dbt deps first; a deps failure says so and builds nothing', async () => {
			const packages = { 'packages.yml': 'packages:\n  - package: dbt-labs/dbt_utils\n    version: 1.3.0\n' };
			await w.deploy('pkgs', replay(OK_RUN, {}, RUN_MANIFEST), { manifest: RUN_MANIFEST, extraFiles: packages, pin: 'before_live' });
			const job = await w.waitJob(await w.run('pkgs', { command: 'run' }));
			expect(job.status, job.logs).toBe('success');
			expect(job.logs).toContain('$ dbt deps --project-dir <job>/project');
			expect(job.logs.indexOf('Installing dbt-labs/dbt_utils')).toBeLessThan(job.logs.indexOf('fake-dbt argv: ["run"'));
			// The deploy pinned the packages: the run installed exactly those (the same package-lock digest).
			const pinned = (await w.wendy.get(`/api/w/${WS}/scripts/dbt/version/${w.lastDeploy.hash}`)).body;
			expect(pinned.lock.package_lock_digest).toMatch(/^[0-9a-f]{64}$/);
			// A deploy whose deps fail fails with dbt's message, and no version of it is stored.
			await w.deploy('pkgs_down', { ...replay(OK_RUN, {}, RUN_MANIFEST), default: { mode: 'deps-fail' } }, { manifest: RUN_MANIFEST, extraFiles: packages, pin: 'after_live' });
			const pin = await w.waitJob(w.lastDeploy.pin.job_id);
			expect(pin.status).toBe('failure');
			expect(pin.result.error).toMatch(/^dbt deps failed \(exit code 2\), so the project's packages are missing and nothing was built\nRuntime Error\n {2}Could not resolve package/);
			const failed = await w.waitJob(await w.run('pkgs_down', { command: 'run' }));
			expect(failed.status).toBe('failure');
			expect(failed.result.error).toMatch(/^dbt deps failed \(exit code 2\)/);
			expect(failed.logs).not.toContain('fake-dbt argv: ["run"');
			// Packages that resolve differently from the pin fail the run closed, naming both digests.
			await w.deploy('pkgs_drift', { ...replay(OK_RUN, {}, RUN_MANIFEST), commands: { ...replay(OK_RUN, {}, RUN_MANIFEST).commands, deps: { mode: 'deps-drift' } } }, { manifest: RUN_MANIFEST, extraFiles: packages, pin: 'before_live' });
			const lock = (await w.wendy.get(`/api/w/${WS}/scripts/dbt/version/${w.lastDeploy.hash}`)).body.lock;
			const drift = await w.waitJob(await w.run('pkgs_drift', { command: 'run' }));
			expect(drift.status).toBe('failure');
			expect(drift.result.error).toContain(`the one this version was pinned with (digest ${lock.package_lock_digest})`);
			expect(drift.result.error).toMatch(/package-lock\.yml \(digest [0-9a-f]{64}\) differs/);
			expect(drift.logs).not.toContain('fake-dbt argv: ["run"');
		}, 180_000);

		it('show: one model\'s rows as the result, limit passed to dbt', async () => {
			await w.deploy('show', { commands: { show: { rows: [{ id: 1, amount: 10 }, { id: 2, amount: 20 }, { id: 3, amount: 30 }] } } });
			const job = await w.waitJob(await w.run('show', { command: 'show', model: 'orders', limit: 2 }));
			expect(job.status, job.logs).toBe('success');
			expect(job.result).toMatchObject({ command: 'show', model: 'orders', limit: 2, node: 'orders', rows: [{ id: 1, amount: 10 }, { id: 2, amount: 20 }] });
			expect(job.logs).toContain('$ dbt show --project-dir <job>/project --profiles-dir <job>/profiles --target-path <job>/target --select orders,resource_type:model --output json --limit 2');
			expect(await w.progress(job.id)).toEqual([]);
		});

		it('parse: what dbt found, stored under the job only when it differs', async () => {
			await w.deploy('parse', { commands: { parse: { manifest: path.join(PG_LOGS, 'seed', 'manifest.json') } } });
			const job = await w.waitJob(await w.run('parse', { command: 'parse' }));
			expect(job.status, job.logs).toBe('success');
			const seed = JSON.parse(readFileSync(path.join(PG_LOGS, 'seed', 'manifest.json'), 'utf8'));
			expect(job.result.by_resource_type.model).toBe(Object.values(seed.nodes).filter((n: any) => n.resource_type === 'model').length);
			expect(job.result.graph_job).toBe(job.id);
			const same = await w.waitJob(await w.run('ok', { command: 'parse' }));
			expect(same.result.graph_job).toBeNull();
		});

		it('test_behavior after_all: models, then tests as a second invocation, results merged', async () => {
			await w.deploy('after', { speed: 100, commands: { build: { log: OK_RUN, manifest: RUN_MANIFEST }, test: { log: TEST_LOG } } }, { manifest: RUN_MANIFEST, descriptor: 'test_behavior: after_all\n' });
			const job = await w.waitJob(await w.run('after', { command: 'build' }));
			const runs = finished(OK_RUN);
			const tests = finished(TEST_LOG);
			expect(job.result.nodes, job.logs).toHaveLength(runs.length + tests.length);
			expect(job.result.totals.error).toBe(tests.filter((t) => t.status === 'fail').length);
			expect(job.status).toBe('failure');
			const buildArgv = job.logs.split('\n').find((l: string) => l.startsWith('fake-dbt argv: ["build"'));
			expect(buildArgv).toContain('"--exclude-resource-type","test","--exclude-resource-type","unit_test"');
			expect(job.logs).toContain('fake-dbt argv: ["test"');
		});

		it('retry_failed_nodes: dbt retry redoes only the failed nodes, and the job succeeds', async () => {
			await w.deploy('flaky', { speed: 100, commands: { run: { log: FAILED_RUN, manifest: RUN_MANIFEST } } }, { manifest: RUN_MANIFEST, descriptor: 'retry_failed_nodes: { attempts: 2, delay: 0 }\n' });
			const job = await w.waitJob(await w.run('flaky', { command: 'run' }));
			expect(job.status, job.logs).toBe('success');
			expect(job.logs).toContain('retrying the nodes that failed (attempt 1 of 2)');
			expect(job.logs).not.toContain('attempt 2 of 2');
			expect(job.result.nodes.find((n: any) => n.unique_id === 'model.jaffle_shop.orders')).toMatchObject({ status: 'success', outcome: 'passed' });
			const rows = await w.progress(job.id);
			expect(rows.find((r) => r.asset_path === 'main/public/orders')).toMatchObject({ status: 'materialized', row_count: 7 });
		});

		it('retry: resumes a named failed run with its arguments, refusing runs it cannot resume', async () => {
			await w.deploy('broken', { speed: 100, commands: { run: { log: FAILED_RUN, manifest: RUN_MANIFEST } } }, { manifest: RUN_MANIFEST });
			const failed = await w.waitJob(await w.run('broken', { command: 'run', select: ['orders'] }));
			expect(failed.status).toBe('failure');
			expect(failed.result.error).toContain('model.jaffle_shop.orders [error]: Database Error in model orders');
			expect((await w.progress(failed.id)).find((r) => r.asset_path === 'main/public/orders')).toMatchObject({ status: 'failed' });
			const ok = (await w.wendy.get(`/api/w/${WS}/jobs/list?script_path=f/data/ok&status=success&kind=run&limit=1`)).body[0];
			expect((await w.wendy.post(`/api/w/${WS}/jobs/run/p/f/data/broken`, { command: 'retry', retry_job: ok.id })).status).toBe(400);
			// The run page offers exactly what the API accepts: a resume of the failed run, nothing for the succeeded one.
			const offerFor = async (id: string) => runOffer(database, (await getJobView(database, WS, id))!);
			expect(await offerFor(failed.id)).toMatchObject({ label: 'Resume this run', body: { command: 'retry', retry_job: failed.id } });
			expect((await offerFor(failed.id))!.explains).toMatch(/^dbt retry: runs again what failed or was skipped in this run, on the same version/);
			expect(await offerFor(ok.id)).toBeNull();
			const job = await w.waitJob(await w.run('broken', { command: 'retry', retry_job: failed.id }));
			expect(job.status, job.logs).toBe('success');
			expect(job.result.invocation_args).toMatchObject({ command: 'retry', retry_job: failed.id, resumed_command: 'run', select: ['orders'] });
			expect(job.logs).toContain('fake-dbt argv: ["retry"');
			expect(job.result.nodes.find((n: any) => n.unique_id === 'model.jaffle_shop.orders')).toMatchObject({ outcome: 'passed' });
			// Redeployed since: the saved failures describe another version.
			await w.deploy('broken', { speed: 100, commands: { run: { log: FAILED_RUN, manifest: RUN_MANIFEST } } }, { manifest: RUN_MANIFEST });
			const r = await w.wendy.post(`/api/w/${WS}/jobs/run/p/f/data/broken`, { command: 'retry', retry_job: failed.id });
			expect(r.status).toBe(400);
			expect(r.body.error).toMatch(/deployed again/);
			expect(await offerFor(failed.id)).toBeNull();
		});
	});
});
