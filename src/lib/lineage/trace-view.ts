// The column trace as a view of its own: the lanes laid out with the producer scripts drawn as
// boxes between the lanes they carry columns across (an edge style alone does not say which
// script), what lies on a traced column's path (its columns and the scripts carrying them) for
// the focus toggle, and the zoom and pan that fit a trace into its frame. Pure, so the page and
// the tests share it.
import { fitFrame } from './canvas-fit';
import { edgeKey, TRACE, traceColumn, traceLanes, type ColumnGraph, type ColumnId, type Lane, type TraceBox } from './column-trace';

/** A producer script between two lanes: the columns it carries are routed through it. */
export interface ScriptBox {
	path: string;
	x: number;
	y: number;
	w: number;
	h: number;
}

export interface TraceLayout {
	boxes: TraceBox[];
	rows: Map<ColumnId, { x: number; y: number; w: number; h: number }>;
	scripts: ScriptBox[];
	/** The script box an edge passes through, by `edgeKey(from, to)`. */
	through: Map<string, ScriptBox>;
	/** Each lane's left edge. */
	laneX: number[];
	width: number;
	height: number;
}

/** Sizes of a script box and of a gap that holds them (room for the edges either side). */
export const SCRIPT = { w: 130, h: 24, gap: 130 + 64, spacing: 8 } as const;

/**
 * The trace's lanes with positions: assets stacked in their lane as before, and the gap before
 * a lane widened to hold a box for every script that writes into that lane, placed at the mean
 * height of the edges it carries and pushed apart where two would overlap.
 */
export function traceLayout(
	lanes: readonly Lane[],
	edges: readonly { from: ColumnId; to: ColumnId }[] = [],
	via: ReadonlyMap<string, string> = new Map()
): TraceLayout {
	const laneOf = new Map<ColumnId, number>();
	lanes.forEach((lane, li) => {
		for (const a of lane.assets) for (const c of a.columns) laneOf.set(c, li);
	});
	// Per gap (the one before lane k, k ≥ 1), its scripts with the edges each carries.
	const gaps = new Map<number, Map<string, { from: ColumnId; to: ColumnId }[]>>();
	for (const e of edges) {
		const script = via.get(edgeKey(e.from, e.to));
		const lt = laneOf.get(e.to);
		if (!script || lt === undefined || lt < 1) continue;
		let g = gaps.get(lt);
		if (!g) gaps.set(lt, (g = new Map()));
		const list = g.get(script);
		if (list) list.push(e);
		else g.set(script, [e]);
	}
	const laneX: number[] = [];
	let x = TRACE.pad;
	lanes.forEach((_, li) => {
		if (li > 0) x += gaps.has(li) ? SCRIPT.gap : TRACE.gap;
		laneX.push(x);
		x += TRACE.laneW;
	});
	const boxes: TraceBox[] = [];
	const rows = new Map<ColumnId, { x: number; y: number; w: number; h: number }>();
	let height = 0;
	lanes.forEach((lane, li) => {
		let y = TRACE.pad;
		for (const a of lane.assets) {
			const h = TRACE.header + a.columns.length * TRACE.row + 4;
			boxes.push({ kind: a.kind, path: a.path, x: laneX[li], y, w: TRACE.laneW, h });
			a.columns.forEach((c, i) => rows.set(c, { x: laneX[li], y: y + TRACE.header + i * TRACE.row, w: TRACE.laneW, h: TRACE.row }));
			y += h + TRACE.assetGap;
		}
		height = Math.max(height, y);
	});
	const scripts: ScriptBox[] = [];
	const through = new Map<string, ScriptBox>();
	for (const [li, g] of [...gaps].sort((a, b) => a[0] - b[0])) {
		const left = laneX[li] - SCRIPT.gap + (SCRIPT.gap - SCRIPT.w) / 2;
		const placed = [...g]
			.map(([path, es]) => {
				let sum = 0;
				for (const e of es) sum += (rows.get(e.from)!.y + rows.get(e.to)!.y + TRACE.row) / 2;
				return { path, es, cy: sum / es.length };
			})
			.sort((a, b) => a.cy - b.cy || (a.path < b.path ? -1 : 1));
		let floor = TRACE.pad;
		for (const p of placed) {
			const y = Math.max(floor, p.cy - SCRIPT.h / 2);
			const box = { path: p.path, x: left, y, w: SCRIPT.w, h: SCRIPT.h };
			floor = y + SCRIPT.h + SCRIPT.spacing;
			scripts.push(box);
			for (const e of p.es) through.set(edgeKey(e.from, e.to), box);
			height = Math.max(height, floor);
		}
	}
	const width = lanes.length ? laneX[laneX.length - 1] + TRACE.laneW + TRACE.pad : 0;
	return { boxes, rows, scripts, through, laneX, width, height: height + TRACE.pad };
}

/** What is on a traced column's path: its columns (upstream and downstream) and the scripts carrying them. */
export function tracePath(traced: ColumnId, g: ColumnGraph, via: ReadonlyMap<string, string>): { columns: Set<ColumnId>; scripts: Set<string> } {
	const columns = g.nodes.has(traced) ? traceColumn(traced, g) : new Set<ColumnId>();
	const scripts = new Set<string>();
	for (const a of columns) {
		for (const b of g.down.get(a) ?? []) {
			const s = columns.has(b) ? via.get(edgeKey(a, b)) : undefined;
			if (s) scripts.add(s);
		}
	}
	return { columns, scripts };
}

/** The focus view's lanes: only the path's columns, laid out anew left to right (sources left). */
export function focusLanes(
	path: ReadonlySet<ColumnId>,
	g: ColumnGraph,
	opts: Parameters<typeof traceLanes>[2] = {}
): Lane[] {
	return traceLanes(path, g, opts);
}

export interface TraceViewport {
	x: number;
	y: number;
	zoom: number;
}

export const TRACE_ZOOM = { min: 0.15, max: 1.5 } as const;

/** A zoom by `factor` that keeps the drawing's point under (`px`, `py`) where it is. */
export function zoomAt(v: TraceViewport, factor: number, px: number, py: number): TraceViewport {
	const zoom = Math.max(TRACE_ZOOM.min, Math.min(TRACE_ZOOM.max, v.zoom * factor));
	const k = zoom / v.zoom;
	return { zoom, x: px - (px - v.x) * k, y: py - (py - v.y) * k };
}

/** The drawing's area in view, in its own units (what a big trace draws). */
export function visibleArea(v: TraceViewport, vw: number, vh: number): { x: number; y: number; w: number; h: number } {
	return { x: -v.x / v.zoom, y: -v.y / v.zoom, w: vw / v.zoom, h: vh / v.zoom };
}

/** The zoom at which a trace's text (11 px at 1:1) reads at 11 px on screen. */
export const TRACE_READABLE_ZOOM = 1;

/**
 * Where a widened trace opens in a `vw`×`vh` frame, by the canvases' own rule (canvas-fit): the
 * whole trace when it reads at 11 px that way; else, at that zoom, framed on `focus` (the traced
 * column, or the selected relation's own columns) with its asset's header, then its direct
 * neighbours (the columns one edge away and the scripts carrying those edges), as many as fit.
 * `whole`: the whole trace however small (the Fit button), never below the trace's least zoom.
 */
export function traceFrame(g: TraceLayout, graph: ColumnGraph, focus: readonly ColumnId[], vw: number, vh: number, whole = false): TraceViewport {
	if (g.width <= 0 || g.height <= 0 || vw <= 0 || vh <= 0) return { x: 0, y: 0, zoom: 1 };
	const pad = 12;
	const cards: { id: string; x: number; y: number; w: number; h: number }[] = [];
	for (const [id, r] of g.rows) cards.push({ id, ...r });
	const head = (kind: string, path: string) => `head\u0000${kind}\u0000${path}`;
	for (const b of g.boxes) cards.push({ id: head(b.kind, b.path), x: b.x, y: b.y, w: b.w, h: TRACE.header });
	for (const s of g.scripts) cards.push({ id: `script\u0000${s.path}`, x: s.x, y: s.y, w: s.w, h: s.h });
	const core = focus.filter((c) => g.rows.has(c));
	const heads = [...new Set(core.map((c) => graph.nodes.get(c)).filter((n) => !!n).map((n) => head(n!.kind, n!.path)))];
	// Its direct neighbours, upstream and downstream apart, each with the script carrying the edge.
	const own = new Set(core);
	const sides: [string, string | null][][] = [[], []];
	const add = (side: 0 | 1, m: ColumnId, key: string) => {
		if (own.has(m) || !g.rows.has(m)) return;
		const s = g.through.get(key);
		sides[side].push([m, s ? `script\u0000${s.path}` : null]);
	};
	for (const c of core) {
		for (const m of graph.up.get(c) ?? []) add(0, m, edgeKey(m, c));
		for (const m of graph.down.get(c) ?? []) add(1, m, edgeKey(c, m));
	}
	// The nearest on each side first, so a frame with room for only some shows both directions.
	const at = core.length ? g.rows.get(core[0])! : null;
	const dist = (id: string) => {
		const r = g.rows.get(id)!;
		return at ? Math.hypot(r.x - at.x, r.y - at.y) : 0;
	};
	const nearest: string[] = [];
	const rest: string[] = [];
	for (const list of sides) {
		list.sort((a, b) => dist(a[0]) - dist(b[0]));
		list.forEach(([m, s], i) => (i === 0 ? nearest : rest).push(m, ...(s ? [s] : [])));
	}
	const fit = fitFrame({
		cards,
		bounds: { x: 0, y: 0, w: g.width, h: g.height },
		width: vw,
		height: vh,
		obstacles: [],
		priority: core.length ? [[...core, ...heads], nearest, rest] : [],
		readableZoom: whole ? 0 : TRACE_READABLE_ZOOM,
		maxZoom: TRACE_READABLE_ZOOM,
		padding: pad
	});
	// Bigger than the least zoom shows whole: its top left, at that zoom.
	if (fit.view.zoom < TRACE_ZOOM.min) return { x: pad, y: pad, zoom: TRACE_ZOOM.min };
	return fit.view;
}
