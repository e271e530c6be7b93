import { describe, expect, it } from 'vitest';
import { assetNodeId, scriptNodeId, type CanvasEdge, type CanvasNode } from './canvas-model';
import { evaluateSelector, isSelectorSyntax, searchByName, selectorGraph } from './selector';

// raw_orders → stg_orders → orders → orders_daily → (script) report_job → lake report
//                       ↘ customers (tag finance, view)    payments → orders
function n(name: string, extra: Partial<CanvasNode> = {}): CanvasNode {
	const path = `main/analytics/${name}`;
	return { id: assetNodeId('dbt', path), type: 'asset', kind: 'dbt', path, name, schema: 'main/analytics', resourceType: 'model', materialized: 'table', uniqueId: `model.shop.${name}`, ...extra };
}
const nodes: CanvasNode[] = [
	n('raw_orders', { resourceType: 'source', uniqueId: 'source.shop.stripe.raw_orders', materialized: null }),
	n('stg_orders', { materialized: 'view', filePath: 'models/staging/stg_orders.sql' }),
	n('orders', { tags: ['finance', 'daily'], filePath: 'models/marts/orders.sql' }),
	n('payments', { tags: ['finance'], filePath: 'models/marts/payments.sql' }),
	n('customers', { materialized: 'view', filePath: 'models/marts/customers.sql' }),
	n('orders_daily', { filePath: 'models/marts/orders_daily.sql' }),
	n('country_codes', { resourceType: 'seed', materialized: 'seed', uniqueId: 'seed.shop.country_codes' }),
	{ id: scriptNodeId('f/demo/report_job'), type: 'runnable', kind: 'sql', path: 'f/demo/report_job', name: 'report_job', schema: 'f/demo' },
	{ id: assetNodeId('ducklake', 'main/report'), type: 'asset', kind: 'ducklake', path: 'main/report', name: 'report', schema: 'main' }
];
const id = (name: string) => nodes.find((x) => x.name === name)!.id;
const e = (a: string, b: string): CanvasEdge => ({ source: id(a), target: id(b), kind: 'ref' });
const edges = [e('raw_orders', 'stg_orders'), e('stg_orders', 'orders'), e('stg_orders', 'customers'), e('payments', 'orders'), e('orders', 'orders_daily'), e('orders_daily', 'report_job'), e('report_job', 'report')];
const g = selectorGraph(nodes, edges);

const cases: { q: string; want: string[] }[] = [
	{ q: 'orders', want: ['orders', 'raw_orders', 'stg_orders', 'orders_daily'] },
	{ q: '+orders', want: ['orders', 'stg_orders', 'raw_orders', 'payments'] },
	{ q: 'orders+', want: ['orders', 'orders_daily', 'report_job', 'report'] },
	{ q: '1+orders', want: ['orders', 'stg_orders', 'payments'] },
	{ q: 'orders+1', want: ['orders', 'orders_daily'] },
	{ q: '+orders+', want: ['orders', 'stg_orders', 'raw_orders', 'payments', 'orders_daily', 'report_job', 'report'] },
	// @: downstream, and everything the downstream needs.
	{ q: '@stg_orders', want: ['stg_orders', 'orders', 'customers', 'orders_daily', 'report_job', 'report', 'raw_orders', 'payments'] },
	{ q: 'tag:finance', want: ['orders', 'payments'] },
	{ q: 'tag:finance+1', want: ['orders', 'payments', 'orders_daily'] },
	{ q: 'tag:finance,tag:daily', want: ['orders'] },
	{ q: 'tag:finance customers', want: ['orders', 'payments', 'customers'] },
	{ q: 'config.materialized:view', want: ['stg_orders', 'customers'] },
	{ q: 'resource_type:seed', want: ['country_codes'] },
	{ q: 'path:models/marts', want: ['orders', 'payments', 'customers', 'orders_daily'] },
	{ q: 'source:stripe', want: ['raw_orders'] },
	{ q: 'source:stripe+1', want: ['raw_orders', 'stg_orders'] },
	{ q: 'orders*', want: ['orders', 'orders_daily'] },
	{ q: 'kind:script', want: ['report_job'] },
	{ q: 'tag:nothing', want: [] },
	{ q: 'package:shop,resource_type:model,config.materialized:table', want: ['orders', 'payments', 'orders_daily'] }
];

describe('dbt selectors over the canvas', () => {
	it.each(cases)('$q', ({ q, want }) => {
		const r = evaluateSelector(q, g);
		const got = r.kind === 'selection' ? [...r.ids] : r.kind === 'names' ? r.ids : [];
		expect(got.map((x) => nodes.find((m) => m.id === x)!.name).sort()).toEqual([...want].sort());
	});

	it.each(['bogus:x', '@+orders', 'tag:'])('refuses %s with a message', (q) => {
		const r = evaluateSelector(q, g);
		expect(r.kind).toBe('error');
	});

	it('a plain word is a name search: exact, then prefix, then substring', () => {
		expect(isSelectorSyntax('orders')).toBe(false);
		expect(isSelectorSyntax('+orders')).toBe(true);
		expect(searchByName(nodes, 'orders').map((x) => nodes.find((m) => m.id === x)!.name)).toEqual(['orders', 'orders_daily', 'raw_orders', 'stg_orders']);
		expect(evaluateSelector('   ', g).kind).toBe('empty');
	});
});
