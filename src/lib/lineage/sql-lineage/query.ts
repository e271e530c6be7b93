// The column lineage of one query over polyglot-sql's parse tree, with the engine's conventions
// (docs/column-lineage.md):
//   copy — a bare column, a rename, `*` / `t.*` expansion, min/max of a bare column;
//   mod  — any other expression (casts, functions, CASE, aggregates, window PARTITION/ORDER keys);
//   scan — a column read in JOIN ON/USING, WHERE, GROUP BY, HAVING or QUALIFY, into every output.
// CTEs (dbt's `__dbt__cte__<name>` ephemerals among them), subqueries and derived tables are
// resolved away, so edges end at the relations the query reads. Set operations match by position.
// Only the parser's tree is used: polyglot-sql's own per-column lineage re-parses the query per
// column (bench/README.md, "sql-parsers").
//
// The rule throughout: where the SQL alone does not decide where a column comes from, the column
// is reported untraced with the reason. A missing edge is visible; a wrong one is not.
import { foldIdentifier } from './dialect';
import type { KnownRelation, SqlDialect } from './types';

/** Nesting deeper than this (parentheses, subqueries) is "too complex to analyse". */
const MAX_DEPTH = 400;

// polyglot-sql's tree, read as plain data: its published types do not cover every dialect's nodes.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Ast = any;

export interface Edge {
	node: string;
	column: string;
	kind: 'copy' | 'mod';
}

export interface Col {
	name: string | null;
	edges: Edge[];
	/** Why this column's inputs are not known (it keeps its place for positions). */
	untraced?: string;
	/** An unnamed expression's tree, for the message that asks for a name. */
	expr?: Ast;
}

export type ScanSet = Map<string, { node: string; column: string }>;

export interface Rel {
	label: string;
	/** Null when nothing is known of the columns (a table function, an unknown relation). */
	columns: Col[] | null;
	/** Whether `columns` is all of them (needed for `*` and positions). */
	complete: boolean;
	/** False when the columns' order is not known (declared columns): nothing is matched by position. */
	ordered: boolean;
	/** The relation this IS: a column of it that is not listed still yields an edge. */
	node: string | null;
	/** Why the columns are unknown, for the reason of what reads them. */
	unknown?: string;
	/**
	 * A column not listed may still be named: a relation whose column list is missing or partial,
	 * or `select *` over one, passes any column through as a copy of that relation's column.
	 */
	open?: string;
	/** A table function's output: any column may be named, and none comes from a relation. */
	fromFunction?: boolean;
	/** What every column of that function derives from (its arguments' columns, as mod). */
	functionEdges?: Edge[];
	/** Relations whose unlisted columns pass through a `*` that could not be listed (one or more). */
	starFrom?: string[];
	scans: ScanSet;
}

interface Entry {
	alias: string | null;
	name: string[] | null;
	rel: Rel;
	using: string[] | null;
	/** How it joins what is before it (`full`, `right`, …); null for the first. */
	join: string | null;
}

interface Scope {
	entries: Entry[];
	parent: Scope | null;
	ctes: Map<string, Rel>;
	/** Earlier select-list aliases (DuckDB, Snowflake, BigQuery let later items and clauses use them). */
	lateral: Map<string, Col>;
	/** `WINDOW w AS (…)` definitions of this SELECT. */
	windows?: Map<string, Ast>;
}

/** What a query is evaluated against. */
export interface QueryContext {
	/** A table name outside any CTE → its relation (the caller resolves, and knows what the script wrote). */
	relation(parts: string[]): Rel;
	/** Things that do not stop columns from being traced, said once each. */
	notes: string[];
	/** Why a column read to filter, join or group is not traced (the scans miss it), once each. */
	filterNotes: string[];
	depth: number;
	deadline: number;
	budgetMs: number;
	/** How identifiers fold (output names; the exact match among names differing only in case). */
	dialect?: SqlDialect;
}

export class TooComplex extends Error {}

const lower = (s: string) => s.toLowerCase();
const isObj = (v: unknown): v is Record<string, Ast> => typeof v === 'object' && v !== null && !Array.isArray(v);
const QUERY_KEYS = new Set(['select', 'union', 'intersect', 'except']);

function queryOf(v: Ast): Ast | null {
	// `(select …)` as a CTE body or set-operation branch is the query itself.
	while (isObj(v) && (v.paren || v.annotated || (v.subquery && !v.subquery.alias))) v = (v.paren ?? v.annotated ?? v.subquery).this;
	if (!isObj(v)) return null;
	const keys = Object.keys(v);
	return keys.length === 1 && QUERY_KEYS.has(keys[0]) ? v : null;
}

const identName = (v: Ast): string | null => (isObj(v) && typeof v.name === 'string' ? v.name : typeof v === 'string' ? v : null);

export function mergeEdges(...lists: Edge[][]): Edge[] {
	const out = new Map<string, Edge>();
	for (const list of lists)
		for (const e of list) {
			const k = `${e.node}\u0000${e.column}`;
			const prev = out.get(k);
			if (!prev) out.set(k, e);
			else if (prev.kind !== e.kind) out.set(k, { ...prev, kind: 'mod' });
		}
	return [...out.values()];
}

const asMod = (edges: Edge[]): Edge[] => edges.map((e) => (e.kind === 'mod' ? e : { ...e, kind: 'mod' }));

function addScans(into: ScanSet, edges: Iterable<{ node: string; column: string }>) {
	for (const e of edges) into.set(`${e.node}\u0000${e.column}`, { node: e.node, column: e.column });
}

function note(ctx: QueryContext, message: string) {
	if (!ctx.notes.includes(message)) ctx.notes.push(message);
}

function guard(ctx: QueryContext) {
	if (ctx.depth > MAX_DEPTH) throw new TooComplex(`nesting deeper than ${MAX_DEPTH}`);
	if (performance.now() > ctx.deadline) throw new TooComplex(`over the ${ctx.budgetMs} ms budget`);
}

// ─── Relations ────────────────────────────────────────────────────────────────────────────

/** A relation the caller knows, as the walker reads it. */
export function knownRel(r: KnownRelation): Rel {
	return {
		label: r.label,
		node: r.node,
		complete: r.complete,
		ordered: r.ordered !== false,
		columns: (r.columns ?? []).map((c) => ({ name: c, edges: [{ node: r.node, column: c, kind: 'copy' }] })),
		open: r.complete ? undefined : r.node,
		unknown: r.complete ? undefined : `the columns of ${r.label} are not in the catalog`,
		scans: new Map()
	};
}

export const unknownRel = (label: string, why: string): Rel => ({ label, node: null, complete: false, ordered: true, columns: null, unknown: why, scans: new Map() });

/** A table as written: `[catalog, schema, name]`, a BigQuery path in one pair of backticks split. */
function tableParts(t: Ast): string[] {
	const parts = [identName(t.catalog), identName(t.schema), identName(t.name)].filter((p): p is string => p !== null);
	if (parts.length === 1 && isObj(t.name) && t.name.quoted && parts[0].includes('.')) return parts[0].split('.');
	return parts;
}

function fromItem(item: Ast, scope: Scope, ctx: QueryContext): Entry {
	let alias: string | null = null;
	let columnAliases: string[] | null = null;
	let body = item;
	if (isObj(item.alias) && item.alias.this !== undefined) {
		alias = identName(item.alias.alias);
		columnAliases = (item.alias.column_aliases ?? []).map(identName);
		body = item.alias.this;
		const name = isObj(body) && body.table ? tableParts(body.table) : null;
		return finishEntry(relOfSource(body, scope, ctx), alias, name, columnAliases);
	}
	const [kind] = Object.keys(body);
	const v = body[kind];
	if (kind === 'table') {
		alias = identName(v.alias);
		columnAliases = (v.column_aliases ?? []).map(identName);
		const parts = tableParts(v);
		return finishEntry(relOfSource(body, scope, ctx), alias, parts, columnAliases);
	}
	if (kind === 'subquery') {
		alias = identName(v.alias);
		columnAliases = (v.column_aliases ?? []).map(identName);
	}
	if (kind === 'lateral') {
		// `LATERAL FLATTEN(…) f`, `LATERAL (SELECT …) s`: a source that may read the ones before it.
		alias = identName(v.alias);
		columnAliases = (v.column_aliases ?? []).map(identName);
		return finishEntry(relOfSource(v.this, scope, ctx), alias, null, columnAliases);
	}
	if (kind === 'pivot' || kind === 'unpivot') {
		alias = identName(v.alias);
		columnAliases = (v.alias_columns ?? []).map(identName);
	}
	return finishEntry(relOfSource(body, scope, ctx), alias, null, columnAliases);
}

/**
 * `src PIVOT (agg(v) [AS a], … FOR k IN (x [AS n], …))`: one column per value and aggregate,
 * each from the aggregate's inputs (mod), the key read to choose the rows (a scan); every other
 * column of the source passes through (it is grouped by). Named as Snowflake and sqlglot name
 * them: the value's alias or its text, joined to the aggregate's alias by `_` when there are several.
 */
function pivotRel(v: Ast, scope: Scope, ctx: QueryContext): Rel {
	const src = fromItem(v.this, scope, ctx);
	const inner: Scope = { entries: [src], parent: scope.entries.length || scope.parent ? scope : null, ctes: scope.ctes, lateral: new Map() };
	const scans: ScanSet = new Map(src.rel.scans);
	const used = new Set<string>();
	const aggs = ((v.expressions ?? []) as Ast[]).map((a) => {
		const alias = isObj(a.alias) && a.alias.this !== undefined ? identName(a.alias.alias) : null;
		const body = alias !== null ? a.alias.this : a;
		const r = collect(body, inner, ctx, scans, true);
		for (const name of columnNames(body)) used.add(lower(name));
		return { alias, r };
	});
	const values: { name: string }[] = [];
	for (const f of (v.fields ?? []) as Ast[]) {
		const within = f.in ?? f;
		const key = collect(within.this, inner, ctx, scans, false);
		addScans(scans, key.edges);
		for (const name of columnNames(within.this)) used.add(lower(name));
		for (const x of (within.expressions ?? []) as Ast[]) {
			const named = x.pivot_alias ? (identName(x.pivot_alias.alias?.column?.name) ?? identName(x.pivot_alias.alias) ?? literalText(x.pivot_alias.alias)) : null;
			values.push({ name: named ?? literalText(x.pivot_alias?.this ?? x) ?? 'value' });
		}
	}
	const columns: Col[] = [];
	const passing = src.rel.columns ?? [];
	for (const c of passing) if (c.name === null || !used.has(lower(c.name))) columns.push(c);
	for (const val of values)
		for (const a of aggs) {
			const name = aggs.length > 1 && a.alias ? `${val.name}_${a.alias}` : val.name;
			columns.push(a.r.problem ? { name, edges: [], untraced: a.r.problem } : { name, edges: asMod(a.r.edges) });
		}
	const known = src.rel.columns !== null && src.rel.complete;
	return { label: 'PIVOT', node: null, complete: known, ordered: src.rel.ordered, columns, scans, open: known ? undefined : src.rel.open, unknown: known ? undefined : src.rel.unknown };
}

/**
 * `src UNPIVOT (v [, v2…] FOR n IN (c1, c2 | (c1, c2) AS 'x', …))`: the value columns take the
 * values of the columns listed (copies: each row's value is one of theirs), the name column is
 * made from their names (mod); the source's other columns pass through, before the two.
 */
function unpivotRel(v: Ast, scope: Scope, ctx: QueryContext): Rel {
	const src = fromItem(v.this, scope, ctx);
	const inner: Scope = { entries: [src], parent: scope.entries.length || scope.parent ? scope : null, ctes: scope.ctes, lateral: new Map() };
	const scans: ScanSet = new Map(src.rel.scans);
	const valueNames = [identName(v.value_column), ...((v.extra_value_columns ?? []) as Ast[]).map(identName)].filter((n): n is string => n !== null);
	// Each IN item: one column, or a tuple giving one column per value column.
	const groups: Ast[][] = ((v.columns ?? []) as Ast[]).map((x) => {
		const body = x.pivot_alias ? x.pivot_alias.this : x;
		return body?.tuple ? (body.tuple.expressions as Ast[]) : [body];
	});
	const used = new Set<string>();
	for (const g of groups) for (const e of g) for (const name of columnNames(e)) used.add(lower(name));
	const refs = (k: number) => {
		const lists: Edge[][] = [];
		let problem: string | null = null;
		for (const g of groups) {
			const e = g[k];
			if (e === undefined) continue;
			const r = analyzeExpr(e, inner, ctx, scans, true);
			if (r.problem) problem ??= r.problem;
			else lists.push(r.edges);
		}
		return { edges: mergeEdges(...lists), problem };
	};
	const columns: Col[] = [];
	for (const c of src.rel.columns ?? []) if (c.name === null || !used.has(lower(c.name))) columns.push(c);
	const nameColumn = identName(v.name_column);
	if (nameColumn) {
		const all = valueNames.map((_, k) => refs(k));
		const problem = all.find((r) => r.problem)?.problem ?? null;
		columns.push(problem ? { name: nameColumn, edges: [], untraced: problem } : { name: nameColumn, edges: asMod(mergeEdges(...all.map((r) => r.edges))) });
	}
	valueNames.forEach((name, k) => {
		const r = refs(k);
		columns.push(r.problem ? { name, edges: [], untraced: r.problem } : { name, edges: r.edges });
	});
	const known = src.rel.columns !== null && src.rel.complete;
	return { label: 'UNPIVOT', node: null, complete: known, ordered: src.rel.ordered, columns, scans, open: known ? undefined : src.rel.open, unknown: known ? undefined : src.rel.unknown };
}

/** Names of the columns an expression reads (as written). */
function columnNames(e: Ast): string[] {
	const out: string[] = [];
	const walk = (v: Ast) => {
		if (Array.isArray(v)) return v.forEach(walk);
		if (!isObj(v)) return;
		if (isObj(v.column) && v.column.name !== undefined) {
			const n = identName(v.column.name);
			if (n) out.push(n);
			return;
		}
		for (const [k, x] of Object.entries(v)) if (k !== 'span' && typeof x === 'object') walk(x);
	};
	walk(e);
	return out;
}

/** A literal's text (`'a'` → `a`), or a bare identifier's name. */
function literalText(e: Ast): string | null {
	if (!isObj(e)) return null;
	if (isObj(e.literal) && e.literal.value !== undefined) return String(e.literal.value);
	if (isObj(e.column)) return identName(e.column.name);
	return identName(e.identifier) ?? identName(e);
}

function finishEntry(rel: Rel, alias: string | null, name: string[] | null, columnAliases: (string | null)[] | null): Entry {
	const names = (columnAliases ?? []).filter((n): n is string => n !== null);
	if (names.length > 0) rel = renameColumns(rel, names);
	return { alias, name, rel, using: null, join: null };
}

function relOfSource(body: Ast, scope: Scope, ctx: QueryContext): Rel {
	const [kind] = Object.keys(body);
	const v = body[kind];
	if (kind === 'table') {
		const parts = tableParts(v);
		if (parts.length === 1) {
			const cte = lookupCte(scope, parts[0]);
			if (cte) return cte;
		}
		return ctx.relation(parts);
	}
	if (kind === 'subquery') {
		const q = queryOf(v.this);
		if (q) return evalQuery(q, { ...scope, lateral: new Map() }, ctx);
		if (isObj(v.this) && v.this.values) return valuesRel(v.this.values);
		return unknownRel('subquery', 'a subquery of a shape not analysed');
	}
	if (kind === 'values') return valuesRel(v);
	if (kind === 'pivot') return pivotRel(v, scope, ctx);
	if (kind === 'unpivot') return unpivotRel(v, scope, ctx);
	if (kind === 'lateral') return relOfSource(v.this, scope, ctx);
	const name = kind === 'function' ? (v.name ?? 'function') : kind;
	// A table function (`unnest(o.items)`, `lateral flatten(input => o.v)`, `generate_series(1, 9)`):
	// every column it yields derives from the columns its arguments read, if any.
	const scans: ScanSet = new Map();
	const args = collect(v, scope, ctx, scans, true);
	// Its columns then have no inputs, like a literal's: true of `range(10)`, not of a file read.
	if (!args.problem && args.edges.length === 0) note(ctx, `${name}(…) is a table function, not a relation: the columns it yields have no traced inputs`);
	return {
		...unknownRel(`${name}(…)`, args.problem ?? `reads ${name}(…), a table function, not a relation`),
		fromFunction: true,
		functionEdges: args.problem ? [] : args.edges,
		scans
	};
}

function valuesRel(v: Ast): Rel {
	const width = v.expressions?.[0]?.expressions?.length ?? 0;
	return {
		label: 'VALUES',
		node: null,
		complete: true,
		ordered: true,
		columns: Array.from({ length: width }, (_, k) => ({ name: `col${k}`, edges: [] })),
		scans: new Map()
	};
}

function lookupCte(scope: Scope, name: string): Rel | null {
	return scope.ctes.get(lower(name)) ?? null;
}

export function renameColumns(rel: Rel, names: string[]): Rel {
	if (rel.columns === null) return rel;
	if (!rel.ordered) {
		const why = `cannot name the columns of ${rel.label} by position: their order is not known`;
		return { ...rel, columns: names.map((name) => ({ name, edges: [], untraced: why })), node: null, open: undefined, complete: true, ordered: true };
	}
	const columns = rel.columns.map((c, k) => (k < names.length ? { ...c, name: names[k] } : c));
	for (let k = rel.columns.length; k < names.length; k++) columns.push({ name: names[k], edges: [], untraced: rel.unknown ?? `column ${k + 1} of ${rel.label} is not known` });
	return { ...rel, columns, node: null, complete: rel.complete || names.length > 0 };
}

// ─── Queries ──────────────────────────────────────────────────────────────────────────────

function withCtes(w: Ast, scope: Scope, ctx: QueryContext): Scope {
	if (!isObj(w) || !Array.isArray(w.ctes)) return scope;
	const ctes = new Map(scope.ctes);
	const inner: Scope = { ...scope, ctes };
	for (const cte of w.ctes) {
		const name = identName(cte.alias);
		if (!name) continue;
		ctes.set(lower(name), unknownRel(name, `${name} is recursive`));
		const q = queryOf(cte.this);
		// A recursive CTE is `anchor UNION ALL step`: the anchor gives its columns for the step to read.
		if (q?.union && readsItself(q.union.right, name)) {
			const anchor = queryOf(q.union.left);
			if (anchor) ctes.set(lower(name), { ...evalQuery(anchor, { ...inner, lateral: new Map() }, ctx), label: name, node: null });
		}
		let rel = q ? evalQuery(q, { ...inner, lateral: new Map() }, ctx) : unknownRel(name, `CTE ${name} is not a query`);
		const aliases = (cte.columns ?? cte.alias?.column_aliases ?? []).map(identName).filter(Boolean);
		if (aliases.length) rel = renameColumns(rel, aliases);
		ctes.set(lower(name), { ...rel, label: name, node: null });
	}
	return inner;
}

const AGGREGATES = new Set([
	'sum', 'count', 'avg', 'min', 'max', 'array_agg', 'string_agg', 'listagg', 'list', 'group_concat', 'median', 'stddev',
	'stddev_samp', 'stddev_pop', 'variance', 'var_samp', 'var_pop', 'any_value', 'count_if', 'approx_count_distinct',
	'approx_distinct', 'bool_and', 'bool_or', 'every', 'first', 'last', 'arbitrary', 'mode', 'quantile', 'percentile_cont',
	'percentile_disc', 'approx_quantile', 'object_agg', 'json_agg', 'jsonb_agg', 'countif', 'logical_and', 'logical_or'
]);

/** Whether an expression aggregates outside a window (for GROUP BY ALL). */
function hasAggregate(e: Ast): boolean {
	if (Array.isArray(e)) return e.some(hasAggregate);
	if (!isObj(e) || queryOf(e)) return false;
	if (e.window_function) return false;
	for (const [k, x] of Object.entries(e)) {
		if (AGGREGATES.has(k) && isObj(x)) return true;
		if ((k === 'function' || k === 'aggregate_function') && isObj(x) && typeof x.name === 'string' && AGGREGATES.has(x.name.toLowerCase())) return true;
		if (k !== 'span' && typeof x === 'object' && hasAggregate(x)) return true;
	}
	return false;
}

/** Whether a query names the relation `name` anywhere (cheap: a recursive CTE's step does). */
function readsItself(q: Ast, name: string): boolean {
	const target = lower(name);
	const walk = (v: Ast): boolean => {
		if (Array.isArray(v)) return v.some(walk);
		if (!isObj(v)) return false;
		if (isObj(v.table) && isObj(v.table.name) && !v.table.schema && lower(identName(v.table.name) ?? '') === target) return true;
		return Object.entries(v).some(([k, x]) => k !== 'span' && typeof x === 'object' && walk(x));
	};
	return walk(q);
}

function evalQuery(q: Ast, outer: Scope, ctx: QueryContext): Rel {
	ctx.depth++;
	guard(ctx);
	try {
		const [kind] = Object.keys(q);
		const v = q[kind];
		const scope = v.with ? withCtes(v.with, outer, ctx) : outer;
		if (kind === 'select') return evalSelect(v, scope, ctx);
		return evalSet(v, scope, ctx, kind === 'except');
	} finally {
		ctx.depth--;
	}
}

function evalSet(v: Ast, scope: Scope, ctx: QueryContext, except: boolean): Rel {
	const sides = [v.left, v.right].map((s) => {
		const q = queryOf(s) ?? (isObj(s) && s.subquery ? queryOf(s.subquery.this) : null);
		return q ? evalQuery(q, { ...scope, lateral: new Map() }, ctx) : unknownRel('set operation', 'a set-operation branch of a shape not analysed');
	});
	const scans: ScanSet = new Map([...sides[0].scans, ...sides[1].scans]);
	let [a, b] = sides;
	// `select * from t UNION select * from read_csv(…)`: a table function's branch has whatever
	// columns the other has, each fed by the function's arguments.
	const widen = (fn: Rel, other: Rel): Rel => ({
		...other,
		columns: other.columns!.map((c) => (c.untraced ? c : { ...c, edges: mergeEdges(c.edges, fn.functionEdges ?? []) }))
	});
	const shapeless = (r: Rel) => r.fromFunction === true && !r.complete && (r.columns ?? []).length === 0;
	if (shapeless(a) && b.columns !== null && b.complete) a = widen(a, b);
	else if (shapeless(b) && a.columns !== null && a.complete) b = widen(b, a);
	const byPosition = "cannot match the branches of a set operation by position";
	if (a.columns === null || b.columns === null || !a.complete || !b.complete) {
		return { ...unknownRel('set operation', `${byPosition}: ${a.unknown ?? b.unknown ?? 'a branch has columns not known'}`), scans };
	}
	if (!a.ordered || !b.ordered) return { ...unknownRel('set operation', `${byPosition}: the order of a branch's columns is not known`), scans };
	if (a.columns.length !== b.columns.length)
		return { ...unknownRel('set operation', `the branches of a set operation have ${a.columns.length} and ${b.columns.length} columns`), scans };
	if (except) {
		// EXCEPT's right side removes rows: its columns are read to filter, never passed on.
		for (const c of b.columns) addScans(scans, c.edges);
		return { label: 'set operation', node: null, complete: true, ordered: true, columns: a.columns, scans };
	}
	const columns = a.columns.map((c, k) => {
		const d = b.columns![k];
		const untraced = c.untraced ?? d.untraced;
		return untraced ? { name: c.name, edges: [], untraced } : { name: c.name, edges: mergeEdges(c.edges, d.edges) };
	});
	return { label: 'set operation', node: null, complete: true, ordered: true, columns, scans };
}

/** An identifier as the dialect folds it (a plain string is taken as unquoted). */
function foldedName(v: Ast, ctx: QueryContext): string | null {
	const name = identName(v);
	return name === null ? null : foldIdentifier(ctx.dialect, name, isObj(v) && v.quoted === true);
}

function selectItemName(e: Ast, ctx: QueryContext): string | null {
	if (e.alias) return foldedName(e.alias.alias, ctx);
	if (e.column) return foldedName(e.column.name, ctx);
	// `t.s.a`, `db.t.x`: named by the last field, as the warehouses name it.
	if (dotParts(e)) return foldedName(e.dot.field, ctx);
	return null;
}

/** The join inside a parenthesised FROM item without an alias, if it is one. */
function joinedTable(item: Ast): Ast | null {
	let v = item;
	while (isObj(v) && isObj(v.paren)) v = v.paren.this;
	if (!isObj(v) || !isObj(v.joined_table) || v.joined_table.alias) return null;
	return v.joined_table;
}

function evalSelect(sel: Ast, outer: Scope, ctx: QueryContext): Rel {
	const scope: Scope = { entries: [], parent: outer.entries.length || outer.parent ? outer : null, ctes: outer.ctes, lateral: new Map() };
	const scans: ScanSet = new Map();
	for (const w of sel.windows ?? []) {
		const n = identName(w.name);
		if (n) (scope.windows ??= new Map()).set(lower(n), w.spec);
	}
	const conditions: Ast[] = [];
	const addJoin = (j: Ast) => {
		const nested = joinedTable(j.this);
		if (nested) {
			// `a JOIN (b JOIN c ON …) ON …`: the inner inputs are inputs of this SELECT.
			addNested(nested);
			if (j.on) conditions.push(j.on);
			return;
		}
		const entry = fromItem(j.this, scope, ctx);
		const using = (j.using ?? []).map(identName).filter(Boolean) as string[];
		entry.using = using.length ? using : null;
		entry.join = typeof j.kind === 'string' ? lower(j.kind) : null;
		for (const u of using) {
			for (const e of [...scope.entries, entry]) {
				const c = findColumn(e.rel, u);
				if (c) addScans(scans, c.edges);
				else if (e.rel.open) addScans(scans, [{ node: e.rel.open, column: u }]);
			}
		}
		scope.entries.push(entry);
		if (j.on) conditions.push(j.on);
	};
	// `FROM ((a JOIN b ON …))`: a parenthesised join without an alias joins its tables into this
	// SELECT as if written without the parentheses.
	const addNested = (jt: Ast) => {
		const left = joinedTable(jt.left);
		if (left) addNested(left);
		else scope.entries.push(fromItem(jt.left, scope, ctx));
		for (const j of jt.joins ?? []) addJoin(j);
	};
	for (const item of sel.from?.expressions ?? []) {
		const nested = joinedTable(item);
		if (nested) addNested(nested);
		else scope.entries.push(fromItem(item, scope, ctx));
	}
	for (const j of sel.joins ?? []) addJoin(j);
	// Hive's and Spark's `LATERAL VIEW explode(arr) t AS x`: a table function over the rows before it.
	for (const lv of (sel.lateral_views ?? []) as Ast[]) {
		const rel = relOfSource({ function: { name: Object.keys(lv.this ?? {})[0] ?? 'function', args: [lv.this] } }, scope, ctx);
		const names = ((lv.column_aliases ?? []) as Ast[]).map(identName).filter((n): n is string => n !== null);
		const columns = names.map((name) => ({ name, edges: asMod(rel.functionEdges ?? []) }));
		scope.entries.push({ alias: identName(lv.table_alias), name: null, rel: names.length ? { ...rel, columns, complete: true, ordered: true } : rel, using: null, join: null });
	}
	for (const e of scope.entries) addScans(scans, e.rel.scans.values());
	if (sel.where_clause) conditions.push(sel.where_clause.this);

	const columns: Col[] = [];
	let complete = true;
	let ordered = true;
	let unknown: string | undefined;
	let open: string | undefined;
	let seenOpenStar = false;
	let fromFunction = false;
	let functionEdges: Edge[] | undefined;
	const starFrom = new Set<string>();
	const items: Ast[] = sel.expressions ?? [];
	for (const written of items) {
		const item = unwrap(written);
		if (item.star) {
			const expanded = expandStar(item.star, scope, ctx, scans);
			if (!expanded.ordered) ordered = false;
			if (!expanded.complete) {
				complete = false;
				unknown ??= expanded.why;
				// One open star: a column not listed is that input's; two: it could be either's.
				open = open === undefined && !seenOpenStar ? expanded.open : undefined;
				fromFunction = !seenOpenStar && expanded.fromFunction;
				functionEdges = fromFunction ? expanded.functionEdges : undefined;
				if (expanded.open || expanded.fromFunction) seenOpenStar = true;
				for (const n of expanded.starFrom) starFrom.add(n);
			}
			columns.push(...expanded.columns);
			continue;
		}
		const name = selectItemName(item, ctx);
		const expr = item.alias ? item.alias.this : item;
		const r = analyzeExpr(expr, scope, ctx, scans, true);
		const col: Col = r.problem ? { name, edges: [], untraced: r.problem } : { name, edges: r.edges };
		if (name === null) col.expr = expr;
		columns.push(col);
		if (name !== null && !scope.lateral.has(lower(name))) scope.lateral.set(lower(name), col);
	}
	// After the select list: HAVING, QUALIFY and GROUP BY may name its aliases.
	if (sel.having) conditions.push(sel.having.this);
	if (sel.qualify) conditions.push(sel.qualify.this);
	for (const g of sel.group_by?.expressions ?? []) {
		const ordinal = g.literal?.literal_type === 'number' ? Number(g.literal.value) : NaN;
		if (Number.isInteger(ordinal)) {
			const c = columns[ordinal - 1];
			if (c) addScans(scans, c.edges);
			continue;
		}
		conditions.push(g);
	}
	// GROUP BY ALL groups by every item that is not an aggregate.
	if (sel.group_by?.all) items.forEach((it, k) => !hasAggregate(it) && columns[k] && addScans(scans, columns[k].edges));
	for (const cond of conditions) {
		const r = analyzeExpr(cond, scope, ctx, scans, false);
		if (r.problem && !ctx.filterNotes.includes(r.problem)) ctx.filterNotes.push(r.problem);
		addScans(scans, r.edges);
	}
	return { label: 'select', node: null, complete, ordered, columns, scans, unknown, open, fromFunction, functionEdges, starFrom: starFrom.size ? [...starFrom] : undefined };
}

function entryMatches(e: Entry, qualifier: string[], byTableName = false): boolean {
	const q = qualifier.map(lower);
	if (e.alias !== null && !byTableName) return q.length === 1 && lower(e.alias) === q[0];
	if (!e.name) return false;
	const n = e.name.map(lower);
	return q.length <= n.length && q.every((p, k) => p === n[n.length - q.length + k]);
}

/**
 * The input a qualifier names: its alias, or its table's name when it has none; failing both, an
 * aliased table by its own name (`SELECT db.t.x FROM db.t AS t1`, `tab2.*` over `tab2 a`), which
 * several warehouses accept and no other input can mean.
 */
function findEntry(scope: Scope, qualifier: string[]): Entry | null {
	for (const byTableName of [false, true])
		for (let s: Scope | null = scope; s; s = s.parent) {
			const hit = s.entries.find((e) => entryMatches(e, qualifier, byTableName));
			if (hit) return hit;
		}
	return null;
}

function expandStar(
	star: Ast,
	scope: Scope,
	ctx: QueryContext,
	scans: ScanSet
): { columns: Col[]; complete: boolean; ordered: boolean; why?: string; open?: string; fromFunction: boolean; functionEdges?: Edge[]; starFrom: string[] } {
	let entries = scope.entries;
	const qualifier = star.table ? [identName(star.table)!].filter(Boolean) : null;
	if (qualifier) {
		const hit = scope.entries.find((e) => entryMatches(e, qualifier)) ?? scope.entries.find((e) => entryMatches(e, qualifier, true));
		if (!hit) return { columns: [], complete: false, ordered: true, fromFunction: false, starFrom: [], why: `no input named ${qualifier.join('.')} for ${qualifier.join('.')}.*` };
		entries = [hit];
	}
	const except = new Set(((star.except ?? []) as Ast[]).map((x) => lower(identName(x) ?? identName(x?.column?.name) ?? '')));
	const replace = new Map<string, Ast>();
	for (const r of (star.replace ?? []) as Ast[]) {
		const n = identName(r.alias);
		if (n) replace.set(lower(n), r.this);
	}
	const rename = new Map<string, string>();
	for (const r of (star.rename ?? []) as Ast[]) {
		const from = identName(r.this?.column?.name ?? r.this ?? r[0]);
		const to = identName(r.alias ?? r[1]);
		if (from && to) rename.set(lower(from), to);
	}
	const out: Col[] = [];
	const seen = new Set<string>();
	let complete = true;
	let why: string | undefined;
	const open = new Set<string>();
	const starFrom = new Set<string>();
	for (const e of entries) {
		if (e.rel.open) open.add(e.rel.open);
		if (!e.rel.complete) for (const n of e.rel.starFrom ?? (e.rel.open ? [e.rel.open] : [])) starFrom.add(n);
		if (e.rel.fromFunction) open.add('');
		if (e.rel.columns === null || !e.rel.complete) {
			complete = false;
			// A `*` over a relation made by a `*` that could not expand: the first one's reason says it.
			const inner = e.rel.unknown && /^(cannot expand \* over|\* over .* expands only)/.test(e.rel.unknown) ? e.rel.unknown : null;
			why ??=
				inner ??
				(e.rel.columns !== null && e.rel.columns.length > 0
					? `* over ${e.rel.label} expands only the columns known so far (${e.rel.columns.length})`
					: `cannot expand * over ${e.rel.label}: ${e.rel.unknown ?? 'its columns are not in the catalog'}`);
			if (e.rel.columns === null) continue;
		}
		const using = new Set((qualifier ? [] : (e.using ?? [])).map(lower));
		for (const c of e.rel.columns) {
			// An unnamed expression keeps its place: the catalog may name it by position.
			if (c.name === null) {
				out.push(c);
				continue;
			}
			const k = lower(c.name);
			if (except.has(k)) continue;
			// `a JOIN b USING (k)`: `*` shows k once, from the left.
			if (using.has(k) && seen.has(k)) continue;
			seen.add(k);
			const r = replace.get(k);
			if (r) {
				const x = analyzeExpr(r, scope, ctx, scans, true);
				out.push(x.problem ? { name: c.name, edges: [], untraced: x.problem } : { name: c.name, edges: x.edges });
			} else out.push({ ...c, name: rename.get(k) ?? c.name });
		}
	}
	// Through `*`, an unlisted column of ONE open input is still that input's column.
	const only = open.size === 1 && entries.length === 1 ? [...open][0] : undefined;
	const ordered = entries.every((e) => e.rel.ordered);
	return {
		columns: out,
		complete,
		ordered,
		why,
		open: only || undefined,
		fromFunction: only === '',
		functionEdges: only === '' ? entries[0].rel.functionEdges : undefined,
		starFrom: [...starFrom]
	};
}

// ─── Column references ────────────────────────────────────────────────────────────────────

/** Matched case-insensitively; among names that differ only in case, the one written as the reference folds. */
function findColumn(rel: Rel, column: string): Col | null {
	const k = lower(column);
	const hits = rel.columns?.filter((c) => c.name !== null && lower(c.name) === k) ?? [];
	return hits.length > 1 ? (hits.find((c) => c.name === column) ?? hits[0]) : (hits[0] ?? null);
}

type Resolved = { edges: Edge[]; problem: null } | { edges: []; problem: string };

function fromCol(c: Col): Resolved {
	return c.untraced ? { edges: [], problem: c.untraced } : { edges: c.edges, problem: null };
}

function columnOf(rel: Rel, column: string): Resolved {
	const found = findColumn(rel, column);
	if (found) return fromCol(found);
	if (rel.open) return { edges: [{ node: rel.open, column, kind: 'copy' }], problem: null };
	if (rel.fromFunction) return { edges: rel.functionEdges ?? [], problem: null };
	if (rel.columns === null) return { edges: [], problem: rel.unknown ?? `the columns of ${rel.label} are not known` };
	return { edges: [], problem: `${column} is not a column of ${rel.label}` };
}

function resolveRef(table: string[] | null, column: string, scope: Scope): Resolved {
	if (table && table.length) {
		const hit = findEntry(scope, table);
		if (hit) return columnOf(hit.rel, column);
		// `s.field` on a struct column `s`.
		const struct = resolveRef(null, table[0], scope);
		if (!struct.problem) return { edges: asMod(struct.edges), problem: null };
		return { edges: [], problem: `no input named ${table.join('.')} for ${table.join('.')}.${column}` };
	}
	for (let s: Scope | null = scope; s; s = s.parent) {
		const has = s.entries.filter((e) => findColumn(e.rel, column) !== null);
		if (has.length === 1) return columnOf(has[0].rel, column);
		if (has.length > 1) {
			const joined = has.filter((e) => e.using?.some((u) => lower(u) === lower(column)));
			// `JOIN … USING (c)`: c is one column: the left side's value for an inner or left join,
			// the right side's for a right join, either's (a coalesce) for a full join.
			if (joined.length > 0) {
				const last = joined[joined.length - 1];
				if (last.join === 'right') return columnOf(last.rel, column);
				if (last.join === 'full') {
					const sides = has.map((e) => columnOf(e.rel, column));
					const failed = sides.find((r) => r.problem);
					return failed ?? { edges: asMod(mergeEdges(...sides.map((r) => r.edges))), problem: null };
				}
				return columnOf((has.find((e) => !joined.includes(e)) ?? has[0]).rel, column);
			}
			return { edges: [], problem: `column ${column} is in several inputs (${has.map((e) => e.rel.label).join(', ')})` };
		}
		const maybe = s.entries.filter((e) => e.rel.open || e.rel.fromFunction);
		const lateral = s === scope ? s.lateral.get(lower(column)) : undefined;
		if (lateral && maybe.length === 0) {
			const r = fromCol(lateral);
			return r.problem ? r : { edges: asMod(r.edges), problem: null };
		}
		if (maybe.length === 1) return columnOf(maybe[0].rel, column);
		if (maybe.length > 1) return { edges: [], problem: `cannot tell which of ${maybe.map((e) => e.rel.label).join(', ')} has ${column}` };
		const opaque = s.entries.find((e) => e.rel.columns === null);
		if (opaque) return { edges: [], problem: `${column} may come from ${opaque.rel.label}: ${opaque.rel.unknown}` };
	}
	return { edges: [], problem: `${column} is not a column of any input` };
}

// ─── Expressions ──────────────────────────────────────────────────────────────────────────

interface ExprResult {
	edges: Edge[];
	problem: string | null;
}

/** Parentheses, and the `annotated` node comments wrap an expression in, change nothing. */
function unwrap(e: Ast): Ast {
	while (isObj(e) && (e.paren || e.annotated)) e = (e.paren ?? e.annotated).this;
	return e;
}

/** min/max of one bare column (not DISTINCT-sensitive, no FILTER): its value is one of the inputs, so a copy. */
function minMaxArgument(e: Ast): Ast | null {
	const f = e.min ?? e.max;
	if (!isObj(f) || f.filter) return null;
	const arg = unwrap(f.this);
	return isObj(arg) && arg.column ? arg : null;
}

/**
 * The inputs of an expression. At the top of a select item (`top`), a bare column (or min/max of
 * one) keeps its inputs' kinds; everything else makes them mod. Subqueries inside are evaluated:
 * their output columns feed the value, their filters join the model's scans.
 */
function analyzeExpr(expr: Ast, scope: Scope, ctx: QueryContext, scans: ScanSet, top: boolean): ExprResult {
	const e = unwrap(expr);
	if (top && isObj(e)) {
		if (e.column) return refOf(e.column, scope, ctx);
		if (e.dot) {
			const r = dottedRef(e, scope);
			if (r) return r.problem ? { edges: [], problem: r.problem } : { edges: r.edges, problem: null };
		}
		// `(select max(x) …)`: a scalar subquery's value is its one column, kind kept.
		if (queryOf(e)) return collect(e, scope, ctx, scans, false);
		const arg = minMaxArgument(e);
		if (arg) return refOf(arg.column, scope, ctx);
		if (e.window_function) {
			const w = e.window_function;
			const inner = unwrap(w.this);
			const head = isObj(inner) && minMaxArgument(inner) ? refOf(minMaxArgument(inner).column, scope, ctx) : collect(inner, scope, ctx, scans, true);
			const named = identName(w.over?.window_name);
			const over = collect([w.over, named ? (scope.windows?.get(lower(named)) ?? null) : null], scope, ctx, scans, true);
			const problem = head.problem ?? over.problem;
			return problem ? { edges: [], problem } : { edges: mergeEdges(head.edges, over.edges), problem: null };
		}
	}
	return collect(e, scope, ctx, scans, true);
}

/**
 * A dotted reference the parser read as field access on a column (`db.t.x`, `t.s.a`): its
 * parts, root first, when the chain starts at a column and every step names a field.
 */
function dotParts(e: Ast): string[] | null {
	const fields: string[] = [];
	let v = e;
	while (isObj(v) && isObj(v.dot)) {
		const f = identName(v.dot.field);
		if (!f) return null;
		fields.unshift(f);
		v = v.dot.this;
	}
	if (!isObj(v) || !isObj(v.column) || !fields.length) return null;
	const root = [identName(v.column.schema), identName(v.column.table), identName(v.column.name)];
	if (root[2] === null) return null;
	return [...root.filter((p): p is string => p !== null), ...fields];
}

/**
 * A dotted chain as a column of a named input when its leading parts name one (`db.t.x`: column
 * x of table db.t, a copy), the longest qualifier first; the parts after the column are struct
 * fields (lineage of that column, mod). Null when no leading parts name an input.
 */
function dottedRef(e: Ast, scope: Scope): (ExprResult & { field: boolean }) | null {
	const parts = dotParts(e);
	if (!parts) return null;
	for (let q = Math.min(parts.length - 1, 3); q >= 1; q--) {
		const hit = findEntry(scope, parts.slice(0, q));
		if (!hit) continue;
		const r = columnOf(hit.rel, parts[q]);
		const field = q + 1 < parts.length;
		return r.problem ? { ...r, field } : { edges: field ? asMod(r.edges) : r.edges, problem: null, field };
	}
	return null;
}

function refOf(column: Ast, scope: Scope, ctx: QueryContext): ExprResult {
	const name = foldedName(column.name, ctx);
	if (!name) return { edges: [], problem: 'a column reference without a name' };
	const table = column.table ? [identName(column.schema), identName(column.table)].filter((p): p is string => p !== null) : null;
	return resolveRef(table, name, scope);
}

/** Every column an expression reads, as mod (`asModAll`), walking the whole tree generically. */
function collect(node: Ast, scope: Scope, ctx: QueryContext, scans: ScanSet, asModAll: boolean): ExprResult {
	const lists: Edge[][] = [];
	let problem: string | null = null;
	const bound: string[] = [];
	const walk = (v: Ast) => {
		if (Array.isArray(v)) {
			for (const x of v) walk(x);
			return;
		}
		if (!isObj(v)) return;
		// EXISTS is true or false whatever its subquery selects: it only filters.
		const exists = isObj(v.exists) ? queryOf(v.exists.this) : null;
		if (exists) {
			const rel = evalQuery(exists, scope, ctx);
			addScans(scans, rel.scans.values());
			return;
		}
		const q = queryOf(v);
		if (q) {
			const rel = evalQuery(q, scope, ctx);
			addScans(scans, rel.scans.values());
			if (rel.columns === null) problem ??= rel.unknown ?? 'a subquery whose columns are not known';
			else
				for (const c of rel.columns) {
					if (c.untraced) problem ??= c.untraced;
					else lists.push(c.edges);
				}
			return;
		}
		if (v.column && isObj(v.column) && v.column.name !== undefined && Object.keys(v).length === 1) {
			const name = identName(v.column.name);
			if (name && !v.column.table && bound.includes(lower(name))) return;
			const r = refOf(v.column, scope, ctx);
			if (r.problem) problem ??= r.problem;
			else lists.push(r.edges);
			return;
		}
		if (isObj(v.dot)) {
			const r = dottedRef(v, scope);
			if (r) {
				if (r.problem) problem ??= r.problem;
				else lists.push(r.edges);
				return;
			}
		}
		if (v.lambda && isObj(v.lambda)) {
			const params = ((v.lambda.parameters ?? []) as Ast[]).map((p) => lower(identName(p) ?? ''));
			bound.push(...params);
			walk(v.lambda.body);
			bound.splice(bound.length - params.length, params.length);
			return;
		}
		ctx.depth++;
		guard(ctx);
		for (const [k, x] of Object.entries(v)) if (k !== 'span' && typeof x === 'object') walk(x);
		ctx.depth--;
	};
	walk(node);
	if (problem) return { edges: [], problem };
	const edges = mergeEdges(...lists);
	return { edges: asModAll ? asMod(edges) : edges, problem: null };
}

// ─── The entry ────────────────────────────────────────────────────────────────────────────

/** Whether a parsed statement is a query (SELECT, WITH, a set operation), and the query if so. */
export function queryRoot(v: Ast): Ast | null {
	return queryOf(v);
}

/** The lineage of one query; throws TooComplex (or a RangeError on a runaway tree). */
export function evaluateQuery(q: Ast, ctx: QueryContext): Rel {
	return evalQuery(q, { entries: [], parent: null, ctes: new Map(), lateral: new Map() }, ctx);
}

export const tableNameParts = tableParts;
