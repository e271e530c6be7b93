// The engine's statement API, dialect by dialect where it matters: statements in, per-statement
// outcomes with edges and kinds out. The model path (one query per model) is covered by
// src/lib/lineage/infer/infer.test.ts, the producer path by src/lib/server/producers/analyze.test.ts.
import { describe, expect, it } from 'vitest';
import { parseStatement } from './parse';
import { LineageSession } from './session';
import { blankComments, splitStatements } from './text';
import type { KnownRelation, NameResolver, SqlDialect, StatementLineage } from './types';

const RELATIONS: Record<string, KnownRelation> = {
	'main.orders': { node: 'orders', label: 'main.orders', columns: ['order_id', 'customer_id', 'amount', 'status'], complete: true },
	'main.customers': { node: 'customers', label: 'main.customers', columns: ['customer_id', 'name'], complete: true },
	'main.declared': { node: 'declared', label: 'main.declared', columns: ['b', 'a'], complete: true, ordered: false },
	'main.partial': { node: 'partial', label: 'main.partial', columns: ['x'], complete: false },
	'lake.out': { node: 'out', label: 'lake.out', columns: null, complete: false }
};
const resolve: NameResolver = (parts) => RELATIONS[parts.join('.').toLowerCase()] ?? { unknown: `${parts.join('.')} is not known here` };

/** Runs a script's statements in one session. */
function runScript(sql: string, dialect: SqlDialect = 'duckdb'): StatementLineage[] {
	const session = new LineageSession({ resolve });
	return splitStatements(blankComments(sql)).map((st) => session.run(parseStatement(st.text, dialect)));
}

/** `out <- node.col:kind` per written/returned column, then `scan: …`. */
function edges(r: StatementLineage): string[] {
	const lines = (r.columns ?? []).map((c) => `${c.name ?? '?'} <- ${c.inputs.map((i) => `${i.node}.${i.column}:${i.kind}`).sort().join(', ')}`.trimEnd());
	if (r.scanned.length) lines.push(`scan: ${r.scanned.map((s) => `${s.node}.${s.column}`).sort().join(', ')}`);
	return lines;
}

describe('statement kinds', () => {
	it('CREATE TABLE … AS writes its target; a later statement reads it back through what was written', () => {
		const [create, insert] = runScript(`
			CREATE TEMP TABLE t AS SELECT customer_id AS id, amount * 2 AS doubled FROM main.orders WHERE status = 'paid';
			INSERT INTO lake.out (a, b) SELECT id, doubled FROM t;`);
		expect(create).toMatchObject({ kind: 'create_as', outcome: 'analyzed', target: { name: ['t'], node: null }, reads: ['orders'] });
		expect(edges(create)).toEqual(['id <- orders.customer_id:copy', 'doubled <- orders.amount:mod', 'scan: orders.status']);
		expect(insert).toMatchObject({ kind: 'insert', outcome: 'analyzed', target: { node: 'out', label: 'lake.out' }, reads: [] });
		// t's rows were filtered by status: the filter is a scan of what reads them, as a CTE's is.
		expect(edges(insert)).toEqual(['a <- orders.customer_id:copy', 'b <- orders.amount:mod', 'scan: orders.status']);
	});

	it('INSERT maps by its column list, by the target’s columns by position, or BY NAME', () => {
		const [, byPosition, byList, byName] = runScript(`
			CREATE TABLE t (x INT, y INT);
			INSERT INTO t SELECT order_id, amount FROM main.orders;
			INSERT INTO t (y, x) SELECT order_id, amount FROM main.orders;
			INSERT INTO t BY NAME SELECT amount AS y FROM main.orders;`);
		expect(edges(byPosition)).toEqual(['x <- orders.order_id:copy', 'y <- orders.amount:copy']);
		expect(edges(byList)).toEqual(['y <- orders.order_id:copy', 'x <- orders.amount:copy']);
		expect(edges(byName)).toEqual(['y <- orders.amount:copy']);
	});

	it('an INSERT it cannot match is partial, saying why', () => {
		const [unknownTarget, wrongWidth, unordered] = runScript(`
			INSERT INTO lake.out SELECT order_id FROM main.orders;
			INSERT INTO lake.out (a, b) SELECT order_id FROM main.orders;
			INSERT INTO lake.out (a, b) SELECT * FROM main.declared;`);
		expect(unknownTarget).toMatchObject({ outcome: 'partial', reason: expect.stringContaining('without a column list: the columns of lake.out are unknown') });
		expect(wrongWidth.reason).toBe('INSERT INTO lake.out: 1 values for 2 columns');
		expect(unordered.reason).toBe('INSERT INTO lake.out: values in an unknown order for 2 columns');
	});

	it('CREATE VIEW, and COPY … TO (whose rows go to a file: reads only)', () => {
		const [view, copy, copyTable] = runScript(`
			CREATE OR REPLACE VIEW v (n) AS SELECT name FROM main.customers;
			COPY (SELECT v.n, o.amount FROM v JOIN main.orders AS o ON true) TO 'x.parquet' (FORMAT parquet);
			COPY main.customers TO 'c.csv';`);
		expect(edges(view)).toEqual(['n <- customers.name:copy']);
		expect(copy).toMatchObject({ kind: 'copy_to', outcome: 'analyzed', target: null, columns: null, reads: ['orders'] });
		expect(copyTable).toMatchObject({ outcome: 'analyzed', reads: ['customers'] });
	});

	it('statements that move no data are skipped with the reason; DELETE names its target', () => {
		const [attach, drop, del, unknown] = runScript(`ATTACH 'ducklake:x.ducklake' AS lake; DROP TABLE t; DELETE FROM lake.out WHERE a = 1; GRANT SELECT ON t TO u`);
		expect(attach).toMatchObject({ outcome: 'skipped', kind: 'attach' });
		expect(drop).toMatchObject({ outcome: 'skipped', reason: 'DROP moves no data between tables' });
		expect(del).toMatchObject({ outcome: 'skipped', target: { node: 'out' }, reason: 'DELETE is not analysed for column lineage' });
		expect(unknown).toMatchObject({ outcome: 'skipped', reason: 'statement not analysed (GRANT)' });
	});
});

describe('per-statement outcomes', () => {
	it('a parse failure is the statement’s, with its line and column; the next statement is unaffected', () => {
		const [bad, good] = runScript(`CREATE TABLE lake.out AS\nSELECT a,,\nFROM main.orders;\nSELECT order_id FROM main.orders;`);
		expect(bad).toMatchObject({ outcome: 'failed', target: { node: 'out' }, position: { line: 2 } });
		expect(bad.reason).not.toMatch(/^Parse error at line/);
		expect(good.outcome).toBe('analyzed');
	});

	it('what a statement not analysed wrote is not read back as older contents', () => {
		const [, after] = runScript(`CREATE TEMP TABLE t AS SELEC 1; SELECT x FROM t;`);
		expect(after).toMatchObject({ outcome: 'partial', untraced: [{ column: 'x', reason: expect.stringContaining('t was written by a statement not analysed') }] });
	});

	it('PIVOT is failed with the construct named, and what it reads still counts', () => {
		const [p] = runScript(`CREATE TABLE lake.out AS\n  PIVOT main.orders ON status USING sum(amount) GROUP BY customer_id`);
		expect(p).toMatchObject({ outcome: 'failed', reason: expect.stringMatching(/^PIVOT is not analysed/), position: { line: 2 }, reads: ['orders'] });
	});

	it('a name that resolves to nothing is listed once; its columns are untraced with its reason', () => {
		const [r] = runScript(`SELECT s.a, s.b, o.order_id FROM scratch AS s JOIN main.orders AS o ON o.order_id = s.a`);
		expect(r.unresolved).toEqual([{ label: 'scratch', reason: 'scratch is not known here' }]);
		expect(r.outcome).toBe('partial');
		expect(r.untraced.map((u) => u.column)).toEqual(['a', 'b']);
		expect(r.untraced.every((u) => u.reason.includes('scratch is not known here'))).toBe(true);
		expect(r.scanUntraced).toEqual([expect.stringContaining('scratch is not known here')]);
	});

	it('a star over columns known in part: the known ones, and the rest said', () => {
		const [r] = runScript(`SELECT * FROM main.partial`);
		expect(edges(r)).toEqual(['x <- partial.x:copy']);
		expect(r.untraced).toEqual([{ column: '*', reason: '* over main.partial expands only the columns known so far (1)' }]);
	});

	it('declared columns (order unknown) expand *, but set operations refuse to match them by position', () => {
		const [star, union] = runScript(`SELECT * FROM main.declared; SELECT * FROM main.declared UNION ALL SELECT * FROM main.declared`);
		expect(edges(star)).toEqual(['b <- declared.b:copy', 'a <- declared.a:copy']);
		expect(union.untraced[0].reason).toBe("cannot match the branches of a set operation by position: the order of a branch's columns is not known");
	});

	it('an unnamed expression carries its text for the message that asks for a name', () => {
		const [r] = runScript(`SELECT order_id, amount + 1 FROM main.orders`);
		expect(r.columns?.[1]).toMatchObject({ name: null, text: 'amount + 1', inputs: [{ node: 'orders', column: 'amount', kind: 'mod' }] });
		expect(r.untraced).toEqual([{ column: '_col1', reason: 'an expression without a name, and no catalog entry to name it' }]);
	});
});

describe('constructs', () => {
	it.each([
		{
			name: 'EXISTS only filters: what its subquery selects feeds nothing',
			sql: 'SELECT c.name, EXISTS (SELECT o.amount FROM main.orders AS o WHERE o.customer_id = c.customer_id) AS has_orders FROM main.customers AS c',
			want: ['name <- customers.name:copy', 'has_orders <-', 'scan: customers.customer_id, orders.customer_id']
		},
		{
			name: 'JOIN … USING: the left side’s key for an inner join',
			sql: 'SELECT customer_id FROM main.customers JOIN main.orders USING (customer_id)',
			want: ['customer_id <- customers.customer_id:copy', 'scan: customers.customer_id, orders.customer_id']
		},
		{
			name: 'JOIN … USING: the right side’s key for a right join',
			sql: 'SELECT customer_id FROM main.customers RIGHT JOIN main.orders USING (customer_id)',
			want: ['customer_id <- orders.customer_id:copy', 'scan: customers.customer_id, orders.customer_id']
		},
		{
			name: 'JOIN … USING: either side’s key (a coalesce) for a full join',
			sql: 'SELECT customer_id FROM main.customers FULL OUTER JOIN main.orders USING (customer_id)',
			want: ['customer_id <- customers.customer_id:mod, orders.customer_id:mod', 'scan: customers.customer_id, orders.customer_id']
		},
		{
			name: 'DuckDB: * EXCLUDE / REPLACE, and a multiplication by replace() is not a star modifier',
			sql: 'SELECT * EXCLUDE (status, "Amount") REPLACE (order_id * 2 AS order_id), amount * replace(status, \'a\', \'b\') AS p FROM main.orders',
			want: ['order_id <- orders.order_id:mod', 'customer_id <- orders.customer_id:copy', 'p <- orders.amount:mod, orders.status:mod']
		},
		{
			name: 'DuckDB: ==, AS MATERIALIZED and ORDER BY ALL change nothing',
			sql: 'WITH x AS MATERIALIZED (SELECT order_id AS a FROM main.orders) SELECT a FROM x WHERE a == 1 ORDER BY ALL',
			want: ['a <- orders.order_id:copy', 'scan: orders.order_id']
		}
	])('$name', ({ sql, want }) => {
		const [r] = runScript(sql);
		expect(edges(r)).toEqual(want);
	});

	it('the dialect decides the grammar: a Snowflake script and a BigQuery one', () => {
		const [sf] = runScript('CREATE OR REPLACE TABLE lake.out AS SELECT IFF(amount > 0, amount, NULL) AS a FROM MAIN.ORDERS QUALIFY ROW_NUMBER() OVER (PARTITION BY status ORDER BY order_id) = 1', 'snowflake');
		// Snowflake stores the unquoted alias `a` as `A`.
		expect(edges(sf)).toEqual(['A <- orders.amount:mod', 'scan: orders.order_id, orders.status']);
		const [bq] = runScript('INSERT INTO `lake.out` (a) SELECT SAFE_CAST(amount AS INT64) FROM `main.orders`', 'bigquery');
		expect(edges(bq)).toEqual(['a <- orders.amount:mod']);
	});
});
