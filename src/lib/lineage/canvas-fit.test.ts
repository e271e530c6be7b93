import { describe, expect, it } from 'vitest';
import { cardsInside, fitFrame, freeAreas, withNeighbours, type Rect } from './canvas-fit';

const W = 900;
const H = 700;
// The canvas's corners as the component measures them: controls top-right, minimap bottom-right, zoom buttons bottom-left.
const toolbar = { x: W - 315, y: 15, w: 300, h: 70 };
const minimap = { x: W - 175, y: H - 125, w: 160, h: 110 };
const zoomButtons = { x: 15, y: H - 105, w: 27, h: 90 };
const OBSTACLES = [toolbar, minimap, zoomButtons];

/** A grid of `cols`×`rows` cards of 220×58, 80 apart sideways and 30 down. */
function grid(cols: number, rows: number) {
	const cards: (Rect & { id: string })[] = [];
	for (let c = 0; c < cols; c++) for (let r = 0; r < rows; r++) cards.push({ id: `n${c}_${r}`, x: c * 300, y: r * 88, w: 220, h: 58 });
	const bounds = { x: 0, y: 0, w: (cols - 1) * 300 + 220, h: (rows - 1) * 88 + 58 };
	return { cards, bounds };
}

/** Each framed card on screen, as a screen rect. */
const onScreen = (c: Rect, v: { x: number; y: number; zoom: number }): Rect => ({ x: c.x * v.zoom + v.x, y: c.y * v.zoom + v.y, w: c.w * v.zoom, h: c.h * v.zoom });
const hits = (a: Rect, b: Rect) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

describe('freeAreas', () => {
	it('no obstacle: the whole screen', () => {
		expect(freeAreas(W, H, [])).toEqual([{ x: 0, y: 0, w: W, h: H }]);
	});

	it('every area misses every obstacle and none lies inside another', () => {
		const areas = freeAreas(W, H, OBSTACLES, 8);
		expect(areas.length).toBeGreaterThan(2);
		for (const a of areas) {
			for (const o of OBSTACLES) expect(hits(a, { x: o.x - 8, y: o.y - 8, w: o.w + 16, h: o.h + 16 }), JSON.stringify({ a, o })).toBe(false);
			expect(a.x).toBeGreaterThanOrEqual(0);
			expect(a.x + a.w).toBeLessThanOrEqual(W);
		}
		// The strip left of the right-hand panels, full height but for the zoom buttons' column.
		expect(areas).toContainEqual({ x: 15 + 27 + 8, y: 0, w: toolbar.x - 8 - 50, h: H });
		// The band between the toolbar and the minimap, full width.
		expect(areas).toContainEqual({ x: 0, y: 15 + 70 + 8, w: W, h: minimap.y - 8 - 93 });
		// Largest first.
		for (let i = 1; i < areas.length; i++) expect(areas[i - 1].w * areas[i - 1].h).toBeGreaterThanOrEqual(areas[i].w * areas[i].h);
	});
});

describe('fitFrame', () => {
	it('a cut readable whole is framed whole, clear of the panels, no closer than the largest zoom', () => {
		const { cards, bounds } = grid(2, 3);
		const f = fitFrame({ cards, bounds, width: W, height: H, obstacles: OBSTACLES, priority: [], readableZoom: 1, maxZoom: 1.2 });
		expect(f.whole).toBe(true);
		expect(f.view.zoom).toBe(1.2);
		expect(f.framed.sort()).toEqual(cards.map((c) => c.id).sort());
		for (const c of cards) {
			const s = onScreen(c, f.view);
			for (const o of OBSTACLES) expect(hits(s, o), c.id).toBe(false);
			expect(s.x).toBeGreaterThanOrEqual(0);
			expect(s.y).toBeGreaterThanOrEqual(0);
			expect(s.x + s.w).toBeLessThanOrEqual(W);
			expect(s.y + s.h).toBeLessThanOrEqual(H);
		}
	});

	it('a wide cut that fits only below the toolbar goes there, not shrunk into the left strip', () => {
		// 760 wide at zoom 1: too wide for the strip left of the toolbar (~535), fine in the band.
		const cards = [
			{ id: 'a', x: 0, y: 0, w: 220, h: 58 },
			{ id: 'b', x: 540, y: 0, w: 220, h: 58 }
		];
		const f = fitFrame({ cards, bounds: { x: 0, y: 0, w: 760, h: 58 }, width: W, height: H, obstacles: OBSTACLES, priority: [], readableZoom: 1, maxZoom: 1 });
		expect(f.whole).toBe(true);
		expect(f.view.zoom).toBe(1);
		for (const c of cards) for (const o of OBSTACLES) expect(hits(onScreen(c, f.view), o)).toBe(false);
	});

	it('too big to read whole: the failures first, then as many of their neighbours as fit, at the readable zoom', () => {
		const { cards, bounds } = grid(12, 12);
		const failed = 'n9_9';
		const edges = [
			{ source: 'n8_9', target: failed },
			{ source: failed, target: 'n10_9' },
			{ source: failed, target: 'n10_10' },
			{ source: 'n0_0', target: 'n1_0' }
		];
		const f = fitFrame({ cards, bounds, width: W, height: H, obstacles: OBSTACLES, priority: withNeighbours([failed], edges), readableZoom: 1, maxZoom: 1.2 });
		expect(f.whole).toBe(false);
		expect(f.view.zoom).toBe(1);
		for (const id of [failed, 'n8_9', 'n10_9', 'n10_10']) expect(f.framed, id).toContain(id);
		expect(f.framed).not.toContain('n0_0');
		// What is framed lies in the free area, clear of every panel.
		const byId = new Map(cards.map((c) => [c.id, c]));
		for (const id of f.framed) for (const o of OBSTACLES) expect(hits(onScreen(byId.get(id)!, f.view), o), id).toBe(false);
	});

	it('more that matters than fits: the first tier nearest its head wins, and all framed is whole on screen', () => {
		const { cards, bounds } = grid(20, 4);
		const changed = cards.filter((c) => c.y === 0).map((c) => c.id);
		const f = fitFrame({ cards, bounds, width: W, height: H, obstacles: OBSTACLES, priority: [changed], readableZoom: 1, maxZoom: 1.2 });
		expect(f.view.zoom).toBe(1);
		expect(f.framed).toContain(changed[0]);
		expect(f.framed.length).toBeGreaterThan(0);
		expect(f.framed.length).toBeLessThan(cards.length);
		expect(cardsInside(cards, f.view, f.area).sort()).toEqual([...f.framed].sort());
	});

	it('the area that frames more of the first tier wins over one that frames more cards in all', () => {
		// Two changed cards side by side (only the band under the toolbar is wide enough for both)
		// and a column of neighbours under the first (only the strip left of the panels is tall enough).
		const cards: (Rect & { id: string })[] = [
			{ id: 'a', x: 0, y: 0, w: 220, h: 58 },
			{ id: 'b', x: 600, y: 0, w: 220, h: 58 }
		];
		for (let k = 1; k <= 6; k++) cards.push({ id: `n${k}`, x: 0, y: k * 88, w: 220, h: 58 });
		const f = fitFrame({
			cards,
			bounds: { x: 0, y: 0, w: 820, h: 6 * 88 + 58 },
			width: W,
			height: H,
			obstacles: OBSTACLES,
			priority: [['a', 'b'], ['n1', 'n2', 'n3', 'n4', 'n5', 'n6']],
			readableZoom: 1,
			maxZoom: 1.2
		});
		expect(f.whole).toBe(false);
		expect(f.framed).toContain('a');
		expect(f.framed).toContain('b');
	});

	it('nothing named: the densest region at the readable zoom', () => {
		// A dense cluster far from a sparse line.
		const cards: (Rect & { id: string })[] = [];
		for (let i = 0; i < 10; i++) cards.push({ id: `s${i}`, x: i * 900, y: 0, w: 220, h: 58 });
		for (let i = 0; i < 12; i++) cards.push({ id: `d${i}`, x: 3000 + (i % 2) * 260, y: 400 + Math.floor(i / 2) * 70, w: 220, h: 58 });
		const f = fitFrame({ cards, bounds: { x: 0, y: 0, w: 8320, h: 858 }, width: W, height: H, obstacles: OBSTACLES, priority: [], readableZoom: 1, maxZoom: 1.2 });
		expect(f.whole).toBe(false);
		expect(f.view.zoom).toBe(1);
		expect(f.framed.filter((id) => id.startsWith('d')).length).toBeGreaterThanOrEqual(10);
	});

	it('a priority naming cards not in the cut falls back to the densest region', () => {
		const { cards, bounds } = grid(12, 12);
		const f = fitFrame({ cards, bounds, width: W, height: H, obstacles: OBSTACLES, priority: [['gone']], readableZoom: 1, maxZoom: 1.2 });
		expect(f.framed.length).toBeGreaterThan(4);
	});
});

describe('withNeighbours', () => {
	it('the core, then what touches it either way, once', () => {
		const edges = [
			{ source: 'a', target: 'b' },
			{ source: 'b', target: 'c' },
			{ source: 'x', target: 'b' },
			{ source: 'c', target: 'd' }
		];
		expect(withNeighbours(['b'], edges)).toEqual([['b'], ['a', 'c', 'x']]);
		expect(withNeighbours(['b', 'c'], edges)).toEqual([['b', 'c'], ['a', 'x', 'd']]);
	});
});
