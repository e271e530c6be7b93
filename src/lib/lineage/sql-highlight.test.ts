import { describe, expect, it } from 'vitest';
import { highlightSql, type TokenType } from './sql-highlight';

const typed = (src: string, type: TokenType) => highlightSql(src).filter((t) => t.type === type).map((t) => t.text);

describe('highlightSql', () => {
	it.each([
		{ src: "select id from {{ ref('orders') }}", type: 'jinja' as const, want: ["{{ ref('orders') }}"] },
		{ src: '{% if is_incremental() %} where x > 1 {% endif %}', type: 'jinja' as const, want: ['{% if is_incremental() %}', '{% endif %}'] },
		{ src: "select 'it''s', 'b'", type: 'string' as const, want: ["'it''s'", "'b'"] },
		{ src: 'select 1 -- note\nfrom t /* block\n */', type: 'comment' as const, want: ['-- note', '/* block\n */'] },
		{ src: '{# hidden #} select', type: 'comment' as const, want: ['{# hidden #}'] },
		{ src: 'SELECT a FROM t WHERE a IS NOT NULL', type: 'keyword' as const, want: ['SELECT', 'FROM', 'WHERE', 'IS', 'NOT', 'NULL'] },
		{ src: 'select col1, 42, 3.5', type: 'number' as const, want: ['42', '3.5'] },
		{ src: 'select "Order Id" from t', type: 'ident' as const, want: ['"Order Id"'] }
	])('$type in $src', ({ src, type, want }) => {
		expect(typed(src, type)).toEqual(want);
	});

	it('keeps every character, in order', () => {
		const src = "with a as (select 'x' as y -- c\n) select * from {{ ref('a') }} /* unterminated";
		expect(highlightSql(src).map((t) => t.text).join('')).toBe(src);
	});
});
