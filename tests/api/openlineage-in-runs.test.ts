// OpenLineage runs through the real routes on both databases: a run per run id built from its
// events in any order (state, times, the errorMessage facet), parent and child runs, the run page
// and its canvas, share links (never reaching another folder's job), the pipeline canvas coloured
// by each job's last run, dbt-ol's events attached to the deployed jaffle-shop as a run of it, and
// what a viewer who may see only the shape is not shown (SQL, messages, stack traces).
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/lib/server/db';
import { pruneEvents, pruneJobVersions, pruneRunProgress } from '../../src/lib/server/repo/openlineage-in';
import { ApiClient } from '../support/api';
import { testBackends } from '../support/db';
import { describeFixtures } from '../support/fixtures';
import { ndjsonEvents } from '../support/openlineage-schemas';
import { pageEventOf, pageOutcome } from '../support/pages';
import { load as pipelineLoad } from '../../src/routes/w/[ws]/pipeline/[folder]/+page.server';
import { load as runPageLoad } from '../../src/routes/w/[ws]/run/[id]/+page.server';
import {
	buildOlWorld,
	columnLineage,
	errorFacet,
	JAFFLE,
	jobTypeFacet,
	parentFacet,
	runEvent,
	send,
	sqlFacet,
	storedCounts,
	WAREHOUSE_NAMESPACE,
	WS,
	type OlWorld
} from '../support/openlineage-in-world';

const DAG = { namespace: 'airflow://prod', name: 'nightly' };
const TASK = { namespace: 'airflow://prod', name: 'nightly.load_orders' };
const SPARK = { namespace: 'spark://cluster', name: 'orders_compaction' };
const SRC = { namespace: 's3://lake', name: 'raw/orders' };
const DST = { namespace: 's3://lake', name: 'clean/orders' };
const STACK = 'java.lang.IllegalStateException: secret-stack-frame\n\tat io.acme.Load.run(Load.java:42)';
const QUERY = 'INSERT INTO clean.orders SELECT * FROM raw.orders -- secret-sql';

describeFixtures('OpenLineage in: runs', () => {
	describe.each(testBackends())('on $name', (backend) => {
		let database: Database;
		let w: OlWorld;
		let alice: ApiClient;
		const dagRun = randomUUID();
		const taskRun = randomUUID();
		const sparkRun = randomUUID();
		let taskId: string;
		let dagId: string;
		let sparkId: string;

		beforeAll(async () => {
			database = await backend.open();
			w = await buildOlWorld(database);
			expect((await w.c.root.post(`/api/w/${WS}/openlineage/namespaces`, { namespace: 'airflow://prod', folder: 'etl' })).status).toBe(201);
			expect((await w.c.root.post(`/api/w/${WS}/openlineage/namespaces`, { namespace: 'spark://cluster', folder: 'secret' })).status).toBe(201);
			alice = await w.token('alice', ['lineage:write']);
			const task = (type: string, time: string, extra: Record<string, unknown> = {}) =>
				runEvent({
					type,
					runId: taskRun,
					time,
					job: { ...TASK, facets: { sql: sqlFacet(QUERY), jobType: jobTypeFacet('AIRFLOW', 'TASK') } },
					inputs: [SRC],
					outputs: [{ ...DST, facets: { columnLineage: columnLineage({ id: [[SRC, 'id', 'IDENTITY']] }) } }],
					runFacets: { parent: parentFacet(dagRun, DAG), ...extra }
				});
			// Out of order: the FAIL first, then the START and the RUNNING.
			for (const e of [
				task('FAIL', '2026-12-02T01:10:00Z', { errorMessage: errorFacet('load failed: secret-message', STACK) }),
				task('START', '2026-12-02T01:00:00Z'),
				task('RUNNING', '2026-12-02T01:05:00Z'),
				runEvent({ type: 'START', runId: dagRun, time: '2026-12-02T00:59:00Z', job: DAG })
			]) {
				const r = await send(alice, e);
				expect(r.status, JSON.stringify(r.body)).toBe(201);
			}
			// dave's Spark job lives in `secret`, a child of the same DAG run.
			const dave = await w.token('dave', ['lineage:write']);
			const r = await send(dave, runEvent({ type: 'COMPLETE', runId: sparkRun, time: '2026-12-02T01:20:00Z', job: SPARK, inputs: [DST], outputs: [SRC], runFacets: { parent: parentFacet(dagRun, DAG) } }));
			expect(r.status, JSON.stringify(r.body)).toBe(201);
			const [t] = await database.rows<{ id: string }>(sql`select id::text as id from job where args->'openlineage'->>'run_id' = ${taskRun}`);
			const [d] = await database.rows<{ id: string }>(sql`select id::text as id from job where args->'openlineage'->>'run_id' = ${dagRun}`);
			const [s] = await database.rows<{ id: string }>(sql`select id::text as id from job where args->'openlineage'->>'run_id' = ${sparkRun}`);
			[taskId, dagId, sparkId] = [t.id, d.id, s.id];
		}, 180_000);
		afterAll(async () => {
			w?.restoreEnv();
			await database?.close();
		});

		it('a run from its events in any order: failed at its FAIL, started at its START, its error message, nested under its parent', async () => {
			const r = await w.c.alice.get(`/api/w/${WS}/jobs/get/${taskId}`);
			expect(r.status).toBe(200);
			expect(r.body.kind).toBe('openlineage');
			expect(r.body.status).toBe('failure');
			expect(r.body.started_at).toBe('2026-12-02T01:00:00.000Z');
			expect(r.body.completed_at).toBe('2026-12-02T01:10:00.000Z');
			expect(r.body.parent_job).toBe(dagId);
			expect(r.body.result.error).toBe('load failed: secret-message');
			expect(r.body.result.error_detail.stack_trace).toBe(STACK);
			expect(r.body.script_path).toBe('f/etl/prod/nightly_load_orders');
			const dag = await w.c.alice.get(`/api/w/${WS}/jobs/get/${dagId}`);
			expect(dag.body.status).toBe('running');
			// Listed with the workspace's runs.
			const list = await w.c.alice.get(`/api/w/${WS}/jobs/list?kind=openlineage`);
			expect(list.body.map((j: any) => j.id)).toEqual(expect.arrayContaining([taskId, dagId]));
			expect(list.body.map((j: any) => j.id)).not.toContain(sparkId);
		});

		it('a viewer who may see only the shape: no message, no stack trace, no SQL, no column lineage', async () => {
			const shape = await w.token('alice', ['jobs:read', 'assets:read']);
			const r = await shape.get(`/api/w/${WS}/jobs/get/${taskId}`);
			expect(r.status).toBe(200);
			expect(r.body.redacted).toBe(true);
			expect(JSON.stringify(r.body)).not.toContain('secret-message');
			expect(JSON.stringify(r.body)).not.toContain('secret-stack-frame');
			expect(r.body.result.error).toBe('the run failed');
			const events = ndjsonEvents((await shape.get(`/api/w/${WS}/jobs/openlineage/${taskId}`)).body);
			expect(events.map((e) => e.eventType).sort()).toEqual(['FAIL', 'RUNNING', 'START']);
			const text = JSON.stringify(events);
			expect(text).not.toContain('secret-sql');
			expect(text).not.toContain('secret-stack-frame');
			expect(text).not.toContain('columnLineage');
			// A reader of the job gets the events as they were sent.
			const full = ndjsonEvents((await w.c.alice.get(`/api/w/${WS}/jobs/openlineage/${taskId}`)).body);
			expect(JSON.stringify(full)).toContain('secret-sql');
			const canvas = await shape.get(`/api/w/${WS}/jobs/run_canvas/${taskId}`);
			expect(canvas.status).toBe(200);
			expect(canvas.body.producerLineage.every((p: any) => p.column_lineage.length === 0)).toBe(true);
		});

		it('the run page opens an OpenLineage run: its job, what it read and wrote, its outputs coloured', async () => {
			const out = await pageOutcome(runPageLoad((await pageEventOf(w.c.alice, `/w/${WS}/run/${taskId}`, { ws: WS, id: taskId })) as never));
			expect(out.status).toBe(200);
			expect(out.data.job.status).toBe('failure');
			expect(JSON.parse(out.data.progressJson)).toEqual([{ asset_kind: 'openlineage', asset_path: 's3://lake/clean/orders', status: 'failed', error: 'load failed: secret-message' }]);
			const canvas = await w.c.alice.get(`/api/w/${WS}/jobs/run_canvas/${taskId}`);
			expect(canvas.status).toBe(200);
			const text = JSON.stringify(canvas.body.wire);
			expect(text).toContain('f/etl/prod/nightly_load_orders');
			expect(text).toContain('s3://lake/raw/orders');
			expect(text).toContain('s3://lake/clean/orders');
			// Only this job: nothing else of the workspace (the jaffle models are not drawn).
			expect(text).not.toContain('stg_customers');
			expect(canvas.body.producerLineage[0].column_lineage[0].column).toBe('id');
		});

		it('a share link shows the run and its children in its own folder, never a child in another folder', async () => {
			const link = await w.c.alice.get(`/api/w/${WS}/jobs/share/${dagId}?kind=public`);
			expect(link.status).toBe(200);
			const anon = new ApiClient();
			const view = (id: string) => anon.get(`/api/w/${WS}/jobs/get/${id}?view_token=${link.body.token}`);
			expect((await view(dagId)).status).toBe(200);
			const child = await view(taskId);
			expect(child.status).toBe(200);
			expect(JSON.stringify(child.body)).not.toContain('secret-stack-frame');
			const other = await view(sparkId);
			expect(other.status).toBe(404);
			expect(JSON.stringify(other.body)).not.toContain('secret');
			const canvas = await anon.get(`/api/w/${WS}/jobs/run_canvas/${taskId}?view_token=${link.body.token}`);
			expect(canvas.status).toBe(200);
			expect(JSON.stringify(canvas.body)).not.toContain('orders_compaction');
			expect((await anon.get(`/api/w/${WS}/jobs/run_canvas/${sparkId}?view_token=${link.body.token}`)).status).toBe(404);
		});

		it("the pipeline canvas colours each job's card by its last run; a run is not canceled from here", async () => {
			const out = await pageOutcome(pipelineLoad((await pageEventOf(w.c.alice, `/w/${WS}/pipeline/etl`, { ws: WS, folder: 'etl' })) as never));
			expect(out.status).toBe(200);
			expect(out.data.latestRuns.jobs['script:f/etl/prod/nightly_load_orders']).toBe('failed');
			expect(out.data.latestRuns.jobs['script:f/etl/prod/nightly']).toBeUndefined(); // the DAG wrote nothing: not on the canvas
			const done = await send(alice, runEvent({ type: 'COMPLETE', runId: randomUUID(), time: '2026-12-02T02:00:00Z', job: TASK, inputs: [SRC], outputs: [DST] }));
			expect(done.status).toBe(201);
			const again = await pageOutcome(pipelineLoad((await pageEventOf(w.c.alice, `/w/${WS}/pipeline/etl`, { ws: WS, folder: 'etl' })) as never));
			expect(again.data.latestRuns.jobs['script:f/etl/prod/nightly_load_orders']).toBe('passed');
			const cancel = await w.c.alice.post(`/api/w/${WS}/jobs/cancel/${dagId}`);
			expect(cancel.status).toBe(409);
		});

		it("dbt-ol's events attach to the deployed project: a run of it, its models coloured, no new producers", async () => {
			const invocation = randomUUID();
			const dbtJob = { namespace: 'default', name: 'dbt-run-jaffle_shop' };
			const model = (type: string, time: string, unique: string, alias: string, runId: string, extra: Record<string, unknown> = {}) =>
				runEvent({
					type,
					runId,
					time,
					job: {
						namespace: 'default',
						name: `jaffle_shop.main.${alias}`,
						facets: {
							jobType: jobTypeFacet('DBT', 'MODEL'),
							dbt_node: { _producer: 'https://github.com/OpenLineage/OpenLineage/tree/1.54.0/integration/dbt', _schemaURL: 'https://openlineage.io/spec/facets/1-0-0/DbtNodeJobFacet.json', unique_id: unique, database: 'jaffle_shop', schema: 'main', alias },
							sql: sqlFacet(`select * from ${alias}`)
						}
					},
					outputs: type === 'FAIL' ? [] : [{ namespace: WAREHOUSE_NAMESPACE, name: `jaffle_shop.main.${alias}` }],
					runFacets: { parent: parentFacet(invocation, dbtJob), ...extra }
				});
			const before = await storedCounts(database);
			const customers = randomUUID();
			const orders = randomUUID();
			const events = [
				runEvent({ type: 'START', runId: invocation, time: '2026-12-03T00:00:00Z', job: { ...dbtJob, facets: { jobType: jobTypeFacet('DBT', 'JOB') } } }),
				model('START', '2026-12-03T00:00:01Z', 'model.jaffle_shop.customers', 'customers', customers),
				model('COMPLETE', '2026-12-03T00:00:05Z', 'model.jaffle_shop.customers', 'customers', customers),
				model('START', '2026-12-03T00:00:02Z', 'model.jaffle_shop.orders', 'orders', orders),
				model('FAIL', '2026-12-03T00:00:06Z', 'model.jaffle_shop.orders', 'orders', orders, { errorMessage: errorFacet('Database Error in model orders', 'Traceback') }),
				runEvent({ type: 'FAIL', runId: invocation, time: '2026-12-03T00:00:07Z', job: { ...dbtJob, facets: { jobType: jobTypeFacet('DBT', 'JOB') } } })
			];
			let runUrl = '';
			for (const e of events) {
				const r = await send(alice, e);
				expect(r.status, JSON.stringify(r.body)).toBe(201);
				if (r.body.run) runUrl = r.body.run;
			}
			const id = runUrl.split('/').pop()!;
			const job = await w.c.alice.get(`/api/w/${WS}/jobs/get/${id}`);
			expect(job.body.script_path).toBe(JAFFLE);
			expect(job.body.status).toBe('failure');
			const runs = await w.c.alice.get(`/api/w/${WS}/jobs/list?script_path=${encodeURIComponent(JAFFLE)}`);
			expect(runs.body.map((j: any) => j.id)).toContain(id);
			const progress = await w.c.alice.get(`/api/w/${WS}/jobs/run_progress/${id}`);
			expect(progress.body.map((p: any) => `${p.asset_path} ${p.status}`).sort()).toEqual(['main/main/customers materialized', 'main/main/orders failed']);
			const after = await storedCounts(database);
			expect(after.jobs).toBe(before.jobs);
			expect(after.versions).toBe(before.versions);
			// Its page draws the project's own graph, its models coloured by the progress above.
			const canvas = await w.c.alice.get(`/api/w/${WS}/jobs/run_canvas/${id}`);
			expect(JSON.stringify(canvas.body.wire)).toContain('stg_customers');
			// bob reads the project's folder but does not write it: he may not record its runs.
			const bob = await send(w.c.bob, model('START', '2026-12-03T01:00:00Z', 'model.jaffle_shop.customers', 'customers', randomUUID()));
			expect(bob.status).toBe(403);
			expect(bob.body.error).toContain(`belongs to ${JAFFLE}`);
		});

		it("retention drops events and runs' progress older than the cut, keeping the newer ones, and a job's oldest versions", async () => {
			await database.rows(sql`update openlineage_event set received_at = now() - interval '40 days' where run_id = ${dagRun}::uuid`);
			await database.rows(sql`update dbt_run_progress set updated_at = now() - interval '40 days' where job_id = ${taskId}::uuid`);
			const before = await storedCounts(database);
			const cut = new Date(Date.now() - 30 * 86_400_000);
			expect(await pruneEvents(database, WS, cut)).toBe(1);
			expect(await pruneRunProgress(database, WS, cut)).toBe(1);
			const after = await storedCounts(database);
			expect(after.events).toBe(before.events - 1);
			expect(after.progress).toBe(before.progress - 1);
			// Three more versions of one job (its reads change each time), two kept.
			for (const [i, name] of ['a', 'b', 'c'].entries()) {
				const r = await send(alice, runEvent({ type: 'COMPLETE', time: `2026-12-04T0${i}:00:00Z`, job: { namespace: 'airflow://prod', name: 'versioned' }, inputs: [{ namespace: 's3://lake', name }] }));
				expect(r.status).toBe(201);
			}
			const path = 'f/etl/prod/versioned';
			expect(await database.db.transaction((tx) => pruneJobVersions(database, tx, WS, path, 2))).toBe(1);
			const [n] = await database.rows<{ n: number }>(sql`select count(*)::int as n from script where path = ${path}`);
			expect(Number(n.n)).toBe(2);
			const g = await w.c.alice.get(`/api/w/${WS}/assets/graph?folder=etl`);
			expect(g.body.edges.filter((e: any) => e.runnable_path === path).map((e: any) => e.asset_path)).toEqual(['s3://lake/c']);
		});
	});
});
