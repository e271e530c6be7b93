// The OpenLineage export through the real routes, on both databases: the real jaffle-shop
// deploy (manifest + constructed index) and a run recorded from its real run_results, every
// event validated against the official schemas; counts checked against the fixture's own
// expected.json; the gates (outsider, insider without the project, shape-only token, share
// link), producers across the boundary, and bad input.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/lib/server/db';
import type { ApiClient } from '../support/api';
import { testBackends } from '../support/db';
import { describeFixtures, fixture } from '../support/fixtures';
import { deleteGraph, versionKey } from '../../src/lib/server/repo/graph';
import { insertJob, upsertProgress } from '../../src/lib/server/repo/jobs';
import { buildLineageWorld, deployGraph, hex, JAFFLE, jaffleAssetPaths, LEDGER, REPORT, SECRET, SHOP, shopV2, WS, type LineageWorld } from '../support/lineage-world';
import { ndjsonEvents, openLineageValidator } from '../support/openlineage-schemas';
import { jaffleWithExposure } from '../support/consumer-manifests';

const CONSUMER_JOB = /^(semantic_model|metric|saved_query|exposure)\./;

const RUN_RESULTS = fixture('jaffle-shop-1.12-duckdb-docs-generate', 'run_results.json');

describeFixtures('OpenLineage export', () => {
	const expected = JSON.parse(readFileSync(fixture('constructed-index', 'jaffle-shop-1.12', 'expected.json'), 'utf8'));

	describe.each(testBackends())('on $name', (backend) => {
		let database: Database;
		let w: LineageWorld;
		const validator = openLineageValidator();

		beforeAll(async () => {
			database = await backend.open();
			w = await buildLineageWorld(database);
		}, 120_000);
		afterAll(async () => {
			w?.restoreEnv();
			await database?.close();
		});

		const exportOf = (c: ApiClient, path: string, ref?: string) =>
			c.get(`/api/w/${WS}/dbt/openlineage?path=${encodeURIComponent(path)}${ref === undefined ? '' : `&ref=${ref}`}`);
		const eventsOf = async (p: Promise<{ status: number; body: unknown; headers: Headers }>) => {
			const r = await p;
			expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
			expect(r.headers.get('content-type')).toBe('application/x-ndjson');
			const events = ndjsonEvents(r.body);
			for (const e of events) expect(validator.errors(e), e.job?.name).toEqual([]);
			return events;
		};
		const modelName = (uid: string) => `${JAFFLE}/${uid}`;

		describe('a version of jaffle-shop', () => {
			let events: any[];
			beforeAll(async () => {
				events = await eventsOf(exportOf(w.c.alice, JAFFLE));
			});

			it('is one COMPLETE event per model, seed and snapshot of the manifest, each validated', async () => {
				const jobs = Object.values(w.manifest.nodes as Record<string, any>)
					.filter((n) => ['model', 'seed', 'snapshot'].includes(n.resource_type))
					.map((n) => modelName(n.unique_id))
					.sort();
				const dbtEvents = events.filter((e) => e.job.name.startsWith(`${JAFFLE}/`) && !CONSUMER_JOB.test(e.job.name.slice(JAFFLE.length + 1)));
				expect(dbtEvents.map((e) => e.job.name).sort()).toEqual(jobs);
				expect(new Set(events.map((e) => e.eventType))).toEqual(new Set(['COMPLETE']));
				expect(new Set(dbtEvents.map((e) => e.job.namespace))).toEqual(new Set([`tributary://${WS}`]));
				// Every facet kind the export writes was checked against its own schema.
				for (const f of ['ColumnLineageDatasetFacet', 'SchemaDatasetFacet', 'JobTypeJobFacet', 'SQLJobFacet']) {
					expect([...validator.checkedFacets].some((id) => id.includes(f)), f).toBe(true);
				}
			});

			it('names datasets by warehouse and default database, inputs from the ref() parents', () => {
				const customers = events.find((e) => e.job.name === modelName('model.jaffle_shop.customers'));
				const node = w.manifest.nodes['model.jaffle_shop.customers'];
				expect(customers.outputs.map((o: any) => [o.namespace, o.name])).toEqual([[`dbt://${WS}/main`, `jaffle_shop.${node.schema}.${node.alias}`]]);
				const parents = node.depends_on.nodes.map((id: string) => {
					const p = w.manifest.nodes[id] ?? w.manifest.sources[id];
					return `jaffle_shop.${p.schema}.${p.alias ?? p.identifier}`;
				});
				expect(customers.inputs.map((i: any) => i.name).sort()).toEqual(parents.sort());
			});

			it('column lineage per model: as many identity, transformed and indirect inputs as the index has copy, mod and scan edges', () => {
				for (const [uid, counts] of Object.entries(expected.column_lineage.counts_by_to_node as Record<string, { copy: number; mod: number; scan: number }>)) {
					const ev = events.find((e) => e.job.name === modelName(uid));
					const facet = ev.outputs[0].facets?.columnLineage;
					const fields = Object.values(facet?.fields ?? {}) as { inputFields: any[] }[];
					// A scan reaching every output column is written once, as whole-dataset lineage.
					const got = { copy: 0, mod: 0, scan: (facet?.dataset ?? []).length * fields.length };
					for (const f of fields) {
						for (const i of f.inputFields) {
							const ts: any[] = i.transformations;
							if (ts.some((t) => t.type === 'DIRECT' && t.subtype === 'IDENTITY')) got.copy++;
							if (ts.some((t) => t.type === 'DIRECT' && t.subtype !== 'IDENTITY')) got.mod++;
							if (ts.some((t) => t.type === 'INDIRECT')) got.scan++;
						}
					}
					expect(got, uid).toEqual(counts);
				}
			});

			it('customers: aggregates and join keys named from its SQL, its schema from the typed columns', () => {
				const ev = events.find((e) => e.job.name === modelName('model.jaffle_shop.customers'));
				const out = ev.outputs[0];
				expect(out.facets.schema.fields.map((f: any) => f.name)).toEqual(expected.model_output_columns['model.jaffle_shop.customers']);
				expect(out.facets.schema.fields.every((f: any) => typeof f.type === 'string' && f.type.length > 0)).toBe(true);
				const spend = out.facets.columnLineage.fields.lifetime_spend.inputFields;
				expect(spend.some((i: any) => i.field === 'order_total' && i.transformations.some((t: any) => t.subtype === 'AGGREGATION'))).toBe(true);
				// jaffle's scans reach every output column: whole-dataset lineage, the join key among them.
				const indirect = out.facets.columnLineage.dataset.flatMap((i: any) => i.transformations.map((t: any) => `${i.field}:${t.type}/${t.subtype ?? ''}`));
				expect(indirect).toContain('customer_id:INDIRECT/JOIN');
				expect(ev.job.facets.sql.query).toBe(w.manifest.nodes['model.jaffle_shop.customers'].raw_code);
			});

			it("its consumers are jobs of the project: semantic models, metrics and saved queries each write a dataset of their own, with column lineage down to the relations", () => {
				const consumers = events.filter((e) => e.job.name.startsWith(`${JAFFLE}/`) && CONSUMER_JOB.test(e.job.name.slice(JAFFLE.length + 1)));
				const byType = (t: string) => consumers.filter((e) => e.job.facets.jobType.jobType === t).length;
				expect([byType('SEMANTIC_MODEL'), byType('METRIC'), byType('SAVED_QUERY'), byType('EXPOSURE')]).toEqual([6, 23, 3, 0]);
				const ns = `dbt-consumer://${WS}/${JAFFLE}`;
				const ofJob = (uid: string) => consumers.find((e) => e.job.name === `${JAFFLE}/${uid}`);
				// A semantic model reads its model; each entity, dimension and measure from the model's columns.
				const sm = ofJob('semantic_model.jaffle_shop.orders');
				expect(sm.inputs.map((i: any) => i.name)).toEqual(['jaffle_shop.main.orders']);
				expect(sm.outputs).toHaveLength(1);
				expect(sm.outputs[0]).toMatchObject({ namespace: ns, name: 'semantic_model.jaffle_shop.orders' });
				expect(sm.outputs[0].facets.columnLineage.fields.customer.inputFields).toEqual([
					{ namespace: sm.inputs[0].namespace, name: 'jaffle_shop.main.orders', field: 'customer_id', transformations: [{ type: 'DIRECT', subtype: 'TRANSFORMATION' }] }
				]);
				// A metric reads the semantic model's dataset; its field, the relation column under the measure.
				const revenue = ofJob('metric.jaffle_shop.revenue');
				expect(revenue.inputs).toEqual([{ namespace: ns, name: 'semantic_model.jaffle_shop.order_items' }]);
				expect(revenue.outputs[0].facets.columnLineage.fields.revenue.inputFields.map((i: any) => [i.name, i.field])).toEqual([['jaffle_shop.main.order_items', 'product_price']]);
				// Every consumer dataset read is one the export writes.
				const written = new Set(consumers.flatMap((e) => e.outputs.map((o: any) => `${o.namespace}\u0000${o.name}`)));
				for (const e of consumers) for (const i of e.inputs) if (i.namespace === ns) expect(written.has(`${i.namespace}\u0000${i.name}`), i.name).toBe(true);
				expect([...validator.checkedFacets].some((id) => id.includes('JobTypeJobFacet'))).toBe(true);
			});

			it('consumers are authored: none for an insider shown the shape only; a token narrowed away from a relation hides what reads it; an outsider gets nothing', async () => {
				const names = (evs: any[]) => evs.map((e) => e.job.name as string).filter((n) => CONSUMER_JOB.test(n.slice(JAFFLE.length + 1)));
				expect(names(await eventsOf(exportOf(await w.token('alice', ['assets:read']), JAFFLE)))).toEqual([]);
				const partial = await eventsOf(exportOf(await w.token('alice', ['assets:read:main/main/order_items', 'assets:read:main/main/orders', 'scripts:read']), JAFFLE));
				const got = new Set(names(partial).map((n) => n.slice(JAFFLE.length + 1)));
				expect(got.has('metric.jaffle_shop.revenue')).toBe(true);
				expect(got.has('semantic_model.jaffle_shop.orders')).toBe(true);
				// lifetime_spend is over customers, withheld: not named, not a dataset, not an input.
				for (const hidden of ['metric.jaffle_shop.lifetime_spend', 'semantic_model.jaffle_shop.customers', 'metric.jaffle_shop.average_order_value']) {
					expect(got.has(hidden)).toBe(false);
					expect(JSON.stringify(partial)).not.toContain(hidden);
				}
				for (const c of [w.c.bob, w.c.carol]) {
					const r = await exportOf(c, JAFFLE);
					expect(r.status).toBe(404);
					expect(JSON.stringify(r.body)).not.toContain('metric.jaffle_shop');
				}
			});

			it('an exposure is the end of the line: a job reading the metric and the model it depends on, writing nothing', async () => {
				const f = new FormData();
				f.set('path', 'f/analytics/with-exposure');
				f.set('manifest', new Blob([jaffleWithExposure()]), 'manifest.json');
				const d = await w.c.alice.call('POST', `/api/w/${WS}/scripts/dbt/deploy`, { form: f });
				expect(d.status, JSON.stringify(d.body)).toBe(201);
				const evs = await eventsOf(exportOf(w.c.alice, 'f/analytics/with-exposure'));
				const exposures = evs.filter((e) => e.job.facets.jobType.jobType === 'EXPOSURE');
				expect(exposures).toHaveLength(1);
				const [x] = exposures;
				expect(x.outputs).toEqual([]);
				expect(x.inputs).toEqual(
					expect.arrayContaining([
						{ namespace: `dbt-consumer://${WS}/f/analytics/with-exposure`, name: 'metric.jaffle_shop.revenue' },
						expect.objectContaining({ name: 'jaffle_shop.main.orders' })
					])
				);
				// The exposure sits on orders: a token that does not reach it does not see the exposure.
				const narrow = await eventsOf(exportOf(await w.token('alice', ['assets:read:main/main/order_items', 'scripts:read']), 'f/analytics/with-exposure'));
				expect(narrow.filter((e) => e.job.facets?.jobType?.jobType === 'EXPOSURE')).toEqual([]);
			});

			it('the same version exported twice names the same runs', async () => {
				const again = await eventsOf(exportOf(w.c.alice, JAFFLE, hex(w.hashes.jaffle)));
				expect(again.map((e) => e.run.runId)).toEqual(events.map((e) => e.run.runId));
			});
		});

		describe('refs, producers and gates', () => {
			it('ref names a version; latest is the newest', async () => {
				const v1 = await eventsOf(exportOf(w.c.alice, SHOP, hex(w.hashes.shopV1)));
				const latest = await eventsOf(exportOf(w.c.alice, SHOP, 'latest'));
				const names = (es: any[]) => es.map((e) => e.job.name);
				expect(names(v1)).toContain(`${SHOP}/model.shop.stock_daily`);
				expect(names(latest)).not.toContain(`${SHOP}/model.shop.stock_daily`);
				expect(names(latest)).toContain(`${SHOP}/model.shop.orders`);
			});

			it("a producer that reads the project's relations is exported, with its lineage across the boundary", async () => {
				const events = await eventsOf(exportOf(w.c.alice, SHOP));
				const report = events.find((e) => e.job.name === REPORT);
				expect(report.inputs.map((i: any) => [i.namespace, i.name])).toEqual([[`dbt://${WS}/main`, 'jaffle_shop.analytics.orders']]);
				expect(report.outputs[0]).toMatchObject({ namespace: `ducklake://${WS}/main`, name: 'report' });
				expect(report.outputs[0].facets.columnLineage.fields.order_ref.inputFields).toEqual([
					{ namespace: `dbt://${WS}/main`, name: 'jaffle_shop.analytics.orders', field: 'order_id', transformations: [{ type: 'DIRECT', subtype: 'IDENTITY' }] }
				]);
				// The scan stored beside the copy is exported as INDIRECT.
				const orders = events.find((e) => e.job.name === `${SHOP}/model.shop.orders`);
				const inputs = orders.outputs[0].facets.columnLineage.fields.order_id.inputFields;
				expect(inputs.map((i: any) => [i.field, i.transformations[0].type]).sort()).toEqual([
					['id', 'DIRECT'],
					['status', 'INDIRECT']
				]);
			});

			it('a producer the caller may not see is not named; its project readers still get theirs', async () => {
				// carol reads finance only: the ledger reads shop's orders, the report producer lives in analytics.
				const events = await eventsOf(exportOf(w.c.carol, LEDGER));
				expect(JSON.stringify(events)).not.toContain(REPORT);
				expect(events.map((e) => e.job.name)).toEqual([`${LEDGER}/model.ledger.ledger`]);
			});

			it('a caller who may see only the shape gets jobs and datasets, no SQL, schema or column lineage', async () => {
				const shape = await w.token('alice', ['assets:read']);
				const events = await eventsOf(exportOf(shape, SHOP));
				const text = JSON.stringify(events);
				expect(text).not.toContain(SECRET);
				expect(text).not.toContain('columnLineage');
				expect(text).not.toContain('"sql"');
				expect(text).not.toContain('"schema"');
				expect(events.find((e) => e.job.name === `${SHOP}/model.shop.orders`).inputs.map((i: any) => i.name)).toEqual(['jaffle_shop.analytics.raw_orders']);
			});

			it('a token narrowed to some assets: the others are neither datasets nor inputs of column lineage', async () => {
				const narrow = await w.token('alice', ['assets:read:main/analytics/orders', 'scripts:read']);
				const events = await eventsOf(exportOf(narrow, SHOP));
				expect(JSON.stringify(events)).not.toContain('raw_orders');
				expect(events.find((e) => e.job.name === `${SHOP}/model.shop.orders`).outputs[0].name).toBe('jaffle_shop.analytics.orders');
			});

			it('one 404 for a path not yours, a missing version and a version of another path', async () => {
				const answers = [
					await exportOf(w.c.bob, SHOP),
					await exportOf(w.c.carol, SHOP),
					await exportOf(w.c.alice, SHOP, hex(w.hashes.ledger)),
					await exportOf(w.c.alice, SHOP, 'ffffffffffffffff'),
					await exportOf(w.c.alice, 'f/analytics/nothing-here')
				];
				for (const r of answers) expect([r.status, r.body]).toEqual([404, { error: 'no dbt project version at this path and ref' }]);
			});

			it('a version whose graph retention pruned: 410 naming the rule', async () => {
				const hash = await deployGraph(database, 'f/analytics/pruned', shopV2(), 'alice');
				await database.db.transaction((tx) => deleteGraph(tx, versionKey(WS, 'f/analytics/pruned', hash)));
				const r = await exportOf(w.c.alice, 'f/analytics/pruned', hex(hash));
				expect([r.status, r.body.error]).toEqual([410, 'the graph of this version was pruned: Tributary keeps the graphs of the newest 50 deploys of a path']);
				// To a caller who may not read the path it is as absent as any other.
				expect((await exportOf(w.c.carol, 'f/analytics/pruned', hex(hash))).status).toBe(404);
			});

			it('bad input is a 400 naming the parameter; no credentials a 401; a token without assets:read a 403', async () => {
				expect((await w.c.alice.get(`/api/w/${WS}/dbt/openlineage`)).body.error).toMatch(/^path/);
				expect((await exportOf(w.c.alice, 'nope')).body.error).toMatch(/^path/);
				const bad = await exportOf(w.c.alice, SHOP, 'yesterday');
				expect([bad.status, bad.body.error]).toEqual([400, 'ref must be a version hash (16 hex digits) or latest']);
				expect((await exportOf(w.c.anon, SHOP)).status).toBe(401);
				const noAssets = await w.token('alice', ['scripts:read']);
				const r = await exportOf(noAssets, SHOP);
				expect([r.status, r.body.error]).toEqual([403, 'this token lacks the scope assets:read']);
			});
		});

		describe("a run's events", () => {
			let runId: string;
			let failedRunId: string;
			const rr = JSON.parse(readFileSync(RUN_RESULTS, 'utf8'));
			const record = async (text: string) => {
				const form = new FormData();
				form.set('path', JAFFLE);
				form.set('script_hash', hex(w.hashes.jaffle));
				form.set('run_results', new Blob([text]), 'run_results.json');
				const r = await w.c.alice.call('POST', `/api/w/${WS}/jobs/record`, { form });
				expect(r.status, JSON.stringify(r.body)).toBe(201);
				return r.body.job_id as string;
			};
			beforeAll(async () => {
				runId = await record(readFileSync(RUN_RESULTS, 'utf8'));
				// The same run with stg_orders failing (a mutated copy of the real file).
				const failing = structuredClone(rr);
				const stg = failing.results.find((r: any) => r.unique_id === 'model.jaffle_shop.stg_orders');
				stg.status = 'error';
				stg.message = `Runtime Error ${SECRET}`;
				failedRunId = await record(JSON.stringify(failing));
			});
			const runEvents = (c: ApiClient, id: string, token?: string) => eventsOf(c.get(`/api/w/${WS}/jobs/openlineage/${id}${token ? `?view_token=${token}` : ''}`));

			it('the run, then START and COMPLETE per model it built, children of the run, each validated', async () => {
				const events = await runEvents(w.c.alice, runId);
				expect(events[0]).toMatchObject({ eventType: 'START', run: { runId }, job: { name: JAFFLE } });
				expect(events.at(-1)).toMatchObject({ eventType: 'COMPLETE', run: { runId }, job: { name: JAFFLE } });
				const built = rr.results.filter((r: any) => /^(model|seed|snapshot)\./.test(r.unique_id)).map((r: any) => modelName(r.unique_id)).sort();
				const children = events.slice(1, -1);
				expect([...new Set(children.map((e) => e.job.name))].sort()).toEqual(built);
				for (const name of built) expect(children.filter((e) => e.job.name === name).map((e) => e.eventType)).toEqual(['START', 'COMPLETE']);
				for (const e of children) expect(e.run.facets.parent).toMatchObject({ run: { runId }, job: { namespace: `tributary://${WS}`, name: JAFFLE } });
				// START names the datasets; the end carries their facets.
				const start = children.find((e) => e.job.name === modelName('model.jaffle_shop.customers') && e.eventType === 'START');
				expect(start.outputs).toEqual([{ namespace: `dbt://${WS}/main`, name: 'jaffle_shop.main.customers' }]);
				const customers = children.find((e) => e.job.name === modelName('model.jaffle_shop.customers') && e.eventType === 'COMPLETE');
				expect(customers.outputs[0].facets.columnLineage.fields.lifetime_spend).toBeDefined();
			});

			it('a failed model is a FAIL with its message, and the run a FAIL', async () => {
				const events = await runEvents(w.c.alice, failedRunId);
				const fail = events.find((e) => e.job.name === modelName('model.jaffle_shop.stg_orders') && e.eventType !== 'START');
				expect(fail.eventType).toBe('FAIL');
				expect(fail.run.facets.errorMessage).toMatchObject({ message: `Runtime Error ${SECRET}`, programmingLanguage: 'SQL' });
				expect(events.at(-1)).toMatchObject({ eventType: 'FAIL', run: { runId: failedRunId } });
				expect([...validator.checkedFacets].some((id) => id.includes('ErrorMessageRunFacet'))).toBe(true);
			});

			it('a run still going: its START, and per relation what the live progress says so far', async () => {
				const id = await database.db.transaction((tx) =>
					insertJob(tx, { workspace: WS, kind: 'run', scriptPath: JAFFLE, scriptHash: w.hashes.jaffle, createdBy: 'alice', permissionedAs: 'u/alice', status: 'running' })
				);
				const pathOf = jaffleAssetPaths(w.manifest);
				await upsertProgress(database, WS, id, [
					{ assetKind: 'dbt', assetPath: pathOf.get('model.jaffle_shop.stg_orders')!, status: 'materialized', rowCount: 61948 },
					{ assetKind: 'dbt', assetPath: pathOf.get('model.jaffle_shop.orders')!, status: 'running' },
					{ assetKind: 'dbt', assetPath: pathOf.get('model.jaffle_shop.customers')!, status: 'failed', error: 'Binder Error: no such column' }
				]);
				const events = await runEvents(w.c.alice, id);
				const typesOf = (uid: string) => events.filter((e) => e.job.name === modelName(uid)).map((e) => e.eventType);
				expect(events.filter((e) => e.run.runId === id).map((e) => e.eventType)).toEqual(['START']);
				expect(typesOf('model.jaffle_shop.stg_orders')).toEqual(['START', 'COMPLETE']);
				expect(typesOf('model.jaffle_shop.orders')).toEqual(['START']);
				expect(typesOf('model.jaffle_shop.customers')).toEqual(['START', 'FAIL']);
				expect(events.find((e) => e.eventType === 'FAIL').run.facets.errorMessage.message).toBe('Binder Error: no such column');
				expect(events).toHaveLength(6);
			});

			it('a share-link viewer gets the outcome without SQL, lineage or messages', async () => {
				const link = await w.c.alice.get(`/api/w/${WS}/jobs/share/${failedRunId}?kind=public`);
				expect(link.status).toBe(200);
				const events = await runEvents(w.c.anon, failedRunId, link.body.token);
				const text = JSON.stringify(events);
				expect(text).not.toContain(SECRET);
				expect(text).not.toContain('columnLineage');
				expect(text).not.toContain('"sql"');
				expect(events.find((e) => e.job.name === modelName('model.jaffle_shop.stg_orders') && e.eventType === 'FAIL')).toBeDefined();
			});

			it('gated like every job read: 404 for an outsider, 403 for a member without access', async () => {
				const outsider = await w.c.anon.get(`/api/w/${WS}/jobs/openlineage/${runId}`);
				expect(outsider.status).toBe(401);
				const bob = await w.c.bob.get(`/api/w/${WS}/jobs/openlineage/${runId}`);
				expect(bob.status).toBe(403);
				const missing = await w.c.alice.get(`/api/w/${WS}/jobs/openlineage/00000000-0000-4000-8000-000000000000`);
				expect([missing.status, missing.body.error]).toEqual([404, 'no such job']);
				const noAssets = await w.token('alice', ['jobs:read', 'scripts:read']);
				expect((await noAssets.get(`/api/w/${WS}/jobs/openlineage/${runId}`)).status).toBe(403);
			});
		});
	});
});
