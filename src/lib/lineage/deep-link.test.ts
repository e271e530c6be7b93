import { describe, expect, it } from 'vitest';
import { columnId, type ColumnNode } from './column-trace';
import { columnParam, readDeepLink, resolveColumn, withDeepLink, type DeepLink } from './deep-link';

// What an address bar can hold: markup, quotes, spaces, the query's own separators, unicode.
const HOSTILE = [
	'"><img src=x>',
	'</style><script>alert(1)</script>',
	"it's",
	'a "quoted" id',
	'with spaces  and\ttab',
	'line\nbreak',
	'a&select=b',
	'50% + 1 = #fragment?',
	'é😀 ünïcödé',
	'[data-id="x"] .card{}',
	'\\back\\slash',
	'x'.repeat(5000)
];

describe('readDeepLink', () => {
	it.each([
		['', { select: null, column: null }],
		['?select=dbt%3Amain%2Fanalytics%2Forders', { select: 'dbt:main/analytics/orders', column: null }],
		['?select=dbt:main/analytics/orders&column=amount', { select: 'dbt:main/analytics/orders', column: 'amount' }],
		['?column=amount', { select: null, column: 'amount' }],
		['?select=&column=', { select: null, column: null }],
		['?select=a&select=b', { select: 'a', column: null }],
		['?select=x+y', { select: 'x y', column: null }],
		['?select=x%20y', { select: 'x y', column: null }],
		['?select=%22%3E%3Cimg%20src%3Dx%3E', { select: '"><img src=x>', column: null }],
		['?select="><img src=x>', { select: '"><img src=x>', column: null }],
		['?view_token=abc.def&select=s', { select: 's', column: null }]
	])('%s', (search, want) => {
		expect(readDeepLink(new URLSearchParams(search))).toEqual(want);
	});
});

describe('withDeepLink', () => {
	const base = 'http://h/w/demo/run/j1';

	it.each<[string, DeepLink, string | null]>([
		['', { select: 'dbt:main/s/orders', column: null }, '?select=dbt%3Amain%2Fs%2Forders'],
		['?select=a', { select: 'a', column: 'amount' }, '?select=a&column=amount'],
		['?select=a&column=amount', { select: 'b', column: null }, '?select=b'],
		['?select=a&column=amount', { select: null, column: null }, ''],
		// A column is only ever written beside a selection.
		['', { select: null, column: 'amount' }, null],
		['?select=a', { select: null, column: 'amount' }, ''],
		// Already there, however it was encoded: nothing to write.
		['?select=x%20y', { select: 'x y', column: null }, null],
		['?select=x+y&column=%C3%A9', { select: 'x y', column: 'é' }, null],
		['?select=', { select: null, column: null }, null],
		// A share link's token stays, in its place.
		['?view_token=j1.ab12&select=a', { select: 'b', column: 'c' }, '?view_token=j1.ab12&select=b&column=c'],
		['?view_token=j1.ab12', { select: null, column: null }, null]
	])('%s with %j', (search, link, want) => {
		const next = withDeepLink(new URL(base + search), link);
		expect(next === null ? null : next.search).toBe(want);
	});

	it('keeps the path and the hash', () => {
		const next = withDeepLink(new URL(`${base}?x=1#log`), { select: 'a', column: null })!;
		expect(next.pathname).toBe('/w/demo/run/j1');
		expect(next.hash).toBe('#log');
		expect(next.searchParams.get('x')).toBe('1');
	});

	it.each(HOSTILE)('round-trips a hostile value %#, and writes it only encoded', (value) => {
		const url = withDeepLink(new URL(`${base}?view_token=t`), { select: value, column: value })!;
		expect(readDeepLink(url.searchParams)).toEqual({ select: value, column: value });
		expect(url.searchParams.get('view_token')).toBe('t');
		expect(url.search).not.toMatch(/[<>"\s]/);
		// Written once, the same link again is no change.
		expect(withDeepLink(url, { select: value, column: value })).toBeNull();
	});
});

describe('columnParam and resolveColumn', () => {
	const orders = { kind: 'dbt', path: 'main/analytics/orders' };
	const c = (kind: string, path: string, column: string): [string, ColumnNode] => [columnId(kind, path, column), { kind, path, column }];
	const columns = [
		c('dbt', 'main/analytics/orders', 'amount'),
		c('dbt', 'main/analytics/orders', 'a.b'),
		c('dbt', 'main/analytics/stg_orders', 'amount'),
		c('ducklake', 'main/daily_revenue', 'revenue'),
		c('dbt', 'main/analytics/orders', 'dbt:main/analytics/stg_orders.amount'),
		c('dbt', 'main/odd', '"><img src=x>')
	];

	it.each([
		[columns[0][1], 'amount'],
		[columns[1][1], 'a.b'],
		[columns[2][1], 'dbt:main/analytics/stg_orders.amount'],
		[columns[3][1], 'ducklake:main/daily_revenue.revenue']
	])('names %j as %s', (node, want) => {
		expect(columnParam(orders, node)).toBe(want);
	});

	it.each<[string, string | null]>([
		['amount', columns[0][0]],
		['a.b', columns[1][0]],
		['ducklake:main/daily_revenue.revenue', columns[3][0]],
		// The selected relation's own column wins over another asset's qualified name.
		['dbt:main/analytics/stg_orders.amount', columns[4][0]],
		['dbt:main/odd."><img src=x>', columns[5][0]],
		['revenue', null],
		['Amount', null],
		['amount ', null],
		['', null],
		...HOSTILE.map((h): [string, null] => [h, null])
	])('resolves param %#', (param, want) => {
		expect(resolveColumn(param, orders, columns)).toBe(want);
	});

	it('every column of a trace resolves back from its own name', () => {
		// Without the own column whose name reads like stg_orders.amount's qualified one.
		const plain = columns.filter((_, i) => i !== 4);
		for (const [id, node] of plain) expect(resolveColumn(columnParam(orders, node), orders, plain)).toBe(id);
	});
});
