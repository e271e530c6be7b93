// The column trace (DESIGN.md §8, §9): one column graph built from two halves that arrive
// separately — dbt's own column lineage (fetched per selected relation) and the producers'
// lineage (carried by the asset graph) — merged on shared node ids, then traced, cut into
// components and laid out in lanes by depth. Pure, so the browser and the tests share it.
import type { AssetGraph, ColumnLineageEdge } from '../types/asset-graph';
import { isDirectKind } from './kinds';

/** One column of one asset. `kind` is the asset kind (`dbt`, `ducklake`, …). */
export interface ColumnNode {
	kind: string;
	path: string;
	column: string;
}

export type ColumnId = string;

/**
 * How a column reaches another: `copy` (passed through) or `mod` (transformed), as dbt or the
 * producer's SQL analysis says, or `producer` for a producer derivation of unknown kind (an
 * annotation names sources, not how). Kept per edge because the trace draws them differently.
 */
export type EdgeStyle = 'copy' | 'mod' | 'producer';

export interface ColumnGraph {
	nodes: Map<ColumnId, ColumnNode>;
	up: Map<ColumnId, Set<ColumnId>>;
	down: Map<ColumnId, Set<ColumnId>>;
	/** Keyed by `edgeKey(from, to)`. */
	styles: Map<string, EdgeStyle>;
}

// NUL cannot occur in a kind, a path or a column name, so the id splits back unambiguously and
// the same column always gets the same id in both halves — that is what makes the merge work.
export const columnId = (kind: string, path: string, column: string): ColumnId => `${kind}\u0000${path}\u0000${column}`;

export const edgeKey = (from: ColumnId, to: ColumnId) => `${from}\u0001${to}`;

export function emptyColumnGraph(): ColumnGraph {
	return { nodes: new Map(), up: new Map(), down: new Map(), styles: new Map() };
}

function addTo(adj: Map<ColumnId, Set<ColumnId>>, a: ColumnId, b: ColumnId) {
	const s = adj.get(a);
	if (s) s.add(b);
	else adj.set(a, new Set([b]));
}

// When the same pair is joined twice, `mod` wins over `copy`: a value that is transformed on
// one path is not a plain pass-through, and claiming so would understate an impact.
const STYLE_RANK: Record<EdgeStyle, number> = { copy: 0, producer: 1, mod: 2 };

function addEdge(g: ColumnGraph, from: ColumnNode, to: ColumnNode, style: EdgeStyle) {
	const a = columnId(from.kind, from.path, from.column);
	const b = columnId(to.kind, to.path, to.column);
	if (!g.nodes.has(a)) g.nodes.set(a, from);
	if (!g.nodes.has(b)) g.nodes.set(b, to);
	// A column feeding itself adds nothing to a trace and would only make every walk revisit it.
	if (a === b) return;
	addTo(g.down, a, b);
	addTo(g.up, b, a);
	const k = edgeKey(a, b);
	const prev = g.styles.get(k);
	if (prev === undefined || STYLE_RANK[style] > STYLE_RANK[prev]) g.styles.set(k, style);
}

/**
 * The dbt half, from a column-lineage answer. Only the direct kinds become edges: the server
 * already serves only those, but an engine may invent a kind, and an unknown word must never
 * be drawn as data flow.
 */
export function buildDbtColumnGraph(edges: readonly ColumnLineageEdge[]): ColumnGraph {
	const g = emptyColumnGraph();
	for (const e of edges) {
		if (!isDirectKind(e.kind)) continue;
		addEdge(
			g,
			{ kind: 'dbt', path: e.from_asset_path, column: e.from_column },
			{ kind: 'dbt', path: e.to_asset_path, column: e.to_column },
			e.kind as EdgeStyle
		);
	}
	return g;
}

/**
 * The producer half: each producer's output column derives from its inputs. An input that names
 * a dbt relation gets the same id dbt's own lineage gives that column, which is where the two
 * halves join.
 */
export function buildProducerColumnGraph(graph: Pick<AssetGraph, 'runnables'>): ColumnGraph {
	const g = emptyColumnGraph();
	for (const r of graph.runnables) {
		for (const out of r.column_lineage ?? []) {
			const to = { kind: out.asset_kind, path: out.asset_path, column: out.column };
			for (const i of out.inputs) {
				const style: EdgeStyle = i.kind === 'copy' || i.kind === 'mod' ? i.kind : 'producer';
				addEdge(g, { kind: i.from_kind, path: i.from_path, column: i.from_column }, to, style);
			}
		}
	}
	return g;
}

export function mergeColumnGraphs(...graphs: readonly ColumnGraph[]): ColumnGraph {
	const out = emptyColumnGraph();
	for (const g of graphs) {
		for (const [id, n] of g.nodes) if (!out.nodes.has(id)) out.nodes.set(id, n);
		for (const [id, adj] of g.up) for (const m of adj) addTo(out.up, id, m);
		for (const [id, adj] of g.down) for (const m of adj) addTo(out.down, id, m);
		for (const [k, s] of g.styles) {
			const prev = out.styles.get(k);
			if (prev === undefined || STYLE_RANK[s] > STYLE_RANK[prev]) out.styles.set(k, s);
		}
	}
	return out;
}

/** Everything reachable from `starts` along one direction, the starts included. Iterative: traces run thousands deep. */
function reach(starts: Iterable<ColumnId>, adj: Map<ColumnId, Set<ColumnId>>): Set<ColumnId> {
	const seen = new Set<ColumnId>(starts);
	const stack = [...seen];
	while (stack.length) {
		const id = stack.pop()!;
		for (const m of adj.get(id) ?? []) {
			if (!seen.has(m)) {
				seen.add(m);
				stack.push(m);
			}
		}
	}
	return seen;
}

export const upstreamOf = (id: ColumnId, g: ColumnGraph) => reach([id], g.up);
export const downstreamOf = (id: ColumnId, g: ColumnGraph) => reach([id], g.down);

/**
 * A column's impact set: itself, everything it derives from and everything derived from it.
 * Not the component — a sibling that merely shares a parent is neither, and stays dimmed.
 */
export function traceColumn(id: ColumnId, g: ColumnGraph): Set<ColumnId> {
	const out = upstreamOf(id, g);
	for (const m of downstreamOf(id, g)) out.add(m);
	return out;
}

/** The undirected connected component of the seeds (seeds absent from the graph are ignored). */
export function connectedComponent(seeds: Iterable<ColumnId>, g: ColumnGraph): Set<ColumnId> {
	const seen = new Set<ColumnId>();
	const stack: ColumnId[] = [];
	for (const s of seeds) {
		if (g.nodes.has(s) && !seen.has(s)) {
			seen.add(s);
			stack.push(s);
		}
	}
	while (stack.length) {
		const id = stack.pop()!;
		for (const adj of [g.up.get(id), g.down.get(id)]) {
			for (const m of adj ?? []) {
				if (!seen.has(m)) {
					seen.add(m);
					stack.push(m);
				}
			}
		}
	}
	return seen;
}

/** The column nodes of one asset, in the graph's insertion order. */
export function assetColumns(g: ColumnGraph, kind: string, path: string): ColumnId[] {
	const out: ColumnId[] = [];
	for (const [id, n] of g.nodes) if (n.kind === kind && n.path === path) out.push(id);
	return out;
}

/**
 * The dbt relations a set of columns touches, sorted. For a selected lake table this is every
 * relation its producers read — each one has to be fetched, not only the first.
 */
export function dbtRelationsOf(ids: Iterable<ColumnId>, g: ColumnGraph): string[] {
	const out = new Set<string>();
	for (const id of ids) {
		const n = g.nodes.get(id);
		if (n?.kind === 'dbt') out.add(n.path);
	}
	return [...out].sort();
}

// ─── Lanes ─────────────────────────────────────────────────────────────────────────────────

export interface LaneAsset {
	kind: string;
	path: string;
	columns: ColumnId[];
}

export interface Lane {
	depth: number;
	assets: LaneAsset[];
}

const assetKeyOf = (n: ColumnNode) => `${n.kind}\u0000${n.path}`;

/**
 * Asset depth inside a set of columns: 0 for an asset nothing in the set feeds, else one more
 * than its deepest feeding asset (longest path), so sources sit left and every edge points
 * right. A cycle between assets cannot be layered that way; it is broken where it is entered,
 * at the asset with the fewest unplaced feeders, so a cycle still lays out instead of hanging.
 */
export function assetDepths(ids: ReadonlySet<ColumnId>, g: ColumnGraph): Map<string, number> {
	const feeders = new Map<string, Set<string>>();
	const feeds = new Map<string, Set<string>>();
	for (const id of ids) {
		const n = g.nodes.get(id);
		if (!n) continue;
		const a = assetKeyOf(n);
		if (!feeders.has(a)) feeders.set(a, new Set());
		if (!feeds.has(a)) feeds.set(a, new Set());
		for (const m of g.down.get(id) ?? []) {
			if (!ids.has(m)) continue;
			const b = assetKeyOf(g.nodes.get(m)!);
			if (a === b) continue;
			addTo(feeds as Map<string, Set<string>>, a, b);
			if (!feeders.has(b)) feeders.set(b, new Set());
			feeders.get(b)!.add(a);
		}
	}
	const depth = new Map<string, number>();
	const pending = new Map<string, number>();
	for (const [a, f] of feeders) pending.set(a, f.size);
	const ready = [...pending].filter(([, n]) => n === 0).map(([a]) => a).sort();
	const place = (a: string) => {
		let d = 0;
		for (const f of feeders.get(a)!) {
			const fd = depth.get(f);
			if (fd !== undefined) d = Math.max(d, fd + 1);
		}
		depth.set(a, d);
		for (const b of feeds.get(a) ?? []) {
			if (depth.has(b)) continue;
			const left = pending.get(b)! - 1;
			pending.set(b, left);
			if (left === 0) ready.push(b);
		}
	};
	while (depth.size < feeders.size) {
		if (ready.length === 0) {
			// A cycle: take the unplaced asset with the fewest unplaced feeders (ties by name).
			let best: string | undefined;
			for (const [a, n] of pending) {
				if (depth.has(a)) continue;
				if (best === undefined || n < pending.get(best)! || (n === pending.get(best)! && a < best)) best = a;
			}
			ready.push(best!);
		}
		const a = ready.shift()!;
		if (!depth.has(a)) place(a);
	}
	return depth;
}

/**
 * The trace drawn as lanes: the assets of `ids` by depth (sources in lane 0), each with its
 * columns. `columnOrder` gives an asset's own column order (its analyzed schema) where known;
 * otherwise columns sort by name. Assets in a lane sort selected first, then dbt before lake
 * tables, then by path, so the same graph always draws the same way.
 */
export function traceLanes(
	ids: ReadonlySet<ColumnId>,
	g: ColumnGraph,
	opts: { selected?: { kind: string; path: string }; columnOrder?: (kind: string, path: string) => string[] | undefined } = {}
): Lane[] {
	const depths = assetDepths(ids, g);
	const byAsset = new Map<string, LaneAsset>();
	for (const id of ids) {
		const n = g.nodes.get(id);
		if (!n) continue;
		const k = assetKeyOf(n);
		let a = byAsset.get(k);
		if (!a) byAsset.set(k, (a = { kind: n.kind, path: n.path, columns: [] }));
		a.columns.push(id);
	}
	for (const a of byAsset.values()) {
		const order = opts.columnOrder?.(a.kind, a.path);
		const rank = new Map((order ?? []).map((c, i) => [c, i]));
		a.columns.sort((x, y) => {
			const cx = g.nodes.get(x)!.column;
			const cy = g.nodes.get(y)!.column;
			const rx = rank.get(cx) ?? Infinity;
			const ry = rank.get(cy) ?? Infinity;
			return rx !== ry ? rx - ry : cx < cy ? -1 : cx > cy ? 1 : 0;
		});
	}
	const lanes = new Map<number, LaneAsset[]>();
	for (const [k, a] of byAsset) {
		const d = depths.get(k) ?? 0;
		const list = lanes.get(d);
		if (list) list.push(a);
		else lanes.set(d, [a]);
	}
	const sel = opts.selected;
	const isSel = (a: LaneAsset) => (sel && a.kind === sel.kind && a.path === sel.path ? 0 : 1);
	return [...lanes.entries()]
		.sort((a, b) => a[0] - b[0])
		.map(([depth, assets]) => ({
			depth,
			assets: assets.sort(
				(a, b) => isSel(a) - isSel(b) || Number(a.kind !== 'dbt') - Number(b.kind !== 'dbt') || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)
			)
		}));
}

/** The edges among `ids`, for drawing: from, to and style. */
export function edgesAmong(ids: ReadonlySet<ColumnId>, g: ColumnGraph): { from: ColumnId; to: ColumnId; style: EdgeStyle }[] {
	const out: { from: ColumnId; to: ColumnId; style: EdgeStyle }[] = [];
	for (const a of ids) {
		for (const b of g.down.get(a) ?? []) {
			if (ids.has(b)) out.push({ from: a, to: b, style: g.styles.get(edgeKey(a, b)) ?? 'copy' });
		}
	}
	return out;
}

// ─── Geometry ──────────────────────────────────────────────────────────────────────────────

/** Fixed sizes, so the trace is drawn from arithmetic rather than from measuring the DOM. */
export const TRACE = { laneW: 190, gap: 64, header: 22, row: 19, assetGap: 12, pad: 6 } as const;

export interface TraceBox {
	kind: string;
	path: string;
	x: number;
	y: number;
	w: number;
	h: number;
}

export interface TraceGeometry {
	boxes: TraceBox[];
	/** Each column row's box. */
	rows: Map<ColumnId, { x: number; y: number; w: number; h: number }>;
	width: number;
	height: number;
}

export function traceGeometry(lanes: readonly Lane[]): TraceGeometry {
	const boxes: TraceBox[] = [];
	const rows = new Map<ColumnId, { x: number; y: number; w: number; h: number }>();
	let height = 0;
	lanes.forEach((lane, li) => {
		const x = TRACE.pad + li * (TRACE.laneW + TRACE.gap);
		let y = TRACE.pad;
		for (const a of lane.assets) {
			const h = TRACE.header + a.columns.length * TRACE.row + 4;
			boxes.push({ kind: a.kind, path: a.path, x, y, w: TRACE.laneW, h });
			a.columns.forEach((c, i) => rows.set(c, { x, y: y + TRACE.header + i * TRACE.row, w: TRACE.laneW, h: TRACE.row }));
			y += h + TRACE.assetGap;
		}
		height = Math.max(height, y);
	});
	const width = lanes.length ? TRACE.pad * 2 + lanes.length * TRACE.laneW + (lanes.length - 1) * TRACE.gap : 0;
	return { boxes, rows, width, height: height + TRACE.pad };
}

/**
 * Where the trace opens horizontally on a target box (or row) `at`: at the left edge when the
 * target fits in view from there, else at the first lane boundary that brings the whole target
 * into view — never part-way into a lane, which is what cut the first lane in half. `extra` is
 * the width to add on the right so the scroller can reach that boundary.
 */
export function traceScrollLeft(at: { x: number; w: number }, viewWidth: number, planeWidth: number, laneX?: readonly number[]): { left: number; extra: number } {
	const need = at.x + at.w + TRACE.pad - viewWidth;
	if (need <= 0) return { left: 0, extra: 0 };
	const step = TRACE.laneW + TRACE.gap;
	// A lane's boxes start at pad + k·step, so k·step is the boundary before lane k; the target's
	// own lane is one, so a view wider than a lane always finds one. Gaps widened for script
	// boxes move the boundaries: then they are read from the lanes' own positions.
	const boundary = laneX ? laneX.map((x) => x - TRACE.pad).find((x) => x >= need) : undefined;
	const left = Math.min(boundary ?? Math.ceil(need / step) * step, Math.max(0, at.x - TRACE.pad));
	return { left, extra: Math.max(0, left + viewWidth - planeWidth) };
}
