import { describe, expect, it } from 'vitest';
import { breakablePieces, hasFailures, resultRows, shortName, storedLine, totalsLine } from './result';

const result = {
	totals: { total: 5, success: 2, error: 1, warn: 1, skipped: 1 },
	nodes: [
		{ unique_id: 'model.p.a', status: 'success', outcome: 'passed', execution_time: 1.5, rows_affected: 10, relation_name: '"db"."s"."a"' },
		{ unique_id: 'test.p.t', status: 'warn', outcome: 'warned', execution_time: 0.1, message: 'Got 3 results' },
		{ unique_id: 'model.p.b', status: 'error', outcome: 'failed', execution_time: 0.2, message: 'Runtime Error: division by zero' },
		{ unique_id: 'model.p.c', status: 'skipped', outcome: 'skipped', execution_time: null },
		{ unique_id: 'seed.p.s', status: 'success', outcome: 'passed', execution_time: 0.3 }
	]
};

describe('the result table', () => {
	it('lists failures first, then warnings, skips, passes', () => {
		expect(resultRows(result).map((r) => [r.uniqueId, r.kind])).toEqual([
			['model.p.b', 'model'],
			['test.p.t', 'test'],
			['model.p.c', 'model'],
			['model.p.a', 'model'],
			['seed.p.s', 'seed']
		]);
		expect(resultRows(result)[0].message).toBe('Runtime Error: division by zero');
		expect(resultRows(result)[3]).toMatchObject({ rows: 10, seconds: 1.5, relation: '"db"."s"."a"' });
	});

	it('says the totals in one sentence', () => {
		expect(totalsLine(result)).toBe('2 passed, 1 warned, 1 failed, 1 skipped of 5');
		expect(totalsLine(null)).toBeNull();
	});

	it('knows when there is something to resume', () => {
		expect(hasFailures(result)).toBe(true);
		expect(hasFailures({ nodes: [result.nodes[0]] })).toBe(false);
	});

	it('reads what a deploy stored', () => {
		expect(storedLine({ nodes: 55, edges: 50, column_edges: 186 })).toBe('55 nodes, 50 edges, 186 column edges');
		expect(storedLine({ nodes: 5, edges: 4, column_edges: null })).toBe('5 nodes, 4 edges, no column lineage');
	});

	it('carries the sourceless reason a redacted result gives in place of the message', () => {
		const rows = resultRows({ nodes: [{ unique_id: 'model.p.b', status: 'error', outcome: 'failed', reason: 'Database error in model b: a referenced column was not found' }] });
		expect(rows[0]).toMatchObject({ message: null, reason: 'Database error in model b: a referenced column was not found' });
		expect(resultRows(result)[0].reason).toBeNull();
	});

	it('cuts long names only after _ and ., keeping every character', () => {
		const name = 'relationships_stg_orders_customer_id__customer_id__ref_stg_customers_';
		const pieces = breakablePieces(name);
		expect(pieces.join('')).toBe(name);
		expect(pieces.slice(0, 3)).toEqual(['relationships_', 'stg_', 'orders_']);
		expect(pieces.every((p, i) => i === pieces.length - 1 || /[_.]$/.test(p))).toBe(true);
		expect(breakablePieces('raw.orders')).toEqual(['raw.', 'orders']);
		expect(breakablePieces('plain')).toEqual(['plain']);
	});

	it('names a node without its package or hash', () => {
		expect(shortName('test.shop.not_null_orders_id.5c1a')).toBe('not_null_orders_id');
		expect(shortName('source.shop.raw.orders')).toBe('raw.orders');
		expect(shortName('model.shop.orders')).toBe('orders');
	});
});
