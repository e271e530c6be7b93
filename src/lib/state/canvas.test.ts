import { afterEach, describe, expect, it, vi } from 'vitest';
import { syntheticProject } from '../../../tests/support/canvas-fixtures';
import { buildGroupTree, cutOf, isGroupId } from '$lib/lineage/canvas-groups';
import { layoutLevels, type Direction, type LevelInput, type LevelLayout } from '$lib/lineage/canvas-layout';
import { digestOf } from '$lib/lineage/canvas-model';
import { levelsOf } from '$lib/lineage/canvas-view';
import { attrId, CanvasState, httpLayoutFetcher } from './canvas.svelte';

function bigCanvas() {
	const { nodes, edges } = syntheticProject(3000);
	const canvas = { nodes, edges, projects: [], hidden: 0, digest: digestOf(String(nodes.length)) };
	const tree = buildGroupTree(nodes, edges);
	return { canvas, tree, layouts: layoutLevels(levelsOf(tree, new Set())) };
}

/** A layout server whose answers the test releases in any order. */
function heldLayouts() {
	const calls: { levels: LevelInput[]; direction: Direction; resolve: (l: Record<string, LevelLayout>) => void }[] = [];
	const fetcher = (levels: LevelInput[], direction: Direction) => new Promise<Record<string, LevelLayout>>((resolve) => calls.push({ levels, direction, resolve }));
	return { calls, fetcher };
}

describe('CanvasState', () => {
	it('asks the server for a new cut, and drops an answer a later click has overtaken', async () => {
		const { canvas, layouts } = bigCanvas();
		const { calls, fetcher } = heldLayouts();
		const s = new CanvasState(fetcher);
		s.load({ canvas, open: [], layouts });
		const groups = cutOf(s.tree, s.open).units.filter(isGroupId);
		const first = s.expand(groups[0]);
		const second = s.expand(groups[1]);
		expect(calls).toHaveLength(2);
		expect(s.layoutPending).toBe(true);
		calls[1].resolve(layoutLevels(calls[1].levels));
		await second;
		expect([...s.open]).toEqual([groups[1]]);
		calls[0].resolve(layoutLevels(calls[0].levels));
		await first;
		// The older answer did not replace the newer cut.
		expect([...s.open]).toEqual([groups[1]]);
		expect(s.layoutPending).toBe(false);
		expect(s.composed!.frames.map((f) => f.id)).toEqual([groups[1]]);
	});

	it('serves a cut it has laid out before from its own cache', async () => {
		const { canvas, layouts } = bigCanvas();
		const { calls, fetcher } = heldLayouts();
		const s = new CanvasState(fetcher);
		s.load({ canvas, open: [], layouts });
		const g = cutOf(s.tree, s.open).units.find(isGroupId)!;
		const opening = s.expand(g);
		calls[0].resolve(layoutLevels(calls[0].levels));
		await opening;
		await s.collapse(g);
		await s.expand(g);
		expect(calls).toHaveLength(1);
		expect(s.open.has(g)).toBe(true);
	});

	it('lays the same cut out the other way on the server, once per direction, and says which way it runs', async () => {
		const { canvas, layouts } = bigCanvas();
		const { calls, fetcher } = heldLayouts();
		const s = new CanvasState(fetcher);
		s.load({ canvas, open: [], layouts, direction: 'LR' });
		expect(s.direction).toBe('LR');
		const turning = s.setDirection('TB');
		expect(calls.map((c) => c.direction)).toEqual(['TB']);
		// Still drawn left to right until the answer comes.
		expect(s.direction).toBe('LR');
		calls[0].resolve(layoutLevels(calls[0].levels, null, { direction: 'TB' }));
		await turning;
		expect(s.direction).toBe('TB');
		// Both directions are cached: turning back and forth asks nothing more.
		await s.setDirection('LR');
		await s.setDirection('TB');
		expect(calls).toHaveLength(1);
		// A group opened top-down is asked for top-down.
		void s.expand(cutOf(s.tree, s.open).units.find(isGroupId)!);
		expect(calls[1].direction).toBe('TB');
	});

	it.each([
		['a big folder starts at one hop each way', 3000, 1],
		['a small one at all of the lineage', 40, 'all']
	] as const)('%s', (_name, models, depth) => {
		const { nodes, edges } = syntheticProject(models);
		const tree = buildGroupTree(nodes, edges);
		const s = new CanvasState(async () => ({}));
		s.load({ canvas: { nodes, edges, projects: [], hidden: 0, digest: digestOf(`d${models}`) }, open: [], layouts: layoutLevels(levelsOf(tree, new Set())) });
		expect([s.depthUp, s.depthDown]).toEqual([depth, depth]);
		// The lit set follows the depth: one hop lights no more than all of it.
		const id = nodes.find((n) => edges.some((e) => e.source === n.id) && edges.some((e) => e.target === n.id))!.id;
		s.selected = id;
		s.depthUp = 1;
		s.depthDown = 1;
		const one = s.lineage.size;
		s.depthUp = 'all';
		s.depthDown = 'all';
		expect(s.lineage.size).toBeGreaterThanOrEqual(one);
		expect(one).toBeGreaterThan(1);
	});

	it('opens readable: the fitted view when it is readable, else zoom 1 on the selection or the densest relations', () => {
		const { nodes, edges } = syntheticProject(40);
		const tree = buildGroupTree(nodes, edges);
		const s = new CanvasState(async () => ({}));
		s.load({ canvas: { nodes, edges, projects: [], hidden: 0, digest: digestOf('first-view') }, open: [], layouts: layoutLevels(levelsOf(tree, new Set())) });
		const fitted = { x: 10, y: 20, zoom: 1.1 };
		expect(s.firstView(1440, 800, fitted)).toBe(fitted);
		const small = { x: 0, y: 0, zoom: 0.4 };
		const framed = s.firstView(1440, 800, small);
		expect(framed.zoom).toBe(1);
		// Some relation's card is inside the framed screen.
		const inView = (c: { x: number; y: number; w: number; h: number }) => c.x + framed.x >= 0 && c.x + c.w + framed.x <= 1440 && c.y + framed.y >= 0 && c.y + c.h + framed.y <= 800;
		expect(s.composed!.cards.filter((c) => !isGroupId(c.id)).some(inView)).toBe(true);
		// A selection is centred.
		const pick = s.composed!.cards.filter((c) => !isGroupId(c.id)).at(-1)!;
		s.selected = pick.id;
		const onSel = s.firstView(1440, 800, small);
		expect(pick.x + pick.w / 2 + onSel.x).toBeCloseTo(720);
		expect(pick.y + pick.h / 2 + onSel.y).toBeCloseTo(400);
	});

	it('the legend counts the cards of the cut under the lens', () => {
		const { nodes, edges } = syntheticProject(40);
		const tree = buildGroupTree(nodes, edges);
		const s = new CanvasState(async () => ({}));
		s.load({ canvas: { nodes, edges, projects: [], hidden: 0, digest: digestOf('legend') }, open: [], layouts: layoutLevels(levelsOf(tree, new Set())) });
		expect(s.legend).toEqual([]);
		s.lens = 'type';
		const nodesShown = s.composed!.cards.filter((c) => !isGroupId(c.id)).length;
		expect(nodesShown).toBeGreaterThan(10);
		expect(s.legend.reduce((a, e) => a + e.count, 0)).toBe(nodesShown);
		expect(s.legend.map((e) => e.key)).toContain('model');
		// A live status wins over nothing under the run lens.
		s.lens = 'run';
		const id = s.composed!.cards.find((c) => !isGroupId(c.id))!.id;
		s.status = new Map([[id, { status: 'failed' }]]);
		expect(s.lensOf(id)).toBe('failed');
		expect(s.legend.find((e) => e.key === 'failed')?.count).toBe(1);
	});

	it('highlights a selection and its lineage by CSS, on the cards that stand for them', () => {
		const { canvas, layouts } = bigCanvas();
		const s = new CanvasState(async () => ({}));
		s.load({ canvas, open: [], layouts });
		expect(s.highlightCss).toBe('');
		const target = canvas.edges[0].target;
		s.selected = target;
		expect(s.lineage.has(canvas.edges[0].source)).toBe(true);
		const unit = s.unitOf(target);
		expect(s.highlightCss).toContain(`.svelte-flow__node${attrId(unit)}`);
		expect(s.highlightCss).toContain('opacity:.22');
		s.selected = null;
		s.query = 'tag:none_such';
		// A selector that matches nothing leaves the canvas as it was (no match, and
		// the canvas unchanged); the box says "no match".
		expect(s.search).toMatchObject({ kind: 'selection', pending: [] });
		expect(s.highlightCss).toBe('');
		s.query = 'tag:';
		expect(s.search.kind).toBe('error');
		expect(s.highlightCss).toBe('');
		s.query = '';
		expect(s.highlightCss).toBe('');
	});

	it('hands xyflow only the edges near the viewport, plus the selection lineage', () => {
		const { canvas, layouts } = bigCanvas();
		const s = new CanvasState(async () => ({}));
		s.load({ canvas, open: [], layouts });
		const all = s.edges.length;
		expect(all).toBeGreaterThan(0);
		s.viewport = { x: 0, y: 0, zoom: 1, width: 10, height: 10 };
		expect(s.visibleEdges.length).toBeLessThan(all);
		s.viewport = { x: 0, y: 0, zoom: 0.001, width: 1000, height: 1000 };
		expect(s.visibleEdges.length).toBe(all);
	});

	it('searching builds the selector graph only once something is typed', () => {
		const { canvas, layouts } = bigCanvas();
		const s = new CanvasState(async () => ({}));
		s.load({ canvas, open: [], layouts });
		expect(s.search.kind).toBe('empty');
		s.query = '  ';
		expect(s.search.kind).toBe('empty');
		s.query = canvas.nodes[0].name;
		expect(s.search.kind).toBe('names');
	});

	it.each([
		['a"b\\c', '[data-id="a\\"b\\\\c"]'],
		['"><img src=x>', '[data-id="\\"\\3e \\3c img src=x\\3e "]'],
		['</style>', '[data-id="\\3c /style\\3e "]'],
		['a&amp;b', '[data-id="a\\26 amp;b"]'],
		['line\nbreak\r\f', '[data-id="line\\a break\\d \\c "]'],
		["it's é😀", `[data-id="it's é😀"]`]
	])('escapes the id %j in an attribute selector', (id, want) => {
		expect(attrId(id)).toBe(want);
		// Nothing in it can end the style element, be HTML-escaped by the server, or break the string.
		expect(want).not.toMatch(/[<>&\n\r\f]/);
	});
});

describe('httpLayoutFetcher', () => {
	afterEach(() => vi.unstubAllGlobals());

	it.each([
		['a member: no token, no job', null, undefined, '/w/acme/layout', undefined],
		['a share-link holder: its token, and the run on screen', 'tok.abc', () => 'job 1', '/w/acme/layout?job=job%201', 'tok.abc']
	])('%s', async (_name, token, job, url, header) => {
		const calls: { url: string; headers: Record<string, string>; body: string }[] = [];
		vi.stubGlobal('fetch', async (u: string, init: RequestInit) => {
			calls.push({ url: u, headers: init.headers as Record<string, string>, body: String(init.body) });
			return new Response(JSON.stringify({ layouts: { 'g:': { pos: {}, w: 0, h: 0 } } }));
		});
		const layouts = await httpLayoutFetcher('acme', token, job)([{ id: 'g:', children: [], edges: [] }], 'TB');
		expect(layouts['g:'].w).toBe(0);
		expect(JSON.parse(calls[0].body).direction).toBe('TB');
		expect(calls[0].url).toBe(url);
		expect(calls[0].headers['x-view-token']).toBe(header);
	});
});
