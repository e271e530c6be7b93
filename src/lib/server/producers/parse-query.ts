// One query (SELECT / WITH / VALUES) of a producer script → the query model of
// src/lib/lineage/producer-lineage.ts, through node-sql-parser. Its Snowflake grammar reads most
// DuckDB SELECT syntax (QUALIFY, GROUP BY ALL, `::` casts, ILIKE, lambdas, FILTER); the
// PostgreSQL grammar is the fallback for the few shapes Snowflake's rejects; EXCLUDE/REPLACE
// are lifted out before either sees the text (prepareQuery). The README has the measurements.
// The per-dialect builds are CommonJS: named imports work under vitest but not in the server
// bundle, so take the default export and read the class from it.
import postgresBuild from 'node-sql-parser/build/postgresql';
import snowflakeBuild from 'node-sql-parser/build/snowflake';

const PostgresParser = postgresBuild.Parser;
const SnowflakeParser = snowflakeBuild.Parser;
import type { ColumnRefExpr, Cte, Expr, FromItem, JoinType, Query, SelectItem, SelectQuery } from '$lib/lineage/producer-lineage';
import { prepareQuery, type StarModifier } from '$lib/lineage/producer-sql';

// node-sql-parser's published types describe its MySQL tree; the Snowflake and PostgreSQL trees
// differ in places (quoted identifiers, aliases with column lists), so they are read as plain
// data, defensively.
type Ast = any;

const GRAMMARS: { database: string; parser: { astify(sql: string, opt: object): Ast } }[] = [
	{ database: 'Snowflake', parser: new SnowflakeParser() },
	{ database: 'PostgreSQL', parser: new PostgresParser() }
];

export type ParsedQuery = { ok: true; query: Query } | { ok: false; message: string; offset: number };

/** Niladic SQL keywords the grammars may read as bare column names. */
const NILADIC = new Set(['current_date', 'current_time', 'current_timestamp', 'localtime', 'localtimestamp', 'current_user', 'session_user']);

export function parseQuery(text: string): ParsedQuery {
	const prepared = prepareQuery(text);
	let first: { message: string; offset: number } | null = null;
	for (const g of GRAMMARS) {
		let ast: Ast;
		try {
			ast = g.parser.astify(prepared.text, { database: g.database, parseOptions: { includeLocations: true }, trimQuery: false });
		} catch (e) {
			first ??= describeError(e);
			continue;
		}
		const root = Array.isArray(ast) ? ast[0] : ast;
		if (!root || root.type !== 'select') return { ok: false, message: 'not a query', offset: 0 };
		const reader = new Reader(text, prepared.stars);
		try {
			return { ok: true, query: reader.query(root) };
		} catch (e) {
			if (e instanceof Unreadable) return { ok: false, message: e.message, offset: e.offset };
			// A tree shape this reader does not know costs this statement's lineage, not the deploy.
			return { ok: false, message: `the parsed query could not be read (${(e as Error).message ?? e})`, offset: 0 };
		}
	}
	return { ok: false, ...(first ?? { message: 'could not be parsed', offset: 0 }) };
}

/** The parser's error in one line: where, and what it found (its list of expectations is noise). */
function describeError(e: unknown): { message: string; offset: number } {
	const err = e as { found?: string | null; location?: { start?: { offset?: number } }; message?: string };
	const offset = err.location?.start?.offset ?? 0;
	if (err.location) return { message: err.found ? `unexpected "${err.found}"` : 'unexpected end of the statement', offset };
	return { message: (err.message ?? 'could not be parsed').split('\n')[0].slice(0, 200), offset };
}

class Unreadable extends Error {
	constructor(
		message: string,
		readonly offset: number
	) {
		super(message);
	}
}

const isObj = (v: unknown): v is Record<string, Ast> => typeof v === 'object' && v !== null;

/** An identifier as the trees write it: a string, or `{value}` / `{expr: {value}}`. */
function ident(v: Ast): string | null {
	if (typeof v === 'string') return v;
	if (!isObj(v)) return null;
	if (typeof v.value === 'string') return v.value;
	if (isObj(v.expr)) return ident(v.expr);
	return null;
}

/** `t(a, b)` (how the trees keep a derived table's column aliases) → alias and columns. */
function splitAlias(as: Ast): { alias: string | null; columns: string[] | null } {
	const s = ident(as);
	if (s === null) return { alias: null, columns: null };
	const m = /^\s*("(?:[^"]|"")*"|[^\s(]+)\s*\((.*)\)\s*$/s.exec(s);
	if (!m) return { alias: s, columns: null };
	const unq = (x: string) => {
		const t = x.trim();
		return t.startsWith('"') && t.endsWith('"') ? t.slice(1, -1).replace(/""/g, '"') : t;
	};
	return { alias: unq(m[1]), columns: m[2].split(',').map(unq).filter((c) => c !== '') };
}

const JOINS: [RegExp, JoinType][] = [
	[/^LEFT/i, 'left'],
	[/^RIGHT/i, 'right'],
	[/^FULL/i, 'full'],
	[/^CROSS/i, 'cross'],
	[/^POSITIONAL/i, 'positional']
];

function joinType(join: Ast): JoinType {
	if (typeof join !== 'string') return 'cross';
	for (const [re, t] of JOINS) if (re.test(join)) return t;
	return 'inner';
}

class Reader {
	constructor(
		readonly text: string,
		readonly stars: StarModifier[]
	) {}

	slice(node: Ast): string {
		const loc = isObj(node) ? node.loc : null;
		if (!loc?.start || !loc?.end) return '';
		return this.text.slice(loc.start.offset, loc.end.offset).replace(/\s+/g, ' ').trim();
	}

	offset(node: Ast): number {
		return isObj(node) && node.loc?.start ? node.loc.start.offset : 0;
	}

	query(node: Ast): Query {
		const ctes: Cte[] = Array.isArray(node.with) ? node.with.map((c: Ast) => this.cte(c)) : [];
		if (!node._next) return { ...this.select(node), with: ctes };
		// `A UNION B EXCEPT C`: values come from the UNION branches; EXCEPT and INTERSECT branches
		// only filter rows, so their columns feed nothing (their tables are still read).
		const branches: Query[] = [];
		const filters: Query[] = [];
		let op: string | null = null;
		for (let cur = node; cur; cur = cur._next) {
			const branch = { ...this.select(cur), with: [] };
			if (op === null || /^union/i.test(op)) branches.push(branch);
			else filters.push(branch);
			op = typeof cur.set_op === 'string' ? cur.set_op : null;
		}
		if (filters.length) (branches[0] as SelectQuery).filters.push(...filters);
		return { kind: 'set', with: ctes, branches, text: this.slice(node) || this.text };
	}

	cte(c: Ast): Cte {
		const name = ident(c.name);
		const stmt = c.stmt?.ast ?? c.stmt;
		if (name === null || !isObj(stmt)) throw new Unreadable('a WITH clause the parser did not describe', this.offset(c));
		const columns = Array.isArray(c.columns) ? c.columns.map((x: Ast) => ident(x.column) ?? ident(x)).filter((x: string | null): x is string => !!x) : null;
		return { name, columns: columns && columns.length ? columns : null, query: this.query(stmt) };
	}

	select(node: Ast): SelectQuery {
		const from: FromItem[] = Array.isArray(node.from) ? node.from.map((f: Ast, k: number) => this.fromItem(f, k)) : [];
		const items: SelectItem[] = [];
		const cols = node.columns;
		if (cols === '*') items.push({ kind: 'star', qualifier: null, exclude: [], replace: [], text: '*' });
		else if (Array.isArray(cols)) for (const c of cols) items.push(this.item(c));
		// Subqueries outside the select list (WHERE, HAVING, QUALIFY, JOIN … ON, GROUP BY) read
		// tables but feed no column.
		const filters: Query[] = [];
		for (const key of ['where', 'having', 'qualify', 'groupby', 'orderby']) this.collectSubqueries(node[key], filters);
		for (const f of Array.isArray(node.from) ? node.from : []) this.collectSubqueries(f.on, filters);
		return { kind: 'select', with: [], from, items, filters, text: this.slice(node) || this.text };
	}

	fromItem(f: Ast, index: number): FromItem {
		const { alias, columns } = splitAlias(f.as);
		const join = index === 0 ? null : { type: joinType(f.join), using: Array.isArray(f.using) ? f.using.map((u: Ast) => ident(u) ?? '') : null };
		const base = { alias, columnAliases: columns, join, text: this.slice(f) };
		if (typeof f.table === 'string') {
			const name = [f.catalog && f.schema ? f.catalog : null, f.schema ?? (f.catalog ? null : f.db), f.table].filter(
				(p: Ast): p is string => typeof p === 'string' && p !== ''
			);
			return { ...base, kind: 'table', name, text: base.text || name.join('.') };
		}
		const expr = f.expr;
		if (isObj(expr)) {
			const sub = expr.ast ?? (expr.type === 'select' ? expr : null);
			if (isObj(sub) && sub.type === 'select') return { ...base, kind: 'subquery', query: this.query(sub) };
			if (expr.type === 'values' && Array.isArray(expr.values)) {
				const width = Math.max(0, ...expr.values.map((r: Ast) => (Array.isArray(r?.value) ? r.value.length : 0)));
				return { ...base, kind: 'values', width };
			}
			if (expr.type === 'function') return { ...base, kind: 'function', name: functionName(expr) ?? 'a table function' };
		}
		throw new Unreadable(`a FROM item the parser did not describe: "${base.text}"`, this.offset(f));
	}

	item(c: Ast): SelectItem {
		const expr = c.expr;
		const text = this.slice(c);
		if (isObj(expr) && (expr.type === 'star' || (expr.type === 'column_ref' && ident(expr.column) === '*'))) {
			const table = ident(expr.table);
			const qualifier = table ? [...(typeof expr.schema === 'string' ? [expr.schema] : []), table] : null;
			const loc = c.loc ?? expr.loc;
			const mod = loc ? this.stars.find((s) => s.star >= loc.start.offset && s.star <= loc.end.offset) : undefined;
			return {
				kind: 'star',
				qualifier,
				exclude: mod?.exclude ?? [],
				replace: mod?.replace ? this.replaceList(mod.replace) : [],
				text: text || '*'
			};
		}
		return { kind: 'expr', expr: this.expr(expr), alias: ident(c.as), text };
	}

	/** `REPLACE (expr AS name, …)`: read by parsing it as a select list of its own. */
	replaceList(r: { text: string; start: number }): { name: string; expr: Expr }[] {
		const parsed = parseQuery(`SELECT ${r.text}`);
		if (!parsed.ok || parsed.query.kind !== 'select') throw new Unreadable(`REPLACE (${r.text.trim()}) could not be read`, r.start);
		return parsed.query.items.flatMap((i) => (i.kind === 'expr' && i.alias ? [{ name: i.alias, expr: i.expr }] : []));
	}

	expr(node: Ast): Expr {
		const out: Expr = { direct: columnRef(node), refs: [], subqueries: [], filters: [], unsupported: [] };
		this.walk(node, out);
		return out;
	}

	walk(n: Ast, out: Expr): void {
		if (Array.isArray(n)) {
			for (const x of n) this.walk(x, out);
			return;
		}
		if (!isObj(n)) return;
		const ref = columnRef(n);
		if (ref) {
			out.refs.push(ref);
			return;
		}
		if (n.type === 'star') return;
		const sub = subquery(n);
		if (sub) {
			out.subqueries.push(this.query(sub));
			return;
		}
		if (n.type === 'function') {
			const name = functionName(n)?.toUpperCase();
			if (name === 'COLUMNS') {
				out.unsupported.push('COLUMNS(…)');
				return;
			}
			// EXISTS is true or false whatever the subquery selects: it feeds no column.
			if (name === 'EXISTS') {
				this.collectSubqueries(n.args, out.filters);
				return;
			}
		}
		for (const [k, v] of Object.entries(n)) if (k !== 'loc' && k !== 'tableList' && k !== 'columnList') this.walk(v, out);
	}

	collectSubqueries(n: Ast, into: Query[]): void {
		if (Array.isArray(n)) {
			for (const x of n) this.collectSubqueries(x, into);
			return;
		}
		if (!isObj(n)) return;
		const sub = subquery(n);
		if (sub) {
			into.push(this.query(sub));
			return;
		}
		for (const [k, v] of Object.entries(n)) if (k !== 'loc') this.collectSubqueries(v, into);
	}
}

function subquery(n: Record<string, Ast>): Ast | null {
	if (isObj(n.ast) && n.ast.type === 'select') return n.ast;
	return null;
}

function functionName(n: Ast): string | null {
	const name = n.name;
	if (typeof name === 'string') return name;
	if (isObj(name) && Array.isArray(name.name) && name.name.length) return name.name.map((p: Ast) => ident(p) ?? '').join('.');
	return ident(name?.schema) ?? null;
}

/**
 * A column reference, or null. DuckDB reads a double-quoted word as an identifier everywhere,
 * while the Snowflake grammar keeps some as strings: they are column names here.
 */
function columnRef(n: Ast): ColumnRefExpr | null {
	if (!isObj(n)) return null;
	if (n.type === 'double_quote_string' && typeof n.value === 'string') return { parts: [n.value] };
	if (n.type !== 'column_ref') return null;
	const column = ident(n.column);
	if (column === null || column === '*') return null;
	const parts = [n.db, n.schema, n.table].map(ident).filter((p): p is string => p !== null && p !== '');
	if (parts.length === 0 && NILADIC.has(column.toLowerCase())) return null;
	return { parts: [...parts, column] };
}
