// Connected components of the direct (copy/mod) column graph, undirected, and the component a
// relation belongs to (the union over all of its columns, as fixtures/constructed-index defines
// it). Benchmarks look relations up by the size of that union.
import { directComponents } from '$lib/lineage/components';
import { relationAssetPath } from '$lib/lineage/relation-path';
import { isExecutable, type LineageEdge, type ProjectSpec } from './spec';

export interface ComponentPick {
	/** The size asked for, in direct edges. */
	target: number;
	/** Direct edges in the union of the relation's column components. */
	edges: number;
	columns: number;
	uniqueId: string;
	resourceType: string;
	/** `<warehouse>/<schema>/<name>`: the asset path in the default warehouse `main` (DESIGN.md §3). */
	assetPath: string;
	relationName: string;
}

export interface ComponentStats {
	/** Column-level components, by direct edge count. */
	histogram: Record<string, number>;
	largest: number;
	count: number;
	picks: ComponentPick[];
}

const WAREHOUSE = 'main';

const BUCKETS: [string, number, number][] = [
	['1', 1, 1],
	['2-9', 2, 9],
	['10-99', 10, 99],
	['100-999', 100, 999],
	['1000-9999', 1000, 9999],
	['10000+', 10000, Infinity]
];

export function componentStats(spec: ProjectSpec, lineage: readonly LineageEdge[], targets: readonly number[]): ComponentStats {
	// The same numbering the ingest stores (src/lib/lineage/components.ts), so a pick here is the
	// component the column-lineage endpoint will read.
	const ids = directComponents(
		lineage.map((e) => ({ parentUniqueId: e.fromId, parentColumn: e.fromColumn, childUniqueId: e.toId, childColumn: e.toColumn, lineageKind: e.kind }))
	);
	const componentOf = new Map<string, number>();
	const edgesOf = new Map<number, number>();
	const columnsOf = new Map<number, Set<string>>();
	lineage.forEach((e, i) => {
		const c = ids[i];
		if (c === null) return;
		edgesOf.set(c, (edgesOf.get(c) ?? 0) + 1);
		const cols = columnsOf.get(c) ?? new Set<string>();
		for (const key of [`${e.fromId}\u0000${e.fromColumn}`, `${e.toId}\u0000${e.toColumn}`]) {
			cols.add(key);
			componentOf.set(key, c);
		}
		columnsOf.set(c, cols);
	});

	const histogram: Record<string, number> = {};
	for (const [label] of BUCKETS) histogram[label] = 0;
	let largest = 0;
	for (const n of edgesOf.values()) {
		largest = Math.max(largest, n);
		const bucket = BUCKETS.find(([, lo, hi]) => n >= lo && n <= hi);
		if (bucket) histogram[bucket[0]]++;
	}

	interface Candidate {
		uniqueId: string;
		resourceType: string;
		schema: string;
		alias: string;
		database: string;
		edges: number;
		columns: number;
	}
	const candidates: Candidate[] = [];
	const relations = [...spec.sources, ...spec.nodes.filter(isExecutable)];
	for (const r of relations) {
		if (r.resourceType === 'model' && r.materialized === 'ephemeral') continue;
		const roots = new Set<number>();
		for (const c of r.columns) {
			const comp = componentOf.get(`${r.uniqueId}\u0000${c.name}`);
			if (comp !== undefined) roots.add(comp);
		}
		let edges = 0;
		let columns = 0;
		for (const root of roots) {
			edges += edgesOf.get(root) ?? 0;
			columns += columnsOf.get(root)?.size ?? 0;
		}
		if (edges > 0) candidates.push({ uniqueId: r.uniqueId, resourceType: r.resourceType, schema: r.schema, alias: r.alias, database: r.database, edges, columns });
	}

	const picks: ComponentPick[] = [];
	for (const target of targets) {
		let best: Candidate | null = null;
		let bestScore = Infinity;
		for (const c of candidates) {
			// Distance on a log scale, models preferred (they are what a user selects on the canvas).
			const score = Math.abs(Math.log(c.edges / target)) + (c.resourceType === 'model' ? 0 : 0.02);
			if (score < bestScore || (score === bestScore && best && c.uniqueId < best.uniqueId)) {
				best = c;
				bestScore = score;
			}
		}
		// A project too small or too large for a size has no relation for it.
		if (best && best.edges >= target / 2 && best.edges <= target * 2) {
			picks.push({
				target,
				edges: best.edges,
				columns: best.columns,
				uniqueId: best.uniqueId,
				resourceType: best.resourceType,
				assetPath: relationAssetPath({ schema: best.schema, name: best.alias }, { name: WAREHOUSE }) ?? '',
				relationName: `"${best.database}"."${best.schema}"."${best.alias}"`
			});
		}
	}
	return { histogram, largest, count: edgesOf.size, picks };
}
