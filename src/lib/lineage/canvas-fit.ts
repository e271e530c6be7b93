// Where a canvas opens: the view that frames a cut in the part of the screen nothing covers (the
// toolbar, the minimap, the zoom buttons are obstacles), at a zoom whose text stays readable —
// the whole cut when it fits that way, else the cards that matter most (a run's failures, a
// preview's changes, a selection's lineage), as many of them as fit. Pure: the canvas component
// measures its obstacles and hands them here.
import { densestWindow } from './canvas-focus';

export interface Rect {
	x: number;
	y: number;
	w: number;
	h: number;
}

export interface View {
	x: number;
	y: number;
	zoom: number;
}

const overlaps = (a: Rect, b: Rect) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
const contains = (outer: Rect, inner: Rect) => inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.w <= outer.x + outer.w && inner.y + inner.h <= outer.y + outer.h;

/**
 * The maximal rectangles of a `width`×`height` screen that no obstacle (grown by `gap`) covers,
 * largest first. Obstacles are few (a panel per corner), so every combination of their edges is
 * tried.
 */
export function freeAreas(width: number, height: number, obstacles: readonly Rect[], gap = 8): Rect[] {
	const obs = obstacles
		.filter((o) => o.w > 0 && o.h > 0)
		.map((o) => ({ x: o.x - gap, y: o.y - gap, w: o.w + 2 * gap, h: o.h + 2 * gap }))
		.filter((o) => overlaps(o, { x: 0, y: 0, w: width, h: height }));
	const clampX = (v: number) => Math.min(width, Math.max(0, v));
	const clampY = (v: number) => Math.min(height, Math.max(0, v));
	const xs = [...new Set([0, width, ...obs.flatMap((o) => [clampX(o.x), clampX(o.x + o.w)])])].sort((a, b) => a - b);
	const ys = [...new Set([0, height, ...obs.flatMap((o) => [clampY(o.y), clampY(o.y + o.h)])])].sort((a, b) => a - b);
	const found: Rect[] = [];
	for (const x0 of xs)
		for (const x1 of xs) {
			if (x1 <= x0) continue;
			for (const y0 of ys)
				for (const y1 of ys) {
					if (y1 <= y0) continue;
					const r = { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
					if (!obs.some((o) => overlaps(o, r))) found.push(r);
				}
		}
	const maximal = found.filter((r) => !found.some((s) => s !== r && contains(s, r) && (s.w > r.w || s.h > r.h)));
	return maximal.sort((a, b) => b.w * b.h - a.w * a.h || a.y - b.y || a.x - b.x);
}

export interface FitInput {
	/** The cut's cards (layout units). */
	cards: readonly (Rect & { id: string })[];
	/** The whole cut's extent (layout units; frames included). */
	bounds: Rect;
	/** The screen (the canvas element), and what covers parts of it (screen units, relative to it). */
	width: number;
	height: number;
	obstacles: readonly Rect[];
	/**
	 * The cards that matter when the cut is too big to read whole, in tiers, most important
	 * first (a run's failures, then their neighbours). Within a tier, the nearest to the first
	 * card come first. Empty: the densest region.
	 */
	priority: readonly (readonly string[])[];
	/** The smallest zoom at which a card's text is readable. */
	readableZoom: number;
	/** The largest zoom a small cut is fitted at. */
	maxZoom: number;
	/** Screen pixels kept clear inside the free area. */
	padding?: number;
	/** Counts some cards for less when looking for the densest region (closed groups). */
	weight?: (id: string) => number;
}

export interface Fit {
	view: View;
	/** The free area the frame sits in (screen units). */
	area: Rect;
	/** The cards framed whole inside `area`. */
	framed: string[];
	/** Whether the whole cut is framed. */
	whole: boolean;
}

const union = (a: Rect, b: Rect): Rect => {
	const x = Math.min(a.x, b.x);
	const y = Math.min(a.y, b.y);
	return { x, y, w: Math.max(a.x + a.w, b.x + b.w) - x, h: Math.max(a.y + a.h, b.y + b.h) - y };
};

/** The zoom at which `r` fills `area` less its padding. */
const fitZoom = (r: Rect, area: Rect, pad: number) => Math.min((area.w - 2 * pad) / Math.max(r.w, 1), (area.h - 2 * pad) / Math.max(r.h, 1));

/** The view that centres `r` in `area` at `zoom`. */
export function centreIn(r: Rect, area: Rect, zoom: number): View {
	return { x: area.x + area.w / 2 - (r.x + r.w / 2) * zoom, y: area.y + area.h / 2 - (r.y + r.h / 2) * zoom, zoom };
}

/** The cards whose whole box lies inside `area` under `view`. */
export function cardsInside(cards: readonly (Rect & { id: string })[], view: View, area: Rect, slack = 0.5): string[] {
	const out: string[] = [];
	for (const c of cards) {
		const x = c.x * view.zoom + view.x;
		const y = c.y * view.zoom + view.y;
		if (x >= area.x - slack && y >= area.y - slack && x + c.w * view.zoom <= area.x + area.w + slack && y + c.h * view.zoom <= area.y + area.h + slack) out.push(c.id);
	}
	return out;
}

/** The first view of a cut: see the file's head. */
export function fitFrame(i: FitInput): Fit {
	const pad = i.padding ?? 16;
	let areas = freeAreas(i.width, i.height, i.obstacles);
	// Nothing free (a tiny screen under its panels): the screen itself.
	if (!areas.length || areas[0].w < 2 * pad + 40 || areas[0].h < 2 * pad + 20) areas = [{ x: 0, y: 0, w: i.width, h: i.height }];
	const largest = areas[0];

	// The whole cut, in the area where it comes out largest.
	let best = largest;
	let bestZoom = -Infinity;
	for (const a of areas) {
		const z = fitZoom(i.bounds, a, pad);
		if (z > bestZoom) {
			bestZoom = z;
			best = a;
		}
	}
	const wholeZoom = Math.min(bestZoom, i.maxZoom);
	if (wholeZoom >= i.readableZoom || !i.cards.length) {
		const view = centreIn(i.bounds, best, Math.max(wholeZoom, 0.02));
		return { view, area: best, framed: i.cards.map((c) => c.id), whole: true };
	}

	// Too big to read whole: the cards that matter, greedily, as long as their box still fits
	// an area at the readable zoom.
	const byId = new Map(i.cards.map((c) => [c.id, c]));
	const tiers = i.priority.map((t) => [...new Set(t)].filter((id) => byId.has(id))).filter((t) => t.length);
	if (!tiers.length) {
		const win = densestWindow(i.cards, (largest.w - 2 * pad) / i.readableZoom, (largest.h - 2 * pad) / i.readableZoom, i.weight);
		if (win) {
			const cx = win.x + win.w / 2;
			const cy = win.y + win.h / 2;
			const d = (c: Rect) => Math.hypot(c.x + c.w / 2 - cx, c.y + c.h / 2 - cy);
			tiers.push([...i.cards].sort((a, b) => d(a) - d(b)).map((c) => c.id));
		}
	}
	const anchor = byId.get(tiers[0][0])!;
	const ax = anchor.x + anchor.w / 2;
	const ay = anchor.y + anchor.h / 2;
	const dist = (id: string) => {
		const c = byId.get(id)!;
		return Math.hypot(c.x + c.w / 2 - ax, c.y + c.h / 2 - ay);
	};
	const order: string[] = [];
	const tierOf = new Map<string, number>();
	tiers.forEach((t, k) => {
		const [head, ...rest] = t;
		const sorted = order.length ? [...t].sort((a, b) => dist(a) - dist(b)) : [head, ...rest.sort((a, b) => dist(a) - dist(b))];
		for (const id of sorted) if (!tierOf.has(id)) order.push(id), tierOf.set(id, k);
	});

	// The area that frames the most of the first tier wins, then of the next, then the larger.
	const better = (a: number[], b: number[]) => {
		for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return a[k] > b[k];
		return false;
	};
	let pick: { area: Rect; box: Rect; counts: number[] } | null = null;
	for (const a of areas) {
		let box: Rect | null = null;
		const counts = tiers.map(() => 0);
		for (const id of order) {
			const c = byId.get(id)!;
			const next: Rect = box ? union(box, c) : { x: c.x, y: c.y, w: c.w, h: c.h };
			if (box && fitZoom(next, a, pad) < i.readableZoom) continue;
			box = next;
			counts[tierOf.get(id)!]++;
		}
		if (box && (!pick || better(counts, pick.counts) || (!better(pick.counts, counts) && a.w * a.h > pick.area.w * pick.area.h))) pick = { area: a, box, counts };
	}
	const { area, box } = pick!;
	// Readable, and no closer than needed: the most context around what matters. A single card
	// wider than the area (a very narrow screen) is shown smaller rather than cut.
	const zoom = Math.min(i.readableZoom, Math.max(fitZoom(box, area, pad), 0.05));
	const view = centreIn(box, area, zoom);
	return { view, area, framed: cardsInside(i.cards, view, area), whole: false };
}

/** The ids of `core` first, then each one's neighbours along `edges` (one hop either way). */
export function withNeighbours(core: readonly string[], edges: readonly { source: string; target: string }[]): string[][] {
	const set = new Set(core);
	const near = new Set<string>();
	for (const e of edges) {
		if (set.has(e.source) && !set.has(e.target)) near.add(e.target);
		if (set.has(e.target) && !set.has(e.source)) near.add(e.source);
	}
	return [[...core], [...near]];
}
