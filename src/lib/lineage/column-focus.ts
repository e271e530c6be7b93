// Focus on a column, on the canvas: the cards its trace passes through (the relations holding
// its columns upstream and downstream, and the producer scripts carrying them) with only the
// edges the column flows along, laid out on their own left to right. Pure: the page's focus
// state derives the subset and asks the server's layout for it.
import { ROOT } from './canvas-groups';
import { assetNodeId, scriptNodeId } from './canvas-model';
import { CARD, type LevelInput, type LevelLayout } from './canvas-sizes';
import type { ComposedCut } from './canvas-view';
import { edgeKey, type ColumnGraph, type ColumnId } from './column-trace';

export interface CanvasPath {
	/** Canvas node ids, in a stable order (the layout's input and its cache key follow it). */
	nodes: string[];
	/** Node edges the column flows along, upstream first. */
	edges: { source: string; target: string }[];
	/** The traced column's own card, if this canvas shows it: what a path too long to read whole is framed on. */
	core: string | null;
	/** What identifies the subset: equal keys lay out the same. */
	key: string;
}

/**
 * The canvas cards and edges a traced column's path (`columns`: `traced`, its upstream and its
 * downstream) runs through. A column edge a producer script carries (`via`) runs through the
 * script's card, or straight across when this canvas does not show the script; a relation it
 * does not show (another folder) is left out with its edges.
 */
export function pathOnCanvas(
	traced: ColumnId,
	columns: ReadonlySet<ColumnId>,
	g: ColumnGraph,
	via: ReadonlyMap<string, string>,
	shown: (nodeId: string) => boolean
): CanvasPath {
	const nodeOf = (c: ColumnId) => {
		const n = g.nodes.get(c);
		return n ? assetNodeId(n.kind, n.path) : null;
	};
	const nodes = new Set<string>();
	const edges = new Map<string, { source: string; target: string }>();
	const link = (source: string, target: string) => {
		if (source !== target && shown(source) && shown(target)) edges.set(`${source}\u0000${target}`, { source, target });
	};
	for (const c of columns) {
		const a = nodeOf(c);
		if (a && shown(a)) nodes.add(a);
		for (const d of g.down.get(c) ?? []) {
			if (!columns.has(d)) continue;
			const b = nodeOf(d);
			if (!a || !b) continue;
			const script = via.get(edgeKey(c, d));
			const s = script ? scriptNodeId(script) : null;
			if (s && shown(s)) {
				nodes.add(s);
				link(a, s);
				link(s, b);
			} else link(a, b);
		}
	}
	const sortedNodes = [...nodes].sort();
	const sortedEdges = [...edges.values()].sort((x, y) => (x.source === y.source ? (x.target < y.target ? -1 : 1) : x.source < y.source ? -1 : 1));
	const own = nodeOf(traced);
	return { nodes: sortedNodes, edges: sortedEdges, core: own && nodes.has(own) ? own : null, key: JSON.stringify([sortedNodes, sortedEdges.map((e) => [e.source, e.target])]) };
}

/** The one level the layout lays the path out as: every card on the root, with the path's edges. */
export function focusLevel(p: CanvasPath): LevelInput {
	const index = new Map(p.nodes.map((id, i) => [id, i]));
	return {
		id: ROOT,
		children: p.nodes.map((id) => ({ id, w: CARD.w, h: CARD.h })),
		edges: p.edges.map((e) => [index.get(e.source)!, index.get(e.target)!] as [number, number])
	};
}

/** The path's cards at the positions its layout gave; null when the layout misses one of them. */
export function composeFocus(p: CanvasPath, layout: LevelLayout | undefined): ComposedCut | null {
	if (!layout) return null;
	const cards = [];
	for (const id of p.nodes) {
		const at = layout.pos[id];
		if (!at) return null;
		cards.push({ id, x: at[0], y: at[1], w: CARD.w, h: CARD.h });
	}
	return { cards, frames: [], width: layout.w, height: layout.h };
}
