// Real dbt-core through the app: engines provisioned by the app's own provisioning (shared cache,
// see tests/support/real-dbt.ts), the demo project's SOURCE deployed without a manifest (the
// deploy job parses it), an embedded DuckDB warehouse, and the runner's promises checked against
// what dbt itself wrote (run_results.json in the kept job directory).
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateProject, projectTarGz } from '../../src/lib/server/demo/generator';
import { tarGz } from '../../src/lib/server/demo/tarball';
import { testBackends } from '../support/db';
import { needFixtures } from '../support/fixtures';
import { buildRunnerWorld, FOLDER, WS, type RunnerWorld } from '../support/runner-world';
import { CORE_CURRENT, CORE_OLDER, describeRealDbt, testEngines, tinyProject } from '../support/real-dbt';

const LONG = 20 * 60_000;

/** A JSON event log's node events as `<event> <unique_id> <status>`, sorted (threads interleave them). */
function nodeEvents(log: string): string[] {
	return log
		.split('\n')
		.filter(Boolean)
		.map((l) => JSON.parse(l) as { info: { name: string }; data: { node_info?: { unique_id: string; node_status: string } } })
		.filter((e) => (e.info.name === 'NodeStart' || e.info.name === 'NodeFinished') && e.data.node_info)
		.map((e) => `${e.info.name} ${e.data.node_info!.unique_id} ${e.data.node_info!.node_status}`)
		.sort();
}

/** Host pids of live processes working inside `dir`. */
function processesIn(dir: string): number[] {
	const out: number[] = [];
	for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
		try {
			const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
			if (stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z') continue;
			if (readlinkSync(`/proc/${pid}/cwd`).startsWith(dir)) out.push(Number(pid));
		} catch {
			/* gone meanwhile */
		}
	}
	return out;
}

function form(fields: Record<string, string | Uint8Array>): FormData {
	const f = new FormData();
	for (const [k, v] of Object.entries(fields)) {
		if (typeof v === 'string') f.set(k, v);
		else f.set(k, new Blob([v as Uint8Array<ArrayBuffer>]), `${k}.tar.gz`);
	}
	return f;
}

// The runner's world deploys the recorded Postgres logs' manifest beside the real projects.
const worldFixtures = needFixtures('real dbt-core through the runner');
for (const kind of testBackends()) {
	(worldFixtures ? describeRealDbt : describe.skip)(`real dbt-core through the runner (${kind.name})`, () => {
		let world: RunnerWorld;
		let scratch: string;
		let buildId = '';
		// Outside every folder a run is shown (not under /tmp, where the sandbox has a private tmpfs).
		const outside = path.join(process.cwd(), '.cache', `written-by-a-model-${process.pid}`);
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
				// The runner's world turns inference off; the catalog pass is to queue it here.
				process.env.TRIBUTARY_LINEAGE_INFERENCE = '1';
				const id = await world.run('shop', { command: 'build' });
				buildId = id;
				let sawRunning = false;
				try {
					for (;;) {
						const job = (await world.wendy.get(`/api/w/${WS}/jobs/get/${id}?logs=false`)).body;
						const rows = await world.progress(id);
						if (rows.some((r) => r.status === 'running') && ['queued', 'running'].includes(job.status)) sawRunning = true;
						if (!['queued', 'running'].includes(job.status)) break;
						await new Promise((r) => setTimeout(r, 100));
					}
				} finally {
					process.env.TRIBUTARY_LINEAGE_INFERENCE = '0';
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
				// The catalog pass: the version was deployed without a catalog, so its first build
				// refreshes the graph from what the warehouse holds and infers column lineage again.
				expect(end.result.catalog_pass).toMatchObject({ outcome: 'refreshed' });
				expect(end.result.catalog_pass.typed_nodes).toBeGreaterThan(5);
				expect(end.result.catalog_pass.lineage_job_id).toMatch(/^[0-9a-f-]{36}$/);
				expect(end.logs).toMatch(/\$ dbt docs generate/);
				expect(end.logs).toMatch(/engine dbt-core-1\.12\.\d+\+duckdb-[\d.]+\+py3\.\d+ \(installed; found in \d+ ms\)/);
				// The stand-in replays what the real engine wrote (tests/fixtures/real-dbt, recorded by
				// scripts/record-dbt-fixtures.ts): the same node events, node for node and state for state.
				const recorded = path.join('tests/fixtures/real-dbt', end.result.engine_version, 'demo-build', 'dbt.log.jsonl');
				expect(existsSync(recorded), `no recording of dbt-core ${end.result.engine_version}: run npx tsx scripts/record-dbt-fixtures.ts`).toBe(true);
				expect(nodeEvents(readFileSync(path.join(world.jobsDir, id, 'logs', 'build', 'dbt.log'), 'utf8'))).toEqual(nodeEvents(readFileSync(recorded, 'utf8')));
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
			"an invalid dbt_project.yml: the deploy fails with dbt's own message naming the file, and nothing is stored",
			async () => {
				const files = tinyProject({ outside });
				files.set('dbt_project.yml', 'name: tiny\nversion: "1.0.0"\nconfig-version: 2\nprofile: tiny\nmodels:\n  tiny:\n    +materialized: [not, a, string\n');
				const { answer, end } = await deploySource('broken', 'profile: {warehouse: lake}\n', files);
				expect(end.status).toBe('failure');
				expect(end.result.error).toMatch(/dbt_project\.yml/);
				expect(end.result.live).toBe(false);
				expect((await world.wendy.get(`/api/w/${WS}/scripts/dbt/version/${answer.hash}`)).status).toBe(404);
			},
			LONG
		);

		it('a warehouse type with no known dbt adapter: the deploy is a 400 naming the type', async () => {
			await world.admin.post(`/api/w/${WS}/warehouses`, { name: 'odd', default_database: 'x', settings: { type: 'mongodb' } });
			const r = await world.wendy.call('POST', `/api/w/${WS}/scripts/dbt/deploy`, { form: form({ path: `f/${FOLDER}/odd`, descriptor: 'profile: {warehouse: odd}\n', project: tarGz(tinyProject({ outside })) }) });
			expect(r.status).toBe(400);
			expect(r.body.error).toMatch(/no dbt adapter package is known for the warehouse type "mongodb"/);
		});

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

		it(
			'retry reruns only the failed and skipped nodes of the failed build',
			async () => {
				const before = (await world.wendy.get(`/api/w/${WS}/jobs/get/${buildId}?logs=false`)).body.result.nodes as { unique_id: string; status: string }[];
				const redo = new Set(before.filter((n) => ['error', 'fail', 'skipped', 'runtime error'].includes(n.status)).map((n) => n.unique_id));
				const id = await world.run('shop', { command: 'retry', retry_job: buildId });
				const end = await world.waitJob(id, LONG);
				expect(end.logs).toMatch(/\$ dbt retry/);
				const written = JSON.parse(readFileSync(path.join(world.jobsDir, id, 'target', 'run_results.json'), 'utf8')) as { results: { unique_id: string }[] };
				// Hooks (on-run-start) run with every invocation; every node retried was failed or skipped.
				const nodes = written.results.filter((r) => !r.unique_id.startsWith('operation.'));
				expect(end.logs).not.toMatch(/Encountered an error/);
				expect(nodes.length).toBe(redo.size);
				for (const r of nodes) expect(redo, `${r.unique_id} was not failed or skipped`).toContain(r.unique_id);
			},
			LONG
		);

		it(
			'show returns rows; seed and snapshot run; parse stores nothing new for an unchanged project',
			async () => {
				const show = await world.waitJob(await world.run('shop', { command: 'show', model: 'stg_stores', limit: 3 }), LONG);
				expect(show.status, show.logs).toBe('success');
				expect(show.result.rows).toHaveLength(3);
				expect(Object.keys(show.result.rows[0])).toContain('store_id');
				for (const command of ['seed', 'snapshot']) {
					const end = await world.waitJob(await world.run('shop', { command }), LONG);
					expect(end.status, end.logs).toBe('success');
					expect(end.result.nodes.length).toBeGreaterThan(0);
					expect(end.result.nodes.every((n: { status: string }) => n.status === 'success')).toBe(true);
				}
				const parse = await world.waitJob(await world.run('shop', { command: 'parse' }), LONG);
				expect(parse.status, parse.logs).toBe('success');
				expect(parse.result.nodes).toBeGreaterThan(0);
			},
			LONG
		);

		it(
			'a deploy whose dbt deps installs a local package pins it; a var override reaches the model',
			async () => {
				const files = tinyProject({ outside });
				const { end } = await deploySource('tiny', `profile: {warehouse: lake}\nengine: {version: "${CORE_CURRENT}"}\nselect: [greeting]\n`, files);
				expect(end.status, end.logs).toBe('success');
				expect(end.logs).toMatch(/\$ dbt deps/);
				expect(end.logs).not.toMatch(/dbt compile failed/);
				expect(end.result.lock.package_lock_digest).toMatch(/^[0-9a-f]{64}$/);
				const show = await world.waitJob(await world.run('tiny', { command: 'show', model: 'greeting', vars: { greeting: 'bonjour' } }), LONG);
				expect(show.status, `${show.logs}\n${JSON.stringify(show.result)}`).toBe('success');
				expect(show.result.rows).toEqual([{ greeting: 'bonjour', shouted: 'FROM A PACKAGE' }]);
			},
			LONG
		);

		it(
			'project code in a real dbt-core process: every attack fails, and the ordinary calls still work',
			async () => {
				const id = await world.run('tiny', { command: 'run', select: ['attack'] });
				const end = await world.waitJob(id, LONG);
				expect(end.status, end.logs).toBe('success');
				const lines = end.logs.split('\n').filter((l: string) => /^(attack|control) /.test(l.trim())).map((l: string) => l.trim());
				expect(lines.length).toBeGreaterThan(10);
				expect(lines.filter((l: string) => l.startsWith('attack') && !/: denied/.test(l))).toEqual([]);
				expect(lines.filter((l: string) => l.startsWith('control') && !/: ok/.test(l))).toEqual([]);
				expect(lines).toContainEqual(expect.stringMatching(/^attack unshare\(CLONE_NEWUSER\): denied EPERM/));
				expect(existsSync(outside)).toBe(false);
			},
			LONG
		);

		it(
			'a cancel mid-run stops dbt: the job ends canceled and no process is left in its directory',
			async () => {
				const id = await world.run('tiny', { command: 'run', select: ['slow'] });
				await expect.poll(async () => (await world.progress(id)).map((r) => r.status), { timeout: LONG }).toContain('running');
				expect(processesIn(path.join(world.jobsDir, id)).length).toBeGreaterThan(0);
				await world.wendy.post(`/api/w/${WS}/jobs/cancel/${id}`);
				const end = await world.waitJob(id, 120_000);
				expect(end.status).toBe('canceled');
				await expect.poll(() => processesIn(path.join(world.jobsDir, id)), { timeout: 30_000 }).toEqual([]);
			},
			LONG
		);
	});
}

// dbt-postgres against the machine's Postgres (TEST_DATABASE_URL's server), in a schema of this
// test's own: the warehouse has the network, the sandbox reaches it, and the model is a table
// there afterwards.
const pgUrl = process.env.TEST_DATABASE_URL;
if (!pgUrl && process.env.CI) throw new Error('TEST_DATABASE_URL must be set in CI: real dbt-postgres runs against it');
(pgUrl && worldFixtures ? describeRealDbt : describe.skip)('real dbt-postgres against the machine\'s Postgres', () => {
	let world: RunnerWorld;
	let scratch: string;
	const schema = `tributary_t_${process.pid}_${Date.now() % 100000}`;
	const u = new URL(pgUrl ?? 'postgres://postgres@127.0.0.1:5432/test');

	beforeAll(async () => {
		scratch = mkdtempSync(path.join(tmpdir(), 'tributary-real-dbt-pg-'));
		world = await buildRunnerWorld(await testBackends()[0].open(), {
			config: { dbtBin: null, engines: testEngines(), warehouseDir: path.join(scratch, 'warehouses'), packageCacheDir: path.join(scratch, 'packages'), defaultTimeoutS: 1200 }
		});
		const r = await world.admin.post(`/api/w/${WS}/warehouses`, {
			name: 'pg',
			default_database: u.pathname.slice(1),
			settings: { type: 'postgres', host: u.hostname, port: Number(u.port || 5432), user: decodeURIComponent(u.username || 'postgres'), dbname: u.pathname.slice(1), schema, threads: 2, secrets: { password: decodeURIComponent(u.password) || 'trust-auth-ignores-it' } }
		});
		expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
	}, LONG);

	afterAll(async () => {
		const sql = postgres(pgUrl!, { max: 1, onnotice: () => {} });
		await sql.unsafe(`drop schema if exists "${schema}" cascade`);
		await sql.end();
		await world?.close();
		rmSync(scratch, { recursive: true, force: true });
	});

	it(
		'deploys the source (parsed and compiled against Postgres), pins dbt-postgres, and builds a table there',
		async () => {
			const files = tinyProject({ outside: path.join(scratch, 'x') });
			const f = new FormData();
			f.set('path', `f/${FOLDER}/on_pg`);
			f.set('descriptor', `profile: {warehouse: pg}\nengine: {version: "${CORE_CURRENT}"}\nselect: [greeting]\n`);
			f.set('project', new Blob([tarGz(files) as Uint8Array<ArrayBuffer>]), 'project.tar.gz');
			const d = await world.wendy.call('POST', `/api/w/${WS}/scripts/dbt/deploy`, { form: f });
			expect(d.status, JSON.stringify(d.body)).toBe(202);
			const pin = await world.waitJob(d.body.job_id, LONG);
			expect(pin.status, pin.logs).toBe('success');
			expect(pin.result.lock).toMatchObject({ engine: 'dbt-core', adapter: 'postgres' });
			expect(pin.logs).not.toMatch(/dbt compile failed/);
			const run = await world.waitJob(await world.run('on_pg', { command: 'build', select: ['greeting'], vars: { greeting: 'hallo' } }), LONG);
			expect(run.status, run.logs).toBe('success');
			expect(run.logs).toContain('with the network');
			const sql = postgres(pgUrl!, { max: 1, onnotice: () => {} });
			try {
				const rows = await sql.unsafe(`select greeting, shouted from "${schema}".greeting`);
				expect(rows).toEqual([{ greeting: 'hallo', shouted: 'FROM A PACKAGE' }]);
			} finally {
				await sql.end();
			}
		},
		LONG
	);
});
