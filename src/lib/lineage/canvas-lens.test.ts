import { describe, expect, it } from 'vitest';
import { isLens, lensEntries, lensKey, LENSES, testStatusesByOwner, testStatusesOf, worstTest, type LensNode } from './canvas-lens';

const model = (materialized: string | null, tests = { error: 0, warn: 0 }): LensNode => ({ type: 'asset', kind: 'dbt', resourceType: 'model', materialized, tests });
const source: LensNode = { type: 'asset', kind: 'dbt', resourceType: 'source', materialized: null };
const lake: LensNode = { type: 'asset', kind: 'ducklake' };
const script: LensNode = { type: 'runnable', kind: 'sql' };

describe('lenses', () => {
	it.each([
		['type', model('table'), undefined, undefined, 'model'],
		['type', source, undefined, undefined, 'source'],
		['type', lake, undefined, undefined, 'lake'],
		['type', script, undefined, undefined, 'script'],
		['type', { type: 'asset', kind: 'dbt', resourceType: 'analysis' }, undefined, undefined, 'other'],
		['materialization', model('incremental'), undefined, undefined, 'incremental'],
		['materialization', model('view'), undefined, undefined, 'view'],
		['materialization', model('custom_thing'), undefined, undefined, 'other'],
		['materialization', source, undefined, undefined, 'none'],
		['materialization', lake, undefined, undefined, 'none'],
		['run', model('table'), 'failed', undefined, 'failed'],
		['run', model('table'), 'materialized', undefined, 'built'],
		['run', model('table'), 'passed', undefined, 'built'],
		['run', model('table'), undefined, undefined, 'none'],
		['tests', model('table', { error: 2, warn: 0 }), undefined, 'fail', 'fail'],
		['tests', model('table', { error: 2, warn: 0 }), undefined, undefined, 'untested'],
		['tests', model('table'), undefined, undefined, 'none'],
		['none', model('table'), 'failed', 'fail', null]
	] as const)('%s of %j (run %s, tests %s) is %s', (lens, node, run, test, want) => {
		const key = lensKey(lens, node as LensNode, run, test);
		expect(key).toBe(want);
		if (key) expect(lensEntries(lens).map((e) => e.key)).toContain(key);
	});

	it.each([
		[['pass', 'warn', 'fail', 'pass'], 'fail'],
		[['pass', 'warn'], 'warn'],
		[['warn', 'pass'], 'warn'],
		[['pass'], 'pass'],
		[['pass', 'skip', 'pass'], 'skip'],
		[['skip', 'warn'], 'warn'],
		[['skip', 'fail'], 'fail'],
		[[], undefined]
	] as const)('the worst of %j is %s', (results, want) => {
		expect(worstTest(results)).toBe(want);
	});

	it('names every lens, and nothing else is one', () => {
		for (const l of LENSES) expect(isLens(l.id)).toBe(true);
		expect(isLens('sideways')).toBe(false);
	});
});

describe('test results onto the relations they test', () => {
	const relations = [
		{ id: 'dbt:orders', uniqueId: 'model.shop.orders', kinds: ['not_null', 'unique', 'accepted_values'] },
		{ id: 'dbt:orders_items', uniqueId: 'model.shop.orders_items', kinds: ['not_null'] },
		{ id: 'dbt:raw/payments', uniqueId: 'source.shop.raw.payments', kinds: ['not_null'] },
		{ id: 'dbt:untested', uniqueId: 'model.shop.untested', kinds: [] }
	];
	const r = (name: string, outcome: string) => ({ unique_id: `test.shop.${name}.0123456789`, outcome });

	it.each([
		['one failure among passes: the relation fails', [r('not_null_orders_order_id', 'passed'), r('unique_orders_order_id', 'failed'), r('accepted_values_orders_status__a__b', 'passed')], { 'dbt:orders': 'fail' }],
		['a warning and passes: it warns', [r('not_null_orders_order_id', 'warned'), r('unique_orders_order_id', 'passed')], { 'dbt:orders': 'warn' }],
		['the longer relation name wins', [r('not_null_orders_items_id', 'failed'), r('not_null_orders_id', 'passed')], { 'dbt:orders_items': 'fail', 'dbt:orders': 'pass' }],
		['a source by its source and table', [r('source_not_null_raw_payments_id', 'failed')], { 'dbt:raw/payments': 'fail' }],
		['a skipped test reads as skipped, not passed; a model result is no test', [r('not_null_orders_order_id', 'skipped'), r('unique_orders_order_id', 'passed'), { unique_id: 'model.shop.orders', outcome: 'failed' }], { 'dbt:orders': 'skip' }],
		['a test of a kind the relation does not declare is not its', [r('relationships_orders_customer_id__id__ref_customers_', 'failed')], {}],
		['a singular test names no relation', [{ unique_id: 'test.shop.assert_orders_positive', outcome: 'failed' }], {}]
	] as const)('%s', (_name, results, want) => {
		expect(Object.fromEntries(testStatusesOf(results, relations))).toEqual(want);
	});

	// What the graph records of each test: a generic test's attached node, a singular test's parents.
	const owners = new Map<string, string[]>([
		['test.shop.dbt_utils_accepted_range_orders_amount__0.0123456789', ['model.shop.orders']],
		['test.shop.assert_orders_match_items.0123456789', ['model.shop.orders', 'model.shop.orders_items']],
		['test.shop.not_null_orders_order_id.0123456789', ['model.shop.orders']]
	]);
	it.each([
		['a namespaced test, by its attached node', [r('dbt_utils_accepted_range_orders_amount__0', 'failed')], { 'dbt:orders': 'fail' }],
		['a singular test, onto every relation it reads', [r('assert_orders_match_items', 'warned')], { 'dbt:orders': 'warn', 'dbt:orders_items': 'warn' }],
		['owned and unowned results together: the worst wins', [r('not_null_orders_order_id', 'passed'), r('unique_orders_order_id', 'failed')], { 'dbt:orders': 'fail' }],
		['a skipped singular test marks every relation it reads as skipped', [r('assert_orders_match_items', 'skipped')], { 'dbt:orders': 'skip', 'dbt:orders_items': 'skip' }]
	] as const)('by owner: %s', (_name, results, want) => {
		expect(Object.fromEntries(testStatusesByOwner(results, owners, relations))).toEqual(want);
	});
	it('by owner: an owner that is not on the canvas is left out', () => {
		const off = new Map([['test.shop.assert_x.0123456789', ['model.shop.elsewhere']]]);
		expect(Object.fromEntries(testStatusesByOwner([r('assert_x', 'failed')], off, relations))).toEqual({});
	});
});
