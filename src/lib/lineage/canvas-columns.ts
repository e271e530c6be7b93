// Columns on the canvas: a card expanded into its column rows, and the column
// trace drawn from row to row across the cards. Pure geometry and graph reading, so the page and
// the tests share it. An expanded card keeps its laid-out size — its rows hang below it as an
// overlay that pushes nothing — so a row's position is the card's position plus arithmetic.
import type { Placed } from './canvas-view';
import { edgeKey, type ColumnGraph, type ColumnId, type EdgeStyle } from './column-trace';
import type { ProducerColumnLineage } from '../types/asset-graph';

/** Row sizes of an expanded card; rows past `max` fold into one "+N more" row. */
export const COLUMN_ROWS = { row: 18, pad: 3, max: 24 } as const;

export interface CardColumn {
	name: string;
	/** The analyzed type; empty when unknown (a lake table, or a relation not fetched). */
	type: string;
	id: ColumnId;
}

export interface CardRows {
	shown: CardColumn[];
	/** Columns folded into the last row. */
	more: number;
}

export function cardRows(columns: readonly CardColumn[], max: number = COLUMN_ROWS.max): CardRows {
	if (columns.length <= max) return { shown: [...columns], more: 0 };
	return { shown: columns.slice(0, max - 1), more: columns.length - (max - 1) };
}

/** The overlay's height under a card with these rows. */
export function rowsHeight(r: CardRows): number {
	return (r.shown.length + (r.more ? 1 : 0)) * COLUMN_ROWS.row + 2 * COLUMN_ROWS.pad;
}

export interface Point {
	x: number;
	y: number;
}

/** Where edges meet a row or a card: its left and its right side, at the same height. */
export interface Ends {
	l: Point;
	r: Point;
}

/** A row's ends, at its middle; a row folded into "+N more" meets at that row. */
export function rowAnchor(card: Placed, index: number): Ends {
	const y = card.y + card.h + COLUMN_ROWS.pad + index * COLUMN_ROWS.row + COLUMN_ROWS.row / 2;
	return { l: { x: card.x, y }, r: { x: card.x + card.w, y } };
}

/** The ends of a card drawn without rows (a closed group, a producer script): the middle of its sides. */
export function cardAnchor(card: Placed): Ends {
	const y = card.y + card.h / 2;
	return { l: { x: card.x, y }, r: { x: card.x + card.w, y } };
}

/**
 * The producer scripts on each producer edge, keyed by `edgeKey(from, to)`: the canvas routes a
 * producer's column edge through the script's card, so the trace crosses it as data does.
 */
export function producerVia(lineage: readonly { path: string; column_lineage: readonly ProducerColumnLineage[] }[]): Map<string, string> {
	const out = new Map<string, string>();
	const id = (kind: string, path: string, column: string) => `${kind}\u0000${path}\u0000${column}`;
	for (const r of lineage) {
		for (const o of r.column_lineage) {
			const to = id(o.asset_kind, o.asset_path, o.column);
			for (const i of o.inputs) {
				const k = edgeKey(id(i.from_kind, i.from_path, i.from_column), to);
				if (!out.has(k)) out.set(k, r.path);
			}
		}
	}
	return out;
}

/** Every asset's columns in the graph, by `kind\0path`, in the graph's order. */
export function columnsByAsset(g: ColumnGraph): Map<string, ColumnId[]> {
	const out = new Map<string, ColumnId[]>();
	for (const [id, n] of g.nodes) {
		const k = `${n.kind}\u0000${n.path}`;
		const list = out.get(k);
		if (list) list.push(id);
		else out.set(k, [id]);
	}
	return out;
}

const f = (n: number) => n.toFixed(1);

/** A curve leaving `p` towards `dp` (+1 right, -1 left) and arriving at `q` from `dq`. */
const curve = (p: Point, dp: number, q: Point, dq: number) => {
	const dx = Math.max(30, Math.abs(q.x - p.x) / 2);
	return `M${f(p.x)},${f(p.y)}C${f(p.x + dp * dx)},${f(p.y)} ${f(q.x + dq * dx)},${f(q.y)} ${f(q.x)},${f(q.y)}`;
};

/**
 * From one row (or card) to another by the sides that face each other: right to left when the
 * target is to the right, left to right when it is to the left, and out and back in on the right
 * when the two overlap across (one above the other, as top-down layers put them).
 */
export function link(a: Ends, b: Ends): string {
	if (b.l.x >= a.r.x) return curve(a.r, 1, b.l, -1);
	if (b.r.x <= a.l.x) return curve(a.l, -1, b.r, 1);
	return curve(a.r, 1, b.r, 1);
}

export type TracePaths = Record<EdgeStyle, string>;

/**
 * The trace as one SVG path per edge style: a click redraws three elements, however many edges
 * (a 2000-column trace as 2000 path elements is 2000 nodes to diff and paint). An edge whose end
 * has no anchor (a column of a relation not on the canvas) is left out; a producer edge whose
 * script has a card goes through it.
 */
export function tracePaths(
	edges: Iterable<{ from: ColumnId; to: ColumnId; style: EdgeStyle }>,
	anchor: (id: ColumnId) => Ends | null,
	via: (from: ColumnId, to: ColumnId) => Ends | null
): TracePaths & { count: number } {
	const parts: Record<EdgeStyle, string[]> = { copy: [], mod: [], producer: [] };
	let count = 0;
	for (const e of edges) {
		const a = anchor(e.from);
		const b = anchor(e.to);
		if (!a || !b) continue;
		const v = via(e.from, e.to);
		parts[e.style].push(v ? link(a, v) + link(v, b) : link(a, b));
		count++;
	}
	return { copy: parts.copy.join(''), mod: parts.mod.join(''), producer: parts.producer.join(''), count };
}

/** Scan edges (a column read in a JOIN, WHERE or GROUP BY) as one path of their own: never merged into the trace. */
export function scanPath(edges: Iterable<{ from: ColumnId; to: ColumnId }>, anchor: (id: ColumnId) => Ends | null): { d: string; count: number } {
	const parts: string[] = [];
	for (const e of edges) {
		const a = anchor(e.from);
		const b = anchor(e.to);
		if (a && b) parts.push(link(a, b));
	}
	return { d: parts.join(''), count: parts.length };
}
