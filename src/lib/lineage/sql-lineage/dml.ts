// INSERT, UPDATE and MERGE read from the parser's tree, each turned into the SELECTs whose output
// columns are what the statement writes, so the one walker (./query.ts) traces them:
//   UPDATE t SET a = e FROM s WHERE …        → SELECT e AS a FROM t, s WHERE …
//   MERGE INTO t USING s ON c
//     WHEN MATCHED THEN UPDATE SET a = e      → SELECT e AS a FROM t JOIN s ON c   (the update branch)
//     WHEN NOT MATCHED THEN INSERT (b) VALUES (f)
//                                             → SELECT f AS b FROM s               (the insert branch: the target's row does not exist)
// A target column written by both branches takes the inputs of both. The ON condition and each
// WHEN's condition are read to decide which rows change: scans, like a WHERE.
import type { Ast } from './query';

const isObj = (v: unknown): v is Record<string, Ast> => typeof v === 'object' && v !== null && !Array.isArray(v);
const identName = (v: Ast): string | null => (isObj(v) && typeof v.name === 'string' ? v.name : typeof v === 'string' ? v : null);

/** The kinds of statement read here (the root key of the parser's tree). */
export const DML_ROOTS = new Set(['insert', 'update', 'merge']);

export function dmlKind(tree: Ast): 'insert' | 'update' | 'merge' | null {
	if (!isObj(tree)) return null;
	const [k] = Object.keys(tree);
	return DML_ROOTS.has(k) ? (k as 'insert' | 'update' | 'merge') : null;
}

const aliased = (expr: Ast, name: string): Ast => ({ alias: { this: expr, alias: { name } } });

/** A table item of the tree: `{table}` or `{alias: {this: {table}, alias}}` → its name parts and alias. */
export function tableItem(item: Ast): { table: Ast; alias: string | null } | null {
	if (!isObj(item)) return null;
	if (isObj(item.table)) return { table: item.table, alias: identName(item.table.alias) };
	if (isObj(item.alias) && isObj(item.alias.this) && isObj(item.alias.this.table)) return { table: item.alias.this.table, alias: identName(item.alias.alias) };
	return null;
}

export interface InsertTree {
	table: Ast;
	columns: string[] | null;
	byName: boolean;
	/** Columns a PARTITION clause fills with a constant: not filled by the query. */
	staticPartition: string[];
	query: Ast | null;
}

export function insertTree(ins: Ast): InsertTree {
	let query = ins.query ?? null;
	// `WITH c AS (…) INSERT INTO t SELECT … FROM c`: the CTEs belong to the query.
	if (query && ins.with) {
		const [k] = Object.keys(query);
		query = { [k]: { ...query[k], with: query[k].with ?? ins.with } };
	}
	const cols = Array.isArray(ins.columns) && ins.columns.length ? (ins.columns as Ast[]).map(identName).filter((n): n is string => n !== null) : null;
	const staticPartition = ((ins.partition ?? []) as Ast[])
		.filter((p) => Array.isArray(p) && p[1] !== null && p[1] !== undefined)
		.map((p) => identName(p[0]))
		.filter((n): n is string => n !== null);
	return { table: ins.table, columns: cols, byName: ins.by_name === true, staticPartition, query };
}

/** The last part of a SET target (`t.c` → `c`). */
const setColumn = (target: Ast): string | null => {
	const n = identName(target) ?? identName(target?.identifier) ?? identName(target?.column?.name);
	return n === null ? null : (n.split('.').pop() ?? n);
};

export interface UpdateTree {
	/** The table written (the FROM item the target names, when it names one by its alias). */
	table: Ast;
	/** One SELECT: its output columns are the SET columns. */
	select: Ast;
}

export function updateTree(up: Ast): UpdateTree {
	const from: Ast[] = [...((up.from_clause?.expressions ?? []) as Ast[])];
	let table = up.table;
	// T-SQL's `UPDATE t SET … FROM tab1 t JOIN …`: the target is the FROM item aliased t.
	const targetName = identName(table?.name);
	const aliasedItem = !table?.schema && !table?.alias ? from.map(tableItem).find((t) => t?.alias && targetName && t.alias.toLowerCase() === targetName.toLowerCase()) : undefined;
	if (aliasedItem) table = aliasedItem.table;
	else from.unshift({ table: up.table });
	const expressions: Ast[] = [];
	for (const pair of (up.set ?? []) as Ast[]) {
		const name = Array.isArray(pair) ? setColumn(pair[0]) : null;
		if (name && Array.isArray(pair)) expressions.push(aliased(pair[1], name));
	}
	const select: Ast = { select: { expressions, from: { expressions: from }, joins: up.from_joins ?? [], where_clause: up.where_clause, with: up.with } };
	return { table, select };
}

export interface MergeBranch {
	/** The SELECT whose output columns are what the branch writes. */
	select: Ast;
	/** `INSERT *` / `UPDATE SET *` (Databricks): every source column, by name. */
	star: boolean;
	/** An INSERT without a column list: its values go to the target's columns by position. */
	positional: boolean;
}

export interface MergeTree {
	table: Ast;
	branches: MergeBranch[];
	/** A SELECT whose scans are the ON and WHEN conditions (its output is nothing). */
	conditions: Ast;
	/** WHEN … THEN branches read but not traced (their kind), for the notes. */
	unread: string[];
}

export function mergeTree(m: Ast): MergeTree | null {
	const target = tableItem(m.this);
	if (!target) return null;
	const targetItem = m.this;
	const source = m.using;
	const whens = (m.whens?.whens?.expressions ?? m.whens?.expressions ?? []) as Ast[];
	const branches: MergeBranch[] = [];
	const conditionExprs: Ast[] = [];
	const unread: string[] = [];
	for (const w of whens.map((x) => x?.when).filter(isObj)) {
		if (w.condition) conditionExprs.push(w.condition);
		const then = w.then;
		const parts = (then?.tuple?.expressions ?? [then]) as Ast[];
		const verb = identName(parts[0]?.var?.this) ?? parts[0]?.var?.this;
		if (verb === 'UPDATE') {
			const sets = parts[1];
			if (isObj(sets?.star)) {
				branches.push({ select: { select: { expressions: [{ star: {} }], from: { expressions: [source] } } }, star: true, positional: false });
				continue;
			}
			const pairs = (sets?.tuple?.expressions ?? (sets ? [sets] : [])) as Ast[];
			const expressions = pairs
				.map((p) => (isObj(p?.eq) ? { name: setColumn(p.eq.left), value: p.eq.right } : null))
				.filter((x): x is { name: string; value: Ast } => x !== null && x.name !== null)
				.map((x) => aliased(x.value, x.name));
			branches.push({ select: { select: { expressions, from: { expressions: [targetItem] }, joins: [{ this: source, on: m.on, kind: 'Inner' }] } }, star: false, positional: false });
		} else if (verb === 'INSERT') {
			if (isObj(parts[1]?.star) || parts[1]?.var?.this === 'ROW') {
				branches.push({ select: { select: { expressions: [{ star: {} }], from: { expressions: [source] } } }, star: true, positional: false });
				continue;
			}
			const names = parts.length >= 3 ? ((parts[1]?.tuple?.expressions ?? [parts[1]]) as Ast[]).map((x) => identName(x) ?? identName(x?.identifier) ?? identName(x?.column?.name)) : null;
			const values = ((parts[parts.length - 1]?.tuple?.expressions ?? [parts[parts.length - 1]]) as Ast[]) ?? [];
			const expressions = values.map((v, k) => (names?.[k] ? aliased(v, names[k]!) : v));
			branches.push({ select: { select: { expressions, from: { expressions: [source] } } }, star: false, positional: names === null });
		} else if (verb !== 'DELETE' && verb !== undefined) unread.push(String(verb));
	}
	const conditions: Ast = {
		select: {
			expressions: [],
			from: { expressions: [targetItem] },
			joins: [{ this: source, on: m.on, kind: 'Inner' }],
			where_clause: conditionExprs.length ? { this: conditionExprs.reduce((a, b) => ({ and: { left: a, right: b } })) } : undefined
		}
	};
	return { table: target.table, branches, conditions, unread };
}
