// Inference over jaffle-shop 1.12 (manifest + catalog only), scored against the
// copy/mod edges of the hand-built index (constructed-index/jaffle-shop-1.12, 87 edges).
import { readFileSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { describeFixtures, fixture } from '../../../../tests/support/fixtures';
import { inferencePlan, resolverOf } from './index';
import { inferModel, modelEdges } from './infer';
import { readIndexEdges, scoreEdges, type EdgeScore, type ScoredEdge } from '../../../../tests/support/infer-score';

const JAFFLE = 'jaffle-shop-1.12-duckdb-docs-generate';
const loadJaffle = () => inferencePlan(JSON.parse(readFileSync(fixture(JAFFLE, 'manifest.json'), 'utf8')), JSON.parse(readFileSync(fixture(JAFFLE, 'catalog.json'), 'utf8')));

describeFixtures('column lineage inferred for jaffle-shop 1.12 vs the hand-built index', () => {
	let score: EdgeScore;
	const outcomes: Record<string, string> = {};

	beforeAll(async () => {
		const expected = await readIndexEdges(readFileSync(fixture('constructed-index', 'jaffle-shop-1.12', 'index', 'dbt.column_lineage.parquet')));
		const plan = loadJaffle();
		const resolver = resolverOf(plan);
		const inferred: ScoredEdge[] = [];
		for (const m of plan.models) {
			if (!m.sql) continue;
			const result = inferModel({ sql: m.sql, dialect: plan.dialect, resolve: resolver.forModel(m), outputColumns: m.outputColumns });
			outcomes[m.node] = result.outcome === 'partial' ? `partial: ${JSON.stringify(result.untraced)}` : result.outcome === 'failed' ? `failed: ${result.message}` : result.outcome;
			for (const e of modelEdges(result)) inferred.push({ ...e, toNode: m.node });
		}
		score = scoreEdges(expected, inferred);
	});

	it('reads the 87 copy/mod edges of the hand-built index', () => {
		expect(score.expected).toBe(87);
	});

	it('analyses every model', () => {
		expect(Object.values(outcomes).filter((o) => o !== 'analyzed')).toEqual([]);
		expect(Object.keys(outcomes)).toHaveLength(13);
	});

	it('finds the copy/mod edges with precision ≥ 0.99, recall ≥ 0.98 and the kind right on ≥ 95% of the matched', () => {
		expect({ wrong: score.wrong, missed: score.missed, kinds: score.kinds }).toEqual({ wrong: [], missed: [], kinds: [] });
		expect(score.precision).toBeGreaterThanOrEqual(0.99);
		expect(score.recall).toBeGreaterThanOrEqual(0.98);
		expect(score.kindAgreement).toBeGreaterThanOrEqual(0.95);
	});

	it('finds the scan edges of the hand-built index', () => {
		expect(score.scans.expected).toBeGreaterThan(0);
		expect({ wrong: score.scans.wrong, missed: score.scans.missed }).toEqual({ wrong: [], missed: [] });
	});
});

describeFixtures('inferencePlan on jaffle-shop 1.12', () => {
	it('resolves a relation as written to its node, with the catalog’s column order', () => {
		expect(resolverOf(loadJaffle()).resolve(['jaffle_shop', 'main', 'stg_orders'])).toEqual({
			node: 'model.jaffle_shop.stg_orders',
			columns: ['order_id', 'location_id', 'customer_id', 'subtotal_cents', 'tax_paid_cents', 'order_total_cents', 'subtotal', 'tax_paid', 'order_total', 'ordered_at'],
			declared: null
		});
	});

	it('a table shared by a seed and a source resolves to the one the model depends on, else the source', () => {
		const plan = loadJaffle();
		const resolver = resolverOf(plan);
		const stg = plan.models.find((m) => m.node === 'model.jaffle_shop.stg_customers')!;
		expect(resolver.forModel(stg)(['jaffle_shop', 'raw', 'raw_customers'])?.node).toBe('source.jaffle_shop.ecom.raw_customers');
		expect(resolver.resolve(['jaffle_shop', 'raw', 'raw_customers'])?.node).toBe('source.jaffle_shop.ecom.raw_customers');
		// A bare name two nodes share is not guessed.
		expect(resolver.resolve(['raw_customers'])).toBeNull();
	});

	it('lists every model with its compiled SQL and catalog columns, the DuckDB dialect, and no warning', () => {
		const plan = loadJaffle();
		expect(plan.models).toHaveLength(13);
		expect(plan.models.every((m) => m.sql !== null && m.skip === null && m.outputColumns !== null)).toBe(true);
		expect([plan.adapterType, plan.dialect, plan.dialectWarning, plan.catalogWarning, plan.notInCatalog]).toEqual(['duckdb', 'duckdb', null, null, []]);
	});

	it('is plain data: it survives JSON as it is', () => {
		const plan = loadJaffle();
		expect(JSON.parse(JSON.stringify(plan))).toEqual(plan);
	});
});
