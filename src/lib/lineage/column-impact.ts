// Column impact analysis (issue 16, item 7): from one column, every column downstream (or
// upstream) of it across dbt models, producer scripts and lake tables, each with its distance,
// the copy/mod chain that reaches it and the producers on the way. Built on the column trace's
// graph (column-trace.ts), so the list and the trace can never disagree about what is connected.
import type { ColumnLineageEdge, ProducerColumnLineage } from '../types/asset-graph';
import {
	buildDbtColumnGraph,
	buildProducerColumnGraph,
	columnId,
	edgeKey,
	mergeColumnGraphs,
	type ColumnGraph,
	type ColumnId,
	type ColumnNode,
	type EdgeStyle
} from './column-trace';

/** Most entries one impact answer lists; what is kept is the part nearest the start. */
export const COLUMN_IMPACT_LIMIT = 5000;

export const IMPACT_DIRECTIONS = ['downstream', 'upstream'] as const;
export type ImpactDirection = (typeof IMPACT_DIRECTIONS)[number];

export function isImpactDirection(s: string): s is ImpactDirection {
	return (IMPACT_DIRECTIONS as readonly string[]).includes(s);
}

/** The column graph plus, per edge, the producer scripts that derive it (none for a dbt edge). */
export interface ImpactGraph {
	graph: ColumnGraph;
	/** Keyed by column-trace's `edgeKey(from, to)`; sorted script paths. */
	via: Map<string, string[]>;
}

export interface ProducerLineageOf {
	path: string;
	column_lineage: readonly ProducerColumnLineage[];
}

/**
 * The graph an impact walk runs on: dbt's column lineage (one or more answers, merged on shared
 * relations) and each producer's lineage, remembering which producer drew which edge.
 */
export function buildImpactGraph(dbtEdges: readonly ColumnLineageEdge[], producers: readonly ProducerLineageOf[]): ImpactGraph {
	const parts: ColumnGraph[] = [buildDbtColumnGraph(dbtEdges)];
	const via = new Map<string, Set<string>>();
	for (const p of producers) {
		const g = buildProducerColumnGraph({ runnables: [{ path: p.path, language: 'sql', script_hash: null, column_lineage: [...p.column_lineage] }] });
		for (const k of g.styles.keys()) {
			const s = via.get(k);
			if (s) s.add(p.path);
			else via.set(k, new Set([p.path]));
		}
		parts.push(g);
	}
	return { graph: mergeColumnGraphs(...parts), via: new Map([...via].map(([k, s]) => [k, [...s].sort()])) };
}

export interface ImpactEntry {
	/** The asset kind (`dbt`, `ducklake`, …). */
	kind: string;
	asset_path: string;
	column: string;
	/** Edges from the start along the shortest path: 1 for a direct child (or parent). */
	depth: number;
	/**
	 * The edge kinds along that path, in walking order: `copy`, `mod`, or `producer` for a
	 * producer derivation whose kind its annotation did not say.
	 */
	kinds: EdgeStyle[];
	/** Producer scripts whose derivations lie on that path, in walking order, each once. */
	via: string[];
}

export interface ImpactOptions {
	limit?: number;
	/**
	 * Whether the caller may see a column. One that fails is neither listed nor walked through
	 * (what lies beyond a hidden relation is reached only through it), only counted.
	 */
	visible?: (node: ColumnNode) => boolean;
}

export interface ImpactAnswer {
	columns: ImpactEntry[];
	/** True only when reachable columns were actually left out. */
	truncated: boolean;
	/** Reached columns the caller may not see: counted, never named. */
	withheld: number;
}

interface Step {
	id: ColumnId;
	kinds: EdgeStyle[];
	via: string[];
}

const byId = (a: ColumnId, b: ColumnId) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Breadth-first from `start` along one direction, so each column is listed once at its least
 * depth; cycles and self-loops end because a column is visited once. Neighbours are taken in id
 * order, so the chain shown for a column reached several ways is always the same one. Listed
 * nearest first (then by kind, path, column); the start itself is not listed. A start the graph
 * does not hold has no impact (an empty list: the caller decides whether the column exists).
 */
export function walkColumnImpact(
	ig: ImpactGraph,
	start: { kind: string; path: string; column: string },
	direction: ImpactDirection,
	opts: ImpactOptions = {}
): ImpactAnswer {
	const limit = Math.max(0, opts.limit ?? COLUMN_IMPACT_LIMIT);
	const visible = opts.visible ?? (() => true);
	const { graph } = ig;
	const adj = direction === 'downstream' ? graph.down : graph.up;
	const origin = columnId(start.kind, start.path, start.column);
	const columns: ImpactEntry[] = [];
	let withheld = 0;
	let truncated = false;
	if (!graph.nodes.has(origin)) return { columns, truncated, withheld };
	const seen = new Set<ColumnId>([origin]);
	let frontier: Step[] = [{ id: origin, kinds: [], via: [] }];
	walk: for (let depth = 1; frontier.length > 0; depth++) {
		const next: Step[] = [];
		for (const step of frontier) {
			for (const m of [...(adj.get(step.id) ?? [])].sort(byId)) {
				if (seen.has(m)) continue;
				seen.add(m);
				const node = graph.nodes.get(m)!;
				if (!visible(node)) {
					withheld++;
					continue;
				}
				if (columns.length >= limit) {
					truncated = true;
					break walk;
				}
				const k = direction === 'downstream' ? edgeKey(step.id, m) : edgeKey(m, step.id);
				const via = [...step.via];
				for (const s of ig.via.get(k) ?? []) if (!via.includes(s)) via.push(s);
				const kinds = [...step.kinds, graph.styles.get(k) ?? 'copy'];
				columns.push({ kind: node.kind, asset_path: node.path, column: node.column, depth, kinds, via });
				next.push({ id: m, kinds, via });
			}
		}
		next.sort((a, b) => byId(a.id, b.id));
		frontier = next;
	}
	columns.sort((a, b) => a.depth - b.depth || cmp(a.kind, b.kind) || cmp(a.asset_path, b.asset_path) || cmp(a.column, b.column));
	return { columns, truncated, withheld };
}

/** The dbt relations an impact list names, sorted: the ones whose tests it reports. */
export function impactRelations(columns: readonly ImpactEntry[]): string[] {
	return [...new Set(columns.filter((c) => c.kind === 'dbt').map((c) => c.asset_path))].sort();
}

/** The dbt relations a producer edge of the graph touches among `ids`: where a walk may need more of dbt's lineage. */
export function producerTouchedRelations(ig: ImpactGraph, ids: Iterable<ColumnId>): string[] {
	const out = new Set<string>();
	for (const id of ids) {
		const n = ig.graph.nodes.get(id);
		if (n?.kind !== 'dbt') continue;
		for (const adj of [ig.graph.up.get(id), ig.graph.down.get(id)]) {
			for (const m of adj ?? []) {
				if (ig.via.has(edgeKey(id, m)) || ig.via.has(edgeKey(m, id))) out.add(n.path);
			}
		}
	}
	return [...out].sort();
}

/** The ids of an impact answer's columns, for following the walk with more lineage. */
export function impactIds(columns: readonly ImpactEntry[]): ColumnId[] {
	return columns.map((c) => columnId(c.kind, c.asset_path, c.column));
}

// ─── CSV ───────────────────────────────────────────────────────────────────────────────────

export const IMPACT_CSV_HEADER = ['kind', 'asset_path', 'column', 'depth', 'kinds', 'via', 'tests'] as const;

/** One CSV field (RFC 4180): quoted when it holds a comma, quote or line break; a leading `=+-@` is defused for spreadsheets. */
export function csvField(s: string): string {
	const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
	return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/**
 * The impact list as CSV: a header row, one row per entry; chains and lists joined with `>` and
 * `;`. `testsOf` names the tests on an entry's relation (empty when none or unknown).
 */
export function impactCsv(columns: readonly ImpactEntry[], testsOf: (e: ImpactEntry) => readonly string[] = () => []): string {
	const lines = [IMPACT_CSV_HEADER.join(',')];
	for (const c of columns) {
		lines.push([c.kind, c.asset_path, c.column, String(c.depth), c.kinds.join('>'), c.via.join(';'), testsOf(c).join(';')].map(csvField).join(','));
	}
	return lines.join('\r\n') + '\r\n';
}

function cmp(a: string, b: string): number {
	return a < b ? -1 : a > b ? 1 : 0;
}
