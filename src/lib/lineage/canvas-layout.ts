// Canvas layout (CANVAS.md §2, §7): dagre, layered left to right by default or top to bottom
// (producers before what they write, sources before models), `ranker: 'tight-tree'` (the default ranker blows up on dbt
// graphs), run per connected component and per group of the disclosure tree, on the SERVER.
// A level is small (a group's children), so a cut of a big folder is a handful of
// quick layouts instead of one slow one, and each piece is cached by its digest.
import dagre from '@dagrejs/dagre';
import { digestOf } from './canvas-model';
import { frameSize, type Direction, type LevelInput, type LevelLayout } from './canvas-sizes';

const GAP = { node: 28, rank: 64, component: 56 } as const;

export { CARD, FRAME, frameSize, GROUP_CARD, type Direction, type LevelChild, type LevelInput, type LevelLayout } from './canvas-sizes';

/** layoutLevels was told to stop (its caller's time budget ran out) before it was done. */
export class LayoutStopped extends Error {
	constructor() {
		super('the layout was stopped before it was done');
	}
}

/** A small LRU: the cache is never the source of truth, a miss only costs a layout. */
export class LayoutCache<V> {
	#map = new Map<string, V>();
	constructor(readonly max = 2000) {}
	get(k: string): V | undefined {
		const v = this.#map.get(k);
		if (v !== undefined) {
			this.#map.delete(k);
			this.#map.set(k, v);
		}
		return v;
	}
	set(k: string, v: V): void {
		this.#map.delete(k);
		this.#map.set(k, v);
		if (this.#map.size > this.max) this.#map.delete(this.#map.keys().next().value!);
	}
	get size() {
		return this.#map.size;
	}
}

interface Box {
	id: string;
	w: number;
	h: number;
}

type Placed = { pos: [number, number][]; w: number; h: number };

/** One connected component through dagre; positions are top-left, the box starts at 0,0. */
function layoutComponent(boxes: Box[], edges: [number, number][], direction: Direction): Placed {
	if (boxes.length === 1) return { pos: [[0, 0]], w: boxes[0].w, h: boxes[0].h };
	const g = new dagre.graphlib.Graph();
	g.setGraph({ rankdir: direction, ranker: 'tight-tree', nodesep: GAP.node, ranksep: GAP.rank, marginx: 0, marginy: 0 });
	g.setDefaultEdgeLabel(() => ({}));
	boxes.forEach((b, i) => g.setNode(String(i), { width: b.w, height: b.h }));
	for (const [s, t] of edges) g.setEdge(String(s), String(t));
	dagre.layout(g);
	let minX = Infinity;
	let minY = Infinity;
	let maxX = -Infinity;
	let maxY = -Infinity;
	// dagre gives centres; xyflow wants top-left corners.
	const raw = boxes.map((b, i) => {
		const n = g.node(String(i));
		const x = n.x - b.w / 2;
		const y = n.y - b.h / 2;
		minX = Math.min(minX, x);
		minY = Math.min(minY, y);
		maxX = Math.max(maxX, x + b.w);
		maxY = Math.max(maxY, y + b.h);
		return [x, y] as [number, number];
	});
	return { pos: raw.map(([x, y]) => [Math.round(x - minX), Math.round(y - minY)]), w: Math.round(maxX - minX), h: Math.round(maxY - minY) };
}

/** Connected components (undirected), each listed in child order; biggest first. */
function componentsOf(n: number, edges: [number, number][]): number[][] {
	const parent = Array.from({ length: n }, (_, i) => i);
	const find = (x: number): number => {
		while (parent[x] !== x) x = parent[x] = parent[parent[x]];
		return x;
	};
	for (const [a, b] of edges) {
		const ra = find(a);
		const rb = find(b);
		if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
	}
	const byRoot = new Map<number, number[]>();
	for (let i = 0; i < n; i++) {
		const r = find(i);
		const list = byRoot.get(r);
		if (list) list.push(i);
		else byRoot.set(r, [i]);
	}
	return [...byRoot.values()].sort((a, b) => b.length - a.length || a[0] - b[0]);
}

/**
 * One level: each component laid out alone, then the components packed in rows — connected
 * pieces first, widest first, lone cards last in a grid — so an unrelated family never
 * stretches another's layers.
 */
function layoutLevel(boxes: Box[], edges: [number, number][], direction: Direction, cache: LayoutCache<Placed> | null, shouldStop?: () => boolean): LevelLayout {
	const comps = componentsOf(boxes.length, edges);
	const placed: { members: number[]; p: Placed }[] = [];
	for (const members of comps) {
		const index = new Map(members.map((m, i) => [m, i]));
		const local = edges.filter(([a]) => index.has(a)).map(([a, b]) => [index.get(a)!, index.get(b)!] as [number, number]);
		const mb = members.map((m) => boxes[m]);
		const key = digestOf(JSON.stringify([direction, mb.map((b) => [b.id, b.w, b.h]), local]));
		let p = cache?.get(key);
		if (!p) {
			if (shouldStop?.()) throw new LayoutStopped();
			p = layoutComponent(mb, local, direction);
			cache?.set(key, p);
		}
		placed.push({ members, p });
	}
	const area = placed.reduce((s, c) => s + (c.p.w + GAP.component) * (c.p.h + GAP.component), 0);
	const widest = Math.max(...placed.map((c) => c.p.w));
	// Rows about as wide as the whole is tall (a bit wider: screens are landscape).
	const rowWidth = Math.max(widest, Math.sqrt(area) * 1.6);
	const pos: Record<string, [number, number]> = {};
	let x = 0;
	let y = 0;
	let rowH = 0;
	let w = 0;
	for (const c of placed) {
		if (x > 0 && x + c.p.w > rowWidth) {
			x = 0;
			y += rowH + GAP.component;
			rowH = 0;
		}
		c.members.forEach((m, i) => {
			pos[boxes[m].id] = [x + c.p.pos[i][0], y + c.p.pos[i][1]];
		});
		x += c.p.w + GAP.component;
		rowH = Math.max(rowH, c.p.h);
		w = Math.max(w, x - GAP.component);
	}
	return { pos, w, h: y + rowH };
}

/**
 * Lays out every level of a cut, inner levels first (an open group's frame is as big as its
 * own layout). Levels must form a tree through `{level}` children; a level naming a missing or
 * cyclic level is an error, since the input comes from a client. `shouldStop` is asked before
 * each component dagre lays out; true throws LayoutStopped (a request's time budget).
 * `direction` defaults to left to right.
 */
export function layoutLevels(
	levels: readonly LevelInput[],
	cache: LayoutCache<Placed> | null = null,
	opts: { shouldStop?: () => boolean; direction?: Direction } = {}
): Record<string, LevelLayout> {
	const direction = opts.direction ?? 'LR';
	const byId = new Map(levels.map((l) => [l.id, l]));
	const out: Record<string, LevelLayout> = {};
	const active = new Set<string>();
	const run = (id: string): LevelLayout => {
		const done = out[id];
		if (done) return done;
		const l = byId.get(id);
		if (!l) throw new Error(`unknown level ${id}`);
		if (active.has(id)) throw new Error(`level ${id} contains itself`);
		active.add(id);
		const boxes: Box[] = l.children.map((c) => {
			if ('level' in c) return { id: c.id, ...frameSize(run(c.level)) };
			return { id: c.id, w: c.w, h: c.h };
		});
		for (const [a, b] of l.edges) {
			if (!(a >= 0 && a < boxes.length && b >= 0 && b < boxes.length)) throw new Error(`level ${id}: edge out of range`);
		}
		active.delete(id);
		return (out[id] = boxes.length ? layoutLevel(boxes, l.edges, direction, cache, opts.shouldStop) : { pos: {}, w: 0, h: 0 });
	};
	for (const l of levels) run(l.id);
	return out;
}

export type { Placed as ComponentLayout };
