// Column lineage of a producer script's queries (DESIGN.md §8), over a small query model that a
// SQL parser's tree is translated into (src/lib/server/producers/parse-query.ts). Keeping the
// scoping rules here, away from any one parser's tree, keeps them testable and browser-safe,
// and lets the parser be swapped without touching them.
//
// The rule throughout: where the SQL alone does not decide which input a column comes from, say
// so in a warning and leave the column out. A missing edge is visible; a wrong one is not.
import type { AssetRef } from './producer-annotations';

export type LineageKind = 'copy' | 'mod';

// ─── The query model ───────────────────────────────────────────────────────────────────────

export interface ColumnRefExpr {
	/** As written, unquoted: `[col]`, `[alias, col]`, `[schema, table, col]`. */
	parts: string[];
}

/** A select-list expression, reduced to what lineage needs. */
export interface Expr {
	/** Set when the whole expression is one column reference: its value is a copy. */
	direct: ColumnRefExpr | null;
	/** Every column reference inside (function arguments, CASE arms, window specs, FILTER). */
	refs: ColumnRefExpr[];
	/** Scalar and IN subqueries inside: their output columns feed the value. */
	subqueries: Query[];
	/** EXISTS subqueries: they read tables, but what they select feeds nothing. */
	filters: Query[];
	/** Parts the translator could not read (e.g. DuckDB's COLUMNS(...)): the expression is not inferred. */
	unsupported: string[];
}

export type SelectItem =
	| { kind: 'expr'; expr: Expr; alias: string | null; text: string }
	| {
			kind: 'star';
			/** `t.*` → ['t']; `*` → null. */
			qualifier: string[] | null;
			exclude: string[];
			replace: { name: string; expr: Expr }[];
			text: string;
	  };

export type JoinType = 'inner' | 'left' | 'right' | 'full' | 'cross' | 'positional';

export type FromSource =
	| { kind: 'table'; name: string[] }
	| { kind: 'subquery'; query: Query }
	| { kind: 'values'; width: number }
	| { kind: 'function'; name: string };

export type FromItem = FromSource & {
	alias: string | null;
	columnAliases: string[] | null;
	/** How this item joins the ones before it (null for the first item). */
	join: { type: JoinType; using: string[] | null } | null;
	text: string;
};

export interface Cte {
	name: string;
	columns: string[] | null;
	query: Query;
}

export interface SelectQuery {
	kind: 'select';
	with: Cte[];
	from: FromItem[];
	items: SelectItem[];
	/** Subqueries in WHERE, HAVING, QUALIFY, JOIN … ON: they read tables but feed no column. */
	filters: Query[];
	text: string;
}

export interface SetQuery {
	kind: 'set';
	with: Cte[];
	/** UNION / INTERSECT / EXCEPT branches, matched by position. */
	branches: Query[];
	text: string;
}

export type Query = SelectQuery | SetQuery;

// ─── Relations and edges ───────────────────────────────────────────────────────────────────

export interface Edge {
	asset: AssetRef;
	column: string;
	kind: LineageKind;
}

export interface RelColumn {
	/** Null for an expression without a name (it still holds its position). */
	name: string | null;
	edges: Edge[];
	/** Evaluation could not decide this column's inputs (a warning said why): it is left out. */
	undecided?: boolean;
	/** The select item of an unnamed column, for the warning that asks for a name. */
	text?: string;
}

export interface Relation {
	label: string;
	/** Null when nothing is known about the columns (an asset without a known column list). */
	columns: RelColumn[] | null;
	/** Whether `columns` is every column (needed to expand `*` and to match by position). */
	complete: boolean;
	/** The columns are all known but not their order (declared columns): no matching by position. */
	unordered?: boolean;
	/** The stored asset this relation IS (a column of it unknown to us still yields an edge). */
	asset: AssetRef | null;
	/** A reference that resolved to nothing: its columns exist, but lead nowhere we can name. */
	unresolved: boolean;
}

/** What the lineage of a query may read: named tables, resolved by the caller. */
export interface LineageEnv {
	/** A table name outside any CTE: an asset of known (or unknown) columns, a local table, or nothing. */
	table(name: string[], text: string): Relation;
	warn(message: string): void;
}

export const assetKey = (a: AssetRef) => `${a.kind}://${a.path}`;
const edgeKey = (e: Edge) => `${assetKey(e.asset)}\u0000${e.column}`;
const lower = (s: string) => s.toLowerCase();

/** Unions edges; an input reached both as a copy and through an expression is a `mod`. */
export function mergeEdges(...lists: Edge[][]): Edge[] {
	const out = new Map<string, Edge>();
	for (const list of lists) {
		for (const e of list) {
			const k = edgeKey(e);
			const prev = out.get(k);
			if (!prev) out.set(k, e);
			else if (prev.kind !== e.kind) out.set(k, { ...prev, kind: 'mod' });
		}
	}
	return [...out.values()];
}

/** For subqueries whose columns feed nothing: their tables are still resolved (and read), but a
 * column they cannot place is no one's concern. */
const muted = (env: LineageEnv): LineageEnv => ({ table: env.table, warn: () => {} });

const asMod = (edges: Edge[]): Edge[] => edges.map((e) => (e.kind === 'mod' ? e : { ...e, kind: 'mod' }));

/** A stored asset as a relation: its columns when known (`complete` when that list is all of them). */
export function assetRelation(asset: AssetRef, known: { columns: string[]; complete: boolean; unordered?: boolean } | null): Relation {
	return {
		label: assetKey(asset),
		asset,
		unresolved: false,
		complete: known?.complete ?? false,
		unordered: known?.unordered ?? false,
		columns: known ? known.columns.map((c) => ({ name: c, edges: [{ asset, column: c, kind: 'copy' as const }] })) : null
	};
}

export function unresolvedRelation(label: string): Relation {
	return { label, asset: null, unresolved: true, complete: false, columns: null };
}

// ─── Scopes ────────────────────────────────────────────────────────────────────────────────

interface Entry {
	alias: string | null;
	/** The table name as written, for `schema.table.col` and unaliased `table.col`. */
	name: string[] | null;
	rel: Relation;
	join: FromItem['join'];
}

interface Scope {
	entries: Entry[];
	/** Earlier select-list aliases of this SELECT (DuckDB lets later items use them). */
	lateral: Map<string, Edge[]>;
	ctes: Map<string, Relation>;
	parent: Scope | null;
}

function findColumn(rel: Relation, column: string): RelColumn | null {
	return rel.columns?.find((c) => c.name !== null && lower(c.name) === lower(column)) ?? null;
}

/** Edges of `column` read from `rel`; null (after a warning) when it cannot be named. */
function columnOf(rel: Relation, column: string, env: LineageEnv, text: string): Edge[] | null {
	if (rel.unresolved) return null;
	const found = findColumn(rel, column);
	// An undecided column was warned about where it was computed; its readers inherit the gap.
	if (found) return found.undecided ? null : found.edges;
	if (rel.asset && !rel.complete) return [{ asset: rel.asset, column, kind: 'copy' }];
	if (rel.complete) env.warn(`column ${column} is not a column of ${rel.label}: "${text}"`);
	else env.warn(`cannot tell where column ${column} of ${rel.label} comes from: "${text}"`);
	return null;
}

const mayHave = (rel: Relation, column: string) => findColumn(rel, column) === null && (!rel.complete || rel.unresolved);

function entryMatches(e: Entry, qualifier: string[]): boolean {
	const q = qualifier.map(lower);
	if (q.length === 1 && e.alias !== null) return lower(e.alias) === q[0];
	if (!e.name) return false;
	const n = e.name.map(lower);
	if (q.length > n.length) return false;
	return q.every((p, k) => p === n[n.length - q.length + k]);
}

/** The edges a column reference reads, or null when it cannot be decided (warned). */
function resolveRef(ref: ColumnRefExpr, scope: Scope, env: LineageEnv, text: string): Edge[] | null {
	const parts = ref.parts;
	const column = parts[parts.length - 1];
	if (parts.length > 1) {
		const qualifier = parts.slice(0, -1);
		for (let s: Scope | null = scope; s; s = s.parent) {
			const hit = s.entries.find((e) => entryMatches(e, qualifier));
			if (hit) return columnOf(hit.rel, column, env, text);
		}
		// `s.field` on a struct column `s`: the value derives from that column.
		const struct = resolveUnqualified(parts[0], scope, env, text, true);
		if (struct) return asMod(struct);
		env.warn(`no input named ${qualifier.join('.')} for ${parts.join('.')}: "${text}"`);
		return null;
	}
	return resolveUnqualified(column, scope, env, text, false);
}

function resolveUnqualified(column: string, scope: Scope, env: LineageEnv, text: string, quiet: boolean): Edge[] | null {
	for (let s: Scope | null = scope; s; s = s.parent) {
		const has = s.entries.filter((e) => findColumn(e.rel, column) !== null);
		if (has.length === 1) return columnOf(has[0].rel, column, env, text);
		if (has.length > 1) {
			const using = usingResolution(has, column, env, text);
			if (using !== undefined) return using;
			if (!quiet) env.warn(`column ${column} is in several inputs (${has.map((e) => e.rel.label).join(', ')}): qualify it: "${text}"`);
			return null;
		}
		const maybe = s.entries.filter((e) => mayHave(e.rel, column));
		// DuckDB lets a select item use an earlier item's alias; only when no input may have a
		// column of that name is that certainly what it means.
		const lateral = s === scope ? s.lateral.get(lower(column)) : undefined;
		if (lateral && maybe.length === 0) return asMod(lateral);
		if (lateral) {
			if (!quiet) env.warn(`${column} may be the alias of an earlier item or a column of ${maybe.map((e) => e.rel.label).join(', ')}: "${text}"`);
			return null;
		}
		if (maybe.length === 1) {
			if (maybe[0].rel.unresolved) return null;
			return columnOf(maybe[0].rel, column, env, text);
		}
		if (maybe.length > 1) {
			if (!quiet) env.warn(`cannot tell which of ${maybe.map((e) => e.rel.label).join(', ')} has column ${column}: qualify it: "${text}"`);
			return null;
		}
	}
	if (!quiet) env.warn(`column ${column} is not a column of any input: "${text}"`);
	return null;
}

/**
 * A column named in `JOIN … USING (c)` exists once in the result: the left side's value for an
 * inner or left join, the right side's for a right join, either for a full join.
 */
function usingResolution(has: Entry[], column: string, env: LineageEnv, text: string): Edge[] | null | undefined {
	const joined = has.filter((e) => e.join?.using?.some((u) => lower(u) === lower(column)));
	if (joined.length === 0) return undefined;
	const j = joined[joined.length - 1].join!;
	const left = has.filter((e) => !joined.includes(e));
	const right = joined[joined.length - 1];
	const pick = (e: Entry) => columnOf(e.rel, column, env, text);
	if (j.type === 'right') return pick(right);
	if (j.type === 'full') {
		const all = [...left, right].map(pick);
		return all.some((x) => x === null) ? null : asMod(mergeEdges(...(all as Edge[][])));
	}
	if (left.length === 1) return pick(left[0]);
	return undefined;
}

// ─── Evaluation ────────────────────────────────────────────────────────────────────────────

function exprEdges(expr: Expr, scope: Scope, env: LineageEnv, text: string): Edge[] | null {
	// Subqueries are evaluated whatever happens to the rest: their tables are read either way.
	for (const q of expr.filters) evalQuery(q, scope, muted(env));
	const fromSubqueries: Edge[][] = [];
	let failed = false;
	for (const q of expr.subqueries) {
		const rel = evalQuery(q, scope, env);
		if (rel.columns === null || rel.columns.some((c) => c.undecided)) failed = true;
		else for (const c of rel.columns) fromSubqueries.push(c.edges);
	}
	if (expr.unsupported.length > 0) {
		env.warn(`${expr.unsupported.join(', ')} is not analysed: "${text}"`);
		return null;
	}
	if (expr.direct && expr.subqueries.length === 0) return resolveRef(expr.direct, scope, env, text);
	const lists: Edge[][] = [...fromSubqueries];
	for (const r of expr.refs) {
		const e = resolveRef(r, scope, env, text);
		if (e === null) failed = true;
		else lists.push(e);
	}
	return failed ? null : asMod(mergeEdges(...lists));
}

function fromRelation(item: FromItem, scope: Scope, env: LineageEnv, ctes: Map<string, Relation>): Relation {
	let rel: Relation;
	switch (item.kind) {
		case 'table': {
			const cte = item.name.length === 1 ? lookupCte(ctes, item.name[0]) : null;
			rel = cte ?? env.table(item.name, item.text);
			break;
		}
		case 'subquery':
			// DuckDB joins a subquery in FROM laterally when it reads an item before it.
			rel = evalQuery(item.query, { ...scope, lateral: new Map() }, env);
			break;
		case 'values':
			rel = {
				label: 'VALUES',
				asset: null,
				unresolved: false,
				complete: true,
				columns: Array.from({ length: item.width }, (_, k) => ({ name: `col${k}`, edges: [] }))
			};
			break;
		case 'function':
			env.warn(`reads ${item.name}(…), which is not an asset: its columns are not traced: "${item.text}"`);
			rel = unresolvedRelation(`${item.name}(…)`);
			break;
	}
	if (item.columnAliases) rel = renameColumns(rel, item.columnAliases, env, item.text);
	return rel;
}

function lookupCte(ctes: Map<string, Relation>, name: string): Relation | null {
	return ctes.get(lower(name)) ?? null;
}

function renameColumns(rel: Relation, names: string[], env: LineageEnv, text: string): Relation {
	if (rel.unresolved) return rel;
	if (rel.columns === null || rel.unordered || (!rel.complete && rel.columns.length < names.length)) {
		env.warn(`cannot rename the columns of ${rel.label} by position: ${rel.unordered ? 'their order' : 'they'} are not known: "${text}"`);
		return unresolvedRelation(rel.label);
	}
	const columns = rel.columns.map((c, k) => (k < names.length ? { ...c, name: names[k] } : c));
	return { ...rel, columns, asset: null, label: rel.label };
}

function withCtes(ctes: Cte[], scope: Scope, env: LineageEnv): Map<string, Relation> {
	const map = new Map(scope.ctes);
	for (const cte of ctes) {
		// A recursive CTE names itself; until it is known it resolves to nothing (and says so).
		map.set(lower(cte.name), unresolvedRelation(`${cte.name} (recursive)`));
		let rel = evalQuery(cte.query, { ...scope, ctes: map, lateral: new Map() }, env);
		if (cte.columns) rel = renameColumns(rel, cte.columns, env, cte.name);
		map.set(lower(cte.name), { ...rel, label: cte.name, asset: null });
	}
	return map;
}

export function evalQuery(q: Query, outer: Scope | null, env: LineageEnv): Relation {
	const base: Scope = outer ?? { entries: [], lateral: new Map(), ctes: new Map(), parent: null };
	const ctes = q.with.length ? withCtes(q.with, base, env) : base.ctes;
	if (q.kind === 'set') return evalSet(q, { ...base, ctes }, env);
	return evalSelect(q, { ...base, ctes }, env);
}

function evalSet(q: SetQuery, scope: Scope, env: LineageEnv): Relation {
	const rels = q.branches.map((b) => evalQuery(b, scope, env));
	const first = rels[0];
	if (rels.some((r) => r.columns === null || !r.complete || r.unordered)) {
		env.warn(`cannot match the branches of a set operation by position: a branch's columns (or their order) are not all known: "${q.text}"`);
		return { label: 'UNION', asset: null, unresolved: false, complete: false, columns: null };
	}
	const width = first.columns!.length;
	if (rels.some((r) => r.columns!.length !== width)) {
		env.warn(`the branches of a set operation have different numbers of columns: "${q.text}"`);
		return { label: 'UNION', asset: null, unresolved: false, complete: false, columns: null };
	}
	const columns = first.columns!.map((c, k) => ({
		name: c.name,
		edges: mergeEdges(...rels.map((r) => r.columns![k].edges)),
		undecided: rels.some((r) => r.columns![k].undecided)
	}));
	return { label: 'UNION', asset: null, unresolved: false, complete: true, columns };
}

function evalSelect(q: SelectQuery, outer: Scope, env: LineageEnv): Relation {
	const scope: Scope = { entries: [], lateral: new Map(), ctes: outer.ctes, parent: outer.entries.length || outer.parent ? outer : null };
	for (const item of q.from) {
		const rel = fromRelation(item, scope, env, outer.ctes);
		scope.entries.push({ alias: item.alias, name: item.kind === 'table' ? item.name : null, rel, join: item.join });
	}
	const columns: RelColumn[] = [];
	let complete = true;
	let unordered = false;
	for (const item of q.items) {
		if (item.kind === 'star') {
			const expanded = expandStar(item, scope, env);
			if (!expanded.complete) complete = false;
			if (expanded.unordered) unordered = true;
			columns.push(...expanded.columns);
			continue;
		}
		const edges = exprEdges(item.expr, scope, env, item.text);
		const name = item.alias ?? (item.expr.direct && item.expr.subqueries.length === 0 ? item.expr.direct.parts[item.expr.direct.parts.length - 1] : null);
		if (edges === null) {
			// The column keeps its place (positions matter for UNION and INSERT) but carries nothing.
			columns.push({ name, edges: [], undecided: true });
			continue;
		}
		columns.push(name === null ? { name, edges, text: item.text } : { name, edges });
		if (name !== null && !scope.lateral.has(lower(name))) scope.lateral.set(lower(name), edges);
	}
	for (const f of q.filters) evalQuery(f, scope, muted(env));
	return { label: 'SELECT', asset: null, unresolved: false, complete, unordered, columns };
}

function expandStar(
	item: Extract<SelectItem, { kind: 'star' }>,
	scope: Scope,
	env: LineageEnv
): { columns: RelColumn[]; complete: boolean; unordered: boolean } {
	let entries = scope.entries;
	if (item.qualifier) {
		const hit = scope.entries.find((e) => entryMatches(e, item.qualifier!));
		if (!hit) {
			env.warn(`no input named ${item.qualifier.join('.')}: "${item.text}"`);
			return { columns: [], complete: false, unordered: false };
		}
		entries = [hit];
	}
	const exclude = new Set(item.exclude.map(lower));
	const replace = new Map(item.replace.map((r) => [lower(r.name), r.expr]));
	const out: RelColumn[] = [];
	const seen = new Set<string>();
	let complete = true;
	let unordered = false;
	for (const e of entries) {
		if (e.rel.unresolved) {
			complete = false;
			continue;
		}
		if (e.rel.columns === null || (e.rel.columns.length === 0 && !e.rel.complete)) {
			env.warn(`cannot expand * over ${e.rel.label}: its columns are unknown: "${item.text}"`);
			complete = false;
			continue;
		}
		if (!e.rel.complete) {
			env.warn(`* over ${e.rel.label} expands only the columns known so far (${e.rel.columns.length}): "${item.text}"`);
			complete = false;
		}
		if (e.rel.unordered) unordered = true;
		const using = new Set((item.qualifier ? [] : (e.join?.using ?? [])).map(lower));
		for (const c of e.rel.columns) {
			if (c.name === null) continue;
			const k = lower(c.name);
			if (exclude.has(k)) continue;
			// `a JOIN b USING (k)`: `*` shows k once, from the left.
			if (using.has(k) && seen.has(k)) continue;
			seen.add(k);
			const r = replace.get(k);
			if (r) {
				const edges = exprEdges(r, scope, env, item.text);
				out.push(edges === null ? { name: c.name, edges: [], undecided: true } : { name: c.name, edges });
			} else out.push(c);
		}
	}
	return { columns: out, complete, unordered };
}
