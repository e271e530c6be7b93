// The inference corpus: every case's reads, writes, target and per-column inputs were written by
// hand (tests/support/producer-corpus.ts); a column the analysis adds or drops fails the case.
import { describe, expect, it } from 'vitest';
import { assetUri, columnUri } from '$lib/lineage/producer-annotations';
import { analyzeProducer, MAX_PARSED_QUERY_BYTES, type ProducerAnalysis } from './analyze';
import { CORPUS, CORPUS_CATALOG, CORPUS_WAREHOUSE, type ExpectedEdge } from '../../../../tests/support/producer-corpus';

const catalog = (a: { kind: string; path: string }) => CORPUS_CATALOG[`${a.kind}://${a.path}`] ?? null;

function edgesOf(a: ProducerAnalysis): Record<string, ExpectedEdge[]> {
	return Object.fromEntries(
		a.columns.map((c) => [
			c.column,
			c.inputs.map((i): ExpectedEdge => [columnUri({ ...i.asset, column: i.column }), c.source === 'annotation' ? 'annotation' : i.kind!])
		])
	);
}

const sorted = (xs: string[]) => [...xs].sort();

describe('producer lineage inference: the corpus', () => {
	it('has at least 40 cases', () => {
		expect(CORPUS.length).toBeGreaterThanOrEqual(40);
	});

	it.each(CORPUS.map((c) => [c.name, c] as const))('%s', (_name, c) => {
		const a = analyzeProducer(c.sql, CORPUS_WAREHOUSE, catalog);
		expect(a.target ? assetUri(a.target) : null).toBe(c.target);
		expect(sorted(a.reads.map(assetUri))).toEqual(sorted(c.reads));
		expect(sorted(a.writes.map(assetUri))).toEqual(sorted(c.writes));
		const got = edgesOf(a);
		expect(sorted(Object.keys(got))).toEqual(sorted(Object.keys(c.columns)));
		for (const [col, edges] of Object.entries(c.columns)) {
			expect(sorted(got[col].map((e) => e.join(' '))), `column ${col}`).toEqual(sorted(edges.map((e) => e.join(' '))));
		}
		expect(a.warnings, JSON.stringify(a.warnings)).toHaveLength(c.warnings.length);
		for (const w of c.warnings) expect(a.warnings.some((x) => x.includes(w)), `a warning containing "${w}" in ${JSON.stringify(a.warnings)}`).toBe(true);
	});
});

describe('producer lineage inference: rules outside the corpus', () => {
	const O = 'dbt://main/main/orders';
	const C = 'dbt://main/main/customers';
	const lineage = (a: ProducerAnalysis) => Object.fromEntries(a.columns.map((c) => [c.column, c.inputs.map((i) => `${columnUri({ ...i.asset, column: i.column })} ${i.kind}`)]));

	it('declared columns expand *, but are never matched by position (their order is unknown)', () => {
		const declared = (a: { kind: string; path: string }) =>
			a.path === 'main/main/orders' ? { columns: ['order_id', 'order_total'], complete: true, unordered: true } : null;
		const star = analyzeProducer(`CREATE TABLE ducklake.a AS SELECT * FROM main.orders;`, CORPUS_WAREHOUSE, declared);
		expect(lineage(star)).toEqual({ order_id: [`${O}.order_id copy`], order_total: [`${O}.order_total copy`] });
		expect(star.warnings).toEqual([]);
		const union = analyzeProducer(`CREATE TABLE ducklake.b AS SELECT * FROM main.orders UNION ALL SELECT * FROM main.orders;`, CORPUS_WAREHOUSE, declared);
		expect(union.columns).toEqual([]);
		expect(union.warnings).toEqual([
			expect.stringContaining('cannot match the branches of a set operation by position'),
			expect.stringMatching(/^ducklake:\/\/main\/b has no column lineage: line 1: cannot match the branches/)
		]);
		const insert = analyzeProducer(`INSERT INTO ducklake.c (x, y) SELECT * FROM main.orders;`, CORPUS_WAREHOUSE, declared);
		expect(insert.columns).toEqual([]);
		expect(insert.warnings).toEqual([expect.stringContaining('values in an unknown order'), expect.stringContaining('ducklake://main/c has no column lineage')]);
	});

	it('EXCEPT and INTERSECT branches filter rows and feed no column', () => {
		const a = analyzeProducer(
			`CREATE TABLE ducklake.x AS SELECT customer_id FROM main.customers EXCEPT SELECT customer_id FROM main.orders;`,
			CORPUS_WAREHOUSE,
			catalog
		);
		expect(lineage(a)).toEqual({ customer_id: ['dbt://main/main/customers.customer_id copy'] });
		expect(a.reads.map(assetUri).sort()).toEqual(['dbt://main/main/customers', O]);
	});

	it('the parse budget is a byte count: after it, even short statements are not parsed', () => {
		let sql = '';
		while (sql.length < 2 * MAX_PARSED_QUERY_BYTES) sql += `CREATE TEMP TABLE t AS SELECT order_id, order_total, customer_id FROM main.orders;\n`;
		sql += 'CREATE TABLE ducklake.after AS SELECT 1 AS one;';
		const a = analyzeProducer(sql, CORPUS_WAREHOUSE, catalog);
		expect(a.target).toEqual({ kind: 'ducklake', path: 'main/after' });
		expect(a.columns).toEqual([]);
		expect(a.warnings).toEqual([
			expect.stringContaining('KB of queries; from here on they are not parsed'),
			expect.stringMatching(/^ducklake:\/\/main\/after has no column lineage: line \d+: its query was not parsed/)
		]);
	});

	it('an UPDATE of the target is analysed (a constant adds no input); one that does not parse is said not to be analysed', () => {
		const a = analyzeProducer(
			`CREATE TABLE ducklake.t AS SELECT order_id FROM main.orders;\nUPDATE ducklake.t SET order_id = 0;`,
			CORPUS_WAREHOUSE,
			catalog
		);
		expect(lineage(a)).toEqual({ order_id: [`${O}.order_id copy`] });
		expect(a.warnings).toEqual([]);
		const bad = analyzeProducer(`CREATE TABLE ducklake.t AS SELECT order_id FROM main.orders;\nUPDATE ducklake.t SET order_id = = 0;`, CORPUS_WAREHOUSE, catalog);
		expect(lineage(bad)).toEqual({ order_id: [`${O}.order_id copy`] });
		expect(bad.warnings).toContain('line 2: UPDATE of ducklake://main/t is not analysed for column lineage');
	});

	it('a MERGE into the target traces both its update and its insert branches', () => {
		const a = analyzeProducer(
			`CREATE TABLE ducklake.t AS SELECT order_id, customer_id FROM main.orders;
MERGE INTO ducklake.t AS t USING main.customers AS c ON t.customer_id = c.customer_id
WHEN MATCHED THEN UPDATE SET order_id = c.customer_id + 1
WHEN NOT MATCHED THEN INSERT (order_id, customer_id) VALUES (0, c.customer_id);`,
			CORPUS_WAREHOUSE,
			catalog
		);
		expect(lineage(a)).toEqual({
			order_id: [`${O}.order_id copy`, `${C}.customer_id mod`],
			customer_id: [`${O}.customer_id copy`, `${C}.customer_id copy`]
		});
		expect(a.warnings).toEqual([]);
	});

	it('materialize may name a dbt relation; annotations without any target are reported, not stored', () => {
		const dbt = analyzeProducer(`-- materialize dbt://main/analytics/report\nSELECT order_id FROM main.orders;`, CORPUS_WAREHOUSE, catalog);
		expect(dbt.target).toEqual({ kind: 'dbt', path: 'main/analytics/report' });
		expect(lineage(dbt)).toEqual({ order_id: [`${O}.order_id copy`] });
		const none = analyzeProducer(`-- column x <- ${O}.order_id\nSELECT order_id FROM main.orders;`, CORPUS_WAREHOUSE, catalog);
		expect(none.target).toBeNull();
		expect(none.columns).toEqual([]);
		expect(none.warnings).toEqual([
			expect.stringContaining('the script writes no lake table'),
			'1 column annotations are not stored: the script has no target'
		]);
	});
});
