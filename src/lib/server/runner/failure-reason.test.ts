import { describe, expect, it } from 'vitest';
import { nodeLabel, sourcelessReason } from './failure-reason';

describe('a failure told without the source', () => {
	it.each([
		[
			'model.shop.orders',
			'Runtime Error in model orders (models/marts/orders.sql)\n  Binder Error: Referenced column "amount_old" not found in FROM clause!\n  Candidate bindings: "amount"',
			'Runtime error in model orders: a referenced column was not found'
		],
		['model.jaffle_shop.orders', 'Database Error in model orders (models/orders.sql)\n  syntax error at or near "final"\n  LINE 43: final as (', 'Database error in model orders: the SQL could not be parsed'],
		['model.p.stg', 'Database Error in model stg (models/stg.sql)\n  relation "raw.secret_table" does not exist', 'Database error in model stg: a referenced table or view was not found'],
		['model.p.x', "Compilation Error in model x (models/x.sql)\n  Model 'model.p.x' (models/x.sql) depends on a node named 'secret_y' which was not found", 'Compilation error in model x: it refers to a model, seed or source that does not exist'],
		['model.p.t', 'Database Error in model t (models/t.sql)\n  Query error: No matching signature for function TIMESTAMP_TRUNC for argument types: STRING', 'Database error in model t: a function was not found for the given arguments'],
		['test.p.not_null_orders_id.abc', 'Got 3 results, configured to fail if != 0', 'test not_null_orders_id failed: 3 failing rows'],
		['test.p.accepted_values_x.1', 'Got 1 result, configured to warn if != 0', 'test accepted_values_x warned: 1 failing row'],
		['model.p.y', 'Database Error in model y (models/y.sql)\n  something nobody anticipated about "secret"', 'Database error in model y'],
		['model.p.z', null, 'model z failed']
	])('%s', (id, message, expected) => {
		const reason = sourcelessReason(id, message);
		expect(reason).toBe(expected);
		// Nothing quoted, no path, no SQL.
		expect(reason).not.toMatch(/["'/(]|secret|final|amount|TIMESTAMP/);
	});

	it('names a source by source and table, other nodes by name', () => {
		expect(nodeLabel('source.p.raw.orders')).toBe('source raw.orders');
		expect(nodeLabel('seed.p.raw_customers')).toBe('seed raw_customers');
		expect(nodeLabel('weird')).toBe('weird');
	});

	it('a test without a message still says how many rows failed', () => {
		expect(sourcelessReason('test.p.unique_id.1', null, 2)).toBe('test unique_id failed: 2 failing rows');
	});
});
