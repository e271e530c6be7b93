// Exposures, semantic models, metrics and saved queries stored with a deployed graph and served in
// the asset graph, on both databases: who sees them (the folder's readers; never an outsider, a
// token narrowed away from their relations, or a token without scripts:read), and bad input
// stored with warnings naming it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/lib/server/db';
import type { AssetGraph } from '../../src/lib/types/asset-graph';
import type { ApiClient } from '../support/api';
import { consumerVariant } from '../support/consumer-manifests';
import { testBackends } from '../support/db';
import { describeFixtures } from '../support/fixtures';
import { buildLineageWorld, JAFFLE, WS, type LineageWorld } from '../support/lineage-world';

describeFixtures('consumers in the asset graph', () => {
	describe.each(testBackends())('on $name', (backend) => {
		let database: Database;
		let w: LineageWorld;
		beforeAll(async () => {
			database = await backend.open();
			w = await buildLineageWorld(database);
		});
		afterAll(async () => {
			w?.restoreEnv();
			await database?.close();
		});

		const graph = async (c: ApiClient, query = ''): Promise<AssetGraph> => {
			const r = await c.get(`/api/w/${WS}/assets/graph${query ? `?${query}` : ''}`);
			expect(r.status, JSON.stringify(r.body)).toBe(200);
			return r.body;
		};

		it("the folder's readers see jaffle-shop's semantic models, metrics and saved queries, mapped to relation columns", async () => {
			for (const c of [w.c.alice, w.c.wsadmin]) {
				const g = await graph(c, 'folder=analytics');
				const mine = (g.consumers ?? []).filter((x) => x.script_path === JAFFLE);
				const byType = (t: string) => mine.filter((x) => x.type === t).length;
				expect([byType('semantic_model'), byType('metric'), byType('saved_query')]).toEqual([6, 23, 3]);
				const revenue = mine.find((x) => x.unique_id === 'metric.jaffle_shop.revenue')!;
				expect(revenue).toMatchObject({ metric_type: 'simple', columns: [{ asset_path: 'main/main/order_items', column: 'product_price' }] });
				expect(revenue.depends_on).toEqual(['semantic_model.jaffle_shop.order_items']);
				const sm = mine.find((x) => x.unique_id === 'semantic_model.jaffle_shop.orders')!;
				expect(sm.model_asset).toBe('main/main/orders');
				expect(sm.depends_on_assets).toEqual(['main/main/orders']);
				expect(sm.fields!.find((f) => f.name === 'customer')).toMatchObject({ role: 'entity', expr: 'customer_id', reads: ['customer_id'] });
				// Every relation end is an asset of the same answer.
				const drawn = new Set(g.assets.map((a) => a.path));
				for (const x of mine) for (const p of [...x.depends_on_assets, ...(x.columns ?? []).map((c) => c.asset_path)]) expect(drawn.has(p)).toBe(true);
			}
		});

		it('an outsider sees no name and no edge of them; neither does a token narrowed away or one without scripts:read', async () => {
			for (const c of [w.c.bob, w.c.carol]) {
				const g = await graph(c);
				expect(g.consumers ?? []).toEqual([]);
				const text = JSON.stringify(g);
				for (const name of ['food_revenue_pct', 'semantic_model.jaffle_shop', 'customer_order_metrics']) expect(text).not.toContain(name);
				expect((await c.get(`/api/w/${WS}/assets/graph?folder=analytics`)).status).toBe(404);
			}
			// Its relations withheld by the token's asset paths: the metrics over them go too.
			const narrowed = await graph(await w.token('alice', ['assets:read:main/analytics/*', 'scripts:read']), 'folder=analytics');
			expect((narrowed.consumers ?? []).filter((x) => x.script_path === JAFFLE)).toEqual([]);
			expect(JSON.stringify(narrowed)).not.toContain('food_revenue_pct');
			// One relation withheld: what reads it is hidden, what does not is still served.
			const partial = await graph(await w.token('alice', ['assets:read:main/main/order_items', 'assets:read:main/main/orders', 'scripts:read']), 'folder=analytics');
			const ids = new Set((partial.consumers ?? []).map((x) => x.unique_id));
			expect(ids.has('metric.jaffle_shop.revenue')).toBe(true);
			expect(ids.has('metric.jaffle_shop.order_total')).toBe(true);
			expect(ids.has('metric.jaffle_shop.lifetime_spend')).toBe(false);
			expect(ids.has('semantic_model.jaffle_shop.customers')).toBe(false);
			// order_gross_profit reads order_items and orders; average_order_value reads customers.
			expect(ids.has('metric.jaffle_shop.order_gross_profit')).toBe(true);
			expect(ids.has('metric.jaffle_shop.average_order_value')).toBe(false);
			const shapeOnly = await graph(await w.token('alice', ['assets:read']), 'folder=analytics');
			expect(shapeOnly.consumers ?? []).toEqual([]);
		});

		it("the deploy's pinned graph: its readers see the consumers, a share link's holder does not", async () => {
			const job = w.jobs.DEPLOY;
			const own = await w.c.alice.get(`/api/w/${WS}/jobs/dbt_graph/${job}`);
			expect(own.status, JSON.stringify(own.body)).toBe(200);
			expect((own.body as AssetGraph).consumers!.some((c) => c.unique_id === 'metric.jaffle_shop.revenue')).toBe(true);
			const link = await w.c.alice.get(`/api/w/${WS}/jobs/share/${job}?kind=member`);
			expect(link.status, JSON.stringify(link.body)).toBe(200);
			const viewed = await w.c.bob.get(`/api/w/${WS}/jobs/dbt_graph/${job}?view_token=${link.body.token}`);
			expect(viewed.status, JSON.stringify(viewed.body)).toBe(200);
			expect((viewed.body as AssetGraph).assets.length).toBeGreaterThan(0);
			expect((viewed.body as AssetGraph).consumers).toBeUndefined();
			expect(JSON.stringify(viewed.body)).not.toContain('food_revenue_pct');
		});

		it("column impact names the metrics a column's change breaks, for the project's readers only", async () => {
			const url = `/api/w/${WS}/assets/column_impact?asset_path=${encodeURIComponent('dbt://main/main/stg_order_items')}&column=product_id`;
			const price = `/api/w/${WS}/assets/column_impact?asset_path=${encodeURIComponent('dbt://main/main/order_items')}&column=product_price`;
			const r = await w.c.alice.get(price);
			expect(r.status, JSON.stringify(r.body)).toBe(200);
			const names = (r.body.consumers ?? []).map((c: { type: string; name: string }) => `${c.type}:${c.name}`);
			expect(names).toEqual(expect.arrayContaining(['metric:revenue', 'metric:food_revenue_pct', 'metric:cumulative_revenue', 'saved_query:revenue_metrics']));
			expect(r.body.consumers.find((c: { name: string }) => c.name === 'revenue').via).toEqual(['order_items.product_price']);
			// Upstream never names consumers.
			expect((await w.c.alice.get(`${price}&direction=upstream`)).body).not.toHaveProperty('consumers');
			// Through the lineage: stg_order_items.product_id reaches order_items.product_id, an entity and dimension key.
			const through = await w.c.alice.get(url);
			expect(through.status).toBe(200);
			expect(through.body.columns.map((c: { asset_path: string; column: string }) => `${c.asset_path}.${c.column}`)).toContain('main/main/order_items.product_id');
			expect(through.body.consumers.find((c: { name: string }) => c.name === 'order_items')).toMatchObject({ type: 'semantic_model', via: ['order_items.product_id'] });
			// An outsider: an empty answer, no consumer named.
			for (const c of [w.c.bob, w.c.carol]) {
				const o = await c.get(price);
				expect(o.body.consumers).toBeUndefined();
				expect(JSON.stringify(o.body)).not.toContain('revenue');
			}
		});

		it('bad input is stored with a warning naming it, never a failed deploy', async () => {
			const f = new FormData();
			f.set('path', 'f/analytics/people');
			f.set('manifest', new Blob([consumerVariant({ bad: true })]), 'manifest.json');
			const r = await w.c.alice.call('POST', `/api/w/${WS}/scripts/dbt/deploy`, { form: f });
			expect(r.status, JSON.stringify(r.body)).toBe(201);
			expect(r.body.warnings).toEqual(
				expect.arrayContaining([
					'metric `ghost_metric` refers to measure `no_such_measure`, which no semantic model defines',
					expect.stringMatching(/^semantic model `semantic_people`: the expr of measure `broken` does not parse/),
					'exposure `finance_dashboard` depends on `model.test.gone`, which is not in the manifest'
				])
			);
			const g = await graph(w.c.alice, 'folder=analytics');
			const people = (g.consumers ?? []).filter((x) => x.script_path === 'f/analytics/people');
			const ghost = people.find((x) => x.name === 'ghost_metric')!;
			expect(ghost.warnings).toEqual(['metric `ghost_metric` refers to measure `no_such_measure`, which no semantic model defines']);
			const dash = people.find((x) => x.name === 'finance_dashboard')!;
			expect(dash).toMatchObject({ type: 'exposure', url: 'https://bi.example.com/finance', maturity: 'high', owner: { name: 'Finance', email: 'finance@example.com' } });
			expect(dash.depends_on).toEqual(['metric.test.customers', 'model.test.my_model']);
		});
	});
});
