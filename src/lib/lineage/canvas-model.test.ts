import { describe, expect, it } from 'vitest';
import type { AssetGraph, DbtProvenance } from '../types/asset-graph';
import { canvasFromAssetGraph, fromWire, toWire } from './canvas-model';

const prov = (extra: Partial<DbtProvenance>): DbtProvenance => ({
	script_path: 'f/demo/shop',
	script_hash: '0000000000000001',
	unique_id: 'model.shop.orders',
	resource_type: 'model',
	materialized: 'table',
	materialize_strategy: null,
	data_tests: [],
	authored: true,
	...extra
});

const graph: AssetGraph = {
	assets: [
		{ kind: 'dbt', path: 'main/raw/orders', dbt: prov({ unique_id: 'source.shop.raw.orders', resource_type: 'source', materialized: null }) },
		{
			kind: 'dbt',
			path: 'main/analytics/orders',
			dbt: prov({
				tags: ['finance'],
				original_file_path: 'models/marts/orders.sql',
				data_tests: [
					{ kind: 'unique', column: 'id', severity: 'error' },
					{ kind: 'not_null', column: 'id', severity: null },
					{ kind: 'accepted_values', column: 's', severity: 'warn' }
				]
			})
		},
		{ kind: 'dbt', path: 'main/analytics/v2_orders', dbt: prov({ unique_id: 'model.shop.orders_v2', original_file_path: 'models/x/odd name.sql' }) },
		{ kind: 'dbt', path: 'main/analytics/hidden', dbt: prov({ unique_id: 'model.shop.hidden', authored: false }) },
		{ kind: 'ducklake', path: 'main/report' }
	],
	runnables: [
		{ path: 'f/demo/shop', language: 'dbt', script_hash: '0000000000000001', dbt: { model_count: 3 } },
		{ path: 'f/demo/report', language: 'sql', script_hash: '0000000000000002' }
	],
	edges: [
		{ runnable_path: 'f/demo/report', asset_kind: 'dbt', asset_path: 'main/analytics/orders', access: 'r' },
		{ runnable_path: 'f/demo/report', asset_kind: 'ducklake', asset_path: 'main/report', access: 'rw' },
		{ runnable_path: 'f/demo/shop', asset_kind: 'dbt', asset_path: 'main/analytics/orders', access: 'w' }
	],
	dbt_edges: [{ from_asset_path: 'main/raw/orders', to_asset_path: 'main/analytics/orders' }],
	hidden: 2
};

describe('the canvas graph', () => {
	const c = canvasFromAssetGraph(graph);

	it('draws producers wired to what they read and write, and dbt projects as a list', () => {
		expect(c.edges.map((e) => `${e.source} ${e.kind} ${e.target}`).sort()).toEqual([
			'dbt:main/analytics/orders read script:f/demo/report',
			'dbt:main/raw/orders ref dbt:main/analytics/orders',
			// read-and-write is drawn as the writer, so the producer sits above its table
			'script:f/demo/report write ducklake:main/report'
		]);
		expect(c.projects).toEqual([{ path: 'f/demo/shop', hash: '0000000000000001', modelCount: 3 }]);
		expect(c.nodes.some((n) => n.id === 'script:f/demo/shop')).toBe(false);
	});

	it('counts tests by severity (none given is error) and keeps authored fields only when served', () => {
		const orders = c.nodes.find((n) => n.name === 'orders' && n.resourceType === 'model')!;
		expect(orders.tests).toEqual({ error: 2, warn: 1 });
		expect(orders.tags).toEqual(['finance']);
		const hidden = c.nodes.find((n) => n.name === 'hidden')!;
		expect(hidden.tags).toBeUndefined();
		expect(hidden.filePath).toBeUndefined();
	});

	it('survives the wire form unchanged, and the wire form is smaller', () => {
		const w = toWire(c);
		expect(fromWire(JSON.parse(JSON.stringify(w)))).toEqual(c);
		expect(JSON.stringify(w).length).toBeLessThan(JSON.stringify(c).length);
	});

	it('digests structure: equal graphs agree, a changed edge does not', () => {
		expect(canvasFromAssetGraph(structuredClone(graph)).digest).toBe(c.digest);
		const g2 = structuredClone(graph);
		g2.dbt_edges = [];
		expect(canvasFromAssetGraph(g2).digest).not.toBe(c.digest);
	});
});
