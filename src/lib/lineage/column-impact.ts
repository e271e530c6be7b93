// Column impact analysis: from one column, every column downstream (or
// upstream) of it across dbt models, producer scripts and lake tables, each with its distance,
// the copy/mod chain that reaches it and the producers on the way. Built on the column trace's
// graph (column-trace.ts), so the list and the trace can never disagree about what is connected.
import type { ColumnLineageEdge, ProducerColumnLineage } from '../types/asset-graph';
import type { ColumnImpactEntry } from '../types/column-impact';
import type { ColumnEdgeLike } from './components';
import { isDirectKind } from './kinds';
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

/** One listed column (the wire shape): kind, asset path, column, depth, the copy/mod chain, the producers on the way. */
export type ImpactEntry = ColumnImpactEntry;

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

/**
 * dbt's direct edges with the relation-less nodes (ephemeral models, inlined into their
 * children, so nowhere on the canvas or in the warehouse) bridged: a placed column feeding one
 * through any chain of them feeds what the chain reaches, `copy` only when every way there
 * copies (mod wins, as when the trace joins a pair twice). Without this an impact list would
 * stop at the first ephemeral model. Edges between placed columns are kept as they are; other
 * kinds are dropped, as everywhere.
 */
export function bridgeRelationless(edges: readonly ColumnEdgeLike[], placed: (uniqueId: string) => boolean): ColumnEdgeLike[] {
	const direct = edges.filter((e) => isDirectKind(e.lineageKind));
	const from = new Map<string, ColumnEdgeLike[]>();
	for (const e of direct) {
		if (placed(e.parentUniqueId)) continue;
		const k = `${e.parentUniqueId}\u0000${e.parentColumn}`;
		const list = from.get(k);
		if (list) list.push(e);
		else from.set(k, [e]);
	}
	const out: ColumnEdgeLike[] = [];
	const bridged = new Map<string, ColumnEdgeLike>();
	for (const e of direct) {
		if (!placed(e.parentUniqueId)) continue;
		if (placed(e.childUniqueId)) {
			out.push(e);
			continue;
		}
		// Walk the relation-less columns below, carrying whether some step so far transformed.
		const seen = new Map<string, boolean>();
		const stack: [ColumnEdgeLike, boolean][] = [[e, e.lineageKind === 'mod']];
		while (stack.length) {
			const [edge, mod] = stack.pop()!;
			if (placed(edge.childUniqueId)) {
				const key = `${e.parentUniqueId}\u0000${e.parentColumn}\u0000${edge.childUniqueId}\u0000${edge.childColumn}`;
				const prev = bridged.get(key);
				if (!prev || (mod && prev.lineageKind === 'copy')) {
					bridged.set(key, { parentUniqueId: e.parentUniqueId, parentColumn: e.parentColumn, childUniqueId: edge.childUniqueId, childColumn: edge.childColumn, lineageKind: mod ? 'mod' : 'copy' });
				}
				continue;
			}
			const at = `${edge.childUniqueId}\u0000${edge.childColumn}`;
			const was = seen.get(at);
			// Revisit a column only when this way transforms and the last did not: ends on cycles.
			if (was === true || (was === false && !mod)) continue;
			seen.set(at, mod);
			for (const next of from.get(at) ?? []) stack.push([next, mod || next.lineageKind === 'mod']);
		}
	}
	return [...out, ...bridged.values()];
}

// ─── CSV ───────────────────────────────────────────────────────────────────────────────────

export const IMPACT_CSV_HEADER = ['kind', 'asset_path', 'column', 'depth', 'kinds', 'via', 'tests'] as const;

/** What makes a spreadsheet read a cell as a formula (OWASP, CSV injection): `=`, `+`, `-`, `@`, tab, carriage return. */
const FORMULA_START = /^[=+\-@\t\r]/;

/** A value that starts like a formula, with a single quote before it (shown as text, never evaluated). */
export function defuseFormula(s: string): string {
	return FORMULA_START.test(s) ? `'${s}` : s;
}

/**
 * One CSV field (RFC 4180), defused for spreadsheets: a leading `=+-@`, tab or CR gets a single
 * quote; quoted when it holds a comma, semicolon (the separator of spreadsheets in many locales),
 * quote or line break.
 */
export function csvField(s: string): string {
	const safe = defuseFormula(s);
	return /[",;\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** A list in one field: each item defused, so none starts a formula where a spreadsheet splits the list. */
const csvList = (items: readonly string[], sep: string) => csvField(items.map(defuseFormula).join(sep));

/**
 * The impact list as CSV: a header row, one row per entry; chains and lists joined with `>` and
 * `;`. `testsOf` names the tests on an entry's relation (empty when none or unknown).
 */
export function impactCsv(columns: readonly ImpactEntry[], testsOf: (e: ImpactEntry) => readonly string[] = () => []): string {
	const lines = [IMPACT_CSV_HEADER.join(',')];
	for (const c of columns) {
		lines.push([csvField(c.kind), csvField(c.asset_path), csvField(c.column), String(c.depth), csvList(c.kinds, '>'), csvList(c.via, ';'), csvList(testsOf(c), ';')].join(','));
	}
	return lines.join('\r\n') + '\r\n';
}

function cmp(a: string, b: string): number {
	return a < b ? -1 : a > b ? 1 : 0;
}
