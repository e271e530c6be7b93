// The lineage diff between two stored graphs of one project (DESIGN.md §6 "review a change"). Pure:
// the repository finds which nodes differ by comparing per-node digests in SQL and reads only
// those nodes, their ref() edges that differ, and the column edges touching them, so the work
// here follows the number of changed models, not the project. The downstream impact of a
// column comes from the caller (the column-impact walk over the `from` graph).
import type {
	DiffClassification,
	DiffColumn,
	GraphDiff,
	ImpactEntry,
	ModelChange,
	ModifiedModel,
	RefEdgeChange,
	RemovedColumn,
	RetypedColumn
} from '../types/graph-diff';
import { CLASSIFICATION_ORDER } from '../types/graph-diff';
import type { ColumnImpactConsumer } from '../types/column-impact';
import type { ColumnEdgeLike } from './components';

/** The fields of one stored node the diff compares (tests are compared through their digests). */
export interface DiffNode {
	uniqueId: string;
	resourceType: string;
	assetPath: string | null;
	materialized: string | null;
	materializeStrategy: string | null;
	uniqueKey: string | null;
	rawCode: string | null;
	description: string | null;
	tags: string[];
	columns: Record<string, unknown> | null;
	columnSchema: { name: string; type?: string | null }[] | null;
}

/** A non-test node whose digest differs between the graphs, or that is in one of them only. */
export interface ChangedNode {
	uniqueId: string;
	from: DiffNode | null;
	to: DiffNode | null;
}

export interface DiffInput {
	changed: readonly ChangedNode[];
	/** The models (either side's `attached_node`) of the test nodes whose digest differs. */
	testsChangedOf: readonly { uniqueId: string; assetPath: string | null }[];
	refEdges: { added: readonly RefEdgeChange[]; removed: readonly RefEdgeChange[] };
	/** The column edges touching a changed node, in each graph. */
	columnEdges: { from: readonly ColumnEdgeLike[]; to: readonly ColumnEdgeLike[] };
	/** Whether each graph has column lineage at all (an index was uploaded). */
	hasColumnLineage: { from: boolean; to: boolean };
	/**
	 * The downstream readers of `column` of the relation at `assetPath` in the `from` graph; only
	 * asked when that graph has column lineage.
	 */
	impactOf: (assetPath: string, column: string) => ImpactEntry[];
	/** The consumers (metrics, exposures...) of the `from` graph these relation columns reach. */
	consumersOf?: (columns: { asset_path: string; column: string }[]) => ColumnImpactConsumer[];
}

const columnKey = (uid: string, col: string) => `${uid}\u0000${col}`;
const edgeId = (e: ColumnEdgeLike) => `${e.parentUniqueId}\u0000${e.parentColumn}\u0000${e.childUniqueId}\u0000${e.childColumn}\u0000${e.lineageKind}`;

function schemaOf(n: DiffNode): Map<string, string | null> | null {
	if (!n.columnSchema) return null;
	return new Map(n.columnSchema.map((c) => [c.name, c.type ?? null]));
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
const declaredNames = (n: DiffNode) => Object.keys(n.columns ?? {}).sort();

/** The changes of a node present in both graphs, in a fixed order. */
function changesOf(a: DiffNode, b: DiffNode, testsChanged: boolean): ModelChange[] {
	const out: ModelChange[] = [];
	if (a.resourceType !== b.resourceType) out.push('resource_type');
	if ((a.rawCode ?? '') !== (b.rawCode ?? '')) out.push('sql');
	if (a.materialized !== b.materialized || a.materializeStrategy !== b.materializeStrategy || a.uniqueKey !== b.uniqueKey) {
		out.push('materialized');
	}
	if (testsChanged) out.push('tests');
	const sa = schemaOf(a);
	const sb = schemaOf(b);
	const namesA = sa ? [...sa.keys()].sort() : declaredNames(a);
	const namesB = sb ? [...sb.keys()].sort() : declaredNames(b);
	if (!sameList(namesA, namesB) || !sameList(declaredNames(a), declaredNames(b))) out.push('columns');
	if (sa && sb && [...sa].some(([name, t]) => sb.has(name) && sb.get(name) !== t)) out.push('column_types');
	if ((a.description ?? '') !== (b.description ?? '')) out.push('description');
	if (!sameList([...a.tags].sort(), [...b.tags].sort())) out.push('tags');
	return out;
}

/** Incoming direct edges per (child, column): what each column of a child is computed from. */
function incomingByColumn(edges: readonly ColumnEdgeLike[]): Map<string, Set<string>> {
	const m = new Map<string, Set<string>>();
	for (const e of edges) {
		const k = columnKey(e.childUniqueId, e.childColumn);
		let s = m.get(k);
		if (!s) m.set(k, (s = new Set()));
		s.add(edgeId(e));
	}
	return m;
}

const sameSet = (a: ReadonlySet<string> | undefined, b: ReadonlySet<string> | undefined) =>
	(a?.size ?? 0) === (b?.size ?? 0) && [...(a ?? [])].every((x) => b?.has(x));

/** "3 downstream columns and the producer `f/lake/crm_export`": who an impact list reaches. */
export function describeImpact(impact: readonly ImpactEntry[]): string {
	const producers = [...new Set(impact.flatMap((i) => i.via))].sort();
	const columns = impact.length;
	const parts: string[] = [];
	if (columns > 0) parts.push(`${columns} downstream column${columns === 1 ? '' : 's'}`);
	if (producers.length === 1) parts.push(`the producer \`${producers[0]}\``);
	else if (producers.length > 1) parts.push(`the producers ${producers.map((p) => `\`${p}\``).join(', ')}`);
	return parts.join(' and ') || 'nothing downstream';
}

/** "the `revenue` metric (and 3 more metrics) and the exposure `Finance dashboard`": what a change breaks past the relations. */
export function describeConsumers(list: readonly ColumnImpactConsumer[]): string {
	const named = (type: string, noun: string) => {
		const of = list.filter((c) => c.type === type);
		if (of.length === 0) return null;
		const first = `the ${noun} \`${of[0].label ?? of[0].name}\``;
		return of.length === 1 ? first : `${first} (and ${of.length - 1} more ${noun}${of.length === 2 ? '' : 's'})`;
	};
	const parts = [named('metric', 'metric'), named('exposure', 'exposure'), named('saved_query', 'saved query')].filter((p): p is string => p !== null);
	if (parts.length === 0) parts.push(named('semantic_model', 'semantic model')!);
	return parts.join(' and ');
}

const relationName = (n: DiffNode) => n.assetPath?.split('/').pop() ?? n.uniqueId;

/** The worse of two classifications (CLASSIFICATION_ORDER). */
export function worseOf(a: DiffClassification | null, b: DiffClassification): DiffClassification {
	return a === null || CLASSIFICATION_ORDER.indexOf(b) > CLASSIFICATION_ORDER.indexOf(a) ? b : a;
}

/** Whether a classification reaches a `--fail-on` level. */
export function reachesLevel(c: DiffClassification | null, level: DiffClassification): boolean {
	return c !== null && CLASSIFICATION_ORDER.indexOf(c) >= CLASSIFICATION_ORDER.indexOf(level);
}

function sortBy<T>(xs: T[], key: (x: T) => string): T[] {
	return xs.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** The full diff, authored parts included; `redactDiff` removes them for a shape-only caller. */
export function diffGraphs(input: DiffInput, sides: Pick<GraphDiff, 'from' | 'to'>): GraphDiff {
	const testsChanged = new Set(input.testsChangedOf.map((t) => t.uniqueId));
	const lineage = input.hasColumnLineage.from && input.hasColumnLineage.to;
	const impactOf = (path: string | null, column: string): ImpactEntry[] | null =>
		path !== null && input.hasColumnLineage.from ? input.impactOf(path, column) : null;
	// What a removed or retyped column breaks past the relations: its own readers and its impact's.
	const reaching = <C extends { asset_path: string; column: string; impact: ImpactEntry[] | null }>(c: C): C => {
		if (!input.consumersOf) return c;
		const cols = [{ asset_path: c.asset_path, column: c.column }, ...(c.impact ?? []).filter((i) => i.kind === 'dbt')];
		const found = input.consumersOf(cols);
		return found.length ? { ...c, consumers: found } : c;
	};

	const added: string[] = [];
	const removed: string[] = [];
	const modified: ModifiedModel[] = [];
	const colsAdded: DiffColumn[] = [];
	const colsRemoved: RemovedColumn[] = [];
	const colsRetyped: RetypedColumn[] = [];
	const seen = new Set<string>();
	const assetPaths: Record<string, string | null> = {};

	const incomingFrom = incomingByColumn(input.columnEdges.from);
	const incomingTo = incomingByColumn(input.columnEdges.to);

	for (const c of input.changed) {
		seen.add(c.uniqueId);
		assetPaths[c.uniqueId] = c.to?.assetPath ?? c.from?.assetPath ?? null;
		if (c.from === null && c.to !== null) {
			added.push(c.uniqueId);
			if (c.to.assetPath) for (const col of c.to.columnSchema ?? []) colsAdded.push({ asset_path: c.to.assetPath, column: col.name, type: col.type ?? null });
			continue;
		}
		if (c.to === null && c.from !== null) {
			removed.push(c.uniqueId);
			const path = c.from.assetPath;
			if (path) for (const col of c.from.columnSchema ?? []) colsRemoved.push(reaching({ asset_path: path, column: col.name, type: col.type ?? null, impact: impactOf(path, col.name) }));
			continue;
		}
		if (!c.from || !c.to) continue;
		const changes = changesOf(c.from, c.to, testsChanged.has(c.uniqueId));
		const a = schemaOf(c.from);
		const b = schemaOf(c.to);
		const removedHere: RemovedColumn[] = [];
		const retypedHere: RetypedColumn[] = [];
		// Columns live at the relation: a moved relation (new alias or schema) removes every column at the old path.
		const moved = c.from.assetPath !== c.to.assetPath;
		if (a && b) {
			for (const [name, type] of a) {
				if (!b.has(name) || moved) {
					if (c.from.assetPath) removedHere.push(reaching({ asset_path: c.from.assetPath, column: name, type, impact: impactOf(c.from.assetPath, name) }));
				} else if (b.get(name) !== type && c.from.assetPath) {
					retypedHere.push(reaching({ asset_path: c.from.assetPath, column: name, from_type: type, to_type: b.get(name) ?? null, impact: impactOf(c.from.assetPath, name) }));
				}
			}
			for (const [name, type] of b) if ((!a.has(name) || moved) && c.to.assetPath) colsAdded.push({ asset_path: c.to.assetPath, column: name, type });
		}
		// Columns whose own lineage changed (computed from other parents, or another way).
		const relinked: string[] = [];
		if (lineage && b) {
			for (const name of b.keys()) {
				const k = columnKey(c.uniqueId, name);
				if (a?.has(name) && !sameSet(incomingFrom.get(k), incomingTo.get(k))) relinked.push(name);
			}
			if (relinked.length > 0) changes.push('column_lineage');
		}
		colsRemoved.push(...removedHere);
		colsRetyped.push(...retypedHere);
		if (changes.length === 0) continue;
		modified.push({ unique_id: c.uniqueId, asset_path: c.to.assetPath, changes, ...classify(c.from, c.to, changes, removedHere, retypedHere, relinked, lineage, impactOf) });
	}

	// A changed test whose model is otherwise the same is still a change of that model.
	for (const t of input.testsChangedOf) {
		if (seen.has(t.uniqueId)) continue;
		seen.add(t.uniqueId);
		assetPaths[t.uniqueId] = t.assetPath;
		modified.push({ unique_id: t.uniqueId, asset_path: t.assetPath, changes: ['tests'], classification: 'non_breaking', reason: 'only its tests changed' });
	}

	const renamed = renamesOf(input.changed);
	let classification: DiffClassification | null = null;
	for (const m of modified) classification = worseOf(classification, m.classification);
	// A removed model's columns count like a modified model's: what reads them breaks.
	if (colsRemoved.some((c) => (c.impact && c.impact.length > 0) || c.consumers)) classification = worseOf(classification, 'breaking');
	else if (removed.length > 0 && !input.hasColumnLineage.from) classification = worseOf(classification, 'unknown');
	else if (added.length > 0 || removed.length > 0) classification = worseOf(classification, 'non_breaking');

	const fromIds = new Set(input.columnEdges.from.map(edgeId));
	const toIds = new Set(input.columnEdges.to.map(edgeId));
	const broken = new Map<string, ColumnImpactConsumer>();
	for (const c of [...colsRemoved, ...colsRetyped]) for (const x of c.consumers ?? []) broken.set(`${x.script_path}\u0000${x.unique_id}`, x);
	return {
		...sides,
		...(broken.size ? { consumers: sortBy([...broken.values()], (x) => `${x.script_path}\u0000${x.unique_id}`) } : {}),
		models: { added: added.sort(), removed: removed.sort(), renamed, modified: sortBy(modified, (m) => m.unique_id) },
		asset_paths: Object.fromEntries([...added, ...removed, ...modified.map((m) => m.unique_id)].sort().map((u) => [u, assetPaths[u] ?? null])),
		columns: {
			added: sortBy(colsAdded, (c) => columnKey(c.asset_path, c.column)),
			removed: sortBy(colsRemoved, (c) => columnKey(c.asset_path, c.column)),
			retyped: sortBy(colsRetyped, (c) => columnKey(c.asset_path, c.column))
		},
		ref_edges: {
			added: sortBy([...input.refEdges.added], (e) => columnKey(e.from_unique_id, e.to_unique_id)),
			removed: sortBy([...input.refEdges.removed], (e) => columnKey(e.from_unique_id, e.to_unique_id))
		},
		column_edges: lineage
			? { added: [...toIds].filter((k) => !fromIds.has(k)).length, removed: [...fromIds].filter((k) => !toIds.has(k)).length }
			: null,
		classification,
		authored: true
	};
}

function classify(
	from: DiffNode,
	to: DiffNode,
	changes: readonly ModelChange[],
	removed: readonly RemovedColumn[],
	retyped: readonly RetypedColumn[],
	relinked: readonly string[],
	lineage: boolean,
	impactOf: (path: string | null, column: string) => ImpactEntry[] | null
): { classification: DiffClassification; reason: string } {
	const name = relationName(from);
	const touchesColumns = changes.some((c) => c === 'sql' || c === 'columns' || c === 'column_types' || c === 'resource_type');
	if (touchesColumns) {
		const missing: string[] = [];
		if (!from.columnSchema) missing.push('the `from` graph has no typed columns for it');
		if (!to.columnSchema) missing.push('the `to` graph has no typed columns for it');
		if (!lineage) missing.push('a graph has no column lineage');
		if (missing.length > 0) return { classification: 'unknown', reason: `its ${changes.join(', ')} changed, but ${missing.join(' and ')}` };
	}
	const read = [...removed, ...retyped].filter((c) => (c.impact && c.impact.length > 0) || c.consumers);
	if (read.length > 0) {
		const what = read.map((c) => {
			const verb = 'from_type' in c ? `retypes \`${name}.${c.column}\` (${c.from_type ?? '?'} → ${c.to_type ?? '?'})` : `removes \`${name}.${c.column}\``;
			const readers = c.impact?.length ? `, which ${describeImpact(c.impact)} read${c.impact.length === 1 ? 's' : ''}` : '';
			return `${verb}${readers}${c.consumers ? `${readers ? ',' : ''} and breaks ${describeConsumers(c.consumers)}` : ''}`;
		});
		return { classification: 'breaking', reason: `this change ${what.join('; ')}` };
	}
	const relinkedRead = relinked
		.map((col) => ({ col, impact: to.assetPath === null ? null : impactOf(from.assetPath, col) }))
		.filter((r) => r.impact && r.impact.length > 0);
	if (relinkedRead.length > 0) {
		const cols = relinkedRead.map((r) => `\`${name}.${r.col}\``).join(', ');
		const n = relinkedRead.reduce((s, r) => s + r.impact!.length, 0);
		return { classification: 'partial', reason: `the lineage of ${cols} changed; ${n} downstream column${n === 1 ? '' : 's'} read${n === 1 ? 's' : ''} them, the rest are unaffected` };
	}
	if (removed.length + retyped.length > 0) {
		const list = (cs: readonly { column: string }[]) => cs.map((c) => `\`${c.column}\``).join(', ');
		const what = [removed.length ? `removes ${list(removed)}` : '', retyped.length ? `retypes ${list(retyped)}` : ''].filter(Boolean).join(' and ');
		return { classification: 'non_breaking', reason: `it ${what}, which nothing downstream reads` };
	}
	return { classification: 'non_breaking', reason: 'no column is removed or retyped, and no column read downstream changed its lineage' };
}

/** Removed and added models with the same SQL and resource type. */
function renamesOf(changed: readonly ChangedNode[]): { from: string; to: string }[] {
	const addedBySql = new Map<string, string[]>();
	for (const c of changed) {
		if (c.from === null && c.to?.rawCode) {
			const k = `${c.to.resourceType}\u0000${c.to.rawCode}`;
			addedBySql.set(k, [...(addedBySql.get(k) ?? []), c.uniqueId]);
		}
	}
	const out: { from: string; to: string }[] = [];
	for (const c of changed) {
		if (c.to !== null || !c.from?.rawCode) continue;
		const list = addedBySql.get(`${c.from.resourceType}\u0000${c.from.rawCode}`);
		const to = list?.shift();
		if (to) out.push({ from: c.uniqueId, to });
	}
	return sortBy(out, (r) => r.from);
}

/** The changes a caller who may see only a graph's shape is shown. */
const SHAPE_CHANGES: ReadonlySet<ModelChange> = new Set(['materialized', 'tests', 'resource_type']);

/**
 * The diff for a caller who may see the shape only: no columns, no reasons, no changes read from
 * SQL or columns (the classification stays: it says how bad, not what).
 */
export function redactDiff(d: GraphDiff): GraphDiff {
	const { columns: _columns, consumers: _consumers, ...rest } = d;
	return {
		...rest,
		models: {
			...d.models,
			renamed: [],
			modified: d.models.modified.map(({ reason: _reason, ...m }) => ({ ...m, changes: m.changes.filter((c) => SHAPE_CHANGES.has(c)) }))
		},
		column_edges: null,
		authored: false
	};
}

/** The diff of a graph with itself. */
export function emptyDiff(sides: Pick<GraphDiff, 'from' | 'to'>): GraphDiff {
	return {
		...sides,
		models: { added: [], removed: [], renamed: [], modified: [] },
		asset_paths: {},
		columns: { added: [], removed: [], retyped: [] },
		ref_edges: { added: [], removed: [] },
		column_edges: { added: 0, removed: 0 },
		classification: null,
		authored: true
	};
}
