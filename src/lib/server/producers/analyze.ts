// A producer script → what it reads, what it writes, and the column lineage of its target
// (DESIGN.md §8), through the SQL-lineage engine dbt models go through
// (src/lib/lineage/sql-lineage/). Two steps, so the deploy can load column lists in between:
// `parseProducer` (annotations, statements, the parser: the expensive part, done once) names every
// asset the script touches; `inferProducer` runs the statements in order with the columns known
// for those assets and merges the annotations (which win for their columns). Each statement's
// outcome that leaves something untraced becomes a warning naming its line; a target left without
// any column lineage gets one more saying why.
import { assetUri, parseProducerAnnotations, type AssetRef, type ProducerAnnotations } from '../../lineage/producer-annotations';
import { applyToContext, newNameContext, resolveTableName, type NameContext } from '../../lineage/producer-sql';
import type { WarehouseTarget } from '../../lineage/relation-path';
import { parseStatement, unparsedStatement, type ParsedStatement } from '../../lineage/sql-lineage/parse';
import { LineageSession } from '../../lineage/sql-lineage/session';
import { blankComments, fragment, lineIndex, querySpan, splitStatements, statementHead } from '../../lineage/sql-lineage/text';
import type { ColumnInput, NameResolver, SqlDialect, StatementColumn, StatementLineage } from '../../lineage/sql-lineage/types';

/** Producer scripts are DuckDB SQL (DESIGN.md §8); nothing in a script names another dialect. */
export const PRODUCER_DIALECT: SqlDialect = 'duckdb';

export type LineageKind = 'copy' | 'mod';

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

interface ProducerStatement {
	parsed: ParsedStatement;
	/** 1-based line of the statement's first character. */
	line: number;
	/** Its query was left unread: the script's queries were over MAX_PARSED_QUERY_BYTES before it. */
	overBudget?: boolean;
}

export interface ParsedProducer {
	annotations: ProducerAnnotations;
	statements: ProducerStatement[];
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
 * How much query text the parser reads per script. Past this the statements are still classified
 * (their targets count as writes) but their queries are not parsed, and a warning says where it
 * stopped: the answer must not depend on which later statements happen to be short.
 */
export const MAX_PARSED_QUERY_BYTES = 32 * 1024;

export function parseProducer(sql: string, warehouse: WarehouseTarget): ParsedProducer {
	const annotations = parseProducerAnnotations(sql);
	const code = blankComments(sql);
	const lineOf = lineIndex(sql);
	const warnings: string[] = [];
	const statements: ProducerStatement[] = [];
	let parsedBytes = 0;
	let stoppedAt: number | null = null;
	for (const st of splitStatements(code)) {
		const head = statementHead(st.text);
		const line = lineOf(st.start);
		const span = querySpan(head, st.text.length);
		let parsed: ParsedStatement;
		if (span && (stoppedAt !== null || parsedBytes + (span[1] - span[0]) > MAX_PARSED_QUERY_BYTES)) {
			stoppedAt ??= line;
			statements.push({ parsed: unparsedStatement(st.text, PRODUCER_DIALECT, head), line, overBudget: true });
			continue;
		} else {
			if (span) parsedBytes += span[1] - span[0];
			parsed = parseStatement(st.text, PRODUCER_DIALECT, { head });
		}
		if (parsed.failure) {
			const at = parsed.failure.position ? line + parsed.failure.position.line - 1 : line;
			warnings.push(`line ${at}: could not parse "${fragment(st.text)}" (${parsed.failure.message}); its columns are not inferred`);
		} else if (head.kind === 'unknown') {
			warnings.push(`line ${line}: statement not analysed: "${fragment(st.text)}"`);
		}
		statements.push({ parsed, line });
	}
	if (stoppedAt !== null) {
		warnings.push(
			`line ${stoppedAt}: the script holds more than ${MAX_PARSED_QUERY_BYTES / 1024} KB of queries; from here on they are not parsed and their columns are not inferred`
		);
	}
	const parsed: ParsedProducer = { annotations, statements, warehouse, warnings, assets: [] };
	// A dry run with no columns known names every asset the statements reach.
	const touched = new Map<string, AssetRef>();
	run(parsed, () => null, (a) => touched.set(assetUri(a), a));
	for (const a of [...(annotations.materialize ? [annotations.materialize] : []), ...annotations.columns.flatMap((c) => c.inputs)]) {
		if (a.path.includes('/')) touched.set(assetUri(a), { kind: a.kind, path: a.path });
	}
	parsed.assets = [...touched.values()];
	return parsed;
}

interface TracedColumn {
	name: string;
	inputs: ColumnInput[];
	/** Some statement could not decide its inputs (a warning said why): it is left out. */
	untraced: boolean;
}

interface RunState {
	reads: Map<string, AssetRef>;
	writes: Map<string, AssetRef>;
	/** Lineage of each written asset, per output column (lowercased name → column). */
	lineage: Map<string, Map<string, TracedColumn>>;
	/** Why a statement writing an asset left its columns untraced, per asset (line-prefixed). */
	gaps: Map<string, string[]>;
	/** Assets that an UPDATE or MERGE changes in ways not analysed. */
	modified: Map<string, string>;
	/** Tables written that are no asset (a name without a schema, not temporary). */
	localWrites: string[];
	finalSelect: { line: number; lineage: StatementLineage } | null;
	warnings: string[];
}

const stripQuotes = (s: string) => s.replace(/["`[\]]/g, '');

/** Walks the statements in order; `touch` sees every asset a table name resolves to. */
function run(p: ParsedProducer, catalog: ColumnCatalog, touch: (a: AssetRef) => void = () => {}): RunState {
	const ctx: NameContext = newNameContext(p.warehouse);
	const state: RunState = { reads: new Map(), writes: new Map(), lineage: new Map(), gaps: new Map(), modified: new Map(), localWrites: [], finalSelect: null, warnings: [] };
	const assets = new Map<string, AssetRef>();
	// `-- materialize ducklake://main/unq` over `CREATE TABLE unq AS …`: the unqualified name is the target.
	const m = p.annotations.materialize;
	const target = m && m.path.includes('/') ? { kind: m.kind, path: m.path } : null;
	const targetName = target ? target.path.split('/').pop()!.toLowerCase() : null;

	const resolve: NameResolver = (parts) => {
		let r = resolveTableName(parts, ctx);
		if (!r.ok && target && parts.length === 1 && stripQuotes(parts[0]).toLowerCase() === targetName) r = { ok: true, asset: target };
		if (!r.ok) return { unknown: r.reason };
		touch(r.asset);
		const uri = assetUri(r.asset);
		assets.set(uri, r.asset);
		const known = catalog(r.asset);
		return { node: uri, label: uri, columns: known?.columns ?? null, complete: known?.complete ?? false, ordered: !known?.unordered };
	};
	const session = new LineageSession({ resolve });

	for (const st of p.statements) {
		const h = st.parsed.head;
		if (h.kind === 'attach' || h.kind === 'use') {
			applyToContext(h, ctx);
			continue;
		}
		const line = st.line;
		const warn = (message: string) => state.warnings.push(`line ${line}: ${message}`);
		const text = fragment(st.parsed.text);
		const r = session.run(st.parsed);

		for (const node of r.reads) state.reads.set(node, assets.get(node)!);
		// A name that resolves to nothing is said once; the columns it leaves untraced say nothing more.
		for (const u of r.unresolved) warn(`${u.label}: ${u.reason}; its columns are not traced: "${text}"`);
		const causedByUnresolved = (reason: string) => r.unresolved.some((u) => reason.includes(u.reason));
		for (const n of r.notes) warn(n);

		const written = r.target?.node ? assets.get(r.target.node)! : null;
		if (written) state.writes.set(r.target!.node!, written);
		else if (r.target?.unknown) warn(`${r.target.label} (written here) ${r.target.unknown}: it is not an asset`);
		else if (r.target && (h.kind === 'create_as' || h.kind === 'create' || h.kind === 'insert') && !(h.kind !== 'insert' && h.temp)) state.localWrites.push(r.target.label);

		if (h.kind === 'modify' && written && (h.verb === 'UPDATE' || h.verb === 'MERGE') && (r.outcome === 'failed' || r.outcome === 'skipped')) state.modified.set(assetUri(written), `line ${line}: ${h.verb}`);

		// The rows of COPY … TO go to a file: what they read counts, nothing else.
		if (h.kind === 'copy_to') continue;
		const gaps: string[] = [];
		if (r.outcome === 'failed') {
			const at = line + (r.position?.line ?? 1) - 1;
			// A parse failure was said when parsing.
			if (!st.parsed.failure) state.warnings.push(`line ${at}: ${r.reason}: "${text}"`);
			gaps.push(`line ${at}: ${r.reason}`);
		} else if (r.outcome === 'skipped' && r.target) {
			gaps.push(`line ${line}: ${st.overBudget ? `its query was not parsed (the script's queries are over ${MAX_PARSED_QUERY_BYTES / 1024} KB before it)` : r.reason}`);
		}
		for (const u of r.untraced) {
			if (causedByUnresolved(u.reason)) {
				gaps.push(`line ${line}: ${u.reason}`);
				continue;
			}
			// An unnamed column is asked a name for where its lineage is used.
			if (r.columns?.some((c, k) => c.name === null && u.column === `_col${k}`)) continue;
			warn(`${u.reason}: "${text}"`);
			gaps.push(`line ${line}: ${u.reason}`);
		}
		if (written && gaps.length) state.gaps.set(assetUri(written), [...(state.gaps.get(assetUri(written)) ?? []), ...gaps]);

		if (h.kind === 'query') state.finalSelect = { line, lineage: r };
		else if (written && r.columns) record(state, assetUri(written), r.columns, warn);
	}
	return state;
}

function record(state: RunState, key: string, columns: StatementColumn[], warn: (m: string) => void): void {
	let m = state.lineage.get(key);
	if (!m) state.lineage.set(key, (m = new Map()));
	for (const c of columns) {
		if (c.name === null) {
			if (c.text) warn(`an output column has no name: add AS <name>: "${c.text}"`);
			continue;
		}
		const k = c.name.toLowerCase();
		const prev = m.get(k);
		m.set(k, prev ? { name: prev.name, inputs: mergeInputs(prev.inputs, c.inputs), untraced: prev.untraced || c.untraced !== undefined } : { name: c.name, inputs: c.inputs, untraced: c.untraced !== undefined });
	}
}

/** Unions inputs; an input reached both as a copy and through an expression is a `mod`. */
function mergeInputs(a: ColumnInput[], b: ColumnInput[]): ColumnInput[] {
	const out = new Map(a.map((i) => [`${i.node}\u0000${i.column}`, i]));
	for (const i of b) {
		const k = `${i.node}\u0000${i.column}`;
		const prev = out.get(k);
		out.set(k, prev && prev.kind !== i.kind ? { ...prev, kind: 'mod' } : (prev ?? i));
	}
	return [...out.values()];
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
	} else if (p.annotations.columns.length > 0 || state.finalSelect || state.localWrites.length > 0) {
		const locals = state.localWrites.length ? ` (${listed([...new Set(state.localWrites)])}: a table without a schema is not one)` : '';
		warnings.push(`the script writes no lake table${locals}: add "-- materialize ducklake://main/<table>" to say what it produces`);
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
		const key = assetUri(target);
		writes.set(key, target);
		const modified = state.modified.get(key);
		if (modified) warnings.push(`${modified} of ${key} is not analysed for column lineage`);
		let inferred: TracedColumn[] = [];
		let gaps = state.gaps.get(key) ?? [];
		const stored = state.lineage.get(key);
		const final = state.finalSelect;
		if (stored) inferred = [...stored.values()];
		else if (final && !state.writes.has(key)) {
			const r = final.lineage;
			for (const c of r.columns ?? []) {
				if (c.name === null) {
					if (c.text) warnings.push(`line ${final.line}: an output column of the final SELECT has no name: add AS <name>: "${c.text}"`);
				} else inferred.push({ name: c.name, inputs: c.inputs, untraced: c.untraced !== undefined });
			}
			if (r.outcome !== 'analyzed' && r.reason) gaps = [`line ${final.line}: ${r.reason}`];
		}
		const annotated = new Map(p.annotations.columns.map((c) => [c.column.toLowerCase(), c]));
		for (const c of inferred) {
			if (c.untraced || annotated.has(c.name.toLowerCase())) continue;
			columns.push({ column: c.name, source: 'inferred', inputs: c.inputs.map((i) => ({ asset: assetOf(i.node), column: i.column, kind: i.kind })) });
		}
		for (const a of p.annotations.columns) {
			columns.push({
				column: a.column,
				source: 'annotation',
				inputs: a.inputs.map((r) => ({ asset: { kind: r.kind, path: r.path }, column: canonicalColumn(catalog, r, r.column), kind: null }))
			});
		}
		for (const c of columns) for (const i of c.inputs) if (assetUri(i.asset) !== key) reads.set(assetUri(i.asset), i.asset);
		if (columns.length === 0) warnings.push(`${key} has no column lineage: ${whyNoLineage(state, key, gaps)}`);
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

/** Why a target ends with no column at all: the first statement that left it so, or that none fills it. */
function whyNoLineage(state: RunState, key: string, gaps: string[]): string {
	if (gaps.length) return gaps[0];
	if (state.lineage.has(key)) return 'the statements writing it give no named column';
	if (state.writes.has(key)) return 'no statement of the script fills it from a query';
	const others = [...state.writes.keys()].filter((k) => k !== key);
	return `no statement of the script writes it${others.length ? ` (it writes ${listed(others)})` : ''}, and no final SELECT describes it`;
}

/** An asset URI the resolver made (`kind://path`) as the asset. */
function assetOf(uri: string): AssetRef {
	const at = uri.indexOf('://');
	return { kind: uri.slice(0, at) as AssetRef['kind'], path: uri.slice(at + 3) };
}

/** The first few of a list, and how many more: a warning stays one readable line. */
function listed(items: string[], max = 5): string {
	return items.length <= max ? items.join(', ') : `${items.slice(0, max).join(', ')} and ${items.length - max} more`;
}

/** An annotation's column spelled as the relation spells it (DuckDB matches names case-insensitively). */
function canonicalColumn(catalog: ColumnCatalog, asset: AssetRef, column: string): string {
	const known = catalog(asset);
	return known?.columns.find((c) => c.toLowerCase() === column.toLowerCase()) ?? column;
}

/** Parse and infer in one call, for callers that already hold every column list. */
export function analyzeProducer(sql: string, warehouse: WarehouseTarget, catalog: ColumnCatalog): ProducerAnalysis {
	return inferProducer(parseProducer(sql, warehouse), catalog);
}
