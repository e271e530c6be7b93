// Columns on the canvas (issue 16, item 5): a card expanded into its column rows, and the column
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

/**
 * Where an edge meets a row: the card's right side for an edge leaving it, its left side for one
 * arriving, at the row's middle. A row folded into "+N more" meets at that row.
 */
export function rowAnchor(card: Placed, index: number, side: 'out' | 'in'): Point {
	return {
		x: side === 'out' ? card.x + card.w : card.x,
		y: card.y + card.h + COLUMN_ROWS.pad + index * COLUMN_ROWS.row + COLUMN_ROWS.row / 2
	};
}

/** Where an edge meets a card drawn without rows (a closed group, a producer script): the middle of a side. */
export function cardAnchor(card: Placed, side: 'out' | 'in'): Point {
	return { x: side === 'out' ? card.x + card.w : card.x, y: card.y + card.h / 2 };
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

const curve = (a: Point, b: Point) => {
	const dx = Math.max(30, Math.abs(b.x - a.x) / 2);
	return `M${a.x.toFixed(1)},${a.y.toFixed(1)}C${(a.x + dx).toFixed(1)},${a.y.toFixed(1)} ${(b.x - dx).toFixed(1)},${b.y.toFixed(1)} ${b.x.toFixed(1)},${b.y.toFixed(1)}`;
};

export type TracePaths = Record<EdgeStyle, string>;

/**
 * The trace as one SVG path per edge style: a click redraws three elements, however many edges
 * (a 2000-column trace as 2000 path elements is 2000 nodes to diff and paint). An edge whose end
 * has no anchor (a column of a relation not on the canvas) is left out; a producer edge whose
 * script has a card goes through it.
 */
export function tracePaths(
	edges: Iterable<{ from: ColumnId; to: ColumnId; style: EdgeStyle }>,
	anchor: (id: ColumnId, side: 'out' | 'in') => Point | null,
	via: (from: ColumnId, to: ColumnId) => { in: Point; out: Point } | null
): TracePaths & { count: number } {
	const parts: Record<EdgeStyle, string[]> = { copy: [], mod: [], producer: [] };
	let count = 0;
	for (const e of edges) {
		const a = anchor(e.from, 'out');
		const b = anchor(e.to, 'in');
		if (!a || !b) continue;
		const v = via(e.from, e.to);
		parts[e.style].push(v ? curve(a, v.in) + curve(v.out, b) : curve(a, b));
		count++;
	}
	return { copy: parts.copy.join(''), mod: parts.mod.join(''), producer: parts.producer.join(''), count };
}

/** Scan edges (a column read in a JOIN, WHERE or GROUP BY) as one path of their own: never merged into the trace. */
export function scanPath(edges: Iterable<{ from: ColumnId; to: ColumnId }>, anchor: (id: ColumnId, side: 'out' | 'in') => Point | null): { d: string; count: number } {
	const parts: string[] = [];
	for (const e of edges) {
		const a = anchor(e.from, 'out');
		const b = anchor(e.to, 'in');
		if (a && b) parts.push(curve(a, b));
	}
	return { d: parts.join(''), count: parts.length };
}
