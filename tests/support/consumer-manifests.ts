// The smallest variants of a REAL manifest (dbt-core's v12 compat fixture) carrying what no
// fixture has: a conversion metric, an exposure with a URL and maturity that depends on a metric,
// a measure with an arithmetic expr, and (bad) the three kinds of broken reference.
import { readFileSync } from 'node:fs';
import { fixture } from './fixtures';

export function consumerVariant(opts: { bad?: boolean } = {}): string {
	const m = JSON.parse(readFileSync(fixture('dbt-core-artifact-compat-fixtures', 'manifest_v12_dbt1.11.0a1.json'), 'utf8'));
	const sm = m.semantic_models['semantic_model.test.semantic_people'];
	const measure = sm.measures[0];
	sm.measures.push({ ...measure, name: 'discounted', agg: 'sum', expr: 'amount * 0.9' });
	const base = m.metrics['metric.test.customers'];
	m.metrics['metric.test.visit_to_buy'] = {
		...base,
		name: 'visit_to_buy',
		unique_id: 'metric.test.visit_to_buy',
		fqn: ['test', 'visit_to_buy'],
		label: 'Visit to buy',
		type: 'conversion',
		type_params: {
			...base.type_params,
			measure: null,
			input_measures: [],
			conversion_type_params: {
				base_measure: { name: 'customers', filter: null, alias: null, join_to_timespine: false, fill_nulls_with: null },
				conversion_measure: { name: 'years_tenure', filter: null, alias: null, join_to_timespine: false, fill_nulls_with: null },
				entity: 'id',
				calculation: 'conversion_rate',
				window: { count: 7, granularity: 'day' },
				constant_properties: null
			}
		}
	};
	const exp = m.exposures['exposure.test.simple_exposure'];
	m.exposures['exposure.test.finance_dashboard'] = {
		...exp,
		name: 'finance_dashboard',
		unique_id: 'exposure.test.finance_dashboard',
		fqn: ['test', 'finance_dashboard'],
		label: 'Finance dashboard',
		url: 'https://bi.example.com/finance',
		maturity: 'high',
		owner: { name: 'Finance', email: 'finance@example.com' },
		depends_on: { macros: [], nodes: ['model.test.my_model', 'metric.test.customers'] }
	};
	if (opts.bad) {
		m.metrics['metric.test.ghost_metric'] = {
			...base,
			name: 'ghost_metric',
			unique_id: 'metric.test.ghost_metric',
			type_params: { ...base.type_params, measure: { ...base.type_params.measure, name: 'no_such_measure' } }
		};
		sm.measures.push({ ...measure, name: 'broken', agg: 'sum', expr: 'amount +* (' });
		m.exposures['exposure.test.finance_dashboard'].depends_on.nodes.push('model.test.gone');
	}
	// The parent_map dbt would write for the added entries.
	m.parent_map['metric.test.visit_to_buy'] = ['semantic_model.test.semantic_people'];
	m.parent_map['exposure.test.finance_dashboard'] = m.exposures['exposure.test.finance_dashboard'].depends_on.nodes;
	if (opts.bad) m.parent_map['metric.test.ghost_metric'] = ['semantic_model.test.semantic_people'];
	return JSON.stringify(m);
}

/**
 * jaffle-shop 1.12's real manifest (semantic models, metrics, saved queries) with the one thing
 * it lacks: an exposure, shaped as dbt-core's compat fixture writes one, over the `revenue`
 * metric and the `orders` model.
 */
export function jaffleWithExposure(): string {
	const m = JSON.parse(readFileSync(fixture('jaffle-shop-1.12-duckdb-docs-generate', 'manifest.json'), 'utf8'));
	const compat = JSON.parse(readFileSync(fixture('dbt-core-artifact-compat-fixtures', 'manifest_v12_dbt1.11.0a1.json'), 'utf8'));
	const shape = compat.exposures['exposure.test.simple_exposure'];
	const nodes = ['metric.jaffle_shop.revenue', 'model.jaffle_shop.orders'];
	m.exposures['exposure.jaffle_shop.finance_dashboard'] = {
		...shape,
		name: 'finance_dashboard',
		package_name: 'jaffle_shop',
		path: 'marts/exposures.yml',
		original_file_path: 'models/marts/exposures.yml',
		unique_id: 'exposure.jaffle_shop.finance_dashboard',
		fqn: ['jaffle_shop', 'marts', 'finance_dashboard'],
		label: 'Finance dashboard',
		description: 'Revenue and orders for the finance team.',
		url: 'https://bi.example.com/finance',
		maturity: 'high',
		owner: { name: 'Finance', email: 'finance@example.com' },
		depends_on: { macros: [], nodes },
		refs: [{ name: 'orders', package: null, version: null }],
		sources: [],
		metrics: [['revenue']]
	};
	m.parent_map['exposure.jaffle_shop.finance_dashboard'] = nodes;
	for (const n of nodes) (m.child_map[n] ??= []).push('exposure.jaffle_shop.finance_dashboard');
	return JSON.stringify(m);
}
