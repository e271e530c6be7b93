// Compiled SQL no real model resembles, shaped to make a parser work for seconds or run out of
// stack: the shapes of the security review's lineage finding, and one past the length limit.
// Each reads `from` (a relation with `column` and `id`), so around them a project stays valid.
import type { ComplexityMeasure } from '../../src/lib/lineage/infer/complexity';

export interface PathologicalSql {
	name: string;
	sql: string;
	/** The measure of the scan before parsing that stops it. */
	trips: ComplexityMeasure;
}

export function pathologicalSql(opts: { from?: string; column?: string; variant?: number } = {}): PathologicalSql[] {
	const from = opts.from ?? 'db.raw.orders';
	const col = opts.column ?? 'amount';
	// A variant changes every model's text (and so its digest), as distinct models of one deploy would.
	const v = opts.variant ?? 0;
	const range = (n: number) => Array.from({ length: n }, (_, k) => k);
	return [
		{ name: '100,000 nested parentheses', trips: 'depth', sql: `select ${'('.repeat(100_000)}${col} + ${v}${')'.repeat(100_000)} as x from ${from}` },
		{ name: 'a 20,000-column select', trips: 'tokens', sql: `select ${range(20_000).map((k) => `${col} + ${k + v} as c${k}`).join(', ')} from ${from}` },
		{ name: 'a 20,000-arm CASE', trips: 'tokens', sql: `select case ${range(20_000).map((k) => `when ${col} = ${k} then ${k + v}`).join(' ')} else 0 end as x from ${from}` },
		{ name: '3,000 nested subqueries', trips: 'depth', sql: `${'select * from ('.repeat(3000)}select id, ${col} + ${v} as ${col} from ${from}${') t'.repeat(3000)}` },
		{
			name: 'a 3,000-CTE chain',
			trips: 'tokens',
			sql: `with c0 as (select id, ${col} + ${v} as ${col} from ${from}), ${range(2999)
				.map((k) => `c${k + 1} as (select id, ${col} from c${k})`)
				.join(', ')} select * from c2999`
		},
		{ name: '1.1 MB of SQL', trips: 'chars', sql: `select id, ${col} + ${v} as ${col} from ${from}\n${'-- a comment line of forty-four characters\n'.repeat(25_000)}` }
	];
}
