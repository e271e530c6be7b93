import { describe, expect, it } from 'vitest';
import type { DbtProvenance } from '../types/asset-graph';
import {
	assembleAssetGraph,
	dbtRefEdges,
	mayShowAuthored,
	mergeDescriptions,
	modelCount,
	redactProvenance,
	usageOfGraph,
	type DescribedGraph,
	type GraphNodeInput
} from './asset-graph';

const AUTHORED_KEYS = ['tags', 'description', 'columns', 'column_schema', 'freshness', 'raw_code', 'original_file_path'];

function node(uniqueId: string, extra: Partial<GraphNodeInput> = {}): GraphNodeInput {
	const name = uniqueId.split('.').pop()!;
	return {
		uniqueId,
		resourceType: uniqueId.split('.')[0],
		name,
		assetPath: `main/analytics/${name}`,
		materialized: 'table',
		materializeStrategy: 'replace',
		tags: ['nightly'],
		description: `about ${name}`,
		testKind: null,
		testColumn: null,
		testArgs: null,
		severity: null,
		attachedNode: null,
		columns: { id: 'the key' },
		columnSchema: [{ name: 'id', type: 'INTEGER' }],
		freshness: null,
		rawCode: `select * from ${name}`,
		originalFilePath: `models/${name}.sql`,
		...extra
	};
}

const test = (uniqueId: string, attached: string, extra: Partial<GraphNodeInput> = {}) =>
	node(uniqueId, {
		resourceType: 'test',
		assetPath: null,
		attachedNode: attached,
		testKind: 'accepted_values',
		testColumn: 'status',
		testArgs: { values: ['placed', 'shipped'] },
		severity: 'ERROR',
		rawCode: null,
		...extra
	});

function graph(scriptPath: string, authored: boolean, nodes: GraphNodeInput[], edges: [string, string][] = [], ownsAssets = false): DescribedGraph {
	return { scriptPath, scriptHash: '00000000000000aa', authored, nodes, edges: edges.map(([parent, child]) => ({ parent, child })), ownsAssets };
}

describe('mayShowAuthored: one predicate', () => {
	it.each([
		{ preview: false, versionVisible: true, mayReadScript: true, want: true },
		{ preview: false, versionVisible: true, mayReadScript: false, want: false },
		{ preview: false, versionVisible: false, mayReadScript: true, want: false },
		{ preview: false, versionVisible: false, mayReadScript: false, want: false },
		// A preview has no version row to find: it counts as visible, the script gate still applies.
		{ preview: true, versionVisible: false, mayReadScript: true, want: true },
		{ preview: true, versionVisible: false, mayReadScript: false, want: false }
	])('preview=$preview version=$versionVisible script=$mayReadScript → $want', ({ want, ...facts }) => {
		expect(mayShowAuthored(facts)).toBe(want);
	});
});

describe('redactProvenance', () => {
	const full: DbtProvenance = {
		script_path: 'f/a/p',
		script_hash: '00000000000000aa',
		unique_id: 'model.p.orders',
		resource_type: 'model',
		materialized: 'incremental',
		materialize_strategy: 'merge',
		data_tests: [{ kind: 'accepted_values', column: 'status', severity: 'error', args: { values: ['a'] } }],
		authored: true,
		tags: ['x'],
		description: 'd',
		columns: { id: 'k' },
		column_schema: [{ name: 'id', type: 'INT' }],
		freshness: { warn_after: { count: 1, period: 'day' } },
		raw_code: 'select 1',
		original_file_path: 'models/orders.sql'
	};

	it('keeps only the shape for a caller who may not read the script', () => {
		const r = redactProvenance(full, false);
		expect(r).toEqual({
			script_path: 'f/a/p',
			script_hash: '00000000000000aa',
			unique_id: 'model.p.orders',
			resource_type: 'model',
			materialized: 'incremental',
			materialize_strategy: 'merge',
			// The tested column is a column name: authored, like the column list.
			data_tests: [{ kind: 'accepted_values', severity: 'error' }],
			authored: false
		});
		for (const k of AUTHORED_KEYS) expect(r).not.toHaveProperty(k);
		expect(JSON.stringify(r)).not.toContain('select 1');
	});

	it('keeps everything for a reader, and does not share arrays with its input', () => {
		const r = redactProvenance(full, true);
		expect(r).toEqual(full);
		expect(r.data_tests).not.toBe(full.data_tests);
	});
});

describe('mergeDescriptions: one node per relation', () => {
	it.each([
		{
			name: 'a seed beats the source naming the same table (one project)',
			graphs: [
				graph('f/a/p', true, [
					node('source.p.raw.raw_orders', { assetPath: 'main/raw/raw_orders', freshness: { warn_after: 1 } }),
					node('seed.p.raw_orders', { assetPath: 'main/raw/raw_orders', materialized: 'seed' })
				])
			],
			path: 'main/raw/raw_orders',
			winner: 'seed.p.raw_orders',
			freshness: { warn_after: 1 }
		},
		{
			name: 'the building project beats a project declaring it as a source, whatever the order',
			graphs: [
				graph('f/b/consumer', true, [node('source.c.analytics.orders', { materialized: null })]),
				graph('f/a/builder', true, [node('model.b.orders')])
			],
			path: 'main/analytics/orders',
			winner: 'model.b.orders',
			freshness: null
		},
		{
			name: 'two models: the smaller unique_id, stable',
			graphs: [graph('f/a/z', true, [node('model.z.orders')]), graph('f/a/a', true, [node('model.a.orders')])],
			path: 'main/analytics/orders',
			winner: 'model.a.orders',
			freshness: null
		},
		{
			name: "a redacted source's freshness never leaks into the winner",
			graphs: [
				graph('f/secret/c', false, [node('source.c.analytics.orders', { freshness: { warn_after: 2 } })]),
				graph('f/a/b', true, [node('model.b.orders')])
			],
			path: 'main/analytics/orders',
			winner: 'model.b.orders',
			freshness: null
		}
	])('$name', ({ graphs, path, winner, freshness }) => {
		for (const order of [graphs, [...graphs].reverse()]) {
			const p = mergeDescriptions(order).get(path)!;
			expect(p.unique_id).toBe(winner);
			expect(p.freshness ?? null).toEqual(freshness);
		}
	});

	it('folds the tests of every description, each redacted by its own project', () => {
		const merged = mergeDescriptions([
			graph('f/a/b', true, [node('model.b.orders'), test('test.b.accepted_values_orders_status', 'model.b.orders')]),
			graph('f/secret/c', false, [
				node('source.c.analytics.orders'),
				test('test.c.not_null_orders_id', 'source.c.analytics.orders', { testKind: 'not_null', testColumn: 'id', testArgs: { secret: true }, severity: 'warn' })
			])
		]).get('main/analytics/orders')!;
		expect(merged.data_tests).toEqual([
			{ kind: 'accepted_values', column: 'status', severity: 'error', args: { values: ['placed', 'shipped'] } },
			{ kind: 'not_null', severity: 'warn' }
		]);
		expect(JSON.stringify(merged)).not.toContain('secret":true');
	});

	it('a redacted project\'s tests on different columns stay distinct (the tests badge counts them) without naming the columns', () => {
		const secretTests = (g: string) =>
			graph(g, false, [
				node('model.c.orders'),
				test('test.c.not_null_orders_id', 'model.c.orders', { testKind: 'not_null', testColumn: 'id', testArgs: null }),
				test('test.c.not_null_orders_status', 'model.c.orders', { testKind: 'not_null', testColumn: 'status', testArgs: null }),
				test('test.c.unique_orders_id', 'model.c.orders', { testKind: 'unique', testColumn: 'id', testArgs: null })
			]);
		// The same project described twice (a run's snapshot and its version, say): its tests fold once.
		for (const graphs of [[secretTests('f/secret/c')], [secretTests('f/secret/c'), secretTests('f/secret/c')]]) {
			const merged = mergeDescriptions(graphs).get('main/analytics/orders')!;
			expect(merged.data_tests).toEqual([
				{ kind: 'not_null', severity: 'error' },
				{ kind: 'not_null', severity: 'error' },
				{ kind: 'unique', severity: 'error' }
			]);
			expect(JSON.stringify(merged)).not.toMatch(/"(id|status)"/);
		}
	});

	it('draws no node for a test or a relation-less (ephemeral) model', () => {
		const m = mergeDescriptions([graph('f/a/b', true, [node('model.b.eph', { assetPath: null }), test('test.b.t', 'model.b.eph')])]);
		expect(m.size).toBe(0);
	});
});

describe('dbtRefEdges', () => {
	it('resolves ref() edges to relations, skipping tests, relation-less nodes and self-edges', () => {
		const g = graph(
			'f/a/b',
			true,
			[
				node('source.b.raw.orders', { assetPath: 'main/raw/orders' }),
				node('seed.b.orders', { assetPath: 'main/raw/orders' }),
				node('model.b.stg_orders'),
				node('model.b.orders'),
				node('model.b.eph', { assetPath: null }),
				test('test.b.t', 'model.b.orders')
			],
			[
				['source.b.raw.orders', 'model.b.stg_orders'],
				['seed.b.orders', 'model.b.stg_orders'],
				['model.b.stg_orders', 'model.b.orders'],
				['model.b.orders', 'test.b.t'],
				['model.b.eph', 'model.b.orders'],
				['source.b.raw.orders', 'seed.b.orders'],
				['model.b.missing', 'model.b.orders']
			]
		);
		expect(dbtRefEdges([g, g])).toEqual([
			{ from_asset_path: 'main/analytics/stg_orders', to_asset_path: 'main/analytics/orders' },
			{ from_asset_path: 'main/raw/orders', to_asset_path: 'main/analytics/stg_orders' }
		]);
	});
});

describe('assembleAssetGraph', () => {
	const project = graph(
		'f/a/jaffle',
		false,
		[node('source.j.raw.orders', { assetPath: 'main/raw/orders' }), node('model.j.orders'), test('test.j.t', 'model.j.orders')],
		[['source.j.raw.orders', 'model.j.orders']]
	);
	const usage = [
		{ scriptPath: 'f/a/jaffle', assetKind: 'dbt' as const, assetPath: 'main/analytics/orders', access: 'w' as const },
		{ scriptPath: 'f/a/jaffle', assetKind: 'dbt' as const, assetPath: 'main/raw/orders', access: 'r' as const },
		{ scriptPath: 'f/a/report', assetKind: 'dbt' as const, assetPath: 'main/analytics/orders', access: 'r' as const },
		{ scriptPath: 'f/a/report', assetKind: 'ducklake' as const, assetPath: 'main/report', access: 'w' as const },
		{ scriptPath: 'f/a/report', assetKind: 'ducklake' as const, assetPath: 'main/report', access: 'r' as const }
	];
	const base = {
		usage,
		runnables: [
			{ path: 'f/a/report', language: 'sql', script_hash: '0000000000000001' },
			{ path: 'f/a/jaffle', language: 'dbt', script_hash: '00000000000000aa', dbt: { model_count: 1 } }
		],
		graphs: [project],
		assetKinds: null,
		assetAllowed: () => true,
		hidden: 2
	};

	it('draws assets with provenance, usage edges merged to rw, ref edges, sorted', () => {
		const g = assembleAssetGraph(base);
		expect(g.assets.map((a) => `${a.kind}:${a.path}:${a.dbt?.unique_id ?? '-'}`)).toEqual([
			'dbt:main/analytics/orders:model.j.orders',
			'dbt:main/raw/orders:source.j.raw.orders',
			'ducklake:main/report:-'
		]);
		expect(g.assets[0].dbt).toMatchObject({ authored: false, data_tests: [{ kind: 'accepted_values', severity: 'error' }] });
		expect(g.assets[0].dbt!.data_tests[0]).not.toHaveProperty('column');
		expect(g.assets[0].dbt).not.toHaveProperty('raw_code');
		expect(g.edges).toContainEqual({ runnable_path: 'f/a/report', asset_kind: 'ducklake', asset_path: 'main/report', access: 'rw' });
		expect(g.edges).toHaveLength(4);
		expect(g.dbt_edges).toEqual([{ from_asset_path: 'main/raw/orders', to_asset_path: 'main/analytics/orders' }]);
		expect(g.runnables.map((r) => r.path)).toEqual(['f/a/jaffle', 'f/a/report']);
		expect(g.hidden).toBe(2);
	});

	it('an asset_kinds filter drops the other kinds with their edges', () => {
		const g = assembleAssetGraph({ ...base, assetKinds: new Set(['ducklake'] as const) });
		expect(g.assets.map((a) => a.path)).toEqual(['main/report']);
		expect(g.edges.every((e) => e.asset_kind === 'ducklake')).toBe(true);
		expect(g.dbt_edges).toEqual([]);
		expect(g.hidden).toBe(2);
	});

	it("a token's assets:read narrowing withholds assets, counts them, and drops their ref edges", () => {
		const g = assembleAssetGraph({ ...base, assetAllowed: (p) => !p.startsWith('main/raw/') });
		expect(g.assets.map((a) => a.path)).toEqual(['main/analytics/orders', 'main/report']);
		expect(g.dbt_edges).toEqual([]);
		expect(g.hidden).toBe(3);
		expect(JSON.stringify(g)).not.toContain('main/raw/');
	});

	it('a relation no drawn usage names gets no node, and its ref edges are dropped', () => {
		const g = assembleAssetGraph({ ...base, usage: usage.filter((u) => u.assetPath !== 'main/raw/orders') });
		expect(g.assets.map((a) => a.path)).not.toContain('main/raw/orders');
		expect(g.dbt_edges).toEqual([]);
	});

	it('a graph that owns its assets (pinned) draws all its relations without usage rows', () => {
		const owned = { ...project, ownsAssets: true };
		const g = assembleAssetGraph({ ...base, usage: usageOfGraph(owned), graphs: [owned], hidden: 0 });
		expect(g.assets.map((a) => a.path)).toEqual(['main/analytics/orders', 'main/raw/orders']);
		expect(g.edges).toEqual([
			{ runnable_path: 'f/a/jaffle', asset_kind: 'dbt', asset_path: 'main/analytics/orders', access: 'w' },
			{ runnable_path: 'f/a/jaffle', asset_kind: 'dbt', asset_path: 'main/raw/orders', access: 'r' }
		]);
		expect(modelCount(usageOfGraph(owned), 'f/a/jaffle')).toBe(1);
	});

	it('the same input in another order gives the same answer', () => {
		const a = assembleAssetGraph(base);
		const b = assembleAssetGraph({ ...base, usage: [...usage].reverse(), runnables: [...base.runnables].reverse() });
		expect(JSON.stringify(b)).toBe(JSON.stringify(a));
	});
});
