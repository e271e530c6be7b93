// The constructs warehouses use, per dialect (docs/column-lineage.md, "Constructs and dialects"):
// struct and array access, UNNEST/FLATTEN/EXPLODE, star modifiers, QUALIFY, MERGE, UPDATE … FROM,
// INSERT OVERWRITE … PARTITION, PIVOT/UNPIVOT; and bad input as a per-statement outcome.
import { describe, expect, it } from 'vitest';
import { parseStatement } from './parse';
import { LineageSession } from './session';
import { blankComments, splitStatements } from './text';
import type { KnownRelation, NameResolver, SqlDialect, StatementLineage } from './types';

const RELATIONS: Record<string, KnownRelation> = {
	orders: { node: 'orders', label: 'orders', columns: ['id', 'customer', 'amount', 'items', 'status'], complete: true },
	sales: { node: 'sales', label: 'sales', columns: ['id', 'jan', 'feb'], complete: true },
	target: { node: 'target', label: 'target', columns: ['id', 'amount'], complete: true },
	daily: { node: 'daily', label: 'daily', columns: ['id', 'amount', 'dt'], complete: true },
	// Two columns whose names differ only in case (a quoted name beside an unquoted one).
	mixed: { node: 'mixed', label: 'mixed', columns: ['id', 'ID', 'Amount', 'amount'], complete: true }
};
const resolve: NameResolver = (parts) => RELATIONS[parts[parts.length - 1].toLowerCase()] ?? { unknown: `${parts.join('.')} is not known here` };

function run(sql: string, dialect: SqlDialect): StatementLineage[] {
	const session = new LineageSession({ resolve, budgetMs: 5_000 });
	return splitStatements(blankComments(sql)).map((st) => session.run(parseStatement(st.text, dialect)));
}

function edges(r: StatementLineage): string[] {
	const lines = (r.columns ?? []).map((c) => `${c.name ?? '?'} <- ${c.inputs.map((i) => `${i.node}.${i.column}:${i.kind}`).sort().join(', ')}`.trimEnd());
	if (r.scanned.length) lines.push(`scan: ${r.scanned.map((s) => `${s.node}.${s.column}`).sort().join(', ')}`);
	return lines;
}

describe('constructs per dialect', () => {
	it.each<[SqlDialect, string]>([
		['bigquery', 'SELECT o.customer.address.city AS city FROM orders AS o'],
		['snowflake', 'SELECT o.customer:address.city::text AS "city" FROM orders AS o'],
		['databricks', "SELECT o.customer['address'] AS city FROM orders AS o"],
		['duckdb', 'SELECT o.customer.address AS city FROM orders AS o'],
		['trino', 'SELECT o.customer[1] AS city FROM orders AS o']
	])('%s: struct and array access is lineage of the root column', (dialect, sql) => {
		const [r] = run(sql, dialect);
		expect(r.outcome).toBe('analyzed');
		expect(edges(r)).toEqual(['city <- orders.customer:mod']);
	});

	it.each<[SqlDialect, string]>([
		['bigquery', 'SELECT o.id, item FROM orders AS o, UNNEST(o.items) AS item'],
		['snowflake', 'SELECT o.id AS "id", f.value AS "item" FROM orders AS o, LATERAL FLATTEN(input => o.items) f'],
		['databricks', 'SELECT o.id, item FROM orders AS o LATERAL VIEW explode(o.items) t AS item'],
		['postgres', 'SELECT o.id, item FROM orders AS o CROSS JOIN LATERAL unnest(o.items) AS item'],
		['trino', 'SELECT o.id, item FROM orders AS o CROSS JOIN UNNEST(o.items) AS t (item)']
	])('%s: what UNNEST, FLATTEN or EXPLODE yields descends from the array column', (dialect, sql) => {
		const [r] = run(sql, dialect);
		expect(edges(r)).toEqual(['id <- orders.id:copy', 'item <- orders.items:mod']);
	});

	it('star modifiers expand to exactly the columns left (BigQuery EXCEPT/REPLACE, Snowflake EXCLUDE/RENAME, DuckDB EXCLUDE)', () => {
		expect(edges(run('SELECT * EXCEPT (items, status) REPLACE (amount * 2 AS amount) FROM orders', 'bigquery')[0])).toEqual([
			'id <- orders.id:copy',
			'customer <- orders.customer:copy',
			'amount <- orders.amount:mod'
		]);
		expect(edges(run('SELECT * EXCLUDE (items, status) RENAME (amount AS total) FROM orders', 'snowflake')[0])).toEqual([
			'id <- orders.id:copy',
			'customer <- orders.customer:copy',
			'total <- orders.amount:copy'
		]);
		expect(edges(run('SELECT * EXCLUDE (items, status, customer) FROM orders', 'duckdb')[0])).toEqual(['id <- orders.id:copy', 'amount <- orders.amount:copy']);
	});

	it('QUALIFY reads its columns to filter (a scan)', () => {
		const [r] = run('SELECT id FROM orders QUALIFY row_number() OVER (PARTITION BY customer ORDER BY amount DESC) = 1', 'snowflake');
		expect(edges(r)).toEqual(['ID <- orders.id:copy', 'scan: orders.amount, orders.customer']);
	});

	it('MERGE gives lineage into both its update and its insert targets', () => {
		const [r] = run(
			`MERGE INTO target t USING orders o ON t.id = o.id
			 WHEN MATCHED AND o.status = 'x' THEN UPDATE SET amount = o.amount * 2
			 WHEN NOT MATCHED THEN INSERT (id, amount) VALUES (o.id, o.amount)`,
			'snowflake'
		);
		expect(r).toMatchObject({ kind: 'merge', outcome: 'analyzed', target: { node: 'target' }, reads: ['orders'] });
		expect(edges(r)).toEqual(['amount <- orders.amount:mod', 'id <- orders.id:copy', 'scan: orders.id, orders.status, target.id']);
	});

	it('UPDATE … FROM: each SET column from its expression (Postgres, and T-SQL naming the target by its alias)', () => {
		const [pg] = run('UPDATE target AS t SET amount = o.amount FROM orders AS o WHERE o.id = t.id', 'postgres');
		expect(edges(pg)).toEqual(['amount <- orders.amount:copy', 'scan: orders.id, target.id']);
		const [ts] = run('UPDATE t SET t.amount = o.amount FROM target t JOIN orders o ON t.id = o.id', 'tsql');
		expect(ts.target?.node).toBe('target');
		expect(edges(ts)).toEqual(['amount <- orders.amount:copy', 'scan: orders.id, target.id']);
	});

	it('INSERT OVERWRITE … PARTITION (Spark): by position over the columns the partition does not fill', () => {
		const [r] = run('INSERT OVERWRITE TABLE daily PARTITION (dt = 20250101) SELECT id, amount FROM orders', 'spark');
		expect(r).toMatchObject({ kind: 'insert', outcome: 'analyzed' });
		expect(edges(r)).toEqual(['id <- orders.id:copy', 'amount <- orders.amount:copy']);
	});

	it('PIVOT: pivoted columns from the aggregate, the key a scan; UNPIVOT: values and names from the columns listed', () => {
		const [p] = run("SELECT * FROM (SELECT id, status, amount FROM orders) PIVOT (sum(amount) FOR status IN ('paid' AS paid, 'open' AS open))", 'snowflake');
		expect(edges(p)).toEqual(['ID <- orders.id:copy', 'paid <- orders.amount:mod', 'open <- orders.amount:mod', 'scan: orders.status']);
		const [u] = run('SELECT * FROM sales UNPIVOT (amount FOR month IN (jan, feb))', 'snowflake');
		expect(edges(u)).toEqual(['id <- sales.id:copy', 'month <- sales.feb:mod, sales.jan:mod', 'amount <- sales.feb:copy, sales.jan:copy']);
	});

	it.each<[SqlDialect, string]>([
		['postgres', 'SELECT db.orders.id, y.amount AS amount FROM db.orders AS y'],
		['duckdb', 'SELECT main.orders.id, orders.amount FROM main.orders'],
		['snowflake', 'SELECT db.main.orders.id AS "id", amount AS "amount" FROM db.main.orders o'],
		['redshift', 'SELECT orders.id, o.amount FROM public.orders o']
	])('%s: a column qualified by its schema (and database) is that column, a copy, named by its last part', (dialect, sql) => {
		const [r] = run(sql, dialect);
		expect(r.outcome).toBe('analyzed');
		expect(edges(r)).toEqual(['id <- orders.id:copy', 'amount <- orders.amount:copy']);
	});

	it('a struct field without an alias is named by the field, lineage of its root column', () => {
		const [r] = run('SELECT o.customer.city FROM orders AS o', 'bigquery');
		expect(edges(r)).toEqual(['city <- orders.customer:mod']);
	});

	it('`t.*` over an aliased table names it by its own name', () => {
		const [r] = run('SELECT sales.* FROM sales s JOIN orders o ON s.id = o.id', 'databricks');
		expect(edges(r)).toEqual(['id <- sales.id:copy', 'jan <- sales.jan:copy', 'feb <- sales.feb:copy', 'scan: orders.id, sales.id']);
	});

	it.each<[SqlDialect, string]>([
		['postgres', 'SELECT o.id, s.jan FROM ((orders AS o JOIN sales AS s ON o.id = s.id))'],
		['databricks', 'SELECT o.id, s.jan FROM (orders o JOIN sales s ON o.id = s.id)'],
		['trino', 'SELECT o.id, s.jan FROM daily d JOIN (orders o JOIN sales s ON o.id = s.id) ON d.id = o.id']
	])('%s: the tables of a parenthesised join are inputs of the SELECT', (dialect, sql) => {
		const [r] = run(sql, dialect);
		expect(r.outcome).toBe('analyzed');
		expect(edges(r).slice(0, 2)).toEqual(['id <- orders.id:copy', 'jan <- sales.jan:copy']);
		expect(edges(r)[2]).toMatch(/^scan: .*orders\.id, sales\.id$/);
	});

	it.each<[SqlDialect, string[]]>([
		['snowflake', ['ID <- orders.id:copy', 'TOTAL <- orders.amount:copy', 'Total <- orders.amount:copy']],
		['postgres', ['id <- orders.id:copy', 'total <- orders.amount:copy', 'Total <- orders.amount:copy']],
		['redshift', ['id <- orders.id:copy', 'total <- orders.amount:copy', 'total <- orders.amount:copy']],
		['trino', ['id <- orders.id:copy', 'total <- orders.amount:copy', 'total <- orders.amount:copy']],
		['bigquery', ['Id <- orders.id:copy', 'Total <- orders.amount:copy', 'Total <- orders.amount:copy']],
		['duckdb', ['Id <- orders.id:copy', 'Total <- orders.amount:copy', 'Total <- orders.amount:copy']]
	])('%s: output names fold as the warehouse folds unquoted (and quoted) identifiers', (dialect, want) => {
		const q = dialect === 'bigquery' ? '`' : '"';
		const [r] = run(`SELECT Id, amount AS Total, amount AS ${q}Total${q} FROM orders`, dialect);
		expect(edges(r)).toEqual(want);
	});

	it('names that differ only in case: the reference is the column its folded name is', () => {
		expect(edges(run('SELECT id AS a, "id" AS b FROM mixed', 'snowflake')[0])).toEqual(['A <- mixed.ID:copy', 'B <- mixed.id:copy']);
		expect(edges(run('SELECT AMOUNT AS a, "Amount" AS b FROM mixed', 'postgres')[0])).toEqual(['a <- mixed.amount:copy', 'b <- mixed.Amount:copy']);
	});

	it('a word the parser reserves, quoted to parse, still folds as the dialect folds it', () => {
		const [r] = run('SELECT proc.id, first.amount FROM orders proc JOIN daily first ON first.id = proc.id', 'snowflake');
		expect(r.outcome).toBe('analyzed');
		expect(edges(r).slice(0, 2)).toEqual(['ID <- orders.id:copy', 'AMOUNT <- daily.amount:copy']);
	});

	it('a quoted name keeps its case in the output; matching stays case-insensitive', () => {
		const [r] = run('SELECT "Amount" AS "Total", ID FROM orders', 'snowflake');
		expect(edges(r)).toEqual(['Total <- orders.amount:copy', 'ID <- orders.id:copy']);
	});
});

describe('bad input is a per-statement outcome, bounded', () => {
	it('a Jinja leftover, a dialect extension and an over-long statement fail alone, with the reason; the next statement is analysed', () => {
		const big = `SELECT id FROM orders WHERE status IN (${Array.from({ length: 200_000 }, (_, k) => `'s${k}'`).join(', ')})`;
		expect(big.length).toBeGreaterThan(2_000_000);
		const rs = run(`SELECT id FROM {{ ref('orders') }}; SELECT id FROM orders; SELECT DOB (TITLE 'x') FROM orders; ${big}; SELECT amount FROM orders`, 'snowflake');
		expect(rs.map((r) => r.outcome)).toEqual(['failed', 'analyzed', 'failed', 'failed', 'analyzed']);
		expect(rs[3].reason).toMatch(/^too complex to analyse: \d+ characters/);
		for (const r of [rs[0], rs[2]]) expect(r.reason).toBeTruthy();
	}, 120_000);

	it('500 nested parentheses and 10,000 UNION ALL branches end as outcomes, not crashes', () => {
		const nested = `SELECT ${'('.repeat(500)}id${')'.repeat(500)} AS id FROM orders`;
		const union = Array.from({ length: 10_000 }, () => 'SELECT id FROM orders').join(' UNION ALL ');
		const [a, b] = run(`${nested}; ${union}`, 'duckdb');
		expect(a.outcome).toBe('failed');
		expect(a.reason).toMatch(/too complex|nest|depth|recursion/i);
		expect(['analyzed', 'failed']).toContain(b.outcome);
		if (b.outcome === 'failed') expect(b.reason).toMatch(/too complex/);
	}, 120_000);
});
