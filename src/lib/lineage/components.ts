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
	// Ends numbered per node then per column: no key string is built per edge end (the ingest's
	// 200,000 edges made 400,000 of them, all garbage a moment later).
	const ids = new Map<string, Map<string, number>>();
	const parent: number[] = [];
	const nodeOf = (uid: string, col: string) => {
		let columns = ids.get(uid);
		if (!columns) ids.set(uid, (columns = new Map()));
		let i = columns.get(col);
		if (i === undefined) {
			i = parent.length;
			columns.set(col, i);
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
	// One end of each direct edge (-1: not direct) is enough to find its component afterwards.
	const firstEnds = new Int32Array(edges.length).fill(-1);
	edges.forEach((e, index) => {
		if (!isDirectKind(e.lineageKind)) return;
		const a = nodeOf(e.parentUniqueId, e.parentColumn);
		const b = nodeOf(e.childUniqueId, e.childColumn);
		firstEnds[index] = a;
		const ra = find(a);
		const rb = find(b);
		if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
	});
	const numbering = new Map<number, number>();
	return Array.from(firstEnds, (a) => {
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
