import { describe, expect, it, vi } from 'vitest';
import { edge, producer } from '$lib/lineage/trace-fixtures';
import type { ColumnLineageAnswer } from '$lib/types/asset-graph';
import { ColumnTraceView, RelationDetails, TRACE_CULL_MIN, TraceWindow } from './details.svelte';

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

describe('TraceWindow', () => {
	// orders.c0..c2 each from 300 staging columns: a 903-column component in two lanes.
	const big: ColumnLineageAnswer = {
		edges: Array.from({ length: 900 }, (_, i) => edge(`stg_orders.s${String(i).padStart(3, '0')}`, `orders.c${i % 3}`)),
		truncated: false
	};

	it('draws a small trace whole and a big one near the view, always with the selection\'s own columns', async () => {
		const v = new ColumnTraceView(async () => answers['main/s/orders'], { kind: 'unpinned' });
		await v.select({ kind: 'dbt', path: 'main/s/orders', authored: true });
		const small = new TraceWindow(() => v);
		expect(small.culled).toBe(false);
		expect(small.rows.length).toBe(v.geometry.rows.size);

		const w = new ColumnTraceView(async () => big, { kind: 'unpinned' });
		await w.select({ kind: 'dbt', path: 'main/s/orders', authored: true });
		expect(w.component.size).toBeGreaterThan(TRACE_CULL_MIN);
		const win = new TraceWindow(() => w);
		win.scrolled(0, 0, 800, 420);
		expect(win.culled).toBe(true);
		const ids = new Set(win.rows.map(([id]) => id));
		expect(ids.size).toBeLessThan(w.geometry.rows.size / 4);
		for (const own of w.ownColumns) expect(ids.has(own)).toBe(true);
		// Every drawn edge has both ends laid out; edges wholly outside the area are left out.
		expect(win.edges.length).toBeGreaterThan(0);
		expect(win.edges.length).toBeLessThanOrEqual(w.edges.length);

		// Scrolled down: other staging rows, the own columns still there.
		const top = win.rows.find(([id]) => !w.ownColumns.includes(id))![0];
		win.scrolled(0, 6000, 800, 420);
		const after = new Set(win.rows.map(([id]) => id));
		expect(after.has(top)).toBe(false);
		for (const own of w.ownColumns) expect(after.has(own)).toBe(true);
		const ys = win.rows.filter(([id]) => !w.ownColumns.includes(id)).map(([, r]) => r.y);
		expect(Math.min(...ys)).toBeGreaterThan(5000);

		// A traced column: only the edges it keeps lit are drawn again (above the veil).
		expect(win.litEdges).toEqual([]);
		w.trace(w.ownColumns[0]);
		expect(win.litEdges.length).toBeGreaterThan(0);
		for (const e of win.litEdges) expect(w.impact!.has(e.from) && w.impact!.has(e.to)).toBe(true);
		expect(win.litEdges.length).toBeLessThan(win.edges.length);
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
