// A small read-only SQL highlighter for the details pane: keywords, strings, quoted
// identifiers, numbers, comments and Jinja (`{{ }}`, `{% %}`, `{# #}`), which is what a dbt
// model's raw SQL is made of. Tokens only: the component renders them as text, never as HTML.

export type TokenType = 'keyword' | 'string' | 'ident' | 'number' | 'comment' | 'jinja' | 'plain';

export interface Token {
	type: TokenType;
	text: string;
}

const KEYWORDS = new Set(
	`select from where and or not in is null as on join left right inner outer full cross using group by order having limit offset
	union all distinct case when then else end with recursive insert into values update set delete create replace table view
	materialized if exists drop alter add column primary key references default cast between like ilike over partition window
	rows range preceding following current row asc desc nulls first last true false qualify lateral unnest interval exclude
	coalesce count sum avg min max date timestamp varchar integer bigint boolean double decimal numeric text filter within
	intersect except natural returning merge matched attach describe pivot unpivot struct array map`
		.split(/\s+/)
		.filter(Boolean)
);

export function highlightSql(src: string): Token[] {
	const out: Token[] = [];
	const push = (type: TokenType, text: string) => {
		const last = out[out.length - 1];
		if (last && last.type === type && type === 'plain') last.text += text;
		else out.push({ type, text });
	};
	let i = 0;
	const n = src.length;
	const until = (end: string, from: number) => {
		const j = src.indexOf(end, from);
		return j < 0 ? n : j + end.length;
	};
	while (i < n) {
		const c = src[i];
		const two = src.slice(i, i + 2);
		let j: number;
		if (two === '{{' || two === '{%' || two === '{#') {
			j = until(two === '{{' ? '}}' : two === '{%' ? '%}' : '#}', i + 2);
			push(two === '{#' ? 'comment' : 'jinja', src.slice(i, j));
		} else if (two === '--') {
			j = until('\n', i);
			if (src[j - 1] === '\n') j--;
			push('comment', src.slice(i, j));
		} else if (two === '/*') {
			j = until('*/', i + 2);
			push('comment', src.slice(i, j));
		} else if (c === "'") {
			// '' inside a string is an escaped quote, not its end.
			j = i + 1;
			while (j < n) {
				if (src[j] === "'" && src[j + 1] === "'") j += 2;
				else if (src[j] === "'") {
					j++;
					break;
				} else j++;
			}
			push('string', src.slice(i, j));
		} else if (c === '"' || c === '`') {
			j = until(c, i + 1);
			push('ident', src.slice(i, j));
		} else if (/[0-9]/.test(c) && !/[A-Za-z0-9_]/.test(src[i - 1] ?? '')) {
			j = i;
			while (j < n && /[0-9.]/.test(src[j])) j++;
			push('number', src.slice(i, j));
		} else if (/[A-Za-z_]/.test(c)) {
			j = i;
			while (j < n && /[A-Za-z0-9_$]/.test(src[j])) j++;
			const word = src.slice(i, j);
			push(KEYWORDS.has(word.toLowerCase()) ? 'keyword' : 'plain', word);
		} else {
			j = i + 1;
			push('plain', c);
		}
		i = j;
	}
	return out;
}
