import { describe, expect, it } from 'vitest';
import { producerVia } from './canvas-columns';
import { buildDbtColumnGraph, buildProducerColumnGraph, columnId, connectedComponent, edgeKey, edgesAmong, mergeColumnGraphs, TRACE, traceLanes, traceScrollLeft } from './column-trace';
import { focusLanes, SCRIPT, traceFrame, traceLayout, tracePath, TRACE_READABLE_ZOOM, TRACE_ZOOM, visibleArea, zoomAt } from './trace-view';
import { col, edge, producer } from '../../../tests/support/trace-fixtures';

const id = (ref: string) => {
	const c = col(ref);
	return columnId(c.kind, c.path, c.column);
};

// raw.orders → stg.orders → orders (dbt), orders → lake:daily (script a), orders → lake:audit (script b);
// a sibling branch raw.customers → stg.customers → customers, joined into orders.customer_name.
const answers = [
	[
		edge('raw.orders.amount', 'stg_orders.amount'),
		edge('stg_orders.amount', 'orders.amount', 'mod'),
		edge('raw.orders.id', 'stg_orders.id'),
		edge('stg_orders.id', 'orders.id'),
		edge('raw.customers.name', 'stg_customers.name'),
		edge('stg_customers.name', 'orders.customer_name')
	]
];
const runnables = [
	producer('main/jobs/daily.sql', { 'lake:daily.total': ['orders.amount'], 'lake:daily.n': ['orders.id'] }),
	producer('main/jobs/audit.py', { 'lake:audit.who': ['orders.customer_name'] })
];
const g = mergeColumnGraphs(...answers.map(buildDbtColumnGraph), buildProducerColumnGraph({ runnables }));
const via = producerVia(runnables.map((r) => ({ path: r.path, column_lineage: r.column_lineage ?? [] })));
const component = connectedComponent([id('orders.amount'), id('orders.id'), id('orders.customer_name')], g);

describe('tracePath: what is on a traced column\'s path', () => {
	it('holds its upstream, its downstream and the scripts carrying them, and nothing beside', () => {
		const p = tracePath(id('orders.amount'), g, via);
		expect([...p.columns].sort()).toEqual([id('raw.orders.amount'), id('stg_orders.amount'), id('orders.amount'), id('lake:daily.total')].sort());
		expect([...p.scripts]).toEqual(['main/jobs/daily.sql']);
		// A sibling through the same script is not on the path, nor is the other script.
		expect(p.columns.has(id('lake:daily.n'))).toBe(false);
		expect(p.columns.has(id('orders.customer_name'))).toBe(false);
	});

	it('is empty for a column the graph does not hold', () => {
		expect(tracePath(id('nowhere.x'), g, via)).toEqual({ columns: new Set(), scripts: new Set() });
	});
});

describe('focusLanes: the path laid out anew, left to right', () => {
	it('keeps only the path, sources in the first lane and every edge pointing right', () => {
		const p = tracePath(id('orders.amount'), g, via).columns;
		const lanes = focusLanes(p, g);
		expect(lanes.map((l) => l.assets.map((a) => a.path))).toEqual([['main/s/raw.orders'], ['main/s/stg_orders'], ['main/s/orders'], ['main/daily']]);
		expect(lanes.flatMap((l) => l.assets.flatMap((a) => a.columns)).sort()).toEqual([...p].sort());
		// Fewer lanes' worth of boxes than the whole component's.
		const whole = traceLanes(component, g);
		expect(whole.flatMap((l) => l.assets).length).toBeGreaterThan(lanes.flatMap((l) => l.assets).length);
	});
});

describe('traceLayout: producer scripts as boxes', () => {
	const edges = edgesAmong(component, g);
	const lanes = traceLanes(component, g);
	const layout = traceLayout(lanes, edges, via);

	it('draws a box per script, in the gap before the lane it writes, widened to hold it', () => {
		expect(layout.scripts.map((s) => s.path).sort()).toEqual(['main/jobs/audit.py', 'main/jobs/daily.sql']);
		const lakeLane = lanes.findIndex((l) => l.assets.some((a) => a.kind === 'ducklake'));
		const gapLeft = layout.laneX[lakeLane - 1] + TRACE.laneW;
		expect(layout.laneX[lakeLane] - gapLeft).toBe(SCRIPT.gap);
		for (const s of layout.scripts) {
			expect(s.x).toBeGreaterThan(gapLeft);
			expect(s.x + s.w).toBeLessThan(layout.laneX[lakeLane]);
		}
		// Gaps without a script keep their width.
		expect(layout.laneX[1] - layout.laneX[0] - TRACE.laneW).toBe(TRACE.gap);
		expect(layout.width).toBe(layout.laneX.at(-1)! + TRACE.laneW + TRACE.pad);
	});

	it('routes every producer edge through its script, and no other edge', () => {
		const daily = layout.scripts.find((s) => s.path === 'main/jobs/daily.sql')!;
		expect(layout.through.get(edgeKey(id('orders.amount'), id('lake:daily.total')))).toBe(daily);
		expect(layout.through.get(edgeKey(id('orders.id'), id('lake:daily.n')))).toBe(daily);
		expect(layout.through.has(edgeKey(id('stg_orders.amount'), id('orders.amount')))).toBe(false);
		expect(layout.through.size).toBe(3);
	});

	it('never overlaps two script boxes in one gap, and the drawing is tall enough for them', () => {
		const [a, b] = [...layout.scripts].sort((x, y) => x.y - y.y);
		expect(a.y + a.h).toBeLessThanOrEqual(b.y);
		for (const s of layout.scripts) expect(s.y + s.h).toBeLessThanOrEqual(layout.height);
	});

	it('without scripts is the plain lane layout', () => {
		const plain = traceLayout(lanes);
		expect(plain.scripts).toEqual([]);
		expect(plain.laneX).toEqual(lanes.map((_, i) => TRACE.pad + i * (TRACE.laneW + TRACE.gap)));
	});

	it('scrolls the pane to a lane boundary read from the widened gaps', () => {
		const last = layout.boxes.at(-1)!;
		const { left } = traceScrollLeft(last, 400, layout.width, layout.laneX);
		expect(layout.laneX.map((x) => x - TRACE.pad)).toContain(left);
		expect(left + 400).toBeGreaterThanOrEqual(last.x + last.w);
	});
});

describe('fitting and zooming the widened trace', () => {
	const whole = traceLayout(traceLanes(component, g), edgesAmong(component, g), via);
	/** The drawing's rectangle `r` on screen under view `v`, inside a `vw`×`vh` frame? */
	const inside = (v: { x: number; y: number; zoom: number }, r: { x: number; y: number; w: number; h: number }, vw: number, vh: number) =>
		r.x * v.zoom + v.x >= -0.5 && r.y * v.zoom + v.y >= -0.5 && (r.x + r.w) * v.zoom + v.x <= vw + 0.5 && (r.y + r.h) * v.zoom + v.y <= vh + 0.5;

	it('opens a trace that reads whole at 11 px whole, centred, never above 1:1', () => {
		const v = traceFrame(whole, g, [id('orders.amount')], whole.width + 400, whole.height + 300);
		expect(v.zoom).toBe(TRACE_READABLE_ZOOM);
		expect(v.x).toBeCloseTo(200, 5);
		for (const b of whole.boxes) expect(inside(v, b, whole.width + 400, whole.height + 300)).toBe(true);
	});

	it('opens a wide trace at the readable zoom around the traced column and its direct neighbours; Fit shows it whole', () => {
		// Room for three lanes and a script's gap at 1:1, not for all four.
		const vw = 900;
		expect(whole.width).toBeGreaterThan(vw);
		const vh = 400;
		const traced = id('orders.amount');
		const v = traceFrame(whole, g, [traced], vw, vh);
		expect(v.zoom).toBe(TRACE_READABLE_ZOOM);
		const row = (c: string) => whole.rows.get(c)!;
		// The traced column, the one it comes from and the lake column it goes to (through its script's box).
		for (const c of [traced, id('stg_orders.amount'), id('lake:daily.total')]) expect(inside(v, row(c), vw, vh)).toBe(true);
		expect(inside(v, whole.scripts.find((s) => s.path === 'main/jobs/daily.sql')!, vw, vh)).toBe(true);
		// Two hops upstream is not a direct neighbour, and does not fit beside them.
		expect(inside(v, row(id('raw.orders.amount')), vw, vh)).toBe(false);

		const all = traceFrame(whole, g, [traced], vw, vh, true);
		expect(all.zoom).toBeLessThan(TRACE_READABLE_ZOOM);
		for (const b of [...whole.boxes, ...whole.scripts]) expect(inside(all, b, vw, vh)).toBe(true);
		const a = visibleArea(all, vw, vh);
		expect(a.x).toBeLessThanOrEqual(0);
		expect(a.x + a.w).toBeGreaterThanOrEqual(whole.width);
	});

	it('shows a drawing too big for the least zoom from its top left', () => {
		const v = traceFrame(whole, g, [], 40, 30, true);
		expect(v).toEqual({ x: 12, y: 12, zoom: TRACE_ZOOM.min });
	});

	it('zooms about the pointer: the point under it stays there', () => {
		const v = { x: 40, y: 10, zoom: 0.5 };
		const z = zoomAt(v, 2, 300, 200);
		const before = { x: (300 - v.x) / v.zoom, y: (200 - v.y) / v.zoom };
		expect((300 - z.x) / z.zoom).toBeCloseTo(before.x, 6);
		expect((200 - z.y) / z.zoom).toBeCloseTo(before.y, 6);
		expect(zoomAt(v, 100, 0, 0).zoom).toBe(1.5);
	});
});
