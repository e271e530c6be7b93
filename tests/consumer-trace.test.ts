// The consumer layer on the canvas and at the end of a column trace, from the real jaffle-shop
// 1.12 manifest and a small variant of dbt-core's v12 compat manifest (an exposure over a metric).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { graphConsumers, type DescribedGraph } from '../src/lib/lineage/asset-graph';
import { canvasFromAssetGraph, consumerNodeId, fromWire, toWire } from '../src/lib/lineage/canvas-model';
import { buildGroupTree } from '../src/lib/lineage/canvas-groups';
import { consumerIndex, consumersReached } from '../src/lib/lineage/consumer-trace';
import { evaluateSelector, selectorGraph } from '../src/lib/lineage/selector';
import { resolveConsumers } from '../src/lib/lineage/consumers';
import { consumerExprReader } from '../src/lib/server/ingest/consumer-exprs';
import { parseManifest } from '../src/lib/server/ingest/manifest';
import type { AssetGraph } from '../src/lib/types/asset-graph';
import type { GraphConsumer } from '../src/lib/types/consumers';
import { consumerVariant } from './support/consumer-manifests';
import { describeFixtures, fixture } from './support/fixtures';

const PROJECT = 'f/analytics/jaffle';

async function servedConsumers(text: string, drawn: (p: string) => boolean = () => true): Promise<{ consumers: GraphConsumer[]; paths: string[] }> {
	const g = parseManifest(text, { warehouse: 'main' });
	resolveConsumers(g.consumers, await consumerExprReader(g.consumers, g.adapterType));
	const described: DescribedGraph = {
		scriptPath: PROJECT,
		scriptHash: '0000000000000001',
		authored: true,
		nodes: g.nodes.map((n) => ({ ...n, columnSchema: null })) as never,
		edges: g.edges,
		consumers: g.consumers
	};
	return { consumers: graphConsumers([described], drawn), paths: g.nodes.flatMap((n) => (n.assetPath ? [n.assetPath] : [])) };
}

describeFixtures('the consumer layer', () => {
	it('jaffle-shop: a trace from order_items.product_price ends in revenue and everything built on it', async () => {
		const { consumers } = await servedConsumers(readFileSync(fixture('jaffle-shop-1.12-duckdb-docs-generate', 'manifest.json'), 'utf8'));
		const orderItems = consumers.find((c) => c.name === 'order_items' && c.type === 'semantic_model')!.model_asset!;
		const hits = consumersReached(consumerIndex(consumers), [{ asset_path: orderItems, column: 'product_price' }]);
		const names = hits.map((h) => `${h.consumer.type}:${h.consumer.name}`);
		expect(names).toEqual([
			'metric:cumulative_revenue',
			'metric:drink_revenue',
			'metric:drink_revenue_pct',
			'metric:food_revenue',
			'metric:food_revenue_pct',
			'metric:median_revenue',
			'metric:order_gross_profit',
			'metric:revenue',
			'metric:revenue_growth_mom',
			// It queries revenue.
			'saved_query:revenue_metrics'
		]);
		expect(hits.find((h) => h.consumer.name === 'revenue')!.via).toEqual(['order_items.product_price']);
		expect(hits.find((h) => h.consumer.name === 'cumulative_revenue')!.via).toEqual(['order_items.product_price', 'metric revenue']);
		// A dimension's column reaches its semantic model (and no metric that does not read it).
		const dim = consumersReached(consumerIndex(consumers), [{ asset_path: orderItems, column: 'ordered_at' }]);
		expect(dim.map((h) => [h.consumer.name, h.fields])).toEqual([['order_items', ['dimension ordered_at']]]);
	});

	it('an exposure over a metric: the trace names the metric and the dashboard above it', async () => {
		const { consumers } = await servedConsumers(consumerVariant());
		const model = consumers.find((c) => c.type === 'semantic_model')!.model_asset!;
		const hits = consumersReached(consumerIndex(consumers), [{ asset_path: model, column: 'tenure' }]);
		expect(hits.map((h) => `${h.consumer.type}:${h.consumer.name}`)).toEqual([
			'semantic_model:semantic_people',
			'metric:visit_to_buy',
			'exposure:finance_dashboard',
			'exposure:simple_exposure'
		]);
		expect(hits.find((h) => h.consumer.name === 'finance_dashboard')!.via).toEqual(['my_model']);
	});

	it('drawn as a consumer layer: own node type, edges from models, a group of its own, through the wire form', async () => {
		const { consumers, paths } = await servedConsumers(consumerVariant());
		const graph: AssetGraph = {
			assets: paths.map((p) => ({ kind: 'dbt', path: p })),
			runnables: [],
			edges: [],
			dbt_edges: [],
			hidden: 0,
			consumers
		};
		const canvas = canvasFromAssetGraph(graph);
		const metric = canvas.nodes.find((n) => n.id === consumerNodeId(PROJECT, 'metric.test.visit_to_buy'))!;
		expect(metric).toMatchObject({ type: 'consumer', kind: 'metric', name: 'visit_to_buy', materialized: 'conversion' });
		const dash = consumerNodeId(PROJECT, 'exposure.test.finance_dashboard');
		const into = canvas.edges.filter((e) => e.target === dash).map((e) => e.source).sort();
		expect(into).toEqual([consumerNodeId(PROJECT, 'metric.test.customers'), `dbt:${consumers.find((c) => c.type === 'semantic_model')!.model_asset}`]);
		const back = fromWire(toWire(canvas));
		expect(back.nodes).toEqual(canvas.nodes);
		expect(back.edges).toEqual(canvas.edges);
		// Grouped as a big folder would be (a small one is drawn flat).
		const tree = buildGroupTree(canvas.nodes, canvas.edges, { flatMax: 0 });
		const group = tree.parentOf.get(metric.id)!;
		expect(tree.groups.get(group)!.label).toMatch(/^metrics & exposures/);
	});

	it('selectors: exposure:name+, +metric:name, semantic_model:name on the canvas', async () => {
		const { consumers, paths } = await servedConsumers(consumerVariant());
		const canvas = canvasFromAssetGraph({ assets: paths.map((p) => ({ kind: 'dbt', path: p })), runnables: [], edges: [], dbt_edges: [], hidden: 0, consumers });
		const g = selectorGraph(canvas.nodes, canvas.edges);
		const names = (q: string) => {
			const r = evaluateSelector(q, g);
			expect(r.kind, q).toBe('selection');
			return r.kind === 'selection' ? [...r.ids].map((id) => canvas.nodes.find((n) => n.id === id)!.name).sort() : [];
		};
		expect(names('semantic_model:semantic_people')).toEqual(['semantic_people']);
		expect(names('+metric:visit_to_buy')).toEqual(['my_model', 'semantic_people', 'visit_to_buy']);
		expect(names('metric:customers+')).toEqual(['customers', 'doubled_blue_customers', 'finance_dashboard', 'ratio_of_blue_customers_to_red_customers']);
		expect(names('exposure:finance*')).toEqual(['finance_dashboard']);
	});

	it('hidden relations hide what reads them', async () => {
		const all = await servedConsumers(consumerVariant());
		const model = all.consumers.find((c) => c.type === 'semantic_model')!.model_asset!;
		const { consumers } = await servedConsumers(consumerVariant(), (p) => p !== model);
		expect(consumers).toEqual([]);
	});
});

describe('consumersReached without consumers', () => {
	it('reaches nothing', () => {
		expect(consumersReached(consumerIndex([]), [{ asset_path: 'main/x/y', column: 'a' }])).toEqual([]);
	});
});
