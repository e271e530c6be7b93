import { describe, expect, it } from 'vitest';
import type { AssetGraph, DbtProvenance } from '$lib/types/asset-graph';
import { canvasPayload } from './canvas';

const prov = (uniqueId: string): DbtProvenance => ({
	script_path: 'f/demo/shop',
	script_hash: '0000000000000001',
	unique_id: uniqueId,
	resource_type: 'model',
	materialized: 'table',
	materialize_strategy: null,
	data_tests: [],
	authored: true
});

// A fresh graph object per test: payloads are cached per graph object.
const graph = (): AssetGraph => ({
	assets: [
		{ kind: 'dbt', path: 'main/analytics/stg_orders', dbt: prov('model.shop.stg_orders') },
		{ kind: 'dbt', path: 'main/analytics/orders', dbt: prov('model.shop.orders') },
		{ kind: 'ducklake', path: 'main/report' }
	],
	runnables: [
		{ path: 'f/demo/shop', language: 'dbt', script_hash: '0000000000000001', dbt: { model_count: 2 } },
		{ path: 'f/demo/report', language: 'sql', script_hash: '0000000000000002' }
	],
	edges: [
		{ runnable_path: 'f/demo/report', asset_kind: 'dbt', asset_path: 'main/analytics/orders', access: 'r' },
		{ runnable_path: 'f/demo/report', asset_kind: 'ducklake', asset_path: 'main/report', access: 'w' }
	],
	dbt_edges: [{ from_asset_path: 'main/analytics/stg_orders', to_asset_path: 'main/analytics/orders' }],
	hidden: 0
});

const JUNK = ['dbt:main/analytics/nowhere', 'main/analytics/orders', '"><img src=x>', ' ', 'é😀', ...Array.from({ length: 20 }, (_, i) => `junk-${i}`)];

describe('canvasPayload and ?select=', () => {
	it('a focus this graph does not hold is served the plain payload', () => {
		const g = graph();
		const plain = canvasPayload(g);
		for (const focus of JUNK) expect(canvasPayload(g, { focus }).wire).toBe(plain.wire);
	});

	it('junk focuses never push out the cached payload of a real one', () => {
		const g = graph();
		const focus = 'dbt:main/analytics/orders';
		const first = canvasPayload(g, { focus });
		for (const junk of JUNK) canvasPayload(g, { focus: junk });
		const again = canvasPayload(g, { focus });
		expect(again.wire).toBe(first.wire);
		expect(again.timing.layoutMs).toBe(0);
	});
});
