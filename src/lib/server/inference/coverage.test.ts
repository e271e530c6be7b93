// Coverage of inferProject on every real fixture with compiled SQL (bench/README.md, "sql-parsers",
// has the table): no model fails, and the share analyzed (of those not skipped) stays at or
// above what was measured. inferProject, not one model at a time: its DAG order is what traces a
// `select *` over a model the catalog lacks.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { describeFixtures, fixture } from '../../../../tests/support/fixtures';
import { inferencePlan } from '../../lineage/infer/index';
import { readIndexEdges, scoreEdges } from '../../../../tests/support/infer-score';
import { inferProject } from './pool';

describeFixtures('column lineage inference coverage on the real fixtures', () => {
	const floors: [dir: string, analyzedShare: number, skipped: number][] = [
		['jaffle-shop-1.12-duckdb-docs-generate', 1, 0],
		['jaffle-shop-1.9-bigquery-build', 35 / 36, 0],
		['dbt-bouncer-1.11.2-build', 1, 23],
		['fivetran-shopify-holistic-1.8.6-v12', 1, 11],
		['fivetran-sap-1.10.10-v12', 1, 22],
		// Snowflake, not in the list: a check that inference is not tuned to the five above.
		['tuva-1.3.1-snowflake-build-with-warn', 1, 30]
	];
	it.each(floors)('%s: none failed, analyzed share of those not skipped ≥ %f', async (dir, floor, skipped) => {
		const plan = inferencePlan(JSON.parse(readFileSync(fixture(dir, 'manifest.json'), 'utf8')), JSON.parse(readFileSync(fixture(dir, 'catalog.json'), 'utf8')));
		// A generous budget: this checks what inference can trace, not how loaded the machine is.
		const { models } = await inferProject(plan, { budgetMs: 20_000 });
		const count = (o: string) => models.filter((m) => m.outcome === o).length;
		expect(models.filter((m) => m.outcome === 'failed').map((m) => `${m.node}: ${m.message}`)).toEqual([]);
		expect(count('skipped')).toBe(skipped);
		expect(count('analyzed') / (count('analyzed') + count('partial'))).toBeGreaterThanOrEqual(floor - 1e-9);
	}, 180_000);
});

describeFixtures('jaffle-shop 1.12 through inferProject (as deploy runs it) vs the hand-built index', () => {
	it('finds the 87 copy/mod edges and the scan rows exactly', async () => {
		const dir = 'jaffle-shop-1.12-duckdb-docs-generate';
		const plan = inferencePlan(JSON.parse(readFileSync(fixture(dir, 'manifest.json'), 'utf8')), JSON.parse(readFileSync(fixture(dir, 'catalog.json'), 'utf8')));
		const { models } = await inferProject(plan);
		const expected = await readIndexEdges(readFileSync(fixture('constructed-index', 'jaffle-shop-1.12', 'index', 'dbt.column_lineage.parquet')));
		const score = scoreEdges(
			expected,
			models.flatMap((m) => m.edges.map((e) => ({ ...e, toNode: m.node })))
		);
		expect([score.expected, score.matched, score.wrong, score.kinds, score.scans.wrong, score.scans.missed]).toEqual([87, 87, [], [], [], []]);
	});
});
