// OpenLineage jobs as producers, through the real routes on both databases, over the real
// jaffle-shop deploy: a Spark-style job loads a file into a dbt seed's relation (named by the
// warehouse's declared namespace, in Snowflake's upper case), an Airflow task exports a dbt model
// to a file (naming it as Tributary's own export does). The asset graph, the column trace (dbt's
// lineage and the jobs' facets joined), column impact, the export, the newest-COMPLETE rule and
// the gates of every read that shows them. Expected columns come from the fixture's index.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDbtColumnGraph, buildProducerColumnGraph, columnId, mergeColumnGraphs, traceColumn } from '../../src/lib/lineage/column-trace';
import type { Database } from '../../src/lib/server/db';
import type { ApiClient } from '../support/api';
import { testBackends } from '../support/db';
import { describeFixtures } from '../support/fixtures';
import { ndjsonEvents } from '../support/openlineage-schemas';
import { buildOlWorld, columnLineage, JAFFLE, runEvent, schemaFacet, send, sqlFacet, WAREHOUSE_NAMESPACE, WS, type OlWorld } from '../support/openlineage-in-world';

const LANDING = { namespace: 's3://landing', name: 'customers.csv' };
const EXPORT = { namespace: 's3://exports', name: 'customers.parquet' };
/** A dbt relation as the warehouse's OpenLineage integration names it (Snowflake upper-cases). */
const RAW_CUSTOMERS = { namespace: WAREHOUSE_NAMESPACE, name: 'JAFFLE_SHOP.RAW.RAW_CUSTOMERS' };
/** A dbt relation as Tributary's own export names it. */
const CUSTOMERS = { namespace: `dbt://${WS}/main`, name: 'jaffle_shop.main.customers' };
const ORDERS = { namespace: `dbt://${WS}/main`, name: 'jaffle_shop.main.orders' };
const LOAD = { namespace: 'spark://cluster-1', name: 'load_customers.execute_insert_into_hadoop_fs_relation_command' };
const EXPORTER = { namespace: 'airflow://prod', name: 'exports.customers_to_s3' };
const LOAD_PATH = 'f/etl/cluster-1/load_customers_execute_insert_into_hadoop_fs_relation_command';
const EXPORT_PATH = 'f/etl/prod/exports_customers_to_s3';

describeFixtures('OpenLineage in: jobs as producers', () => {
	describe.each(testBackends())('on $name', (backend) => {
		let database: Database;
		let w: OlWorld;
		let sender: ApiClient;

		const exporterEvent = (time: string, reads: typeof CUSTOMERS, column: string) =>
			runEvent({
				time,
				job: { ...EXPORTER, facets: { sql: sqlFacet(`COPY (select ${column} from customers) TO 's3://exports/customers.parquet'`) } },
				inputs: [reads],
				outputs: [
					{
						...EXPORT,
						facets: {
							schema: schemaFacet([['customer_ref', 'VARCHAR'], ['lifetime_value', 'DECIMAL(18,2)']]),
							columnLineage: columnLineage(
								{ customer_ref: [[reads, column, 'IDENTITY']], lifetime_value: [[reads, 'lifetime_spend', 'AGGREGATION']] },
								[[reads, 'customer_type', 'INDIRECT:FILTER']]
							)
						}
					}
				]
			});

		beforeAll(async () => {
			database = await backend.open();
			w = await buildOlWorld(database);
			for (const ns of [LOAD.namespace, EXPORTER.namespace]) expect((await w.c.root.post(`/api/w/${WS}/openlineage/namespaces`, { namespace: ns, folder: 'etl' })).status).toBe(201);
			sender = await w.token('alice', ['lineage:write']);
			const load = runEvent({
				time: '2026-12-01T06:00:00Z',
				job: LOAD,
				inputs: [{ ...LANDING, facets: { schema: schemaFacet([['cust_id', 'STRING'], ['full_name', 'STRING']]) } }],
				outputs: [{ ...RAW_CUSTOMERS, facets: { columnLineage: columnLineage({ id: [[LANDING, 'cust_id', 'IDENTITY']], name: [[LANDING, 'full_name', 'TRANSFORMATION']] }) } }]
			});
			for (const e of [load, exporterEvent('2026-12-01T07:00:00Z', CUSTOMERS, 'customer_id')]) {
				const r = await send(sender, e);
				expect(r.status, JSON.stringify(r.body)).toBe(201);
			}
		}, 180_000);
		afterAll(async () => {
			w?.restoreEnv();
			await database?.close();
		});

		const graphOf = async (c: ApiClient) => {
			const r = await c.get(`/api/w/${WS}/assets/graph`);
			expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
			return r.body;
		};

		it('each job is a producer of its own language, reading and writing the assets its datasets denote', async () => {
			const g = await graphOf(w.c.alice);
			const jobs = g.runnables.filter((r: any) => r.language === 'openlineage').map((r: any) => r.path).sort();
			expect(jobs).toEqual([LOAD_PATH, EXPORT_PATH].sort());
			const edges = g.edges.filter((e: any) => jobs.includes(e.runnable_path)).map((e: any) => `${e.runnable_path} ${e.access} ${e.asset_kind}://${e.asset_path}`).sort();
			expect(edges).toEqual(
				[
					`${LOAD_PATH} r openlineage://s3://landing/customers.csv`,
					// The warehouse declared the namespace: the upper-case name is the seed's relation.
					`${LOAD_PATH} w dbt://main/raw/raw_customers`,
					// Named as Tributary's export names it: the model's own relation.
					`${EXPORT_PATH} r dbt://main/main/customers`,
					`${EXPORT_PATH} w openlineage://s3://exports/customers.parquet`
				].sort()
			);
			const customers = g.assets.find((a: any) => a.kind === 'dbt' && a.path === 'main/main/customers');
			expect(customers.dbt.script_path).toBe(JAFFLE);
		});

		it('a column trace runs from the landing file through the dbt models into the export, and back', async () => {
			const g = await graphOf(w.c.alice);
			const lineage = await w.c.alice.get(`/api/w/${WS}/assets/column_lineage?asset_path=main/main/customers`);
			expect(lineage.status).toBe(200);
			const cg = mergeColumnGraphs(buildDbtColumnGraph(lineage.body.edges), buildProducerColumnGraph(g));
			const file = columnId('openlineage', 's3://landing/customers.csv', 'cust_id');
			const out = columnId('openlineage', 's3://exports/customers.parquet', 'customer_ref');
			const downstream = traceColumn(file, cg);
			expect(downstream.has(columnId('dbt', 'main/raw/raw_customers', 'id'))).toBe(true);
			expect(downstream.has(columnId('dbt', 'main/main/stg_customers', 'customer_id'))).toBe(true);
			expect(downstream.has(columnId('dbt', 'main/main/customers', 'customer_id'))).toBe(true);
			expect(downstream.has(out)).toBe(true);
			expect(traceColumn(out, cg).has(file)).toBe(true);
			// A column the facet names nowhere else: only the job says the export has it.
			expect(downstream.has(columnId('openlineage', 's3://exports/customers.parquet', 'lifetime_value'))).toBe(false);
			const exporter = g.runnables.find((r: any) => r.path === EXPORT_PATH);
			const ref = exporter.column_lineage.find((c: any) => c.column === 'customer_ref');
			expect(ref.inputs).toEqual([{ from_kind: 'dbt', from_path: 'main/main/customers', from_column: 'customer_id', source: 'annotation', kind: 'copy' }]);
			const value = exporter.column_lineage.find((c: any) => c.column === 'lifetime_value');
			expect(value.inputs[0].kind).toBe('mod');
			// INDIRECT (the filter, the whole-dataset list) is read, not a column edge.
			expect(exporter.column_lineage.flatMap((c: any) => c.inputs).some((i: any) => i.from_column === 'customer_type')).toBe(false);
		});

		it('column impact walks from the landing file across both jobs and the dbt models', async () => {
			const r = await w.c.alice.get(`/api/w/${WS}/assets/column_impact?asset_path=${encodeURIComponent('openlineage://s3://landing/customers.csv')}&column=cust_id`);
			expect(r.status, JSON.stringify(r.body)).toBe(200);
			const listed = r.body.columns.map((c: any) => `${c.kind}://${c.asset_path}.${c.column}`);
			expect(listed).toContain('dbt://main/raw/raw_customers.id');
			expect(listed).toContain('dbt://main/main/customers.customer_id');
			expect(listed).toContain('openlineage://s3://exports/customers.parquet.customer_ref');
			const out = r.body.columns.find((c: any) => c.column === 'customer_ref');
			expect(out.via).toContain(EXPORT_PATH);
			const bad = await w.c.alice.get(`/api/w/${WS}/assets/column_impact?asset_path=${encodeURIComponent('openlineage://s3://landing/customers.csv')}&column=nope`);
			expect(bad.status).toBe(400);
		});

		it("the project's OpenLineage export carries the exporting job with its datasets' own identities", async () => {
			const r = await w.c.alice.get(`/api/w/${WS}/dbt/openlineage?path=${encodeURIComponent(JAFFLE)}`);
			expect(r.status).toBe(200);
			const events = ndjsonEvents(r.body);
			const ev = events.find((e) => e.job.name.includes(EXPORT_PATH));
			expect(ev, 'the exporting job is exported').toBeDefined();
			expect(ev.outputs.map((d: any) => ({ namespace: d.namespace, name: d.name }))).toEqual([EXPORT]);
			expect(Object.keys(ev.outputs[0].facets.columnLineage.fields).sort()).toEqual(['customer_ref', 'lifetime_value']);
		});

		it("a job's lineage is its newest COMPLETE's: an older one changes nothing, a newer one replaces its edges", async () => {
			const older = await send(sender, exporterEvent('2026-12-01T05:00:00Z', ORDERS, 'customer_id'));
			expect(older.status).toBe(201);
			let g = await graphOf(w.c.alice);
			const reads = () => g.edges.filter((e: any) => e.runnable_path === EXPORT_PATH && e.access === 'r').map((e: any) => e.asset_path);
			expect(reads()).toEqual(['main/main/customers']);
			const newer = await send(sender, exporterEvent('2026-12-01T08:00:00Z', ORDERS, 'customer_id'));
			expect(newer.status).toBe(201);
			g = await graphOf(w.c.alice);
			expect(reads()).toEqual(['main/main/orders']);
			// A START after it names other datasets: a COMPLETE outranks it.
			expect((await send(sender, { ...exporterEvent('2026-12-01T09:00:00Z', CUSTOMERS, 'customer_id'), eventType: 'START' })).status).toBe(201);
			g = await graphOf(w.c.alice);
			expect(reads()).toEqual(['main/main/orders']);
			// Back to what it read at first, for the tests after this one.
			expect((await send(sender, exporterEvent('2026-12-01T10:00:00Z', CUSTOMERS, 'customer_id'))).status).toBe(201);
		});

		it("gates: a reader of the folder sees the jobs and their lineage; a member outside it neither; a token without scripts:read only the shape", async () => {
			const bob = await graphOf(w.c.bob);
			expect(bob.runnables.find((r: any) => r.path === EXPORT_PATH)?.column_lineage?.length).toBe(2);
			const carol = await graphOf(w.c.carol);
			expect(JSON.stringify(carol)).not.toContain('exports_customers_to_s3');
			expect(JSON.stringify(carol)).not.toContain('s3://exports');
			expect(carol.hidden).toBeGreaterThan(0);
			const shapeOnly = await graphOf(await w.token('alice', ['assets:read']));
			const job = shapeOnly.runnables.find((r: any) => r.path === EXPORT_PATH);
			expect(job).toBeDefined();
			expect(job.column_lineage).toBeUndefined();
			const impact = await w.c.carol.get(`/api/w/${WS}/assets/column_impact?asset_path=${encodeURIComponent('openlineage://s3://landing/customers.csv')}&column=cust_id`);
			expect(impact.status).toBe(200);
			expect(impact.body.columns).toEqual([]);
		});
	});
});
