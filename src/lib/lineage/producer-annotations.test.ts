import { describe, expect, it } from 'vitest';
import { columnUri, parseAssetUri, parseColumnRef, parseProducerAnnotations } from './producer-annotations';

const uri = (r: { kind: string; path: string; column: string }) => `${r.kind}://${r.path}.${r.column}`;

describe('parseColumnRef', () => {
	it.each([
		['dbt://main/analytics/orders.amount', 'dbt://main/analytics/orders.amount'],
		// The column is what follows the LAST dot: a dotted schema stays one schema.
		['dbt://main/analytics.v2/orders.amount', 'dbt://main/analytics.v2/orders.amount'],
		['dbt://main/jaffle.main/orders.order_total', 'dbt://main/jaffle.main/orders.order_total'],
		['ducklake://main/report.total', 'ducklake://main/report.total'],
		// Quoted names: quotes stripped, schema and name lowercased (DESIGN.md §3); the column keeps its case.
		['dbt://main/"Analytics"/"Orders".Amount', 'dbt://main/analytics/orders.Amount'],
		['dbt://main/analytics/orders."unit.price"', 'dbt://main/analytics/orders.unit.price'],
		['dbt://main/analytics/orders."order ""total"""', 'dbt://main/analytics/orders.order "total"'],
		['  dbt://main/analytics/orders.amount  ', 'dbt://main/analytics/orders.amount'],
		['DBT://main/analytics/orders.amount', 'dbt://main/analytics/orders.amount'],
		// The warehouse and lake names are kept as written.
		['dbt://Main/analytics/orders.amount', 'dbt://Main/analytics/orders.amount']
	])('%s → %s', (input, expected) => {
		const r = parseColumnRef(input);
		expect(r.ok && uri(r.value)).toBe(expected);
	});

	it.each([
		['dbt://main/analytics/orders.', 'an empty column name'],
		['dbt://main/analytics/orders', 'no column'],
		['dbt://main/analytics.amount', 'dbt://<warehouse>/<schema>/<name>'],
		['dbt://main//orders.amount', 'malformed path segment'],
		['s3://bucket/key.amount', 'unknown scheme "s3"'],
		['postgres://db/public/orders.amount', 'unknown scheme "postgres"'],
		['orders.amount', 'not an asset URI'],
		['ducklake://main/a/b.c', 'ducklake://<lake>/<table>'],
		['ducklake://main.c', 'ducklake://<lake>/<table>'],
		['dbt://main/analytics/orders."amount', 'an unbalanced quote'],
		['dbt://main/analytics/orders"amount"', 'a quoted column must follow the last "."'],
		['dbt://main/analytics/orders.""', 'an empty column name']
	])('%s is refused (%s)', (input, reason) => {
		const r = parseColumnRef(input);
		expect(r.ok).toBe(false);
		expect(!r.ok && r.reason).toContain(reason);
	});
});

describe('parseAssetUri', () => {
	it('a bare `ducklake` (and ducklake://main) names the default lake, only where a lake may stand', () => {
		expect(parseAssetUri('ducklake', { lakeOnly: true })).toEqual({ ok: true, value: { kind: 'ducklake', path: 'main' } });
		expect(parseAssetUri('ducklake://main', { lakeOnly: true })).toEqual({ ok: true, value: { kind: 'ducklake', path: 'main' } });
		expect(parseAssetUri('ducklake').ok).toBe(false);
		expect(parseAssetUri('ducklake://main').ok).toBe(false);
	});
});

describe('columnUri', () => {
	it('quotes a column that would not read back', () => {
		expect(columnUri({ kind: 'dbt', path: 'main/a/b', column: 'x' })).toBe('dbt://main/a/b.x');
		const odd = columnUri({ kind: 'dbt', path: 'main/a/b', column: 'unit "price".v' });
		expect(odd).toBe('dbt://main/a/b."unit ""price"".v"');
		const back = parseColumnRef(odd);
		expect(back.ok && back.value.column).toBe('unit "price".v');
	});
});

describe('parseProducerAnnotations', () => {
	it('reads materialize and one line per output column, in -- and // comments', () => {
		const a = parseProducerAnnotations(`-- materialize ducklake://main/report
-- column total <- dbt://main/analytics/orders.amount, dbt://main/analytics/orders.tax
// column store <- dbt://main/analytics/stores.store_name
select 1`);
		expect(a.warnings).toEqual([]);
		expect(a.materialize).toEqual({ kind: 'ducklake', path: 'main/report', line: 1 });
		expect(a.columns.map((c) => [c.column, c.line, c.inputs.map(uri)])).toEqual([
			['total', 2, ['dbt://main/analytics/orders.amount', 'dbt://main/analytics/orders.tax']],
			['store', 3, ['dbt://main/analytics/stores.store_name']]
		]);
	});

	it('CRLF line endings', () => {
		const a = parseProducerAnnotations('-- materialize ducklake://main/r\r\n-- column t <- dbt://main/a/o.x\r\nselect 1\r\n');
		expect(a.materialize).toEqual({ kind: 'ducklake', path: 'main/r', line: 1 });
		expect(a.columns.map((c) => [c.column, c.line, c.inputs.map(uri)])).toEqual([['t', 2, ['dbt://main/a/o.x']]]);
	});

	it('a bare `ducklake` materializes into the default lake', () => {
		expect(parseProducerAnnotations('-- materialize ducklake').materialize).toEqual({ kind: 'ducklake', path: 'main', line: 1 });
	});

	it.each([
		{
			name: 'a malformed input is dropped, the rest kept',
			sql: '-- column t <- dbt://main/a/o.x, s3://b/k.y, dbt://main/a/o.',
			columns: [['t', ['dbt://main/a/o.x']]],
			warnings: [
				'line 1: input "s3://b/k.y" of column t dropped: unknown scheme "s3" (expected dbt:// or ducklake://)',
				'line 1: input "dbt://main/a/o." of column t dropped: an empty column name'
			]
		},
		{
			name: 'a line with no valid input is dropped',
			sql: 'select 1\n-- column t <- s3://b/k.y',
			columns: [],
			warnings: [
				'line 2: input "s3://b/k.y" of column t dropped: unknown scheme "s3" (expected dbt:// or ducklake://)',
				'line 2: column annotation of t dropped: no valid input'
			]
		},
		{
			name: 'duplicate inputs collapse; a second line for a column merges with a warning',
			sql: '-- column t <- dbt://main/a/o.x, dbt://main/a/o.x\n-- column t <- dbt://main/a/o.y, dbt://main/a/o.x',
			columns: [['t', ['dbt://main/a/o.x', 'dbt://main/a/o.y']]],
			warnings: ['line 2: column t is annotated again (first on line 1); the inputs are merged']
		},
		{
			name: 'spaces anywhere',
			sql: '   --   column    total   <-    dbt://main/a/o.x   ,   dbt://main/a/o.y   ',
			columns: [['total', ['dbt://main/a/o.x', 'dbt://main/a/o.y']]],
			warnings: []
		},
		{
			name: 'quoted output and input names, with commas and dots inside',
			sql: '-- column "order total" <- dbt://main/"Sales.EU"/orders."amount, gross", dbt://main/a/o.tax',
			columns: [['order total', ['dbt://main/sales.eu/orders.amount, gross', 'dbt://main/a/o.tax']]],
			warnings: []
		},
		{
			name: 'an output name that is two words is refused',
			sql: '-- column order total <- dbt://main/a/o.x',
			columns: [],
			warnings: ['line 1: column annotation ignored: "order total" is not one column name']
		},
		{
			name: 'an empty input between commas',
			sql: '-- column t <- dbt://main/a/o.x,,',
			columns: [['t', ['dbt://main/a/o.x']]],
			warnings: ['line 1: an empty input in the column annotation of t dropped', 'line 1: an empty input in the column annotation of t dropped']
		},
		{
			name: 'prose is not an annotation',
			sql: '-- column names are lowercase\n-- materialize the report nightly\n-- columns <- are explained below',
			columns: [],
			warnings: []
		},
		{
			name: 'a column line naming an asset but missing the arrow',
			sql: '-- column t dbt://main/a/o.x',
			columns: [],
			warnings: ['line 1: column annotation without "<-" ignored']
		},
		{
			name: 'after code, inside a string, or inside a block comment, it is not an annotation',
			sql: "select 1 -- column t <- dbt://main/a/o.x\nselect '\n-- column u <- dbt://main/a/o.y';\n/*\n-- column v <- dbt://main/a/o.z\n*/\n-- column w <- dbt://main/a/o.w",
			columns: [['w', ['dbt://main/a/o.w']]],
			warnings: []
		}
	])('$name', ({ sql, columns, warnings }) => {
		const a = parseProducerAnnotations(sql);
		expect(a.columns.map((c) => [c.column, c.inputs.map(uri)])).toEqual(columns);
		expect(a.warnings).toEqual(warnings);
	});

	it('materialize: an unknown scheme is ignored with a warning; a second, different one too', () => {
		const a = parseProducerAnnotations('-- materialize s3://bucket/x\n-- materialize ducklake://main/a\n-- materialize ducklake://main/a\n-- materialize ducklake://main/b');
		expect(a.materialize).toEqual({ kind: 'ducklake', path: 'main/a', line: 2 });
		expect(a.warnings).toEqual([
			'line 1: materialize "s3://bucket/x" ignored: unknown scheme "s3" (expected dbt:// or ducklake://)',
			'line 4: a second materialize (ducklake://main/b) ignored: line 2 already names ducklake://main/a'
		]);
	});

	// Speed belongs in benchmarks; this checks that 5,000 lines are all read, in order.
	it('5,000 annotation lines are all read', () => {
		let s = '';
		for (let k = 0; k < 5000; k++) s += `-- column c${k} <- dbt://main/analytics/orders.amount, dbt://main/analytics/orders.tax\n`;
		const a = parseProducerAnnotations(s);
		expect(a.columns).toHaveLength(5000);
		expect(a.columns[4999].column).toBe('c4999');
	});
});
