import { describe, expect, it, vi } from 'vitest';
import { buildGroupTree } from '$lib/lineage/canvas-groups';
import { layoutLevels, type Direction, type LevelInput } from '$lib/lineage/canvas-layout';
import { assetNodeId, digestOf, scriptNodeId, type CanvasEdge, type CanvasNode } from '$lib/lineage/canvas-model';
import { levelsOf } from '$lib/lineage/canvas-view';
import { columnId } from '$lib/lineage/column-trace';
import type { ColumnLineageAnswer } from '$lib/types/asset-graph';
import { col, edge, producer } from '../../../tests/support/trace-fixtures';
import { CanvasState, READABLE_ZOOM, type FlowApi } from './canvas.svelte';
import { ColumnFocus, type FocusSource } from './column-focus.svelte';
import { ColumnTraceView } from './details.svelte';

// orders → payments_summary → revenue → (script publish.sql) → lake:report, and a side branch
// orders → refunds that carries another column: tracing payments_summary.amount reaches the
// first chain only; refunds and customers (unrelated) stay out.
const EDGES = [
	edge('orders.amount', 'payments_summary.amount'),
	edge('payments_summary.amount', 'revenue.total', 'mod'),
	edge('orders.id', 'refunds.order_id'),
	edge('customers.id', 'customers_clean.id')
];
const PRODUCERS = [producer('f/x/publish.sql', { 'lake:report.total': ['revenue.total'] })];
const producerLineage = PRODUCERS.map((p) => ({ path: p.path, column_lineage: p.column_lineage! }));

const card = (name: string) => {
	const c = col(`${name}.x`);
	return assetNodeId(c.kind, c.path);
};
const SCRIPT = scriptNodeId('f/x/publish.sql');

function canvasOf(fetcher: (levels: LevelInput[], direction: Direction) => Promise<Record<string, import('$lib/lineage/canvas-layout').LevelLayout>>) {
	const nodes: CanvasNode[] = [];
	const add = (id: string, kind: string, path: string, type: CanvasNode['type'] = 'asset') =>
		nodes.push({ id, type, kind, path, name: path.slice(path.lastIndexOf('/') + 1), schema: path.slice(0, path.lastIndexOf('/')) });
	for (const n of ['orders', 'payments_summary', 'revenue', 'refunds', 'customers', 'customers_clean']) add(card(n), 'dbt', col(`${n}.x`).path);
	add(card('lake:report'), 'ducklake', 'main/report');
	add(SCRIPT, 'sql', 'f/x/publish.sql', 'runnable');
	const edges: CanvasEdge[] = [
		{ source: card('orders'), target: card('payments_summary'), kind: 'ref' },
		{ source: card('payments_summary'), target: card('revenue'), kind: 'ref' },
		{ source: card('orders'), target: card('refunds'), kind: 'ref' },
		// A ref the traced column does not flow along.
		{ source: card('orders'), target: card('revenue'), kind: 'ref' },
		{ source: card('customers'), target: card('customers_clean'), kind: 'ref' },
		{ source: card('revenue'), target: SCRIPT, kind: 'read' },
		{ source: SCRIPT, target: card('lake:report'), kind: 'write' }
	];
	const canvas = new CanvasState(fetcher);
	const tree = buildGroupTree(nodes, edges);
	canvas.load({ canvas: { nodes, edges, projects: [], hidden: 0, digest: digestOf(nodes.map((n) => n.id).join()) }, open: [], layouts: layoutLevels(levelsOf(tree, new Set())) });
	return canvas;
}

/** A mounted flow's viewport, as the canvas component hands it over. */
function fakeFlow(start = { x: -40, y: 25, zoom: 0.6 }) {
	let vp = { ...start };
	const flow: FlowApi = {
		getViewport: () => ({ ...vp }),
		setViewport: vi.fn(async (v: { x: number; y: number; zoom: number }) => {
			vp = { ...v };
			return true;
		}),
		setCenter: async () => true,
		fitBounds: async () => true
	};
	return flow;
}

async function setUp(width = 1600, height = 800) {
	const layout = vi.fn(async (levels: LevelInput[], direction: Direction) => layoutLevels(levels, null, { direction }));
	const canvas = canvasOf(layout);
	const flow = fakeFlow();
	canvas.flow = flow;
	canvas.viewport = { ...flow.getViewport(), width, height };
	const trace = new ColumnTraceView(async (): Promise<ColumnLineageAnswer> => ({ edges: EDGES, truncated: false }), { kind: 'unpinned' });
	trace.setProducers(producerLineage);
	await trace.select({ kind: 'dbt', path: col('payments_summary.x').path, authored: true });
	// The page's source: the pane's traced column.
	const source = (): FocusSource | null => (trace.traced && trace.path ? { column: trace.traced, columns: trace.path.columns, graph: trace.graph, via: trace.via } : null);
	const focus = new ColumnFocus(canvas, source, layout);
	return { canvas, flow, trace, focus, layout };
}

const PATH = [card('orders'), card('payments_summary'), card('revenue'), SCRIPT, card('lake:report')];
const amount = () => {
	const c = col('payments_summary.amount');
	return columnId(c.kind, c.path, c.column);
};

describe('ColumnFocus', () => {
	it('derives the traced column\'s path on the canvas: its relations and the scripts carrying it, only the edges it flows along', async () => {
		const { focus, trace } = await setUp();
		expect(focus.path).toBeNull();
		expect(focus.available).toBe(false);
		trace.trace(amount());
		expect(focus.available).toBe(true);
		expect(focus.label).toBe('payments_summary.amount');
		expect(new Set(focus.path!.nodes)).toEqual(new Set(PATH));
		expect(focus.path!.edges.map((e) => `${e.source} > ${e.target}`).sort()).toEqual(
			[
				`${card('orders')} > ${card('payments_summary')}`,
				`${card('payments_summary')} > ${card('revenue')}`,
				`${card('revenue')} > ${SCRIPT}`,
				`${SCRIPT} > ${card('lake:report')}`
			].sort()
		);
		// orders → revenue is a ref of the canvas, but the column does not flow along it.
		expect(focus.path!.edges.some((e) => e.source === card('orders') && e.target === card('revenue'))).toBe(false);
		trace.trace(null);
		expect(focus.available).toBe(false);
	});

	it('shows only the path, laid out left to right by the layout and fitted readable; toggled back, the same cut, viewport and selection', async () => {
		const { canvas, flow, trace, focus, layout } = await setUp();
		canvas.selected = card('payments_summary');
		const beforeCards = canvas.composed!.cards.map((c) => c.id).sort();
		const beforeEdges = canvas.edges.length;
		const beforeView = flow.getViewport();
		expect(beforeCards.length).toBeGreaterThan(PATH.length);
		trace.trace(amount());

		await focus.toggle();
		expect(focus.active).toBe(true);
		expect(layout).toHaveBeenCalledTimes(1);
		expect(layout.mock.calls[0][1]).toBe('LR');
		expect(layout.mock.calls[0][0]).toHaveLength(1);
		expect(canvas.composed!.cards.map((c) => c.id).sort()).toEqual([...PATH].sort());
		expect(canvas.composed!.frames).toEqual([]);
		expect(canvas.edges).toHaveLength(4);
		// Left to right along the flow: every edge runs rightwards.
		for (const e of canvas.edges) expect(canvas.placed.get(e.target)!.x).toBeGreaterThan(canvas.placed.get(e.source)!.x);
		// Nothing on screen is dimmed, and the view was fitted: every card inside, text readable.
		expect(canvas.focusUnits).toBeNull();
		const vp = flow.getViewport();
		expect(vp.zoom).toBeGreaterThanOrEqual(READABLE_ZOOM);
		for (const c of canvas.composed!.cards) {
			const x = c.x * vp.zoom + vp.x;
			const y = c.y * vp.zoom + vp.y;
			expect(x).toBeGreaterThanOrEqual(0);
			expect(y).toBeGreaterThanOrEqual(0);
			expect(x + c.w * vp.zoom).toBeLessThanOrEqual(1600);
			expect(y + c.h * vp.zoom).toBeLessThanOrEqual(800);
		}
		// A node of the path is its own card.
		expect(canvas.unitOf(card('lake:report'))).toBe(card('lake:report'));

		// Selecting another card while focused does not survive toggling back.
		canvas.selected = card('revenue');
		await focus.toggle();
		expect(focus.active).toBe(false);
		expect(canvas.focusCut).toBeNull();
		expect(canvas.composed!.cards.map((c) => c.id).sort()).toEqual(beforeCards);
		expect(canvas.edges).toHaveLength(beforeEdges);
		expect(flow.getViewport()).toEqual(beforeView);
		expect(canvas.viewport).toMatchObject(beforeView);
		expect(canvas.selected).toBe(card('payments_summary'));
	});

	it('frames a path too long to read whole on the traced column\'s card and its neighbours, readable', async () => {
		const { canvas, flow, trace, focus } = await setUp(900, 600);
		trace.trace(amount());
		await focus.enter();
		const vp = flow.getViewport();
		expect(vp.zoom).toBeGreaterThanOrEqual(READABLE_ZOOM);
		const inside = (id: string) => {
			const c = canvas.placed.get(id)!;
			const x = c.x * vp.zoom + vp.x;
			return x >= 0 && x + c.w * vp.zoom <= 900;
		};
		expect([card('orders'), card('payments_summary'), card('revenue')].every(inside)).toBe(true);
		expect(inside(card('lake:report'))).toBe(false);
	});

	it('does nothing without a traced column, follows another traced column while focused, and keeps the path when the trace is cleared', async () => {
		const { canvas, trace, focus, layout } = await setUp();
		await focus.enter();
		expect(focus.active).toBe(false);
		expect(layout).not.toHaveBeenCalled();

		trace.trace(amount());
		await focus.enter();
		const shown = canvas.composed!.cards.length;
		// The same path again lays nothing out.
		focus.follow(focus.path);
		expect(layout).toHaveBeenCalledTimes(1);
		// orders.id's path: orders and refunds only.
		const id = col('orders.id');
		trace.trace(columnId(id.kind, id.path, id.column));
		focus.follow(focus.path);
		await vi.waitFor(() => expect(canvas.composed!.cards.map((c) => c.id).sort()).toEqual([card('orders'), card('refunds')].sort()));
		expect(shown).toBe(PATH.length);
		// Cleared: what is shown stays until focus is toggled off.
		trace.trace(null);
		focus.follow(focus.path);
		expect(canvas.composed!.cards).toHaveLength(2);
		await focus.toggle();
		expect(canvas.focusCut).toBeNull();
	});

	it('gives the canvas back when the layout fails, and says so', async () => {
		const { canvas, trace, focus } = await setUp();
		const failing = new ColumnFocus(canvas, () => (trace.traced && trace.path ? { column: trace.traced, columns: trace.path.columns, graph: trace.graph, via: trace.via } : null), async () => {
			throw new Error('layout failed (413)');
		});
		trace.trace(amount());
		expect(focus.available).toBe(true);
		await failing.toggle();
		expect(failing.active).toBe(false);
		expect(failing.error).toBe('layout failed (413)');
		expect(canvas.focusCut).toBeNull();
	});

	it('a new graph drops the focus without restoring a view of the old one', async () => {
		const { canvas, flow, trace, focus } = await setUp();
		trace.trace(amount());
		await focus.enter();
		const calls = (flow.setViewport as ReturnType<typeof vi.fn>).mock.calls.length;
		focus.drop();
		expect(focus.active).toBe(false);
		expect(canvas.focusCut).toBeNull();
		expect((flow.setViewport as ReturnType<typeof vi.fn>).mock.calls.length).toBe(calls);
	});
});
