// Which clause of a model's SQL each column name is read in, and which output columns are
// aggregates: a lexical scan, not a parse. The OpenLineage export uses it to name the subtype
// of a `scan` edge (JOIN, FILTER, GROUP_BY, SORT, WINDOW) and to tell an aggregating `mod` from
// another transformation. The engine's index says only that a column was read or transformed;
// this adds the why where the text shows it and says nothing where it does not. Works on the
// raw (Jinja) SQL: `{{ … }}` is one opaque word, `{% … %}` and `{# … #}` are skipped.
import { skipDollarQuoted, skipQuoted } from './sql-comments';

export type IndirectSubtype = 'JOIN' | 'FILTER' | 'GROUP_BY' | 'SORT' | 'WINDOW';

export interface SqlColumnUses {
	/** Column names (lowercase, unqualified) per clause they are read in. */
	clauses: Record<IndirectSubtype, Set<string>>;
	/** Output column names (lowercase) whose select item calls an aggregate outside a window. */
	aggregated: Set<string>;
}

const AGGREGATES = new Set([
	'sum', 'count', 'avg', 'mean', 'min', 'max', 'median', 'mode', 'stddev', 'stddev_pop', 'stddev_samp', 'variance', 'var_pop', 'var_samp',
	'array_agg', 'string_agg', 'listagg', 'group_concat', 'bool_and', 'bool_or', 'every', 'any_value', 'arbitrary', 'approx_count_distinct',
	'count_if', 'countif', 'sum_if', 'avg_if', 'product', 'list', 'first', 'last', 'arg_max', 'arg_min', 'max_by', 'min_by', 'hll_count',
	'percentile_cont', 'percentile_disc', 'quantile', 'quantile_cont', 'quantile_disc', 'corr', 'covar_pop', 'covar_samp', 'object_agg'
]);

type Token = { kind: 'word'; text: string } | { kind: 'num'; text: string } | { kind: 'punct'; text: string };

const isWordStart = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
const isDigit = (c: number) => c >= 48 && c <= 57;
const isWordPart = (c: number) => isWordStart(c) || isDigit(c) || c === 36;
const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13);

/** Lowercased words (quoted identifiers unquoted), numbers and punctuation; strings, comments and Jinja statements dropped. */
export function sqlTokens(sql: string): Token[] {
	const out: Token[] = [];
	const n = sql.length;
	let i = 0;
	while (i < n) {
		const c = sql[i];
		const next = sql[i + 1];
		if (c === '-' && next === '-') {
			const e = sql.indexOf('\n', i);
			i = e < 0 ? n : e;
		} else if (c === '/' && next === '*') {
			const e = sql.indexOf('*/', i + 2);
			i = e < 0 ? n : e + 2;
		} else if (c === '{' && (next === '%' || next === '#')) {
			const e = sql.indexOf(next + '}', i + 2);
			i = e < 0 ? n : e + 2;
		} else if (c === '{' && next === '{') {
			const e = sql.indexOf('}}', i + 2);
			i = e < 0 ? n : e + 2;
			out.push({ kind: 'word', text: '{{}}' });
		} else if (c === "'") {
			i = skipQuoted(sql, i, "'");
			out.push({ kind: 'num', text: "''" });
		} else if (c === '"' || c === '`') {
			const e = skipQuoted(sql, i, c);
			out.push({ kind: 'word', text: sql.slice(i + 1, e - 1).toLowerCase() });
			i = e;
		} else if (c === '$') {
			const e = skipDollarQuoted(sql, i);
			if (e === null) i++;
			else {
				out.push({ kind: 'num', text: "''" });
				i = e;
			}
		} else if (isWordStart(sql.charCodeAt(i))) {
			let j = i + 1;
			while (j < n && isWordPart(sql.charCodeAt(j))) j++;
			out.push({ kind: 'word', text: sql.slice(i, j).toLowerCase() });
			i = j;
		} else if (isDigit(sql.charCodeAt(i))) {
			let j = i + 1;
			while (j < n && (isDigit(sql.charCodeAt(j)) || sql.charCodeAt(j) === 46)) j++;
			out.push({ kind: 'num', text: sql.slice(i, j) });
			i = j;
		} else if (isSpace(sql.charCodeAt(i))) i++;
		else {
			out.push({ kind: 'punct', text: c });
			i++;
		}
	}
	return out;
}

type Clause = 'select' | 'from' | 'on' | 'using' | 'where' | 'group' | 'having' | 'qualify' | 'order' | 'window' | 'other';

/** Words that open a clause of the enclosing query (a word after `.` is a column, never one of these). */
const CLAUSE_WORDS: Record<string, Clause> = {
	select: 'select',
	from: 'from',
	join: 'from',
	on: 'on',
	using: 'using',
	where: 'where',
	group: 'group',
	having: 'having',
	qualify: 'qualify',
	order: 'order',
	window: 'window',
	limit: 'other',
	union: 'other',
	except: 'other',
	intersect: 'other',
	with: 'other'
};

const SUBTYPE_OF: Partial<Record<Clause, IndirectSubtype>> = {
	on: 'JOIN',
	using: 'JOIN',
	where: 'FILTER',
	having: 'FILTER',
	qualify: 'FILTER',
	group: 'GROUP_BY',
	order: 'SORT'
};

const NOT_COLUMNS = new Set([
	'and', 'or', 'not', 'is', 'null', 'in', 'as', 'by', 'case', 'when', 'then', 'else', 'end', 'true', 'false', 'between', 'like', 'ilike',
	'distinct', 'asc', 'desc', 'nulls', 'first', 'last', 'left', 'right', 'inner', 'outer', 'full', 'cross', 'lateral', 'over', 'partition',
	'rows', 'range', 'preceding', 'following', 'unbounded', 'current', 'row', 'interval', 'cast', 'all', 'any', 'exists', '{{}}'
]);

interface Frame {
	clause: Clause;
	/** Inside `over (…)`: column names read here are window keys. */
	window: boolean;
	/** This frame is a query (opened by `select`), so its select items are collected. */
	query: boolean;
	items: Token[][];
	/** Ordinals of `group by <n>` / `order by <n>`, resolved against the items when the frame closes. */
	positional: { subtype: IndirectSubtype; n: number }[];
}

/** The output name of a select item: its alias, else its last identifier. */
function itemName(item: Token[]): string | null {
	let depth = 0;
	for (let i = 0; i < item.length; i++) {
		const t = item[i];
		if (t.text === '(') depth++;
		else if (t.text === ')') depth--;
		else if (depth === 0 && t.kind === 'word' && t.text === 'as' && item[i + 1]?.kind === 'word') return item[i + 1].text;
	}
	const last = item[item.length - 1];
	return last && last.kind === 'word' && !NOT_COLUMNS.has(last.text) ? last.text : null;
}

/** Whether a select item calls an aggregate that is not a window function (`sum(x) over (…)` is not). */
function aggregates(item: Token[]): boolean {
	for (let i = 0; i + 1 < item.length; i++) {
		if (item[i].kind !== 'word' || !AGGREGATES.has(item[i].text) || item[i + 1].text !== '(' || item[i - 1]?.text === '.') continue;
		let depth = 0;
		let j = i + 1;
		for (; j < item.length; j++) {
			if (item[j].text === '(') depth++;
			else if (item[j].text === ')' && --depth === 0) break;
		}
		if (item[j + 1]?.text !== 'over') return true;
	}
	return false;
}

export function sqlColumnUses(sql: string): SqlColumnUses {
	const clauses: Record<IndirectSubtype, Set<string>> = { JOIN: new Set(), FILTER: new Set(), GROUP_BY: new Set(), SORT: new Set(), WINDOW: new Set() };
	const aggregated = new Set<string>();
	const tokens = sqlTokens(sql);
	const stack: Frame[] = [{ clause: 'other', window: false, query: false, items: [], positional: [] }];
	const closeFrame = (f: Frame) => {
		if (!f.query) return;
		const items = f.items.filter((it) => it.length > 0);
		for (const it of items) {
			const name = itemName(it);
			if (name && aggregates(it)) aggregated.add(name);
		}
		for (const p of f.positional) {
			const it = items[p.n - 1];
			const name = it && itemName(it);
			if (name) clauses[p.subtype].add(name);
		}
	};
	const currentItem = (f: Frame) => f.items[f.items.length - 1];
	for (let i = 0; i < tokens.length; i++) {
		const t = tokens[i];
		const top = stack[stack.length - 1];
		// Every token inside a query's select list (nested ones too) belongs to the current item.
		for (let d = stack.length - 1; d >= 0; d--) {
			const f = stack[d];
			if (f.query && f.clause === 'select') {
				if (!(d === stack.length - 1 && (t.text === ',' || (t.kind === 'word' && t.text in CLAUSE_WORDS && tokens[i - 1]?.text !== '.')))) currentItem(f)?.push(t);
				break;
			}
			if (f.query) break;
		}
		if (t.text === '(') {
			const windowOpen = tokens[i - 1]?.text === 'over';
			stack.push({ clause: top.clause, window: top.window || windowOpen, query: false, items: [], positional: [] });
			continue;
		}
		if (t.text === ')') {
			if (stack.length > 1) closeFrame(stack.pop()!);
			continue;
		}
		if (t.text === ',' && top.query && top.clause === 'select') {
			top.items.push([]);
			continue;
		}
		if (t.kind === 'word' && t.text in CLAUSE_WORDS && tokens[i - 1]?.text !== '.') {
			const clause = CLAUSE_WORDS[t.text];
			if (clause === 'select') {
				if (top.query) closeFrame(top);
				top.query = true;
				top.items = [[]];
				top.positional = [];
			}
			// `partition by` / `order by` inside `over (…)` stay window keys.
			if (!top.window) top.clause = clause;
			continue;
		}
		if (t.kind === 'num' && /^[0-9]+$/.test(t.text) && (top.clause === 'group' || top.clause === 'order') && !top.window) {
			const prev = tokens[i - 1]?.text;
			const nextText = tokens[i + 1]?.text;
			if ((prev === 'by' || prev === ',') && (nextText === undefined || nextText === ',' || nextText === ')' || !(nextText in { '+': 1, '-': 1, '*': 1, '/': 1 }))) {
				top.positional.push({ subtype: top.clause === 'group' ? 'GROUP_BY' : 'SORT', n: Number(t.text) });
			}
			continue;
		}
		if (t.kind !== 'word' || NOT_COLUMNS.has(t.text)) continue;
		// A function name (`coalesce(`) or a qualifier (`orders.`) is not a column.
		if (tokens[i + 1]?.text === '(' || tokens[i + 1]?.text === '.') continue;
		const subtype: IndirectSubtype | undefined = top.window ? 'WINDOW' : SUBTYPE_OF[top.clause];
		if (subtype) clauses[subtype].add(t.text);
	}
	while (stack.length > 0) closeFrame(stack.pop()!);
	return { clauses, aggregated };
}
