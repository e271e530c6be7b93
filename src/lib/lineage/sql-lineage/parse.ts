// A statement's text → its head and its query's parse tree (@polyglot-sql/sdk, a WASM port of
// sqlglot, chosen by measurement: bench/README.md "sql-parsers"). Its Node entry initialises the
// WASM on import (heavy, per thread), so this module is imported only where SQL is parsed:
// inference threads, the producer-analysis thread, tests and benchmarks.
import { generate, parse } from '@polyglot-sql/sdk';
import { COMPLEXITY_LIMITS } from '../infer/complexity';
import { foldIdentifier, POLYGLOT_DIALECT, quoteIdentifier } from './dialect';
import { queryRoot, type Ast } from './query';
import { blankComments, querySpan, statementHead, type StatementHead } from './text';
import type { SqlDialect, SqlPosition } from './types';

/** Past this size a statement is not analysed: parse time and memory grow with it, and no real model is near it. */
export const MAX_SQL_CHARS = COMPLEXITY_LIMITS.chars;

/** Retries after quoting a keyword the parser refused as an identifier; each costs a parse. */
const MAX_KEYWORD_RETRIES = 8;

export interface ParsedStatement {
	/** The statement as given. */
	text: string;
	dialect: SqlDialect;
	head: StatementHead;
	/** The query's tree (SELECT, WITH, a set operation), when the statement has one and it parsed. */
	query: Ast | null;
	/** What the parser read where a query was expected, when it is something else (DuckDB's PIVOT). */
	other: Ast | null;
	/** Why the query could not be read, and where (in the statement). */
	failure: { message: string; position: SqlPosition | null } | null;
}

/**
 * Parses, and where the parser refuses a word its grammar reserves but the warehouse does not
 * (`from claims proc`, `join values first` parse on Snowflake), quotes the word it stopped at and
 * tries again. Compiled SQL has run on its warehouse, so a refusal is the parser's, not the SQL's.
 * The word is quoted in the case the dialect folds it to, so quoting does not change what it names.
 * The first failure is the one reported when no retry helps.
 */
function parseTolerantly(sql: string, dialect: SqlDialect): Ast {
	const name = POLYGLOT_DIALECT[dialect] as never;
	const first = parse(sql, name) as Ast;
	let current = first;
	let text = sql;
	for (let k = 0; k < MAX_KEYWORD_RETRIES && !current.success; k++) {
		const start = current.errorStart;
		if (typeof start !== 'number' || /["`\w]/.test(text[start - 1] ?? '')) break;
		const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(start))?.[0];
		if (!word) break;
		// Quoted as the dialect folds it unquoted, so the name it gives is the same.
		text = `${text.slice(0, start)}${quoteIdentifier(dialect, foldIdentifier(dialect, word, false))}${text.slice(start + word.length)}`;
		current = parse(text, name) as Ast;
	}
	return current.success ? current : first;
}

const PARSER_POSITION = /^Parse error at line \d+, column \d+: /;

/**
 * Parses the query a statement holds. `wholeQuery`: the statement IS a query (a model's compiled
 * SQL): no head is read and the parser's message is kept as it is (it names the line itself).
 * `head`: the statement's head, when the caller has read it already.
 */
export function parseStatement(text: string, dialect: SqlDialect, opts: { wholeQuery?: boolean; head?: StatementHead } = {}): ParsedStatement {
	const head: StatementHead = opts.wholeQuery ? { kind: 'query', query: 0, queryEnd: text.length } : (opts.head ?? statementHead(blankComments(text)));
	const out: ParsedStatement = { text, dialect, head, query: null, other: null, failure: null };
	const span = querySpan(head, text.length);
	if (!span) return out;
	const [from, to] = span;
	const fail = (message: string, line?: number | null, column?: number | null) => {
		out.failure = { message, position: typeof line === 'number' ? statementPosition(text, from, line, column ?? null) : null };
		return out;
	};
	if (to - from > MAX_SQL_CHARS) return fail(`too complex to analyse: ${to - from} characters, over ${MAX_SQL_CHARS}`);
	let parsed: Ast;
	try {
		parsed = parseTolerantly(text.slice(from, to), dialect);
	} catch (e) {
		return fail(`the parser stopped: ${(e as Error).message ?? e}`);
	}
	if (!parsed.success) {
		const raw = String(parsed.error ?? 'could not be parsed');
		// The parser's own guards (nesting depth, size) mean the same as ours.
		const message = raw.includes('E_GUARD_') ? `too complex to analyse: ${raw}` : opts.wholeQuery ? raw : raw.replace(PARSER_POSITION, '');
		return fail(message, parsed.errorLine, parsed.errorColumn);
	}
	const roots = (parsed.ast ?? []) as Ast[];
	out.query = roots.map(queryRoot).find((q) => q !== null) ?? null;
	if (!out.query) {
		out.other = roots[0] ?? null;
		if (opts.wholeQuery || !out.other) return fail(opts.wholeQuery ? 'the compiled SQL is not a query (SELECT, WITH or a set operation)' : 'no query where one was expected');
	}
	return out;
}

/** A position the parser gave in the query (from `from` in the statement) as one in the statement. */
function statementPosition(text: string, from: number, line: number, column: number | null): SqlPosition {
	let lines = 0;
	let lineStart = 0;
	for (let k = 0; k < from; k++)
		if (text[k] === '\n') {
			lines++;
			lineStart = k + 1;
		}
	if (line > 1 || column === null) return { line: lines + line, column };
	return { line: lines + 1, column: from - lineStart + column };
}

/** An expression as SQL (the parser's spelling), for a message; null when it cannot be written. */
export function expressionText(expr: Ast, dialect: SqlDialect): string | null {
	try {
		const r = generate([expr], POLYGLOT_DIALECT[dialect] as never) as { success: boolean; sql: string[] | null };
		return r.success && r.sql?.[0] ? r.sql[0] : null;
	} catch {
		return null;
	}
}

/** A statement whose query is left unread (a caller's budget): its head still says what it writes. */
export function unparsedStatement(text: string, dialect: SqlDialect, head: StatementHead): ParsedStatement {
	return { text, dialect, head, query: null, other: null, failure: null };
}
