// The text layer of SQL statements, pure: comments blanked, statements split, and each
// statement's head (ATTACH, CREATE TABLE … AS, INSERT INTO, COPY, …) read with a small tokenizer.
// The head says what a statement writes even when its query does not parse, and where its query
// is: only that query goes to the SQL parser, so a statement the parser cannot read whole
// (DuckDB's `INSERT … BY NAME`, `INSERT OR REPLACE`, `ON CONFLICT`) still has its query read, and
// a parser failure on one statement costs no other.
import { skipDollarQuoted, skipQuoted, sqlComments } from '../sql-comments';


/**
 * The script with every comment (`--`, `/* *\/`, and whole-line `//`) replaced by spaces, newlines
 * kept, so offsets and line numbers in the result are those of the original. Strings, quoted
 * identifiers and dollar-quoted bodies are left alone: a `;` or `--` inside them is text.
 */
export function blankComments(sql: string): string {
	// Built from slices (not a character array): scripts may be 1 MB and are mostly code.
	const parts: string[] = [];
	let kept = 0;
	for (const c of sqlComments(sql)) {
		parts.push(sql.slice(kept, c.start), sql.slice(c.start, c.end).replace(/[^\n]/g, ' '));
		kept = c.end;
	}
	parts.push(sql.slice(kept));
	return parts.join('');
}

export interface StatementText {
	/** The statement without its `;`, trimmed; offsets are into the script. */
	text: string;
	start: number;
	end: number;
}

/**
 * The opening of a procedure's body or of a block (`CREATE PROCEDURE p() [AS] BEGIN`, `BEGIN`)
 * before the body's first statement: split on `;`, that statement would otherwise be read as
 * part of the CREATE PROCEDURE (or as a transaction's BEGIN) and lost. A dollar-quoted body
 * (Postgres) is one string, not statements, and is left alone.
 */
const BLOCK_OPENING = /^(?:CREATE\s+(?:OR\s+(?:REPLACE|ALTER)\s+)?PROC(?:EDURE)?\b[^$]*?\bBEGIN|BEGIN)\s+(?=(?:INSERT|UPDATE|MERGE|DELETE|SELECT|WITH|CREATE|COPY)\b)/i;

/**
 * Statements of comment-blanked code, split on `;` outside quotes. Empty statements are skipped;
 * the statements inside a procedure's body or a BEGIN … END block are statements of their own
 * (the control flow around them, IF and LOOP, is not followed).
 */
export function splitStatements(code: string): StatementText[] {
	const out: StatementText[] = [];
	let start = 0;
	const push = (end: number) => {
		const raw = code.slice(start, end);
		let lead = raw.length - raw.trimStart().length;
		let text = raw.trim();
		const opening = BLOCK_OPENING.exec(text);
		if (opening) {
			lead += opening[0].length;
			text = text.slice(opening[0].length);
		}
		if (text !== '') out.push({ text, start: start + lead, end: start + lead + text.length });
	};
	let i = 0;
	while (i < code.length) {
		const c = code[i];
		if (c === "'" || c === '"') {
			i = skipQuoted(code, i, c);
			continue;
		}
		if (c === '$') {
			const j = skipDollarQuoted(code, i);
			if (j !== null) {
				i = j;
				continue;
			}
		}
		if (c === ';') {
			push(i);
			start = i + 1;
		}
		i++;
	}
	push(code.length);
	return out;
}

/** 1-based line numbers of offsets, with the line starts computed once (scripts may be 1 MB). */
export function lineIndex(text: string): (offset: number) => number {
	const starts = [0];
	for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1);
	return (offset: number) => {
		let lo = 0;
		let hi = starts.length - 1;
		while (lo < hi) {
			const mid = (lo + hi + 1) >> 1;
			if (starts[mid] <= offset) lo = mid;
			else hi = mid - 1;
		}
		return lo + 1;
	};
}

/** A short, single-line excerpt of a statement for a warning. */
export function fragment(text: string, max = 80): string {
	const one = text.replace(/\s+/g, ' ').trim();
	return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

// ─── Statement heads ───────────────────────────────────────────────────────────────────────

interface Token {
	kind: 'word' | 'ident' | 'string' | 'punct' | 'other';
	/** Words uppercased; quoted identifiers and strings unquoted. */
	value: string;
	start: number;
	end: number;
	/** A backquoted `a.b.c`: one identifier holding a whole path (BigQuery). */
	path?: boolean;
}

// Backquoted identifiers are BigQuery's, Databricks' and MySQL's (a BigQuery path may be one).
const TOKEN = /\s+|"(?:[^"]|"")*"?|`(?:[^`]|``)*`?|'(?:[^']|'')*'?|[A-Za-z_][A-Za-z0-9_$]*|[\s\S]/y;

/**
 * Tokens of `s`, read on demand: a statement's head is a few tokens, and most statements are
 * queries whose body only the parser needs to read.
 */
class Tokens {
	private list: Token[] = [];
	private pos = 0;
	constructor(private readonly s: string) {}

	get(k: number): Token | undefined {
		while (this.list.length <= k && this.pos < this.s.length) this.next();
		return this.list[k];
	}

	private next(): void {
		TOKEN.lastIndex = this.pos;
		const m = TOKEN.exec(this.s)!;
		const text = m[0];
		const start = this.pos;
		const end = start + text.length;
		this.pos = end;
		const c = text[0];
		if (c === '"' || c === "'" || c === '`') {
			const inner = text.length > 1 && text.endsWith(c) ? text.slice(1, -1) : text.slice(1);
			this.list.push({ kind: c === "'" ? 'string' : 'ident', value: inner.split(c + c).join(c), start, end, path: c === '`' && inner.includes('.') });
		} else if (/[A-Za-z_]/.test(c)) this.list.push({ kind: 'word', value: text, start, end });
		else if (!/\s/.test(c)) this.list.push({ kind: /[().,]/.test(c) ? 'punct' : 'other', value: c, start, end });
	}
}

export type StatementHead =
	| { kind: 'attach'; target: string; alias: string; lake: boolean }
	| { kind: 'use'; parts: string[] }
	| { kind: 'create_as'; name: string[]; temp: boolean; view: boolean; columns: string[] | null; query: number }
	| { kind: 'create'; name: string[]; temp: boolean; columns: string[] }
	| { kind: 'insert'; name: string[]; columns: string[] | null; byName: boolean; query: number | null; queryEnd: number }
	| { kind: 'query'; query: number; queryEnd: number }
	| { kind: 'copy_from'; name: string[] }
	| { kind: 'copy_to'; name: string[] | null; query: number | null; queryEnd: number }
	| { kind: 'modify'; verb: string; name: string[] }
	| { kind: 'ignored'; verb: string }
	| { kind: 'unknown'; verb: string };

const IGNORED = new Set([
	'INSTALL', 'LOAD', 'SET', 'RESET', 'PRAGMA', 'BEGIN', 'COMMIT', 'ROLLBACK', 'START', 'END', 'ABORT', 'CHECKPOINT',
	'FORCE', 'DETACH', 'EXPORT', 'IMPORT', 'CALL', 'VACUUM', 'ANALYZE', 'DROP', 'DESCRIBE', 'SHOW', 'SUMMARIZE', 'EXPLAIN', 'COMMENT'
]);
const QUERY_START = new Set(['SELECT', 'WITH', 'FROM', 'VALUES', 'TABLE']);
/** Statements whose lineage is read from the parser's tree of the whole statement. */
export const TREE_VERBS = new Set(['UPDATE', 'MERGE', 'INSERT']);

class Cursor {
	i = 0;
	constructor(readonly t: Tokens) {}
	peek(k = 0): Token | undefined {
		return this.t.get(this.i + k);
	}
	is(...words: string[]): boolean {
		return words.every((w, k) => {
			const tok = this.t.get(this.i + k);
			return tok?.kind === 'word' && tok.value.toUpperCase() === w;
		});
	}
	eat(...words: string[]): boolean {
		if (!this.is(...words)) return false;
		this.i += words.length;
		return true;
	}
	punct(p: string): boolean {
		const tok = this.peek();
		if (tok?.kind === 'punct' && tok.value === p) {
			this.i++;
			return true;
		}
		return false;
	}
	/** `a.b."c"`: identifier parts, or null. */
	name(): string[] | null {
		const parts: string[] = [];
		for (;;) {
			const tok = this.peek();
			if (!tok || (tok.kind !== 'word' && tok.kind !== 'ident')) return parts.length ? parts : null;
			if (tok.path) parts.push(...tok.value.split('.'));
			else parts.push(tok.value);
			this.i++;
			if (!(this.peek()?.kind === 'punct' && this.peek()?.value === '.')) return parts;
			this.i++;
		}
	}
	/** `(a, b, c)` of plain names (column lists), or null when the parenthesis holds more. */
	nameList(): string[] | null {
		const save = this.i;
		if (!this.punct('(')) return null;
		const names: string[] = [];
		for (;;) {
			const tok = this.peek();
			if (!tok || (tok.kind !== 'word' && tok.kind !== 'ident')) break;
			names.push(tok.value);
			this.i++;
			if (this.punct(')')) return names;
			if (!this.punct(',')) break;
		}
		this.i = save;
		return null;
	}
	/** `(name type …, …)` column definitions: the first identifier of each top-level item. */
	columnDefs(): string[] | null {
		if (!this.punct('(')) return null;
		const names: string[] = [];
		let depth = 1;
		let expectName = true;
		for (let tok = this.t.get(this.i); tok && depth > 0; tok = this.t.get(this.i)) {
			this.i++;
			if (tok.kind === 'punct' && tok.value === '(') depth++;
			else if (tok.kind === 'punct' && tok.value === ')') depth--;
			else if (depth === 1 && tok.kind === 'punct' && tok.value === ',') expectName = true;
			else if (depth === 1 && expectName) {
				expectName = false;
				const constraint = tok.kind === 'word' && /^(PRIMARY|UNIQUE|CHECK|FOREIGN|CONSTRAINT)$/i.test(tok.value);
				if (!constraint && (tok.kind === 'word' || tok.kind === 'ident')) names.push(tok.value);
			}
		}
		return names;
	}
}

/** Where a top-level `ON CONFLICT` or `RETURNING` starts (the parser reads only the query before it). */
function queryEndOf(t: Tokens, from: number, textLength: number): number {
	let depth = 0;
	for (let k = from, tok = t.get(k); tok; tok = t.get(++k)) {
		if (tok.kind === 'punct' && tok.value === '(') depth++;
		else if (tok.kind === 'punct' && tok.value === ')') depth--;
		else if (depth === 0 && tok.kind === 'word') {
			const w = tok.value.toUpperCase();
			if (w === 'RETURNING' || (w === 'ON' && t.get(k + 1)?.value.toUpperCase() === 'CONFLICT')) return tok.start;
		}
	}
	return textLength;
}

/** The alias DuckDB gives `ATTACH 'ducklake:dir/meta.ducklake'` without AS: the file's stem. */
function defaultAttachAlias(target: string): string {
	const path = target.replace(/^[a-z_]+:/i, '');
	const base = path.split(/[/\\]/).pop() ?? path;
	return base.replace(/\.[^.]*$/, '');
}

/** Reads a statement's head; offsets in the answer are into `text`. */
export function statementHead(text: string): StatementHead {
	// The head never needs more than a few dozen tokens, except a column-definition list or an
	// INSERT whose ON CONFLICT we must find; those are bounded by the statement itself.
	const t = new Tokens(text);
	const c = new Cursor(t);
	const first = c.peek();
	if (!first) return { kind: 'unknown', verb: '' };
	if (first.kind === 'punct' && first.value === '(') return { kind: 'query', query: 0, queryEnd: text.length };
	const verb = first.kind === 'word' ? first.value.toUpperCase() : first.value;
	if (QUERY_START.has(verb)) return { kind: 'query', query: 0, queryEnd: text.length };
	if (c.eat('ATTACH')) {
		c.eat('DATABASE');
		c.eat('IF', 'NOT', 'EXISTS');
		const target = c.peek();
		if (target?.kind !== 'string') return { kind: 'unknown', verb };
		c.i++;
		let alias = defaultAttachAlias(target.value);
		if (c.eat('AS')) alias = c.peek()?.value ?? alias;
		return { kind: 'attach', target: target.value, alias, lake: /^ducklake:/i.test(target.value) };
	}
	if (c.eat('USE')) {
		const name = c.name();
		return name ? { kind: 'use', parts: name } : { kind: 'unknown', verb };
	}
	if (c.eat('CREATE')) {
		c.eat('OR', 'REPLACE');
		const temp = c.eat('TEMP') || c.eat('TEMPORARY');
		const view = c.eat('VIEW');
		if (!view && !c.eat('TABLE')) return { kind: 'ignored', verb: `CREATE ${c.peek()?.value.toUpperCase() ?? ''}`.trim() };
		c.eat('IF', 'NOT', 'EXISTS');
		const name = c.name();
		if (!name) return { kind: 'unknown', verb };
		const save = c.i;
		const listed = c.nameList();
		if (c.eat('AS')) {
			const q = c.peek();
			return { kind: 'create_as', name, temp, view, columns: listed, query: q ? q.start : text.length };
		}
		c.i = save;
		const defs = c.columnDefs();
		if (defs && !view) {
			if (c.eat('AS')) {
				const q = c.peek();
				return { kind: 'create_as', name, temp, view, columns: defs, query: q ? q.start : text.length };
			}
			return { kind: 'create', name, temp, columns: defs };
		}
		return { kind: 'unknown', verb };
	}
	if (c.eat('INSERT')) {
		// Hive's and Spark's `INSERT OVERWRITE [TABLE] t [PARTITION (…)] SELECT …`: read from the parser's tree.
		if (c.eat('OVERWRITE')) {
			c.eat('TABLE');
			const name = c.name();
			return name ? { kind: 'modify', verb: 'INSERT', name } : { kind: 'unknown', verb };
		}
		if (c.eat('OR')) c.i++;
		if (!c.eat('INTO')) return { kind: 'unknown', verb };
		const name = c.name();
		if (!name) return { kind: 'unknown', verb };
		if (c.eat('AS')) c.i++;
		let byName = false;
		if (c.eat('BY', 'NAME')) byName = true;
		else c.eat('BY', 'POSITION');
		const columns = c.nameList();
		if (c.is('DEFAULT', 'VALUES')) return { kind: 'insert', name, columns, byName, query: null, queryEnd: text.length };
		const q = c.peek();
		const query = q ? q.start : null;
		return { kind: 'insert', name, columns, byName, query, queryEnd: queryEndOf(t, c.i, text.length) };
	}
	if (c.eat('COPY')) {
		if (c.peek()?.kind === 'punct' && c.peek()?.value === '(') {
			// COPY (query) TO 'file': the query's reads count; the file is not an asset.
			let depth = 0;
			let close = text.length;
			for (let k = c.i, tok = t.get(k); tok; tok = t.get(++k)) {
				if (tok.value === '(' && tok.kind === 'punct') depth++;
				if (tok.value === ')' && tok.kind === 'punct' && --depth === 0) {
					close = tok.start;
					break;
				}
			}
			return { kind: 'copy_to', name: null, query: c.peek()!.end, queryEnd: close };
		}
		const name = c.name();
		if (!name) return { kind: 'unknown', verb };
		c.nameList();
		if (c.eat('FROM')) return { kind: 'copy_from', name };
		return { kind: 'copy_to', name, query: null, queryEnd: text.length };
	}
	if (c.eat('DELETE')) {
		c.eat('FROM');
		const name = c.name();
		return name ? { kind: 'modify', verb, name } : { kind: 'unknown', verb };
	}
	if (c.eat('UPDATE') || c.eat('TRUNCATE') || c.eat('ALTER') || c.eat('MERGE')) {
		c.eat('TABLE');
		c.eat('INTO');
		const name = c.name();
		return name ? { kind: 'modify', verb, name } : { kind: 'unknown', verb };
	}
	if (IGNORED.has(verb)) return { kind: 'ignored', verb };
	return { kind: 'unknown', verb };
}


/** Where the query of a statement is, in the statement's text; null when it has none. */
export function querySpan(head: StatementHead, length: number): [number, number] | null {
	switch (head.kind) {
		case 'query':
			return [head.query, head.queryEnd];
		case 'create_as':
			return [head.query, length];
		case 'insert':
		case 'copy_to':
			return head.query === null ? null : [head.query, head.queryEnd];
		case 'modify':
			// UPDATE, MERGE and INSERT OVERWRITE are read whole, from the parser's tree.
			return TREE_VERBS.has(head.verb) ? [0, length] : null;
		default:
			return null;
	}
}
