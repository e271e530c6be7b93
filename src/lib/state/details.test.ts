import { describe, expect, it, vi } from 'vitest';
import { edge, producer } from '$lib/lineage/trace-fixtures';
import type { ColumnLineageAnswer } from '$lib/types/asset-graph';
import { ColumnTraceView, RelationDetails } from './details.svelte';

const answers: Record<string, ColumnLineageAnswer> = {
	'main/s/orders': { edges: [edge('stg_orders.amount', 'orders.amount')], truncated: false },
	'main/s/payments': { edges: [edge('stg_payments.amount', 'payments.amount', 'mod')], truncated: false }
};
const producers = [{ path: 'f/x/report', column_lineage: producer('f/x/report', { 'lake:report.total': ['orders.amount', 'payments.amount'] }).column_lineage! }];

describe('ColumnTraceView', () => {
	it('a lake table asks for every dbt relation its producers read, and traces across them', async () => {
		const fetcher = vi.fn(async (p: string) => answers[p]);
		const v = new ColumnTraceView(fetcher, { kind: 'unpinned' });
		v.setProducers(producers);
		await v.select({ kind: 'ducklake', path: 'main/report', authored: true });
		expect(fetcher.mock.calls.map((c) => c[0]).sort()).toEqual(['main/s/orders', 'main/s/payments']);
		expect(v.state).toBe('ready');
		expect(v.lanes.length).toBe(3);
		v.trace(v.ownColumns[0]);
		expect(v.impact!.size).toBe(5);
		v.trace(v.ownColumns[0]);
		expect(v.impact).toBeNull();
	});

	it('is loading while the answer is out, and never asks for a viewer who may not see lineage', async () => {
		let release!: () => void;
		const fetcher = vi.fn((p: string) => new Promise<ColumnLineageAnswer>((r) => (release = () => r(answers[p]))));
		const v = new ColumnTraceView(fetcher, { kind: 'job', jobId: 'j' });
		const done = v.select({ kind: 'dbt', path: 'main/s/orders', authored: true });
		expect(v.state).toBe('loading');
		release();
		await done;
		expect(v.state).toBe('ready');
		fetcher.mockClear();
		await v.select({ kind: 'dbt', path: 'main/s/payments', authored: false });
		expect(fetcher).not.toHaveBeenCalled();
		expect(v.state).toBe('none');
		expect(v.graph.nodes.size).toBe(0);
	});
});

describe('RelationDetails', () => {
	it('drops a description that arrives after the selection moved on', async () => {
		const resolvers: Record<string, (v: unknown) => void> = {};
		const d = new RelationDetails((p) => new Promise((r) => (resolvers[p] = r as (v: unknown) => void)) as never);
		const a = d.show('main/s/a');
		const b = d.show('main/s/b');
		resolvers['main/s/b']({ unique_id: 'model.p.b' });
		await b;
		resolvers['main/s/a']({ unique_id: 'model.p.a' });
		await a;
		expect(d.path).toBe('main/s/b');
		expect(d.dbt?.unique_id).toBe('model.p.b');
		expect(d.loading).toBe(false);
	});
});
