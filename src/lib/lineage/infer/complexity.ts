// The cheap look at compiled SQL before anything parses it: its length, how deeply its brackets
// and CASE expressions nest, and how many tokens it has, in one linear pass over the characters.
// The parser's time and memory grow with these (a WASM parse cannot be interrupted, so a model
// that takes a minute holds its thread for a minute); a model far past what any real model
// reaches is marked too complex in milliseconds instead of being parsed. Pure: the pool runs it
// on its own thread before it sends a model to a parser thread.
import type { InferDialect } from './types';

export interface SqlComplexity {
	/** Characters of the compiled SQL, comments included. */
	chars: number;
	/** The deepest nesting of `(`, `[` and CASE … END, outside strings and comments. */
	depth: number;
	/** Words, numbers, literals, quoted names and operators, outside comments. */
	tokens: number;
}

export type ComplexityMeasure = keyof SqlComplexity;

export type ComplexityLimits = SqlComplexity;

/**
 * Far above every compiled model of the real projects the tests read (their largest figures are in
 * docs/column-lineage.md, "Bounds and fairness"), and below where a parse takes seconds. Depth also
 * stays under the parser's own nesting guard, past which the parse fails anyway.
 */
export const COMPLEXITY_LIMITS: Readonly<ComplexityLimits> = Object.freeze({
	chars: 1_000_000,
	depth: 100,
	tokens: 25_000
});

/** Dialects whose single-quoted strings take backslash escapes (`'it\'s'`). */
const BACKSLASH_ESCAPES = new Set<InferDialect>(['bigquery', 'mysql', 'databricks', 'spark', 'hive', 'clickhouse', 'snowflake', 'athena']);
/** Dialects where `#` starts a comment to the end of the line. */
const HASH_COMMENTS = new Set<InferDialect>(['bigquery', 'mysql', 'clickhouse']);

// Character classes of ASCII (anything past it is part of a word: identifiers may be Unicode).
const SPACE = 1;
const WORD_START = 2;
const WORD_PART = 4;
const DIGIT = 8;
const OPERATOR = 16;
const CLASS = new Uint8Array(128);
for (const ch of ' \t\n\r\f\v') CLASS[ch.charCodeAt(0)] |= SPACE;
for (let c = 0; c < 128; c++) {
	const ch = String.fromCharCode(c);
	if (/[A-Za-z_]/.test(ch)) CLASS[c] |= WORD_START | WORD_PART;
	if (/[0-9]/.test(ch)) CLASS[c] |= DIGIT | WORD_PART;
}
CLASS[36] |= WORD_PART; // $ inside a name (Snowflake, Oracle)
for (const ch of '+-*/<>=!|&^%~:@?') CLASS[ch.charCodeAt(0)] |= OPERATOR;
const is = (c: number, cls: number) => (c < 128 ? (CLASS[c] & cls) !== 0 : cls === WORD_START || cls === WORD_PART);

/** `case` / `end` in any case, at [start, start + 4) / [start, start + 3); `| 32` folds ASCII letters to lower case. */
const isCase = (sql: string, i: number) => (sql.charCodeAt(i) | 32) === 99 && (sql.charCodeAt(i + 1) | 32) === 97 && (sql.charCodeAt(i + 2) | 32) === 115 && (sql.charCodeAt(i + 3) | 32) === 101;
const isEnd = (sql: string, i: number) => (sql.charCodeAt(i) | 32) === 101 && (sql.charCodeAt(i + 1) | 32) === 110 && (sql.charCodeAt(i + 2) | 32) === 100;

/** The end (exclusive) of a quoted run that opened at `i` with `quote`; a doubled quote stays inside. */
function quotedEnd(sql: string, i: number, quote: number, backslash: boolean): number {
	const n = sql.length;
	let j = i + 1;
	while (j < n) {
		const c = sql.charCodeAt(j);
		if (backslash && c === 92) j += 2;
		else if (c === quote) {
			if (sql.charCodeAt(j + 1) === quote) j += 2;
			else return j + 1;
		} else j++;
	}
	return n;
}

const DOLLAR_TAG = /\$[A-Za-z_]*\$/y;

/** One pass over the SQL. Unbalanced closers never take the depth below zero. */
export function measureSql(sql: string, dialect: InferDialect = 'generic'): SqlComplexity {
	const n = sql.length;
	const backslash = BACKSLASH_ESCAPES.has(dialect);
	const hash = HASH_COMMENTS.has(dialect);
	let depth = 0;
	let maxDepth = 0;
	let tokens = 0;
	let i = 0;
	while (i < n) {
		const c = sql.charCodeAt(i);
		if (c < 128 && (CLASS[c] & SPACE) !== 0) {
			i++;
			continue;
		}
		// -- line comment (and # where it is one), /* block comment */
		if ((c === 45 && sql.charCodeAt(i + 1) === 45) || (hash && c === 35)) {
			const eol = sql.indexOf('\n', i);
			i = eol < 0 ? n : eol + 1;
			continue;
		}
		if (c === 47 && sql.charCodeAt(i + 1) === 42) {
			const end = sql.indexOf('*/', i + 2);
			i = end < 0 ? n : end + 2;
			continue;
		}
		tokens++;
		if (c === 39) i = quotedEnd(sql, i, 39, backslash);
		else if (c === 34 || c === 96) i = quotedEnd(sql, i, c, false);
		else if (c === 40 || c === 91) {
			if (++depth > maxDepth) maxDepth = depth;
			i++;
		} else if (c === 41 || c === 93) {
			if (depth > 0) depth--;
			i++;
		} else if (is(c, WORD_START)) {
			const start = i;
			i++;
			while (i < n && is(sql.charCodeAt(i), WORD_PART)) i++;
			// Only CASE and END are looked at as words: the one keyword pair that nests like brackets.
			if (i - start === 4 && isCase(sql, start)) {
				if (++depth > maxDepth) maxDepth = depth;
			} else if (i - start === 3 && depth > 0 && isEnd(sql, start)) depth--;
		} else if (c < 128 && (CLASS[c] & DIGIT) !== 0) {
			while (i < n && (is(sql.charCodeAt(i), WORD_PART) || sql.charCodeAt(i) === 46)) i++;
		} else if (c === 36 && ((DOLLAR_TAG.lastIndex = i), DOLLAR_TAG.test(sql))) {
			// A dollar-quoted string ($$ … $$, $tag$ … $tag$).
			const tag = sql.slice(i, DOLLAR_TAG.lastIndex);
			const end = sql.indexOf(tag, DOLLAR_TAG.lastIndex);
			i = end < 0 ? n : end + tag.length;
		} else if (c < 128 && (CLASS[c] & OPERATOR) !== 0) {
			// `>=`, `||`, `::` are one token each (a comment starting inside the run ends it).
			i++;
			while (i < n) {
				const d = sql.charCodeAt(i);
				if (d >= 128 || (CLASS[d] & OPERATOR) === 0 || (d === 45 && sql.charCodeAt(i + 1) === 45) || (d === 47 && sql.charCodeAt(i + 1) === 42)) break;
				i++;
			}
		} else i++;
	}
	return { chars: n, depth: maxDepth, tokens };
}

export interface TooComplexVerdict {
	measure: ComplexityMeasure;
	/** The SQL's figure for that measure. */
	value: number;
	limit: number;
	/** For the model's outcome: the reason with the figure that tripped it. */
	message: string;
}

const WHAT: Record<ComplexityMeasure, (value: number, limit: number) => string> = {
	chars: (v, l) => `${v.toLocaleString('en-US')} characters of SQL, over the limit of ${l.toLocaleString('en-US')}`,
	depth: (v, l) => `brackets or CASE expressions nested ${v.toLocaleString('en-US')} deep, over the limit of ${l.toLocaleString('en-US')}`,
	tokens: (v, l) => `${v.toLocaleString('en-US')} tokens, over the limit of ${l.toLocaleString('en-US')}`
};

/**
 * Whether the SQL is past a limit, and which (length first: past it nothing is scanned). Null
 * when it may be parsed.
 */
export function tooComplex(sql: string, dialect: InferDialect = 'generic', limits: Readonly<ComplexityLimits> = COMPLEXITY_LIMITS): TooComplexVerdict | null {
	const verdict = (measure: ComplexityMeasure, value: number): TooComplexVerdict => ({
		measure,
		value,
		limit: limits[measure],
		message: `too complex to analyse: ${WHAT[measure](value, limits[measure])} (checked before parsing)`
	});
	if (sql.length > limits.chars) return verdict('chars', sql.length);
	const m = measureSql(sql, dialect);
	if (m.depth > limits.depth) return verdict('depth', m.depth);
	if (m.tokens > limits.tokens) return verdict('tokens', m.tokens);
	return null;
}
