// Exposures, semantic models, metrics and saved queries of the real manifests (v10-v12), read
// through the manifest ingest and resolved down to model columns by the SQL-lineage engine.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resolveConsumers } from '../src/lib/lineage/consumers';
import { consumerExprReader } from '../src/lib/server/ingest/consumer-exprs';
import { parseManifest } from '../src/lib/server/ingest/manifest';
import type { Consumer } from '../src/lib/types/consumers';
import { describeFixtures, fixture } from './support/fixtures';
import { consumerVariant } from './support/consumer-manifests';

async function consumersOf(text: string): Promise<{ consumers: Map<string, Consumer>; warnings: string[] }> {
	const g = parseManifest(text);
	const warnings = resolveConsumers(g.consumers, await consumerExprReader(g.consumers, g.adapterType));
	return { consumers: new Map(g.consumers.map((c) => [c.unique_id, c])), warnings };
}

const COMPAT = ['manifest_v10_dbt1.6.6.json', 'manifest_v11_dbt1.7.6.json', 'manifest_v12_dbt1.11.0a1.json'];

describeFixtures('consumers of the real manifests', () => {
	it.each(COMPAT)('%s: the exposure, the semantic model and its four metrics', async (file) => {
		const { consumers, warnings } = await consumersOf(readFileSync(fixture('dbt-core-artifact-compat-fixtures', file), 'utf8'));
		expect(warnings).toEqual([]);
		const exp = consumers.get('exposure.test.simple_exposure')!;
		expect(exp).toMatchObject({
			type: 'exposure',
			exposure_type: 'dashboard',
			owner: { name: null, email: 'something@example.com' },
			url: null,
			maturity: null,
			depends_on: ['model.test.my_model', 'source.test.my_source.my_table']
		});
		const sm = consumers.get('semantic_model.test.semantic_people')!;
		expect(sm.model).toBe('model.test.my_model');
		expect(sm.fields!.map((f) => [f.role, f.name, f.reads.join(',')])).toEqual([
			['entity', 'id', 'id'],
			['dimension', 'favorite_color', 'favorite_color'],
			['dimension', 'created_at', 'created_at'],
			['measure', 'years_tenure', 'tenure'],
			['measure', 'people', 'id'],
			['measure', 'customers', 'id']
		]);
		const simple = consumers.get('metric.test.customers')!;
		expect(simple.metric_type).toBe('simple');
		expect(simple.measures).toEqual([{ semantic_model: 'semantic_model.test.semantic_people', name: 'customers' }]);
		expect(simple.columns).toEqual([{ node: 'model.test.my_model', column: 'id' }]);
		expect(consumers.get('metric.test.blue_customers_post_2010')!.definition!.filter).toBe(
			"{{ TimeDimension('id__created_at', 'day') }} > '2010-01-01' and {{ Dimension('id__favorite_color') }} = 'blue'"
		);
		const derived = consumers.get('metric.test.doubled_blue_customers')!;
		expect(derived.metric_type).toBe('derived');
		expect(derived.definition!.expr).toBe('customers * 2');
		expect(derived.metrics).toEqual(['customers']);
		expect(derived.columns).toEqual([{ node: 'model.test.my_model', column: 'id' }]);
		const ratio = consumers.get('metric.test.ratio_of_blue_customers_to_red_customers')!;
		expect(ratio.metric_type).toBe('ratio');
		expect(ratio.columns).toEqual([{ node: 'model.test.my_model', column: 'id' }]);
	});

	it('jaffle-shop 1.12: inlined simple metrics, derived, ratio, cumulative and saved queries', async () => {
		const { consumers, warnings } = await consumersOf(readFileSync(fixture('jaffle-shop-1.12-duckdb-docs-generate', 'manifest.json'), 'utf8'));
		expect(warnings).toEqual([]);
		const count = (t: string) => [...consumers.values()].filter((c) => c.type === t).length;
		expect([count('semantic_model'), count('metric'), count('saved_query'), count('exposure')]).toEqual([6, 23, 3, 0]);
		const orders = consumers.get('semantic_model.jaffle_shop.orders')!;
		expect(orders.fields!.find((f) => f.name === 'order_total_dim')).toMatchObject({ role: 'dimension', expr: 'order_total', reads: ['order_total'] });
		expect(consumers.get('metric.jaffle_shop.revenue')!.columns).toEqual([{ node: 'model.jaffle_shop.order_items', column: 'product_price' }]);
		// `case when is_food_item then product_price else 0 end`, through the SQL-lineage engine.
		expect(consumers.get('metric.jaffle_shop.food_revenue')!.columns).toEqual([
			{ node: 'model.jaffle_shop.order_items', column: 'is_food_item' },
			{ node: 'model.jaffle_shop.order_items', column: 'product_price' }
		]);
		// No expr: the metric's own name is the column.
		expect(consumers.get('metric.jaffle_shop.order_total')!.columns).toEqual([{ node: 'model.jaffle_shop.orders', column: 'order_total' }]);
		// `1` reads no column.
		expect(consumers.get('metric.jaffle_shop.orders')!.columns).toEqual([]);
		const pct = consumers.get('metric.jaffle_shop.food_revenue_pct')!;
		expect(pct.definition).toMatchObject({ numerator: 'food_revenue', denominator: 'revenue' });
		expect(pct.columns!.map((c) => c.column)).toEqual(['is_food_item', 'product_price']);
		const cum = consumers.get('metric.jaffle_shop.cumulative_revenue')!;
		expect(cum.metric_type).toBe('cumulative');
		expect(cum.metrics).toEqual(['revenue']);
		expect(cum.columns).toEqual([{ node: 'model.jaffle_shop.order_items', column: 'product_price' }]);
		const profit = consumers.get('metric.jaffle_shop.order_gross_profit')!;
		expect(profit.columns).toEqual([
			{ node: 'model.jaffle_shop.order_items', column: 'product_price' },
			{ node: 'model.jaffle_shop.orders', column: 'order_cost' }
		]);
		const sq = consumers.get('saved_query.jaffle_shop.customer_order_metrics')!;
		expect(sq.metrics).toEqual(['count_lifetime_orders', 'lifetime_spend_pretax', 'average_order_value']);
		expect(sq.group_by).toEqual(["Entity('customer')"]);
		expect(sq.columns!.map((c) => `${c.node}.${c.column}`).sort()).toEqual([
			'model.jaffle_shop.customers.count_lifetime_orders',
			'model.jaffle_shop.customers.lifetime_spend_pretax'
		]);
	});

	it('dbt-bouncer 1.11: exposures with owners on a versioned model', async () => {
		const { consumers, warnings } = await consumersOf(readFileSync(fixture('dbt-bouncer-1.11.2-build', 'manifest.json'), 'utf8'));
		expect(warnings).toEqual([]);
		expect(consumers.get('exposure.dbt_bouncer_test_project.Pulse queries')).toMatchObject({
			exposure_type: 'notebook',
			owner: { name: 'Jacky Jackson', email: 'jacky.jackson@example.com' },
			depends_on: ['model.dbt_bouncer_test_project.customers.v2', 'model.dbt_bouncer_test_project.orders']
		});
	});

	describe('a real manifest with what no fixture has (tests/support/consumer-manifests.ts)', () => {
		it('a conversion metric, and an exposure with a URL and maturity over a metric', async () => {
			const { consumers, warnings } = await consumersOf(consumerVariant());
			expect(warnings).toEqual([]);
			const conv = consumers.get('metric.test.visit_to_buy')!;
			expect(conv.metric_type).toBe('conversion');
			expect(conv.measures!.map((m) => m.name).sort()).toEqual(['customers', 'years_tenure']);
			expect(conv.columns).toEqual([
				{ node: 'model.test.my_model', column: 'id' },
				{ node: 'model.test.my_model', column: 'tenure' }
			]);
			const sm = consumers.get('semantic_model.test.semantic_people')!;
			expect(sm.fields!.find((f) => f.name === 'discounted')).toMatchObject({ expr: 'amount * 0.9', reads: ['amount'] });
			expect(consumers.get('exposure.test.finance_dashboard')).toMatchObject({
				url: 'https://bi.example.com/finance',
				maturity: 'high',
				depends_on: ['metric.test.customers', 'model.test.my_model']
			});
		});

		it('bad input: a missing measure, an expr that does not parse, a missing node: warnings naming each, nothing thrown', async () => {
			const { consumers, warnings } = await consumersOf(consumerVariant({ bad: true }));
			expect(warnings).toEqual(
				expect.arrayContaining([
					expect.stringContaining('metric `ghost_metric` refers to measure `no_such_measure`, which no semantic model defines'),
					expect.stringMatching(/semantic model `semantic_people`: the expr of measure `broken` does not parse \(.+\)/),
					'exposure `finance_dashboard` depends on `model.test.gone`, which is not in the manifest'
				])
			);
			expect(consumers.get('metric.test.ghost_metric')!.columns).toEqual([]);
			expect(consumers.get('exposure.test.finance_dashboard')!.depends_on).not.toContain('model.test.gone');
		});
	});
});
