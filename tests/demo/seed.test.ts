// The demo workspace is the project's own generated dbt project, deployed through the real
// ingest, with two recorded runs and a preview stored through the services behind jobs/record
// and scripts/dbt/preview. What it must hold is computed here from the generator's output, not
// from the ingest, and read back through the same loads and endpoints the pages use.
import type { Cookies } from '@sveltejs/kit';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../src/lib/server/auth/authenticate';
import type { AuthContext } from '../../src/lib/server/auth/context';
import { SESSION_COOKIE } from '../../src/lib/server/auth/session';
import { bootstrap } from '../../src/lib/server/bootstrap';
import { setDatabase, type Database } from '../../src/lib/server/db';
import { DEMO_CHANGE, DEMO_EARLIER, DEMO_FAILING_MODEL, demoProducers, generateProject, ROASTERY_OUTCOMES, roasteryProducers, type GeneratedProject } from '../../src/lib/server/demo/generator';
import { roasteryProjectSpec } from '../../src/lib/server/demo/roastery-project';
import { isExecutable, type ModelSpec, type RelationSpec } from '../../src/lib/server/demo/spec';
import { DEMO_PROJECT_PATH, DEMO_WORKSPACE, ROASTERY_PROJECT_PATH, seedDemo, wantDemo, type DemoSeed } from '../../src/lib/server/demo/seed';
import { Worker } from '../../src/lib/server/runner/worker';
import { runnerIngest } from '../../src/lib/server/runner-ingest';
import type { ColumnLineageAnswer, DbtProvenance } from '../../src/lib/types/asset-graph';
import type { JobPoll } from '../../src/lib/types/jobs';
import type { RunNodeResult, RunResult } from '../../src/lib/types/runner';
import type { RunProgressItem } from '../../src/lib/types/jobs';
import { load as workspaceLoad } from '../../src/routes/w/[ws]/+page.server';
import { load as runLoad } from '../../src/routes/w/[ws]/run/[id]/+page.server';
import { ApiClient } from '../support/api';
import { testBackends } from '../support/db';

type Json = Record<string, any>;

interface ResultRow {
	unique_id: string;
	status: string;
	message: string | null;
	failures: number | null;
	relation_name: string | null;
	adapter_response: { rows_affected?: number };
}

const resultsOf = (p: GeneratedProject) => (p.runResults as { results: ResultRow[] }).results;

/** `"demo"."analytics"."orders"` → `main/analytics/orders`: the warehouse `main` has default database `demo`. */
const assetPathOf = (relationName: string) => `main/${relationName.split('.').slice(1).map((s) => s.replace(/"/g, '')).join('/')}`;

/** Every node whose ancestors include `id`, from the manifest's own depends_on. */
function downstreamOf(manifest: Json, id: string): string[] {
	const out = new Set<string>();
	for (let grew = true; grew; ) {
		grew = false;
		for (const [nid, n] of Object.entries(manifest.nodes as Json)) {
			if (!out.has(nid) && (n.depends_on?.nodes ?? []).some((p: string) => p === id || out.has(p))) {
				out.add(nid);
				grew = true;
			}
		}
	}
	return [...out].sort();
}

describe.each(testBackends())('demo workspace on $name', (backend) => {
	let database: Database;
	let seeded: DemoSeed;
	let admin: ApiClient;
	let auth: AuthContext;
	let project: GeneratedProject;
	let failing: GeneratedProject;

	/** A page load's event, as kit builds it for a signed-in request. */
	const pageEvent = (pathname: string, params: Record<string, string>) => {
		const url = new URL(pathname, 'http://localhost');
		return { url, params, request: new Request(url), locals: { auth }, cookies: { get: () => undefined }, depends: () => {}, parent: async () => ({}) } as never;
	};
	const runPage = async (id: string) => {
		const data = (await runLoad(pageEvent(`/w/${DEMO_WORKSPACE}/run/${id}`, { ws: DEMO_WORKSPACE, id }))) as {
			job: { kind: string; status: string; result: RunResult; logs: string };
			progressJson: string;
			ownSnapshot: boolean;
			hasLog: boolean;
		};
		// The page's progress travels as JSON text; the rows are what the page parses from it.
		return { ...data, progress: JSON.parse(data.progressJson) as RunProgressItem[] };
	};

	beforeAll(async () => {
		database = await backend.open();
		setDatabase(database);
		process.env.TRIBUTARY_ADMIN_USER = 'admin';
		process.env.TRIBUTARY_ADMIN_PASSWORD = 'demo-admin-pw';
		await bootstrap(database);
		[project, failing] = await Promise.all([generateProject(), generateProject({ seed: 2, failures: true })]);
		roasteryManifest = (await generateProject({ roastery: true })).manifest;
		seeded = await seedDemo(database, 'admin');
		admin = new ApiClient();
		const r = await admin.post('/api/auth/login', { username: 'admin', password: 'demo-admin-pw' });
		expect(r.status, JSON.stringify(r.body)).toBe(200);
		const session = admin.jar.values.get(SESSION_COOKIE)!;
		const cookies = { get: (n: string) => (n === SESSION_COOKIE ? session : undefined) } as unknown as Cookies;
		auth = (await authenticate({ request: new Request('http://localhost/'), cookies } as never))!;
		expect(auth.username).toBe('admin');
	}, 180_000);
	afterAll(async () => {
		await database?.close();
	});

	it('is seeded only on a fresh database, by default only on the embedded one', () => {
		const saved = process.env.TRIBUTARY_DEMO;
		delete process.env.TRIBUTARY_DEMO;
		expect(wantDemo(database, false)).toBe(false);
		expect(wantDemo(database, true)).toBe(database.kind === 'pglite');
		process.env.TRIBUTARY_DEMO = '0';
		expect(wantDemo(database, true)).toBe(false);
		process.env.TRIBUTARY_DEMO = '1';
		expect(wantDemo(database, true)).toBe(true);
		if (saved === undefined) delete process.env.TRIBUTARY_DEMO;
		else process.env.TRIBUTARY_DEMO = saved;
	});

	it('deploys the generated project with all its nodes, column lineage and project files', async () => {
		const m = project.manifest as { nodes: Record<string, { resource_type: string }>; sources: object; unit_tests?: object };
		const expectedNodes =
			Object.values(m.nodes).filter((n) => n.resource_type !== 'operation').length +
			Object.keys(m.sources).length +
			Object.keys(m.unit_tests ?? {}).length;
		const r = seeded;
		expect(r.nodes).toBe(expectedNodes);
		expect(r.columnEdges).toBe(project.meta.columnEdges.total);
		const [row] = await database.rows<{ n: number; archived: number }>(
			sql`select count(*)::int as n, (select count(*)::int from script_archive where workspace = ${DEMO_WORKSPACE}) as archived
			    from dbt_node where workspace = ${DEMO_WORKSPACE} and script_path = ${DEMO_PROJECT_PATH}
			     and script_hash = (select script_hash from job where id = ${seeded.jobId}::uuid)`
		);
		// Archives: the shop's two versions and the roastery's one.
		expect(row).toEqual({ n: expectedNodes, archived: 3 });
		// Every relation the demo writes is published as asset usage under the warehouse `main`.
		const usage = await database.rows<{ asset_path: string }>(
			sql`select asset_path from asset_usage where workspace = ${DEMO_WORKSPACE} and script_path = ${DEMO_PROJECT_PATH} and asset_kind = 'dbt' and access = 'w'`
		);
		expect(usage.length).toBe(project.meta.models + project.meta.seeds + project.meta.snapshots - ephemeralCount(project.manifest));
		for (const u of usage) expect(u.asset_path.startsWith('main/')).toBe(true);
		// The producers (two on the shop, one on the roastery): each writes a lake table and has column lineage stored.
		expect(r.producers).toBe(3);
		const lake = await database.rows<{ script_path: string; asset_path: string }>(
			sql`select script_path, asset_path from asset_usage where workspace = ${DEMO_WORKSPACE} and asset_kind = 'ducklake' and access = 'w' order by 1`
		);
		expect(lake.map((x) => x.script_path)).toEqual(['f/demo/producers/daily_revenue', 'f/demo/producers/monthly_city_revenue', 'f/demo/producers/wholesale_city_revenue']);
		// Every `-- column x <- …` line of the demo SQL is stored as annotation lineage of x.
		const annotated = demoProducers.flatMap((p) =>
			[...p.content.matchAll(/^\s*(?:--|\/\/)\s*column\s+(\w+)\s*<-/gm)].map((m) => `${p.path} ${m[1]}`)
		);
		expect(annotated.length).toBeGreaterThan(0);
		const stored = await database.rows<{ k: string }>(
			sql`select distinct script_path || ' ' || output_column as k from producer_column_lineage
			    where workspace = ${DEMO_WORKSPACE} and source = 'annotation' order by 1`
		);
		expect(stored.map((x) => x.k)).toEqual([...new Set(annotated)].sort());
	});

	it('has a recorded run that succeeded: every model built, with its row count, on the run page', async () => {
		const page = await runPage(seeded.runs.succeeded);
		expect(page.job).toMatchObject({ kind: 'recorded', status: 'success' });
		const expected = resultsOf(project);
		const models = expected.filter((r) => r.unique_id.startsWith('model.'));
		expect(models.length).toBe(project.meta.models - ephemeralCount(project.manifest));
		const byId = new Map(page.job.result.nodes.map((n) => [n.unique_id, n]));
		for (const m of models) expect(byId.get(m.unique_id)?.status, m.unique_id).toBe('success');
		expect(page.job.result.totals).toEqual({ total: expected.length, success: expected.length, error: 0, warn: 0, skipped: 0 });
		// Row counts per relation, as the canvas colours them: what the build's run_results reported.
		// Seeds carry no relation_name in run_results: their relation is the manifest's.
		const nodes = (project.manifest as { nodes: Record<string, { relation_name?: string | null }> }).nodes;
		const relationOf = (r: ResultRow) => r.relation_name ?? nodes[r.unique_id]?.relation_name ?? null;
		const built = expected.filter((r) => !r.unique_id.startsWith('test.') && relationOf(r));
		expect(built.filter((r) => r.unique_id.startsWith('seed.'))).toHaveLength(project.meta.seeds);
		const progress = new Map(page.progress.map((p) => [p.asset_path, p]));
		expect(page.progress).toHaveLength(built.length);
		for (const r of built) {
			const p = progress.get(assetPathOf(relationOf(r)!));
			expect(p?.status, r.unique_id).toBe('materialized');
			expect(p?.row_count, r.unique_id).toBe(r.adapter_response.rows_affected);
		}
		expect(progress.get('main/analytics/orders')?.row_count).toBe(48213);
		// The JSON event log was read: its human lines are in the job's log, which the page reads
		// when its panel opens (jobs/get), not with the page.
		expect(page.hasLog).toBe(true);
		const logs = (await admin.get(`/api/w/${DEMO_WORKSPACE}/jobs/get/${seeded.runs.succeeded}`)).body.logs as string;
		expect(logs).toContain('── the recorded log ──');
		expect(logs).toContain('Completed successfully');
	});

	it("the test lens attributes each test by the graph's own record: a singular test to the model it reads", async () => {
		const page = (await runPage(seeded.runs.succeeded)) as unknown as { testStatuses: Record<string, string>; job: { result: RunResult } };
		const ORDERS = 'dbt:main/analytics/orders';
		expect(page.testStatuses[ORDERS]).toBe('pass');
		// The same run as if only the singular test (it reads `orders`, and its name says nothing of
		// it) had warned: orders warns. Matching by dbt's synthesized names alone would miss it.
		const singular = page.job.result.nodes.find((n) => n.unique_id.startsWith('test.coffee_shop.assert_payments_do_not_exceed_order_amount'));
		expect(singular, 'the demo has one singular test').toBeTruthy();
		const warned = { ...page.job.result, nodes: page.job.result.nodes.map((n) => (n === singular ? { ...n, status: 'warn', outcome: 'warned' } : n)) };
		const { testStatusesOfRun } = await import('../../src/lib/server/api/jobs/latest-runs');
		const [row] = await database.rows<{ script_hash: string }>(sql`select script_hash::text from job where id = ${seeded.runs.succeeded}::uuid`);
		const job = { workspace: DEMO_WORKSPACE, id: seeded.runs.succeeded, scriptPath: DEMO_PROJECT_PATH, scriptHash: BigInt(row.script_hash) };
		const graph = (await admin.get(`/api/w/${DEMO_WORKSPACE}/jobs/dbt_graph/${seeded.runs.succeeded}`)).body;
		const statuses = await testStatusesOfRun(database, job, graph, warned);
		expect(statuses[ORDERS]).toBe('warn');
	});

	it('has a recorded run that failed: one model error, one failing test, one warning test, and its downstream skipped', async () => {
		const page = await runPage(seeded.runs.failed);
		expect(page.job).toMatchObject({ kind: 'recorded', status: 'failure' });
		const nodes = page.job.result.nodes;
		const having = (status: string) => nodes.filter((n) => n.status === status);
		const want = new Map(resultsOf(failing).map((r) => [r.unique_id, r]));
		const error = having('error');
		expect(error.map((n) => n.unique_id)).toEqual([DEMO_FAILING_MODEL]);
		expect(error[0].message).toBe(want.get(DEMO_FAILING_MODEL)!.message);
		expect(error[0].message).toMatch(/^Runtime Error in model orders \(models\/marts\/orders\.sql\)\n {2}Binder Error: Referenced column "store_id_old" not found/);
		const failed = having('fail');
		expect(failed.map((n) => n.unique_id)).toEqual([expect.stringMatching(/^test\.coffee_shop\.relationships_stg_orders_customer_id__/)]);
		expect(failed[0]).toMatchObject({ failures: 3, message: 'Got 3 results, configured to fail if != 0' } satisfies Partial<RunNodeResult>);
		const warned = having('warn');
		expect(warned.map((n) => n.unique_id)).toEqual([expect.stringMatching(/^test\.coffee_shop\.accepted_values_stg_payments_payment_method__/)]);
		expect(warned[0]).toMatchObject({ failures: 14, message: 'Got 14 results, configured to warn if != 0' });
		const downstream = downstreamOf(failing.manifest, DEMO_FAILING_MODEL);
		expect(downstream).toEqual(expect.arrayContaining(['model.coffee_shop.customers', 'model.coffee_shop.stores', 'model.coffee_shop.fct_payments']));
		expect(having('skipped').map((n) => n.unique_id).sort()).toEqual(downstream);
		expect(page.job.result.totals).toEqual({ total: nodes.length, success: nodes.length - 3 - downstream.length, error: 2, warn: 1, skipped: downstream.length });
		// On the canvas: orders failed with its message; nothing downstream of it built.
		const progress = new Map(page.progress.map((p) => [p.asset_path, p]));
		expect(progress.get('main/analytics/orders')).toEqual({ asset_kind: 'dbt', asset_path: 'main/analytics/orders', status: 'failed', error: want.get(DEMO_FAILING_MODEL)!.message });
		for (const p of ['main/analytics/customers', 'main/analytics/stores', 'main/analytics/fct_payments']) expect(progress.has(p), p).toBe(false);
		expect(page.job.result.error).toContain(DEMO_FAILING_MODEL);
	});

	it('has a preview whose graph differs from the version: store_daily_revenue added, stores.revenue retyped', async () => {
		const page = await runPage(seeded.runs.preview);
		expect(page.job).toMatchObject({ kind: 'preview', status: 'success' });
		expect(page.ownSnapshot).toBe(true);
		const graphOf = async (id: string) => {
			const r = await admin.get(`/api/w/${DEMO_WORKSPACE}/jobs/dbt_graph/${id}?fields=full`);
			expect(r.status, JSON.stringify(r.body)).toBe(200);
			return r.body as { assets: { path: string; dbt?: Json }[]; dbt_edges: { from: string; to: string }[]; dbt_snapshot_job?: string };
		};
		// The version's graph, as its succeeded run reads it (the run stored no graph of its own).
		const [version, preview] = await Promise.all([graphOf(seeded.runs.succeeded), graphOf(seeded.runs.preview)]);
		expect(version.dbt_snapshot_job).toBeUndefined();
		expect(preview.dbt_snapshot_job).toBe(seeded.runs.preview);
		const ids = (g: typeof version) => new Set(g.assets.filter((a) => a.dbt).map((a) => a.dbt!.unique_id as string));
		const [before, after] = [ids(version), ids(preview)];
		expect([...after].filter((id) => !before.has(id))).toEqual([DEMO_CHANGE.addedModel]);
		expect([...before].filter((id) => !after.has(id))).toEqual([]);
		const typeOf = (g: typeof version) =>
			(g.assets.find((a) => a.dbt?.unique_id === DEMO_CHANGE.retyped.uniqueId)!.dbt!.column_schema as { name: string; type?: string }[]).find(
				(c) => c.name === DEMO_CHANGE.retyped.column
			)?.type;
		expect([typeOf(version), typeOf(preview)]).toEqual([DEMO_CHANGE.retyped.from, DEMO_CHANGE.retyped.to]);
		// The deployed version is still the one the workspace browses: the preview is only its job's.
		const [v] = await database.rows<{ n: number }>(
			sql`select count(*)::int as n from dbt_node where workspace = ${DEMO_WORKSPACE} and unique_id = ${DEMO_CHANGE.addedModel} and script_hash is not null`
		);
		expect(v.n).toBe(0);
	});

	it('has two deployed versions of the shop: the current one adds fct_payments and stores.last_order_at over the earlier one', async () => {
		const get = async (id: string) => (await admin.get(`/api/w/${DEMO_WORKSPACE}/jobs/get/${id}?logs=false`)).body as JobPoll;
		const [earlier, current] = await Promise.all([get(seeded.earlierJobId), get(seeded.jobId)]);
		expect(earlier).toMatchObject({ kind: 'deploy', status: 'success', script_path: DEMO_PROJECT_PATH });
		expect(earlier.script_hash).not.toBe(current.script_hash);
		// The diff "compare any two versions" shows, by hash, from the generator's own change.
		const r = await admin.get(`/api/w/${DEMO_WORKSPACE}/dbt/diff?${new URLSearchParams({ path: DEMO_PROJECT_PATH, from: earlier.script_hash!, to: 'latest' })}`);
		expect(r.status, JSON.stringify(r.body)).toBe(200);
		const d = r.body as { to: { hash: string }; models: { added: string[]; removed: string[]; modified: { unique_id: string; changes: string[] }[] }; columns: { added: { asset_path: string; column: string }[] } };
		expect(d.to.hash).toBe(current.script_hash);
		expect(d.models.added).toEqual([DEMO_EARLIER.addedModel]);
		expect(d.models.removed).toEqual([]);
		expect(d.models.modified.map((m) => m.unique_id)).toEqual([DEMO_EARLIER.modifiedModel]);
		expect(d.models.modified[0].changes).toEqual(expect.arrayContaining(['sql', 'columns']));
		expect(d.columns.added.map((c) => `${c.asset_path}.${c.column}`)).toContain(`main/analytics/stores.${DEMO_EARLIER.addedColumn.column}`);
	});

	it("lists the two recorded runs and the preview under the workspace page's Recent runs, with kind and status", async () => {
		const data = (await workspaceLoad(pageEvent(`/w/${DEMO_WORKSPACE}`, { ws: DEMO_WORKSPACE }))) as { recentRuns: { id: string; kind: string; status: string; scriptPath: string | null }[] };
		const listed = (id: string) => data.recentRuns.find((r) => r.id === id);
		expect(listed(seeded.runs.succeeded)).toMatchObject({ kind: 'recorded', status: 'success', scriptPath: DEMO_PROJECT_PATH });
		expect(listed(seeded.runs.failed)).toMatchObject({ kind: 'recorded', status: 'failure', scriptPath: DEMO_PROJECT_PATH });
		expect(listed(seeded.runs.preview)).toMatchObject({ kind: 'preview', status: 'success', scriptPath: DEMO_PROJECT_PATH });
		// Newest first: the preview, then the failed run, then the succeeded one.
		const order = data.recentRuns.map((r) => r.id).filter((id) => Object.values(seeded.runs).includes(id));
		expect(order).toEqual([seeded.runs.preview, seeded.runs.failed, seeded.runs.succeeded]);
		// The jobs list endpoint answers the same three.
		const list = await admin.get(`/api/w/${DEMO_WORKSPACE}/jobs/list`);
		expect(list.status).toBe(200);
		const fromApi = (list.body as { id: string; kind: string; status: string }[]).filter((j) => Object.values(seeded.runs).includes(j.id));
		expect(fromApi.map((j) => [j.id, j.kind, j.status])).toEqual([
			[seeded.runs.preview, 'preview', 'success'],
			[seeded.runs.failed, 'recorded', 'failure'],
			[seeded.runs.succeeded, 'recorded', 'success']
		]);
	});

	it('deploys the roastery without an index; its lineage job infers the SQL\'s column edges, served as inferred, and says why where it cannot', async () => {
		const spec = roasteryProjectSpec(1);
		const relation = async (path: string) => {
			const r = await admin.get(`/w/${DEMO_WORKSPACE}/relation?path=${encodeURIComponent(path)}`);
			expect(r.status, JSON.stringify(r.body)).toBe(200);
			return r.body as DbtProvenance;
		};
		const lineageJob = async () => {
			const r = await admin.get(`/api/w/${DEMO_WORKSPACE}/jobs/get/${seeded.roastery.lineageJobId}`);
			expect(r.status, JSON.stringify(r.body)).toBe(200);
			return r.body as JobPoll;
		};
		const relations: RelationSpec[] = [...spec.sources, ...spec.nodes.filter(isExecutable)];
		const pathOf = new Map(relations.map((n) => [n.uniqueId, `main/${n.schema}/${n.alias}`]));
		const ACCOUNTS = pathOf.get('model.roastery.account_revenue')!;

		// As the first start leaves it before the worker runs: the job queued, the pane told so.
		const queued = await lineageJob();
		expect(queued).toMatchObject({ kind: 'lineage', status: 'queued', script_path: ROASTERY_PROJECT_PATH });
		expect((await relation(ACCOUNTS)).column_lineage).toMatchObject({ source: 'inferred', job: { id: seeded.roastery.lineageJobId, status: 'queued' }, outcome: null });

		// The worker of `npm start`, started as the app starts it after seeding, with the default budget.
		const worker = new Worker({ database, ingest: runnerIngest, pollMs: 20, heartbeatMs: 100, staleS: 30 }).start();
		let job: JobPoll;
		try {
			const deadline = Date.now() + 120_000;
			for (;;) {
				job = await lineageJob();
				if (job.status !== 'queued' && job.status !== 'running') break;
				if (Date.now() > deadline) throw new Error(`the lineage job is still ${job.status}:\n${job.logs}`);
				await new Promise((r) => setTimeout(r, 50));
			}
		} finally {
			await worker.stop();
		}
		expect(job.status, job.logs).toBe('success');
		const models = spec.nodes.filter((n): n is ModelSpec => n.resourceType === 'model');
		expect(job.result, job.logs).toMatchObject({ models: { analyzed: models.length - 3, partial: 1, failed: 1, skipped: 1 } });
		// The deploy's own record (the project page's versions list) counts the inferred edges too.
		const deploy = (await admin.get(`/api/w/${DEMO_WORKSPACE}/jobs/get/${seeded.roastery.jobId}`)).body as JobPoll;
		expect((deploy.result as { column_edges: number }).column_edges).toBe((job.result as { column_edges: number }).column_edges);
		expect((deploy.result as { column_edges: number }).column_edges).toBeGreaterThan(0);

		// Every copy/mod edge the SQL implies for the models inference analysed, and nothing else, served as inferred.
		const analyzedIds = new Set(models.map((m) => m.uniqueId).filter((id) => !Object.values(ROASTERY_OUTCOMES).includes(id as never)));
		const key = (e: { from: string; fromColumn: string; to: string; toColumn: string; kind: string }) => `${e.from}.${e.fromColumn} > ${e.to}.${e.toColumn} ${e.kind}`;
		const implied = spec.lineage.filter((e) => e.kind !== 'scan').map((e) => key({ from: pathOf.get(e.fromId)!, fromColumn: e.fromColumn, to: pathOf.get(e.toId)!, toColumn: e.toColumn, kind: e.kind }));
		const served = new Set<string>();
		for (const m of models.filter((m) => m.materialized !== 'ephemeral')) {
			const r = await admin.get(`/api/w/${DEMO_WORKSPACE}/assets/column_lineage?asset_path=${encodeURIComponent(pathOf.get(m.uniqueId)!)}`);
			expect(r.status, JSON.stringify(r.body)).toBe(200);
			const a = r.body as ColumnLineageAnswer;
			for (const e of a.edges) {
				expect(e.provenance, JSON.stringify(e)).toBe('inferred');
				served.add(key({ from: e.from_asset_path, fromColumn: e.from_column, to: e.to_asset_path, toColumn: e.to_column, kind: e.kind }));
			}
		}
		const wanted = spec.lineage
			.filter((e) => e.kind !== 'scan' && analyzedIds.has(e.toId))
			.map((e) => key({ from: pathOf.get(e.fromId)!, fromColumn: e.fromColumn, to: pathOf.get(e.toId)!, toColumn: e.toColumn, kind: e.kind }));
		expect(wanted.length).toBeGreaterThan(40);
		for (const w of wanted) expect(served.has(w), w).toBe(true);
		for (const s of served) expect(implied.includes(s), s).toBe(true);

		// Each model says how its lineage came about.
		const cl = async (id: string) => (await relation(pathOf.get(id)!)).column_lineage!;
		expect(await cl('model.roastery.account_revenue')).toMatchObject({ source: 'inferred', job: { status: 'success' }, outcome: 'analyzed', untraced: [] });
		const partial = await cl(ROASTERY_OUTCOMES.partial);
		expect(partial.outcome).toBe('partial');
		expect(partial.untraced.map((u) => u.column).sort()).toEqual(['rate_date', 'revenue_eur']);
		for (const u of partial.untraced) expect(u.reason).toContain('demo.finance.fx_rates');
		const failed = await cl(ROASTERY_OUTCOMES.failed);
		expect(failed.outcome).toBe('failed');
		expect(failed.message).toMatch(/\S/);
		// The position is in the compiled SQL: the line holding `tablesample`.
		const compiled = (roasteryManifestNode(ROASTERY_OUTCOMES.failed) as { compiled_code: string }).compiled_code.split('\n');
		expect(compiled[failed.line! - 1]).toContain('tablesample');
		expect(failed.column).toBeGreaterThan(0);
		// The job's log lists what it could not trace.
		expect(job.logs).toContain(`failed: ${ROASTERY_OUTCOMES.failed}`);
		expect(job.logs).toContain(`partial: ${ROASTERY_OUTCOMES.partial}`);

		// The producer reading the roastery: its trace crosses from the inferred dbt edges into the lake.
		const lake = await database.rows<{ output_column: string; input_path: string; input_column: string }>(
			sql`select output_column, input_asset_path as input_path, input_column from producer_column_lineage
			    where workspace = ${DEMO_WORKSPACE} and script_path = ${roasteryProducers[0].path} order by 1, 2, 3`
		);
		expect(lake).toContainEqual({ output_column: 'revenue', input_path: ACCOUNTS, input_column: 'revenue' });
		expect(served.has(key({ from: pathOf.get('model.roastery.stg_wholesale_orders')!, fromColumn: 'revenue', to: ACCOUNTS, toColumn: 'revenue', kind: 'mod' }))).toBe(true);
	}, 180_000);
});

let roasteryManifest: Record<string, unknown> | null = null;
function roasteryManifestNode(id: string): unknown {
	return (roasteryManifest as { nodes: Record<string, unknown> }).nodes[id];
}

function ephemeralCount(manifest: Record<string, unknown>): number {
	const nodes = (manifest as { nodes: Record<string, { config?: { materialized?: string } }> }).nodes;
	return Object.values(nodes).filter((n) => n.config?.materialized === 'ephemeral').length;
}
