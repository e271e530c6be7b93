// Where the canvas looks and what it lights: a selection's neighbourhood to a chosen depth, the
// densest window of a cut (where a first open is framed when nothing is selected), and the next
// card along an edge for the arrow keys. Pure: the page's state calls these.
import type { Direction } from './canvas-sizes';

/** Hops upstream or downstream of a selection; `all` is the whole lineage. */
export type Depth = 1 | 2 | 3 | 'all';
export const DEPTHS: readonly Depth[] = [1, 2, 3, 'all'];

/** A folder with more nodes than this opens at one hop around a selection rather than all of it. */
export const BIG_FOLDER = 300;

/** `start` and what lies within `depth` hops of it along `adj` (upstream or downstream). */
export function within(adj: ReadonlyMap<string, readonly string[]>, start: string, depth: Depth): Set<string> {
	const max = depth === 'all' ? Infinity : depth;
	const seen = new Set<string>([start]);
	let frontier = [start];
	for (let hop = 0; hop < max && frontier.length; hop++) {
		const next: string[] = [];
		for (const id of frontier) {
			for (const m of adj.get(id) ?? []) {
				if (!seen.has(m)) {
					seen.add(m);
					next.push(m);
				}
			}
		}
		frontier = next;
	}
	return seen;
}

/** The selection with its upstream to `up` hops and its downstream to `down` hops. */
export function neighbourhood(
	g: { up: ReadonlyMap<string, readonly string[]>; down: ReadonlyMap<string, readonly string[]> },
	start: string,
	up: Depth,
	down: Depth
): Set<string> {
	const out = within(g.up, start, up);
	for (const id of within(g.down, start, down)) out.add(id);
	return out;
}

export interface Box {
	id: string;
	x: number;
	y: number;
	w: number;
	h: number;
}

/**
 * The `w`×`h` window (layout units) holding the most card centres, anchored on card centres:
 * where a cut too big to read whole is framed on first open. `weight` counts some cards for
 * less (closed groups: a reader wants relations on screen). Ties go to the window nearest the
 * layout's top-left (where the sources are). Null for no cards.
 */
export function densestWindow(cards: readonly Box[], w: number, h: number, weight: (id: string) => number = () => 1): { x: number; y: number; w: number; h: number } | null {
	if (!cards.length) return null;
	const centres = cards.map((c) => [c.x + c.w / 2, c.y + c.h / 2, weight(c.id)] as const).sort((a, b) => a[0] - b[0]);
	let best = { count: -1, x: 0, y: 0 };
	// Each card's centre as the window's left edge × each as its top: O(n²) over a first cut's
	// hundred-odd cards, with the x range narrowed by the sort.
	for (let i = 0; i < centres.length; i++) {
		const x0 = centres[i][0] - w * 0.1;
		const inX: (readonly [number, number])[] = [];
		for (let j = 0; j < centres.length; j++) {
			const cx = centres[j][0];
			if (cx >= x0 && cx <= x0 + w) inX.push([centres[j][1], centres[j][2]]);
		}
		inX.sort((a, b) => a[0] - b[0]);
		// A sliding sum of weights over the centres sorted by y.
		let sum = 0;
		for (let a = 0, b = 0; a < inX.length; a++) {
			const y0 = inX[a][0] - h * 0.1;
			while (b < inX.length && inX[b][0] <= y0 + h) sum += inX[b++][1];
			const count = sum;
			sum -= inX[a][1];
			if (count > best.count || (count === best.count && x0 + y0 < best.x + best.y)) best = { count, x: x0, y: y0 };
		}
	}
	return { x: best.x, y: best.y, w, h };
}

export type Arrow = 'ArrowLeft' | 'ArrowRight' | 'ArrowUp' | 'ArrowDown';

/**
 * The card an arrow key moves the selection to, along the cut's edges: with the flow (right in
 * LR, down in TB) to a downstream card, against it to an upstream one, choosing the one nearest
 * across; across the flow to the nearest sibling (a card sharing an upstream or a downstream)
 * on that side. `selectable` says which cards may hold the selection (not closed groups);
 * `prefer` is where the selection came from, taken when it is a candidate (so a step back
 * undoes a step). Null when there is nowhere to go.
 */
export function stepAlong(
	from: string,
	key: Arrow,
	direction: Direction,
	edges: readonly { source: string; target: string }[],
	placed: ReadonlyMap<string, Box>,
	selectable: (id: string) => boolean,
	prefer: string | null = null
): string | null {
	const here = placed.get(from);
	if (!here) return null;
	const up = new Set<string>();
	const down = new Set<string>();
	for (const e of edges) {
		if (e.source === from && e.target !== from) down.add(e.target);
		if (e.target === from && e.source !== from) up.add(e.source);
	}
	const forward = direction === 'LR' ? 'ArrowRight' : 'ArrowDown';
	const back = direction === 'LR' ? 'ArrowLeft' : 'ArrowUp';
	const centre = (b: Box) => [b.x + b.w / 2, b.y + b.h / 2] as const;
	const [hx, hy] = centre(here);
	// Position along the flow and across it.
	const along = (b: Box) => (direction === 'LR' ? centre(b)[0] - hx : centre(b)[1] - hy);
	const across = (b: Box) => (direction === 'LR' ? centre(b)[1] - hy : centre(b)[0] - hx);
	const pick = (ids: Iterable<string>, score: (b: Box) => number, keep: (b: Box) => boolean = () => true): string | null => {
		const pool = [...ids];
		if (prefer && pool.includes(prefer) && selectable(prefer) && placed.has(prefer) && keep(placed.get(prefer)!)) return prefer;
		let best: string | null = null;
		let bestScore = Infinity;
		for (const id of pool) {
			const b = placed.get(id);
			if (!b || id === from || !selectable(id) || !keep(b)) continue;
			const s = score(b);
			if (s < bestScore || (s === bestScore && best !== null && id < best)) {
				best = id;
				bestScore = s;
			}
		}
		return best;
	};
	if (key === forward) return pick(down, (b) => Math.abs(across(b)));
	if (key === back) return pick(up, (b) => Math.abs(across(b)));
	const sign = key === (direction === 'LR' ? 'ArrowDown' : 'ArrowRight') ? 1 : -1;
	const siblings = new Set<string>();
	for (const e of edges) {
		if (up.has(e.source)) siblings.add(e.target);
		if (down.has(e.target)) siblings.add(e.source);
	}
	const side = (b: Box) => across(b) * sign > 0;
	return pick(siblings, (b) => Math.abs(across(b)) + Math.abs(along(b)), side) ?? pick(placed.keys(), (b) => Math.abs(across(b)) + 4 * Math.abs(along(b)), (b) => side(b) && Math.abs(along(b)) < b.w);
}
