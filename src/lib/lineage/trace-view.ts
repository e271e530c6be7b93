// The column trace as a view of its own: the lanes laid out with the producer scripts drawn as
// boxes between the lanes they carry columns across (an edge style alone does not say which
// script), what lies on a traced column's path (its columns and the scripts carrying them) for
// the focus toggle, and the zoom and pan that fit a trace into its frame. Pure, so the page and
// the tests share it.
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

/** The zoom and offset that show a `w`×`h` drawing whole in a `vw`×`vh` frame, centred, never above 1:1. */
export function fitTrace(w: number, h: number, vw: number, vh: number, pad = 12): TraceViewport {
	if (w <= 0 || h <= 0 || vw <= 0 || vh <= 0) return { x: 0, y: 0, zoom: 1 };
	const zoom = Math.max(TRACE_ZOOM.min, Math.min(1, (vw - 2 * pad) / w, (vh - 2 * pad) / h));
	const x = w * zoom <= vw ? (vw - w * zoom) / 2 : pad;
	const y = h * zoom <= vh ? Math.min((vh - h * zoom) / 2, pad) : pad;
	return { x, y, zoom };
}

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
