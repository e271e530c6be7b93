// The column-lineage walk (DESIGN.md §6): from the asked relations' columns, everything reachable
// over direct edges in either direction, transitively. Runs in application code over rows the
// server read by component id, because a recursive CTE has no index to walk and rescans the
// edge set once per level.
import type { ColumnEdgeLike } from './components';
import { isDirectKind } from './kinds';

/** Most edges one answer serves; what is kept is the part nearest the selection. */
export const COLUMN_LINEAGE_LIMIT = 5000;

export interface Reached<E> {
	edge: E;
	/** BFS level of the nearer endpoint: 0 for an edge touching an asked relation's column. */
	depth: number;
}

/**
 * Every direct edge connected to a column of the `selected` relations (unique_ids), each with
 * its distance from the selection. Non-direct kinds are dropped here even though the query
 * already excludes them: serving `scan` would draw a complete bipartite graph per model.
 * Output order follows the input order.
 */
export function reachComponent<E extends ColumnEdgeLike>(edges: readonly E[], selected: Iterable<string>): Reached<E>[] {
	const asked = new Set(selected);
	const direct = edges.filter((e) => isDirectKind(e.lineageKind));
	const incident = new Map<string, number[]>();
	const relationOf = new Map<string, string>();
	const ends = direct.map((e, i) => {
		const a = `${e.parentUniqueId}\u0000${e.parentColumn}`;
		const b = `${e.childUniqueId}\u0000${e.childColumn}`;
		for (const [col, uid] of [
			[a, e.parentUniqueId],
			[b, e.childUniqueId]
		]) {
			relationOf.set(col, uid);
			const list = incident.get(col);
			if (list) list.push(i);
			else incident.set(col, [i]);
		}
		return [a, b] as const;
	});
	const seen = new Set<string>();
	let frontier: string[] = [];
	for (const [col, uid] of relationOf) {
		if (asked.has(uid)) {
			seen.add(col);
			frontier.push(col);
		}
	}
	const depth = new Array<number>(direct.length).fill(-1);
	for (let level = 0; frontier.length > 0; level++) {
		const next: string[] = [];
		for (const col of frontier) {
			for (const i of incident.get(col) ?? []) {
				if (depth[i] >= 0) continue;
				depth[i] = level;
				for (const end of ends[i]) {
					if (!seen.has(end)) {
						seen.add(end);
						next.push(end);
					}
				}
			}
		}
		frontier = next;
	}
	const out: Reached<E>[] = [];
	direct.forEach((edge, i) => {
		if (depth[i] >= 0) out.push({ edge, depth: depth[i] });
	});
	return out;
}

export interface Ranked<T> {
	/** Identity and sort key: equal keys are one edge. */
	key: string;
	depth: number;
	value: T;
}

/**
 * De-duplicates by key (keeping the nearest copy), then keeps at most `limit` items, nearest
 * first (ties by key, so the cut is deterministic). `truncated` is true only when an item was
 * actually left out: exactly `limit` distinct items is a complete answer. Output sorted by key.
 */
export function keepNearest<T>(items: readonly Ranked<T>[], limit = COLUMN_LINEAGE_LIMIT): { values: T[]; truncated: boolean } {
	const best = new Map<string, Ranked<T>>();
	for (const it of items) {
		const b = best.get(it.key);
		if (!b || it.depth < b.depth) best.set(it.key, it);
	}
	let kept = [...best.values()];
	const truncated = kept.length > limit;
	if (truncated) kept = kept.sort((a, b) => a.depth - b.depth || compare(a.key, b.key)).slice(0, Math.max(0, limit));
	kept.sort((a, b) => compare(a.key, b.key));
	return { values: kept.map((k) => k.value), truncated };
}

/** The tuple order of (parent, parent column, child, child column, kind). NUL separates fields. */
export function edgeKey(e: ColumnEdgeLike): string {
	return [e.parentUniqueId, e.parentColumn, e.childUniqueId, e.childColumn, e.lineageKind].join('\u0000');
}

/**
 * The served column lineage of one graph: the component of the selected relations' columns,
 * sorted and de-duplicated, bounded to `limit` edges nearest the selection.
 */
export function walkColumnComponent<E extends ColumnEdgeLike>(
	edges: readonly E[],
	selected: Iterable<string>,
	limit = COLUMN_LINEAGE_LIMIT
): { edges: E[]; truncated: boolean } {
	const reached = reachComponent(edges, selected).map((r) => ({ key: edgeKey(r.edge), depth: r.depth, value: r.edge }));
	const { values, truncated } = keepNearest(reached, limit);
	return { edges: values, truncated };
}

function compare(a: string, b: string): number {
	return a < b ? -1 : a > b ? 1 : 0;
}
