import { describe, expect, it } from 'vitest';
import { dialectOf, type InferDialect, type ParentRelation } from './index';
import { inferModel, modelEdges } from './infer';

// Relations the cases read, as a manifest + catalog would give them.
const RELATIONS: Record<string, ParentRelation> = {
	'db.main.orders': { node: 'model.p.orders', columns: ['order_id', 'customer_id', 'amount', 'ordered_at', 'status'] },
	'db.main.customers': { node: 'model.p.customers', columns: ['customer_id', 'name', 'email'] },
	'db.raw.payments': { node: 'source.p.raw.payments', columns: ['id', 'order_id', 'amount'] },
	'db.main.uncatalogued': { node: 'model.p.uncatalogued', columns: null, declared: ['known_col'] }
};

function resolve(parts: string[]): ParentRelation | null {
	const key = parts.map((p) => p.toLowerCase()).join('.');
	return RELATIONS[key] ?? Object.entries(RELATIONS).find(([k]) => k.endsWith(`.${key}`))?.[1] ?? null;
}

/** `out <- node.col:kind, …` lines, one per output column, then `scan: node.col, …`. */
function summary(sql: string, dialect: InferDialect = 'duckdb', outputColumns?: string[]): string[] {
	const r = inferModel({ sql, dialect, resolve, outputColumns });
	if (r.outcome === 'failed') return [`failed: ${r.message}`];
	const short = (n: string) => n.split('.').slice(-1)[0];
	const lines = r.columns.map((c) => `${c.name} <- ${c.inputs.map((i) => `${short(i.node)}.${i.column}:${i.kind}`).sort().join(', ')}`.trimEnd());
	if (r.scanned.length) lines.push(`scan: ${r.scanned.map((s) => `${short(s.node)}.${s.column}`).sort().join(', ')}`);
	if (r.outcome === 'partial') lines.push(...r.untraced.map((u) => `untraced ${u.column}: ${u.reason}`));
	return lines;
}

describe('inferModel: kinds, scopes and scans', () => {
	const cases: { name: string; sql: string; dialect?: InferDialect; out?: string[]; want: string[] }[] = [
		{
			name: 'bare reference and rename are copies; expressions and casts are mods',
			sql: 'select order_id, customer_id as buyer, amount * 100 as cents, cast(ordered_at as date) as day from db.main.orders',
			want: ['order_id <- orders.order_id:copy', 'buyer <- orders.customer_id:copy', 'cents <- orders.amount:mod', 'day <- orders.ordered_at:mod']
		},
		{
			name: 'a CTE chain resolves to the relation read, composing kinds (copy∘mod = mod)',
			sql: `with a as (select order_id as id, amount + 1 as amt from db.main.orders), b as (select id, amt as total from a) select id, total from b`,
			want: ['id <- orders.order_id:copy', 'total <- orders.amount:mod']
		},
		{
			name: 'join keys and WHERE columns are scans, of the upstream columns',
			sql: `select o.order_id, c.name from db.main.orders o join db.main.customers c on o.customer_id = c.customer_id where o.status = 'paid'`,
			want: ['order_id <- orders.order_id:copy', 'name <- customers.name:copy', 'scan: customers.customer_id, orders.customer_id, orders.status']
		},
		{
			name: 'aggregates are mods, min/max of a bare column copies, GROUP BY (also by ordinal) and HAVING scan',
			sql: `select customer_id, count(order_id) as n, sum(amount) as total, min(ordered_at) as first_at, max(ordered_at) as last_at
			      from db.main.orders group by 1 having count(*) > 1`,
			want: [
				'customer_id <- orders.customer_id:copy',
				'n <- orders.order_id:mod',
				'total <- orders.amount:mod',
				'first_at <- orders.ordered_at:copy',
				'last_at <- orders.ordered_at:copy',
				'scan: orders.customer_id'
			]
		},
		{
			name: 'window PARTITION BY / ORDER BY keys are mods into the window output',
			sql: 'select order_id, row_number() over (partition by customer_id order by ordered_at) as seq from db.main.orders',
			want: ['order_id <- orders.order_id:copy', 'seq <- orders.customer_id:mod, orders.ordered_at:mod']
		},
		{
			name: 'a named WINDOW’s keys are mods too',
			sql: 'select order_id, sum(amount) over w as running from db.main.orders window w as (partition by customer_id order by ordered_at)',
			want: ['order_id <- orders.order_id:copy', 'running <- orders.amount:mod, orders.customer_id:mod, orders.ordered_at:mod']
		},
		{
			name: 'a UNION with a table function’s branch keeps the other branch’s columns',
			sql: "select * from db.main.customers union all select * from read_csv('customers.csv')",
			want: ['customer_id <- customers.customer_id:copy', 'name <- customers.name:copy', 'email <- customers.email:copy']
		},
		{
			name: 'QUALIFY scans, and may use a select alias',
			sql: 'select order_id, row_number() over (partition by customer_id order by ordered_at) as rn from db.main.orders qualify rn = 1',
			want: ['order_id <- orders.order_id:copy', 'rn <- orders.customer_id:mod, orders.ordered_at:mod', 'scan: orders.customer_id, orders.ordered_at']
		},
		{
			name: 'UNION ALL matches branches by position, names from the first',
			sql: 'select order_id as id, amount from db.main.orders union all select id, amount * 2 from db.raw.payments',
			want: ['id <- orders.order_id:copy, payments.id:copy', 'amount <- orders.amount:copy, payments.amount:mod']
		},
		{
			name: 'select * and t.* expand in catalog order; USING shows its column once',
			sql: 'select * from db.main.customers join (select customer_id, amount from db.main.orders) o using (customer_id)',
			want: [
				'customer_id <- customers.customer_id:copy',
				'name <- customers.name:copy',
				'email <- customers.email:copy',
				'amount <- orders.amount:copy',
				'scan: customers.customer_id, orders.customer_id'
			]
		},
		{
			name: 'DuckDB * EXCLUDE / REPLACE',
			sql: 'select * exclude (email) replace (upper(name) as name) from db.main.customers',
			want: ['customer_id <- customers.customer_id:copy', 'name <- customers.name:mod']
		},
		{
			name: "dbt's inlined ephemeral CTE resolves to the relation the ephemeral reads",
			sql: `with __dbt__cte__eph as (select id as payment_id, amount from db.raw.payments), p as (select * from __dbt__cte__eph) select payment_id, amount from p`,
			want: ['payment_id <- payments.id:copy', 'amount <- payments.amount:copy']
		},
		{
			name: 'a literal-only column has no inputs; CASE conditions and results are mods',
			sql: `select 'x' as tag, 1 as one, case when status = 'paid' then amount else 0 end as paid from db.main.orders`,
			want: ['tag <-', 'one <-', 'paid <- orders.amount:mod, orders.status:mod']
		},
		{
			name: 'a scalar subquery feeds its value; an IN subquery in WHERE scans',
			sql: `select order_id, (select max(amount) from db.raw.payments p where p.order_id = o.order_id) as top
			      from db.main.orders o where customer_id in (select customer_id from db.main.customers where email is not null)`,
			want: [
				'order_id <- orders.order_id:copy',
				'top <- payments.amount:copy',
				'scan: customers.customer_id, customers.email, orders.customer_id, orders.order_id, payments.order_id'
			]
		},
		{
			name: 'a column of a relation the catalog lacks is still its column (declared columns decide ambiguity)',
			sql: 'select u.other_col, known_col, name from db.main.uncatalogued u join db.main.customers c on true',
			want: ['other_col <- uncatalogued.other_col:copy', 'known_col <- uncatalogued.known_col:copy', 'name <- customers.name:copy']
		},
		{
			name: 'an ambiguous unqualified column is untraced, with the reason',
			sql: 'select customer_id from db.main.orders, db.main.customers',
			want: ['customer_id <-', 'untraced customer_id: column customer_id is in several inputs (db.main.orders, db.main.customers)']
		},
		{
			name: 'a relation that is not a node leaves its columns untraced',
			sql: 'select x from elsewhere.t',
			want: ['x <-', 'untraced x: x may come from elsewhere.t: reads elsewhere.t, which is not a node of the manifest']
		},
		{
			name: 'a table function has no node columns: its columns have no inputs',
			sql: 'select range as n from range(10)',
			want: ['n <-']
		},
		{
			name: 'UNNEST / LATERAL FLATTEN: what a table function yields derives from its arguments',
			sql: 'select o.order_id, item from db.main.orders o cross join unnest(o.status) as item',
			dialect: 'bigquery',
			want: ['order_id <- orders.order_id:copy', 'item <- orders.status:mod']
		},
		{
			name: 'EXCEPT: the right side only filters (scan); INTERSECT and UNION match by position',
			sql: 'select customer_id from db.main.orders intersect select customer_id from db.main.customers except select order_id from db.raw.payments',
			want: ['customer_id <- customers.customer_id:copy, orders.customer_id:copy', 'scan: payments.order_id']
		},
		{
			name: 'a recursive CTE takes its columns from its anchor',
			sql: 'with recursive r as (select order_id, 0 as depth from db.main.orders union all select order_id, depth + 1 from r where depth < 3) select order_id, depth from r',
			dialect: 'postgres',
			want: ['order_id <- orders.order_id:copy', 'depth <-']
		},
		{
			name: 'GROUP BY ALL scans the non-aggregated items',
			sql: 'select status, count(*) as n, sum(amount) as total from db.main.orders group by all',
			want: ['status <- orders.status:copy', 'n <-', 'total <- orders.amount:mod', 'scan: orders.status']
		},
		{
			name: 'the catalog names an unnamed expression by position',
			sql: 'select order_id, amount + 1 from db.main.orders',
			out: ['order_id', 'amount_plus_one'],
			want: ['order_id <- orders.order_id:copy', 'amount_plus_one <- orders.amount:mod']
		},
		{
			name: 'BigQuery backtick paths and Snowflake upper-case identifiers resolve case-insensitively',
			sql: 'select c.NAME from `db.main.customers` as c',
			dialect: 'bigquery',
			want: ['NAME <- customers.name:copy']
		},
		{
			name: 'Snowflake',
			sql: 'select "ORDER_ID", iff(amount > 0, amount, null) as a from DB.MAIN.ORDERS qualify row_number() over (order by ordered_at) = 1',
			dialect: 'snowflake',
			want: ['ORDER_ID <- orders.order_id:copy', 'A <- orders.amount:mod', 'scan: orders.ordered_at']
		},
		{
			name: 'a word the parser reserves but the warehouse does not (`proc`) still works as an alias',
			sql: 'select proc.order_id, c.name from DB.MAIN.ORDERS proc join DB.MAIN.CUSTOMERS c on c.customer_id = proc.customer_id',
			dialect: 'snowflake',
			want: ['ORDER_ID <- orders.order_id:copy', 'NAME <- customers.name:copy', 'scan: customers.customer_id, orders.customer_id']
		},
		{
			name: 'SQL that does not parse fails with the line and column',
			sql: 'select from where (',
			want: ['failed: Parse error at line 1, column 18: Expected table name or subquery, got Where']
		}
	];
	it.each(cases)('$name', ({ sql, dialect, out, want }) => {
		expect(summary(sql, dialect, out)).toEqual(want);
	});
});

describe('inferModel outcomes', () => {
	it('a parse failure carries line and column', () => {
		const r = inferModel({ sql: 'select a,\nfrom (', dialect: 'postgres', resolve });
		expect(r.outcome).toBe('failed');
		if (r.outcome === 'failed') expect([r.line, r.column]).toEqual([2, expect.any(Number)]);
	});

	it('a model over the size budget fails as too complex', () => {
		const r = inferModel({ sql: `select ${'1 + '.repeat(300_000)}1`, dialect: 'duckdb', resolve });
		expect(r).toMatchObject({ outcome: 'failed', message: expect.stringContaining('too complex to analyse') });
	});

	it('deep nesting fails as too complex instead of overflowing the stack', () => {
		const r = inferModel({ sql: `select ${'('.repeat(500)}order_id${')'.repeat(500)} from db.main.orders`, dialect: 'duckdb', resolve });
		expect(r).toMatchObject({ outcome: 'failed', message: expect.stringContaining('too complex to analyse') });
	});

	it('star over a relation without catalog columns is partial, naming the relation', () => {
		const r = inferModel({ sql: 'select * from db.main.uncatalogued', dialect: 'duckdb', resolve });
		expect(r.outcome).toBe('partial');
		if (r.outcome === 'partial') expect(r.untraced[0].reason).toContain('db.main.uncatalogued');
	});

	it('with the model’s catalog columns, that star passes them through from the one open input', () => {
		const r = inferModel({ sql: 'select * from db.main.uncatalogued', dialect: 'duckdb', resolve, outputColumns: ['a', 'b'] });
		expect(r.outcome).toBe('analyzed');
		expect(modelEdges(r)).toEqual([
			{ fromNode: 'model.p.uncatalogued', fromColumn: 'a', toColumn: 'a', kind: 'copy' },
			{ fromNode: 'model.p.uncatalogued', fromColumn: 'b', toColumn: 'b', kind: 'copy' }
		]);
	});

	it('modelEdges emits every scanned column into every output column', () => {
		const r = inferModel({ sql: 'select order_id, amount from db.main.orders where status = 1', dialect: 'duckdb', resolve });
		expect(modelEdges(r).filter((e) => e.kind === 'scan')).toEqual([
			{ fromNode: 'model.p.orders', fromColumn: 'status', toColumn: 'order_id', kind: 'scan' },
			{ fromNode: 'model.p.orders', fromColumn: 'status', toColumn: 'amount', kind: 'scan' }
		]);
	});
});

describe('dialectOf', () => {
	it.each([
		['duckdb', 'duckdb', false],
		['postgres', 'postgres', false],
		['redshift', 'redshift', false],
		['snowflake', 'snowflake', false],
		['bigquery', 'bigquery', false],
		['databricks', 'databricks', false],
		['spark', 'spark', false],
		['Snowflake', 'snowflake', false],
		['trino', 'trino', false],
		['sqlserver', 'tsql', false],
		['materialize', 'materialize', false],
		['some_new_warehouse', 'generic', true],
		[null, 'generic', true]
	])('%s → %s', (adapter, dialect, warns) => {
		const d = dialectOf(adapter);
		expect(d.dialect).toBe(dialect);
		expect(d.warning !== null).toBe(warns);
	});
});
