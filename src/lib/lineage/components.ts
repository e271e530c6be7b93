import { isDirectKind } from './kinds';

export interface ColumnEdgeLike {
	parentUniqueId: string;
	parentColumn: string;
	childUniqueId: string;
	childColumn: string;
	lineageKind: string;
}

/**
 * Numbers the connected components of the direct (copy/mod) column graph, undirected.
 * Returns one id per edge (null for non-direct edges). Ids are dense and follow the order of the
 * edges, so the same sorted edge list always gets the same ids. Computed once at ingest so that
 * a column-lineage read can fetch one component through an index instead of walking a project.
 */
export function directComponents(edges: readonly ColumnEdgeLike[]): (number | null)[] {
	const ids = new Map<string, number>();
	const parent: number[] = [];
	const nodeOf = (uid: string, col: string) => {
		const key = `${uid}\u0000${col}`;
		let i = ids.get(key);
		if (i === undefined) {
			i = parent.length;
			ids.set(key, i);
			parent.push(i);
		}
		return i;
	};
	const find = (x: number): number => {
		while (parent[x] !== x) {
			parent[x] = parent[parent[x]];
			x = parent[x];
		}
		return x;
	};
	const ends: [number, number][] = [];
	for (const e of edges) {
		if (!isDirectKind(e.lineageKind)) {
			ends.push([-1, -1]);
			continue;
		}
		const a = nodeOf(e.parentUniqueId, e.parentColumn);
		const b = nodeOf(e.childUniqueId, e.childColumn);
		ends.push([a, b]);
		const ra = find(a);
		const rb = find(b);
		if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
	}
	const numbering = new Map<number, number>();
	return ends.map(([a]) => {
		if (a < 0) return null;
		const root = find(a);
		let n = numbering.get(root);
		if (n === undefined) {
			n = numbering.size;
			numbering.set(root, n);
		}
		return n;
	});
}
