// A producer script → what it reads, what it writes, and the column lineage of its target
// (DESIGN.md §8). Two steps, so the deploy can load column lists in between: `parseProducer`
// (annotations, statements, the SQL parser; the expensive part, done once) names every asset
// the script touches; `inferProducer` walks the statements in order with the columns known for
// those assets and merges the annotations (which win for their columns).
import {
	assetUri,
	parseProducerAnnotations,
	type AssetRef,
	type ProducerAnnotations
} from '$lib/lineage/producer-annotations';
import {
	assetKey,
	assetRelation,
	evalQuery,
	mergeEdges,
	unresolvedRelation,
	type Edge,
	type LineageEnv,
	type LineageKind,
	type Query,
	type RelColumn,
	type Relation
} from '$lib/lineage/producer-lineage';
import {
	applyToContext,
	blankComments,
	fragment,
	lineIndex,
	newNameContext,
	resolveTableName,
	splitStatements,
	statementHead,
	type NameContext,
	type StatementHead
} from '$lib/lineage/producer-sql';
import type { WarehouseTarget } from '$lib/lineage/relation-path';
import { parseQuery } from './parse-query';

/**
 * Columns known for an asset: `complete` when the list is all of them (it may expand `*`);
 * `unordered` when their order is not known (nothing is matched to them by position).
 */
export interface KnownColumns {
	columns: string[];
	complete: boolean;
	unordered?: boolean;
}

export type ColumnCatalog = (asset: AssetRef) => KnownColumns | null;

interface ParsedStatement {
	head: StatementHead;
	line: number;
	text: string;
	/** The parsed query of the statement, when it has one and it parsed. */
	query: Query | null;
}

export interface ParsedProducer {
	annotations: ProducerAnnotations;
	statements: ParsedStatement[];
	warehouse: WarehouseTarget;
	/** Warnings of the parse itself (statements that did not parse, statements not analysed). */
	warnings: string[];
	/** Every asset named by a table reference or an annotation: the ones worth loading columns for. */
	assets: AssetRef[];
}

export interface ProducerInput {
	asset: AssetRef;
	column: string;
	/** How the value is carried; null for an annotation, which does not say. */
	kind: LineageKind | null;
}

export interface ProducerColumn {
	column: string;
	source: 'annotation' | 'inferred';
	inputs: ProducerInput[];
}

export interface ProducerAnalysis {
	target: AssetRef | null;
	reads: AssetRef[];
	writes: AssetRef[];
	columns: ProducerColumn[];
	warnings: string[];
}

/**
 * How much query text the parser reads per script. The parser is the slow step (roughly 1 MB of
 * SELECTs per second on a small machine); past this the statements are still classified (their
 * targets count as writes) but their queries are not parsed, and a warning says where it stopped.
 */
export const MAX_PARSED_QUERY_BYTES = 32 * 1024;

export function parseProducer(sql: string, warehouse: WarehouseTarget): ParsedProducer {
	const annotations = parseProducerAnnotations(sql);
	const code = blankComments(sql);
	const lineOf = lineIndex(sql);
	const warnings: string[] = [];
	const statements: ParsedStatement[] = [];
	let parsedBytes = 0;
	let stoppedAt: number | null = null;
	for (const st of splitStatements(code)) {
		const head = statementHead(st.text);
		const line = lineOf(st.start);
		let query: Query | null = null;
		const span = querySpan(head, st.text.length);
		if (span) {
			const text = st.text.slice(span[0], span[1]);
			// Once over the budget, nothing after is parsed: the answer must not depend on which
			// later statements happen to be short.
			if (stoppedAt !== null || parsedBytes + text.length > MAX_PARSED_QUERY_BYTES) stoppedAt ??= line;
			else {
				parsedBytes += text.length;
				const r = parseQuery(text);
				if (r.ok) query = r.query;
				else {
					const at = lineOf(st.start + span[0] + r.offset);
					warnings.push(`line ${at}: could not parse "${fragment(st.text)}" (${r.message}); its columns are not inferred`);
				}
			}
		} else if (head.kind === 'unknown') {
			warnings.push(`line ${line}: statement not analysed: "${fragment(st.text)}"`);
		}
		statements.push({ head, line, text: st.text, query });
	}
	if (stoppedAt !== null) {
		warnings.push(
			`line ${stoppedAt}: the script holds more than ${MAX_PARSED_QUERY_BYTES / 1024} KB of queries; from here on they are not parsed and their columns are not inferred`
		);
	}
	const parsed: ParsedProducer = { annotations, statements, warehouse, warnings, assets: [] };
	// A dry run with no columns known names every asset the statements reach.
	const touched = new Map<string, AssetRef>();
	run(parsed, () => null, (a) => touched.set(assetKey(a), a));
	for (const a of [...(annotations.materialize ? [annotations.materialize] : []), ...annotations.columns.flatMap((c) => c.inputs)]) {
		if (a.path.includes('/')) touched.set(assetKey(a), { kind: a.kind, path: a.path });
	}
	parsed.assets = [...touched.values()];
	return parsed;
}

/** Where the query of a statement is, in the statement's text. */
function querySpan(head: StatementHead, length: number): [number, number] | null {
	switch (head.kind) {
		case 'query':
			return [head.query, head.queryEnd];
		case 'create_as':
			return [head.query, length];
		case 'insert':
			return head.query === null ? null : [head.query, head.queryEnd];
		case 'copy_to':
			return head.query === null ? null : [head.query, head.queryEnd];
		default:
			return null;
	}
}

interface RunState {
	reads: Map<string, AssetRef>;
	writes: Map<string, AssetRef>;
	/** Lineage of each written asset, per output column (lowercased name → column). */
	lineage: Map<string, Map<string, RelColumn>>;
	/** Assets that an UPDATE or MERGE changes in ways not analysed. */
	modified: Map<string, string>;
	finalSelect: Relation | null;
	warnings: string[];
}

/** Walks the statements in order; `touch` sees every asset a table reference resolves to. */
function run(p: ParsedProducer, catalog: ColumnCatalog, touch: (a: AssetRef) => void = () => {}): RunState {
	const ctx: NameContext = newNameContext(p.warehouse);
	const locals = new Map<string, Relation>();
	const state: RunState = { reads: new Map(), writes: new Map(), lineage: new Map(), modified: new Map(), finalSelect: null, warnings: [] };
	let line = 0;
	const warn = (m: string) => state.warnings.push(`line ${line}: ${m}`);
	const localName = (name: string[]) => `name:${name.map((n) => n.toLowerCase()).join('.')}`;

	/** A written table: an asset, or (unqualified, temporary) a table local to the script. */
	const writtenTable = (name: string[], temp: boolean): { key: string; asset: AssetRef | null } => {
		if (!temp) {
			const r = resolveTableName(name, ctx);
			if (r.ok) {
				touch(r.asset);
				return { key: `asset:${assetKey(r.asset)}`, asset: r.asset };
			}
			if (name.length > 1) warn(`${name.join('.')} (written here) ${r.reason}: it is not an asset`);
		}
		return { key: localName(name.slice(-1)), asset: null };
	};

	const env: LineageEnv = {
		warn,
		table(name, text) {
			const local = locals.get(localName(name));
			if (local) return local;
			const r = resolveTableName(name, ctx);
			if (!r.ok) {
				warn(`${name.join('.')} ${r.reason}; its columns are not traced: "${fragment(text)}"`);
				return unresolvedRelation(name.join('.'));
			}
			touch(r.asset);
			// A table this script wrote earlier is read back through what was written to it.
			const written = locals.get(`asset:${assetKey(r.asset)}`);
			if (written) return written;
			state.reads.set(assetKey(r.asset), r.asset);
			return assetRelation(r.asset, catalog(r.asset));
		}
	};

	const record = (asset: AssetRef | null, columns: RelColumn[]) => {
		if (!asset) return;
		const k = assetKey(asset);
		let m = state.lineage.get(k);
		if (!m) state.lineage.set(k, (m = new Map()));
		for (const c of columns) {
			if (c.name === null) {
				if (c.text) warn(`an output column has no name: add AS <name>: "${fragment(c.text)}"`);
				continue;
			}
			const key = c.name.toLowerCase();
			const prev = m.get(key);
			m.set(key, prev ? { name: prev.name, edges: mergeEdges(prev.edges, c.edges), undecided: prev.undecided || c.undecided } : c);
		}
	};

	const step = (st: ParsedStatement) => {
		const h = st.head;
		switch (h.kind) {
			case 'attach':
			case 'use':
				applyToContext(h, ctx);
				break;
			case 'create_as': {
				const target = writtenTable(h.name, h.temp);
				if (target.asset) state.writes.set(assetKey(target.asset), target.asset);
				if (!st.query) {
					locals.set(target.key, unresolvedRelation(h.name.join('.')));
					break;
				}
				let rel = evalQuery(st.query, null, env);
				if (h.columns && rel.columns) {
					if (rel.unordered || !rel.complete) {
						warn(`cannot name the columns of ${h.name.join('.')} by position: the query's columns (or their order) are not all known`);
						rel = { ...rel, columns: null };
					} else rel = { ...rel, columns: rel.columns.map((c, k) => (k < h.columns!.length ? { ...c, name: h.columns![k] } : c)) };
				}
				locals.set(target.key, { ...rel, label: target.asset ? assetUri(target.asset) : h.name.join('.'), asset: null });
				// Null columns come with the evaluation's own warning saying why.
				if (rel.columns) record(target.asset, rel.columns);
				break;
			}
			case 'create': {
				const target = writtenTable(h.name, h.temp);
				if (target.asset) state.writes.set(assetKey(target.asset), target.asset);
				locals.set(target.key, {
					label: target.asset ? assetUri(target.asset) : h.name.join('.'),
					asset: null,
					unresolved: false,
					complete: true,
					columns: h.columns.map((c) => ({ name: c, edges: [] }))
				});
				break;
			}
			case 'insert': {
				const target = writtenTable(h.name, false);
				if (target.asset) state.writes.set(assetKey(target.asset), target.asset);
				if (!st.query) break;
				const rel = evalQuery(st.query, null, env);
				const mapped = insertColumns(h, rel, locals.get(target.key) ?? (target.asset ? assetRelation(target.asset, catalog(target.asset)) : null), warn, st.text, target.asset);
				if (!mapped) break;
				record(target.asset, mapped);
				const local = locals.get(target.key);
				if (local?.columns) {
					for (const c of mapped) {
						const lc = local.columns.find((x) => x.name !== null && c.name !== null && x.name.toLowerCase() === c.name.toLowerCase());
						if (lc) {
							lc.edges = mergeEdges(lc.edges, c.edges);
							lc.undecided = lc.undecided || c.undecided;
						}
					}
				}
				break;
			}
			case 'query':
				if (st.query) state.finalSelect = evalQuery(st.query, null, env);
				else state.finalSelect = null;
				break;
			case 'copy_from': {
				const target = writtenTable(h.name, false);
				if (target.asset) state.writes.set(assetKey(target.asset), target.asset);
				break;
			}
			case 'copy_to':
				if (st.query) evalQuery(st.query, null, { ...env, warn: () => {} });
				else if (h.name) env.table(h.name, st.text);
				break;
			case 'modify': {
				const target = writtenTable(h.name, false);
				if (!target.asset) break;
				state.writes.set(assetKey(target.asset), target.asset);
				if (h.verb === 'UPDATE' || h.verb === 'MERGE') state.modified.set(assetKey(target.asset), `line ${st.line}: ${h.verb}`);
				break;
			}
			case 'ignored':
			case 'unknown':
				break;
		}
	};

	for (const st of p.statements) {
		line = st.line;
		try {
			step(st);
		} catch (e) {
			// An unforeseen shape costs this statement's lineage, never the deploy.
			warn(`the lineage of this statement could not be inferred (${(e as Error).message}): "${fragment(st.text)}"`);
		}
	}
	return state;
}

/** The target's columns an INSERT fills, by its column list, BY NAME, or by position. */
function insertColumns(
	h: Extract<StatementHead, { kind: 'insert' }>,
	rel: Relation,
	target: Relation | null,
	warn: (m: string) => void,
	text: string,
	asset: AssetRef | null
): RelColumn[] | null {
	if (rel.columns === null) return null;
	if (h.byName) return rel.columns;
	const names = h.columns ?? (target?.complete && !target.unordered && target.columns ? target.columns.map((c) => c.name) : null);
	const label = asset ? assetUri(asset) : h.name.join('.');
	if (!names) {
		warn(`INSERT INTO ${h.name.join('.')} without a column list: the columns of ${label} are unknown, so values cannot be matched by position: "${fragment(text)}"`);
		return null;
	}
	if (!rel.complete || rel.unordered || rel.columns.length !== names.length) {
		const what = rel.unordered ? 'values in an unknown order' : `${rel.complete ? rel.columns.length : 'an unknown number of'} values`;
		warn(`INSERT INTO ${h.name.join('.')}: ${what} for ${names.length} columns: "${fragment(text)}"`);
		return null;
	}
	return rel.columns.map((c, k) => ({ ...c, name: names[k] }));
}

/** Chooses the target: the materialize annotation, else the only lake table written. */
function chooseTarget(p: ParsedProducer, state: RunState, warnings: string[]): AssetRef | null {
	const m = p.annotations.materialize;
	const lakeWrites = [...state.writes.values()].filter((a) => a.kind === 'ducklake');
	if (m && m.path.includes('/')) return { kind: m.kind, path: m.path };
	if (m) {
		// `-- materialize ducklake`: the lake is named, the table is the one written there.
		const inLake = lakeWrites.filter((a) => a.path.startsWith(`${m.path}/`));
		if (inLake.length === 1) return inLake[0];
		warnings.push(
			`line ${m.line}: materialize ${assetUri(m)} names a lake, and the script writes ${inLake.length} tables there: name the table (${assetUri(m)}/<table>)`
		);
		return null;
	}
	if (lakeWrites.length === 1) return lakeWrites[0];
	if (lakeWrites.length > 1) {
		warnings.push(
			`the script writes ${lakeWrites.length} lake tables (${listed(lakeWrites.map(assetUri))}): add "-- materialize <uri>" to say which one its lineage describes`
		);
	} else if (p.annotations.columns.length > 0 || state.finalSelect) {
		warnings.push('the script writes no lake table: add "-- materialize ducklake://main/<table>" to say what it produces');
	}
	return null;
}

export function inferProducer(p: ParsedProducer, catalog: ColumnCatalog): ProducerAnalysis {
	const state = run(p, catalog);
	const warnings = [...p.annotations.warnings, ...p.warnings, ...state.warnings];
	const target = chooseTarget(p, state, warnings);
	const writes = new Map(state.writes);
	const reads = new Map(state.reads);
	const columns: ProducerColumn[] = [];
	if (target) {
		const key = assetKey(target);
		writes.set(key, target);
		const modified = state.modified.get(key);
		if (modified) warnings.push(`${modified} of ${assetUri(target)} is not analysed for column lineage`);
		let inferred: RelColumn[] = [];
		const stored = state.lineage.get(key);
		if (stored) inferred = [...stored.values()];
		else if (state.finalSelect?.columns && !state.writes.has(key)) {
			inferred = state.finalSelect.columns;
			for (const c of inferred) if (c.name === null && c.text) warnings.push(`an output column of the final SELECT has no name: add AS <name>: "${fragment(c.text)}"`);
		}
		const annotated = new Map(p.annotations.columns.map((c) => [c.column.toLowerCase(), c]));
		for (const c of inferred) {
			if (c.name === null || c.undecided || annotated.has(c.name.toLowerCase())) continue;
			columns.push({ column: c.name, source: 'inferred', inputs: c.edges.map(toInput) });
		}
		for (const a of p.annotations.columns) {
			columns.push({
				column: a.column,
				source: 'annotation',
				inputs: a.inputs.map((r) => ({ asset: { kind: r.kind, path: r.path }, column: canonicalColumn(catalog, r, r.column), kind: null }))
			});
		}
		for (const c of columns) for (const i of c.inputs) if (assetKey(i.asset) !== key) reads.set(assetKey(i.asset), i.asset);
	} else if (p.annotations.columns.length > 0) {
		warnings.push(`${p.annotations.columns.length} column annotations are not stored: the script has no target`);
	}
	return {
		target,
		reads: [...reads.values()],
		writes: [...writes.values()],
		columns,
		warnings: [...new Set(warnings)]
	};
}

/** The first few of a list, and how many more: a warning stays one readable line. */
function listed(items: string[], max = 5): string {
	return items.length <= max ? items.join(', ') : `${items.slice(0, max).join(', ')} and ${items.length - max} more`;
}

const toInput = (e: Edge): ProducerInput => ({ asset: e.asset, column: e.column, kind: e.kind });

/** An annotation's column spelled as the relation spells it (DuckDB matches names case-insensitively). */
function canonicalColumn(catalog: ColumnCatalog, asset: AssetRef, column: string): string {
	const known = catalog(asset);
	return known?.columns.find((c) => c.toLowerCase() === column.toLowerCase()) ?? column;
}

/** Parse and infer in one call, for callers that already hold every column list. */
export function analyzeProducer(sql: string, warehouse: WarehouseTarget, catalog: ColumnCatalog): ProducerAnalysis {
	return inferProducer(parseProducer(sql, warehouse), catalog);
}
