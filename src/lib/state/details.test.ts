import { describe, expect, it, vi } from 'vitest';
import { edge, producer } from '../../../tests/support/trace-fixtures';
import type { ColumnLineageAnswer, DbtProvenance, ModelColumnLineage } from '$lib/types/asset-graph';
import { ColumnTraceView, lineageNotice, RelationDetails, TRACE_CULL_MIN, TraceWindow, type LineageNotice } from './details.svelte';

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

const JOB = '00000000-0000-4000-8000-000000000001';
const lineage = (over: Partial<ModelColumnLineage>): ModelColumnLineage => ({
	source: 'inferred',
	job: { id: JOB, status: 'success', done: 13, total: 13 },
	outcome: 'analyzed',
	message: null,
	line: null,
	column: null,
	untraced: [],
	...over
});
const described = (cl: ModelColumnLineage | null): DbtProvenance => ({
	script_path: 'f/x/shop',
	script_hash: '0000000000000001',
	unique_id: 'model.shop.orders',
	resource_type: 'model',
	materialized: 'table',
	materialize_strategy: null,
	data_tests: [],
	authored: true,
	column_lineage: cl
});

describe('RelationDetails while a lineage job runs', () => {
	it('re-reads the description, backing off, until the job ends, then says the lineage settled', async () => {
		const answers = [
			lineage({ job: { id: JOB, status: 'queued', done: null, total: null }, outcome: null }),
			lineage({ job: { id: JOB, status: 'running', done: 4, total: 13 }, outcome: null }),
			lineage({ job: { id: JOB, status: 'running', done: 9, total: 13 }, outcome: null }),
			lineage({ outcome: 'partial', untraced: [{ column: 'x', reason: 'r' }] })
		];
		let read = 0;
		const waits: number[] = [];
		const seen: (string | undefined)[] = [];
		const settled = vi.fn();
		const d = new RelationDetails(async () => described(answers[read++]), {
			delays: [10, 20, 40],
			sleep: async (ms) => {
				waits.push(ms);
				seen.push(lineageNotice(d.dbt?.column_lineage)?.detail ?? undefined);
			},
			onLineageSettled: settled
		});
		await d.show('main/s/orders');
		expect(lineageNotice(d.dbt?.column_lineage)).toMatchObject({ state: 'inferring', detail: 'waiting for a worker' });
		await d.watching;
		expect(read).toBe(4);
		expect(waits).toEqual([10, 20, 40]);
		expect(seen).toEqual(['waiting for a worker', '4 of 13 models done', '9 of 13 models done']);
		expect(d.dbt?.column_lineage?.outcome).toBe('partial');
		expect(settled).toHaveBeenCalledTimes(1);
		expect(settled).toHaveBeenCalledWith('main/s/orders');
	});

	it('stops re-reading when the selection moves on, and never re-reads a relation whose job has ended', async () => {
		const running = described(lineage({ job: { id: JOB, status: 'running', done: 1, total: 13 }, outcome: null }));
		const fetched: string[] = [];
		let release!: () => void;
		const settled = vi.fn();
		const d = new RelationDetails(
			async (p) => {
				fetched.push(p);
				return p === 'main/s/a' ? running : described(lineage({}));
			},
			{ sleep: () => new Promise<void>((r) => (release = r)), onLineageSettled: settled }
		);
		await d.show('main/s/a');
		const watching = d.watching!;
		await d.show('main/s/b');
		expect(d.watching).toBeNull();
		release();
		await watching;
		expect(fetched).toEqual(['main/s/a', 'main/s/b']);
		expect(d.dbt?.unique_id).toBe('model.shop.orders');
		expect(d.dbt?.column_lineage?.outcome).toBe('analyzed');
		expect(settled).not.toHaveBeenCalled();
	});

	it('gives up after repeated failed re-reads, keeping the last answer', async () => {
		let read = 0;
		const d = new RelationDetails(
			async () => {
				if (read++ === 0) return described(lineage({ job: { id: JOB, status: 'running', done: 2, total: 13 }, outcome: null }));
				throw new Error('status 502');
			},
			{ sleep: async () => {} }
		);
		await d.show('main/s/orders');
		await d.watching;
		expect(read).toBe(4);
		expect(lineageNotice(d.dbt?.column_lineage)?.detail).toBe('2 of 13 models done');
	});
});

describe('lineageNotice', () => {
	const cases: [string, ModelColumnLineage | null, Partial<LineageNotice> | null][] = [
		['no description of lineage (an older server)', null, null],
		['an analyzed model', lineage({}), null],
		['engine lineage', lineage({ source: 'engine', job: null, outcome: null }), null],
		['a running job with progress', lineage({ job: { id: JOB, status: 'running', done: 5, total: 13 }, outcome: null }), { state: 'inferring', text: 'Inferring column lineage…', detail: '5 of 13 models done' }],
		['a queued job that knows its size', lineage({ job: { id: JOB, status: 'queued', done: 0, total: 9 }, outcome: null }), { state: 'inferring', detail: 'waiting for a worker · 9 models to infer' }],
		['a running job of one model', lineage({ job: { id: JOB, status: 'running', done: 0, total: 1 }, outcome: null }), { state: 'inferring', detail: '0 of 1 model done' }],
		['a running job before its first count', lineage({ job: { id: JOB, status: 'running', done: null, total: null }, outcome: null }), { state: 'inferring', detail: null }],
		['a failed job', lineage({ job: { id: JOB, status: 'failure', done: 3, total: 13 }, outcome: null, message: 'the lineage worker exited with code 1' }), { state: 'job-failed', text: 'Column lineage could not be computed.', detail: 'the lineage worker exited with code 1' }],
		['a canceled job without a message', lineage({ job: { id: JOB, status: 'canceled', done: null, total: null }, outcome: null }), { state: 'job-failed', detail: 'The lineage job was canceled; the graph is kept.' }],
		['no lineage in the project', lineage({ source: null, job: null, outcome: null }), { state: 'none', text: 'This project has no column lineage.' }],
		['a parse failure with its position', lineage({ outcome: 'failed', message: "Expected ')' but found 'from'", line: 12, column: 8 }), { state: 'failed', detail: "Expected ')' but found 'from' (line 12, column 8 of the compiled SQL)" }],
		['a parse failure whose message has its position', lineage({ outcome: 'failed', message: 'Parse error at line 6, column 54: Unexpected token', line: 6, column: 54 }), { state: 'failed', detail: 'Parse error at line 6, column 54: Unexpected token' }],
		['a parse failure without a column', lineage({ outcome: 'failed', message: 'too complex to analyse', line: 3 }), { state: 'failed', detail: 'too complex to analyse (line 3 of the compiled SQL)' }],
		['a skipped model', lineage({ outcome: 'skipped', message: 'a Python model' }), { state: 'skipped', text: 'Column lineage was not inferred for this model.', detail: 'a Python model' }],
		[
			'a model too complex to parse, with the figure that tripped',
			lineage({ outcome: 'too_complex', message: 'too complex to analyse: 120,006 tokens, over the limit of 25,000 (checked before parsing)' }),
			{ state: 'too_complex', text: 'This model is too complex to analyse: its compiled SQL was not parsed.', detail: 'too complex to analyse: 120,006 tokens, over the limit of 25,000 (checked before parsing)' }
		],
		['a partial model', lineage({ outcome: 'partial', untraced: [{ column: 'a', reason: 'r1' }, { column: 'b', reason: 'r2' }] }), { state: 'partial', text: '2 columns could not be traced.', untraced: [{ column: 'a', reason: 'r1' }, { column: 'b', reason: 'r2' }] }],
		['a partial model with one column', lineage({ outcome: 'partial', untraced: [{ column: 'a', reason: 'r1' }] }), { state: 'partial', text: 'One column could not be traced.' }]
	];
	it.each(cases)('%s', (_, cl, want) => {
		const got = lineageNotice(cl);
		if (want === null) expect(got).toBeNull();
		else expect(got).toMatchObject(want);
	});
});

describe('ColumnTraceView provenance', () => {
	const inferred: ColumnLineageAnswer = {
		edges: [edge('stg_orders.amount', 'orders.amount', 'copy', 'inferred'), edge('stg_orders.tax', 'orders.amount', 'mod', 'inferred')],
		truncated: false
	};
	it('says "inferred from SQL" when the drawn dbt edges are, counts them when only some are, and not for engine lineage', async () => {
		const answersBy: Record<string, ColumnLineageAnswer> = {
			'main/s/orders': inferred,
			'main/s/payments': answers['main/s/payments'],
			'main/s/mixed': { edges: [edge('stg_orders.amount', 'mixed.a', 'copy', 'inferred'), edge('payments.amount', 'mixed.b', 'copy', 'engine')], truncated: false }
		};
		const v = new ColumnTraceView(async (p) => answersBy[p], { kind: 'unpinned' });
		await v.select({ kind: 'dbt', path: 'main/s/orders', authored: true });
		expect(v.inferred).toEqual({ edges: 2, of: 2 });
		expect(v.provenanceLabel).toBe('inferred from SQL');
		await v.select({ kind: 'dbt', path: 'main/s/payments', authored: true });
		expect(v.inferred).toEqual({ edges: 0, of: 1 });
		expect(v.provenanceLabel).toBeNull();
		// mixed reaches orders' inferred edges through stg_orders.amount and payments' engine edge:
		// 3 of the component's 5 dbt edges were inferred.
		await v.select({ kind: 'dbt', path: 'main/s/mixed', authored: true });
		expect(v.inferred).toEqual({ edges: 3, of: 5 });
		expect(v.provenanceLabel).toBe('3 of 5 dbt edges inferred from SQL');
	});

	it('a producer edge past an inferred dbt edge leaves the trace inferred; refresh asks again', async () => {
		let served: ColumnLineageAnswer = { edges: [], truncated: false };
		const fetcher = vi.fn(async () => served);
		const v = new ColumnTraceView(fetcher, { kind: 'unpinned' });
		v.setProducers([{ path: 'f/x/report', column_lineage: producer('f/x/report', { 'lake:report.total': ['orders.amount'] }).column_lineage! }]);
		await v.select({ kind: 'dbt', path: 'main/s/orders', authored: true });
		// While the job ran the dbt half was empty: only the producer's edge is drawn.
		expect(v.edges).toHaveLength(1);
		expect(v.provenanceLabel).toBeNull();
		served = inferred;
		await v.refresh();
		expect(fetcher).toHaveBeenCalledTimes(2);
		expect(v.edges).toHaveLength(3);
		expect(v.inferred).toEqual({ edges: 2, of: 2 });
		expect(v.provenanceLabel).toBe('inferred from SQL');
	});
});


describe('the pane following a lineage job to its end', () => {
	it('redraws the trace from the inferred edges once the job that was inferring them ends (as LineagePage wires it)', async () => {
		let jobDone = false;
		const lineageFetcher = vi.fn(async (): Promise<ColumnLineageAnswer> => (jobDone ? { edges: [edge('stg_orders.amount', 'orders.amount', 'copy', 'inferred')], truncated: false } : { edges: [], truncated: false }));
		const trace = new ColumnTraceView(lineageFetcher, { kind: 'unpinned' });
		let tick!: () => void;
		const details = new RelationDetails(
			async () =>
				described(jobDone ? lineage({}) : lineage({ job: { id: JOB, status: 'running', done: 3, total: 13 }, outcome: null })),
			{ sleep: () => new Promise<void>((r) => (tick = r)), onLineageSettled: () => void trace.refresh() }
		);
		await Promise.all([details.show('main/s/orders'), trace.select({ kind: 'dbt', path: 'main/s/orders', authored: true })]);
		expect(trace.state).toBe('empty');
		expect(lineageNotice(details.dbt?.column_lineage)?.state).toBe('inferring');
		jobDone = true;
		tick();
		await details.watching;
		await vi.waitFor(() => expect(trace.state).toBe('ready'));
		expect(lineageFetcher).toHaveBeenCalledTimes(2);
		expect(trace.provenanceLabel).toBe('inferred from SQL');
		expect(lineageNotice(details.dbt?.column_lineage)).toBeNull();
	});
});
