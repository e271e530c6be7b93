// Where the comments of a SQL script are: `--` to the end of the line, `/* … */`, and `//` when it
// opens a line (producer scripts accept it as an annotation comment). Strings, quoted
// identifiers and dollar-quoted bodies are skipped, so a `--` inside them is text. Pure: shared
// by the annotation reader and the statement splitter, so both agree on what is a comment.

export interface SqlComment {
	start: number;
	/** Exclusive; a line comment ends before its newline. */
	end: number;
	kind: 'line' | 'block';
	/** Only whitespace precedes it on its line. */
	ownLine: boolean;
}

const DOLLAR_TAG = /\$[A-Za-z_]*\$/y;

/** The index after the quoted text opening at `i` (a doubled quote is one literal quote). */
export function skipQuoted(s: string, i: number, q: string): number {
	let j = i + 1;
	for (;;) {
		const k = s.indexOf(q, j);
		if (k < 0) return s.length;
		if (s[k + 1] !== q) return k + 1;
		j = k + 2;
	}
}

/** The index after a `$tag$ … $tag$` body opening at `i`, or null when no tag opens there. */
export function skipDollarQuoted(s: string, i: number): number | null {
	DOLLAR_TAG.lastIndex = i;
	const tag = DOLLAR_TAG.exec(s);
	if (!tag) return null;
	const close = s.indexOf(tag[0], i + tag[0].length);
	return close < 0 ? s.length : close + tag[0].length;
}

export function sqlComments(sql: string): SqlComment[] {
	const out: SqlComment[] = [];
	const n = sql.length;
	let i = 0;
	let lineStart = true;
	while (i < n) {
		const c = sql[i];
		if (c === '\n') {
			lineStart = true;
			i++;
			continue;
		}
		if (c === ' ' || c === '\t' || c === '\r') {
			i++;
			continue;
		}
		const ownLine = lineStart;
		lineStart = false;
		if ((c === '-' && sql[i + 1] === '-') || (ownLine && c === '/' && sql[i + 1] === '/')) {
			let j = sql.indexOf('\n', i);
			if (j < 0) j = n;
			out.push({ start: i, end: j, kind: 'line', ownLine });
			i = j;
			continue;
		}
		if (c === '/' && sql[i + 1] === '*') {
			let j = sql.indexOf('*/', i + 2);
			j = j < 0 ? n : j + 2;
			out.push({ start: i, end: j, kind: 'block', ownLine });
			i = j;
			continue;
		}
		if (c === "'" || c === '"') {
			i = skipQuoted(sql, i, c);
			continue;
		}
		if (c === '$') {
			const j = skipDollarQuoted(sql, i);
			if (j !== null) {
				i = j;
				continue;
			}
		}
		i++;
	}
	return out;
}
