import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { describeFixtures, fixture } from '../../../tests/support/fixtures';
import { OPENLINEAGE_REFERENCE, openLineageValidator } from '../../../tests/support/openlineage-schemas';
import type { RunEvent } from '../types/openlineage';
import { consumerEvent, datasetId, modelEvent, producerEvent, transformationsOf, type ModelEventInput, type OlNode } from './openlineage';
import type { GraphConsumer } from '../types/consumers';
import { sqlColumnUses } from './sql-clauses';
import { namedGraphs } from '../../../tests/support/test-graphs';

const naming = { workspace: 'acme', defaultDatabase: new Map([['main', 'jaffle_shop'], ['bare', null]]) };
const frame = { eventType: 'COMPLETE' as const, eventTime: '2026-01-01T00:00:00.000Z', runId: '00000000-0000-5000-8000-000000000001' };
const all = () => true;

/** Model nodes of a named graph: `a` lives at `main/analytics/a`, typed column `x`. */
function nodesOf(edges: { parentUniqueId: string; childUniqueId: string }[]): Map<string, OlNode> {
	const out = new Map<string, OlNode>();
	for (const id of edges.flatMap((e) => [e.parentUniqueId, e.childUniqueId])) {
		out.set(id, { uniqueId: id, resourceType: 'model', assetPath: `main/analytics/${id}`, rawCode: 'select 1', columnSchema: [{ name: 'x', type: 'INTEGER' }] });
	}
	return out;
}

function eventsOf(g: (typeof namedGraphs)[number], authored = true): RunEvent[] {
	const nodes = nodesOf(g.edges);
	return [...nodes.values()].map((node) =>
		modelEvent(
			{
				workspace: 'acme',
				scriptPath: 'f/a/p',
				node,
				parents: [...new Set(g.edges.filter((e) => e.childUniqueId === node.uniqueId).map((e) => e.parentUniqueId))].map((id) => nodes.get(id)!),
				columnEdges: g.edges.filter((e) => e.childUniqueId === node.uniqueId),
				nodeOf: (id) => nodes.get(id),
				authored,
				naming,
				datasetAllowed: all
			},
			frame
		)
	);
}

describe('dataset naming', () => {
	it.each([
		['dbt', 'main/analytics/orders', 'dbt://acme/main', 'jaffle_shop.analytics.orders'],
		['dbt', 'main/raw.sales/orders', 'dbt://acme/main', 'raw.sales.orders'],
		['dbt', 'bare/analytics/orders', 'dbt://acme/bare', 'analytics.orders'],
		['dbt', 'other/analytics/orders', 'dbt://acme/other', 'analytics.orders'],
		['ducklake', 'main/report', 'ducklake://acme/main', 'report']
	])('%s %s → %s %s', (kind, path, namespace, name) => {
		expect(datasetId(kind, path, naming)).toEqual({ namespace, name });
	});
});

describe('every stored column edge becomes one input field', () => {
	it.each(namedGraphs.map((g) => [g.name, g] as const))('%s', (_name, g) => {
		const events = eventsOf(g);
		const fields = events.flatMap((ev) =>
			ev.outputs.flatMap((o) =>
				Object.entries(o.facets?.columnLineage?.fields ?? {}).flatMap(([col, f]) =>
					f.inputFields.map((i) => `${i.name.split('.').pop()}.${i.field}>${o.name.split('.').pop()}.${col}:${i.transformations.map((t) => `${t.type}/${t.subtype ?? ''}`).sort().join('+')}`)
				)
			)
		);
		const expected = [...new Set(g.edges.map((e) => `${e.parentUniqueId}.${e.parentColumn}>${e.childUniqueId}.${e.childColumn}`))].map((k) => {
			const kinds = [...new Set(g.edges.filter((e) => `${e.parentUniqueId}.${e.parentColumn}>${e.childUniqueId}.${e.childColumn}` === k).map((e) => e.lineageKind))];
			const word = (kind: string) => (kind === 'copy' ? 'DIRECT/IDENTITY' : kind === 'mod' ? 'DIRECT/TRANSFORMATION' : 'INDIRECT/');
			return `${k}:${[...new Set(kinds.map(word))].sort().join('+')}`;
		});
		expect(fields.sort()).toEqual(expected.sort());
		// Inputs are the ref() parents, as datasets.
		for (const ev of events) expect(ev.outputs).toHaveLength(1);
	});

	it('a shape-only event names jobs and datasets and carries no SQL, schema or column lineage', () => {
		const text = JSON.stringify(eventsOf(namedGraphs[0], false));
		expect(text).not.toContain('columnLineage');
		expect(text).not.toContain('"schema"');
		expect(text).not.toContain('select 1');
		expect(text).toContain('jaffle_shop.analytics.a');
	});

	it('a dataset the token does not reach is left out, with the lineage naming it', () => {
		const g = namedGraphs[0];
		const nodes = nodesOf(g.edges);
		const d = nodes.get('d')!;
		const m: ModelEventInput = {
			workspace: 'acme',
			scriptPath: 'f/a/p',
			node: d,
			parents: [nodes.get('b')!, nodes.get('c')!],
			columnEdges: g.edges.filter((e) => e.childUniqueId === 'd'),
			nodeOf: (id) => nodes.get(id),
			authored: true,
			naming,
			datasetAllowed: (_k, p) => !p.endsWith('/b')
		};
		const text = JSON.stringify(modelEvent(m, frame));
		expect(text).not.toContain('analytics.b');
		expect(text).toContain('analytics.c');
	});
});

describe('transformations', () => {
	const uses = sqlColumnUses(`
		with o as (select customer_id, status, amount from {{ ref('orders') }} where status != 'x')
		select c.customer_id, sum(o.amount) as total, max(o.amount) over (partition by o.region order by o.placed_at) as running,
		       count(*) as n
		  from {{ ref('customers') }} c
		  join o on c.customer_id = o.customer_id
		 group by 1
		 order by total`);
	it.each([
		['copy', 'id', 'id', [{ type: 'DIRECT', subtype: 'IDENTITY' }]],
		['mod', 'amount', 'total', [{ type: 'DIRECT', subtype: 'AGGREGATION' }]],
		['mod', 'amount', 'running', [{ type: 'DIRECT', subtype: 'TRANSFORMATION' }]],
		['mod', 'amount', 'n', [{ type: 'DIRECT', subtype: 'AGGREGATION' }]],
		['scan', 'customer_id', 'total', [{ type: 'INDIRECT', subtype: 'JOIN' }, { type: 'INDIRECT', subtype: 'GROUP_BY' }]],
		['scan', 'status', 'total', [{ type: 'INDIRECT', subtype: 'FILTER' }]],
		['scan', 'region', 'running', [{ type: 'INDIRECT', subtype: 'WINDOW' }]],
		['scan', 'placed_at', 'running', [{ type: 'INDIRECT', subtype: 'WINDOW' }]],
		['scan', 'nowhere', 'total', [{ type: 'INDIRECT' }]],
		['', 'x', 'y', [{ type: 'INDIRECT' }]]
	])('%s %s → %s', (kind, parent, child, expected) => {
		expect(transformationsOf(kind, parent, child, uses)).toEqual(expected);
	});

	it('without the SQL, mod is a transformation and scan has no subtype', () => {
		expect(transformationsOf('mod', 'a', 'b', null)).toEqual([{ type: 'DIRECT', subtype: 'TRANSFORMATION' }]);
		expect(transformationsOf('scan', 'a', 'b', null)).toEqual([{ type: 'INDIRECT' }]);
	});

	it('strings, comments and Jinja statements are not read as columns', () => {
		const u = sqlColumnUses(`select a from t -- where hidden = 1\n where b = 'where c = 1' {% if x %} and d {% endif %} /* group by e */`);
		expect([...u.clauses.FILTER].sort()).toEqual(['b', 'd']);
		expect(u.clauses.GROUP_BY.size).toBe(0);
	});
});

describe('whole-dataset lineage', () => {
	const nodes = new Map<string, OlNode>([
		['p', { uniqueId: 'p', resourceType: 'model', assetPath: 'main/analytics/p' }],
		['c', { uniqueId: 'c', resourceType: 'model', assetPath: 'main/analytics/c', columnSchema: [{ name: 'a' }, { name: 'b' }] }]
	]);
	const edge = (pc: string, cc: string, k: string) => ({ parentUniqueId: 'p', parentColumn: pc, childUniqueId: 'c', childColumn: cc, lineageKind: k });
	const facetOf = (edges: ReturnType<typeof edge>[]) =>
		modelEvent(
			{ workspace: 'acme', scriptPath: 'f/a/p', node: nodes.get('c')!, parents: [nodes.get('p')!], columnEdges: edges, nodeOf: (id) => nodes.get(id), authored: true, naming, datasetAllowed: all },
			frame
		).outputs[0].facets?.columnLineage;
	it('a scan reaching every output column is written once under dataset; one reaching some stays under them', () => {
		const f = facetOf([edge('a', 'a', 'copy'), edge('k', 'a', 'scan'), edge('k', 'b', 'scan'), edge('s', 'b', 'scan')]);
		expect(f?.dataset?.map((i) => i.field)).toEqual(['k']);
		expect(f?.fields.a.inputFields.map((i) => i.field)).toEqual(['a']);
		expect(f?.fields.b.inputFields.map((i) => [i.field, i.transformations[0].type])).toEqual([['s', 'INDIRECT']]);
	});
	it('a relation without column edges has no facet', () => {
		expect(facetOf([])).toBeUndefined();
	});
});

describeFixtures('jaffle-shop SQL', () => {
	const manifest = JSON.parse(readFileSync(fixture('jaffle-shop-1.12-duckdb-docs-generate', 'manifest.json'), 'utf8'));
	it('customers: the aggregates of its summary CTE, the join key and the positional group-by key', () => {
		const u = sqlColumnUses(manifest.nodes['model.jaffle_shop.customers'].raw_code);
		for (const c of ['count_lifetime_orders', 'is_repeat_buyer', 'lifetime_spend', 'lifetime_tax_paid', 'first_ordered_at']) expect(u.aggregated).toContain(c);
		expect(u.aggregated).not.toContain('customer_type');
		expect(u.clauses.JOIN).toContain('customer_id');
		expect(u.clauses.GROUP_BY).toContain('customer_id');
	});
	it('orders: window keys, join key, aggregates', () => {
		const u = sqlColumnUses(manifest.nodes['model.jaffle_shop.orders'].raw_code);
		expect([...u.clauses.WINDOW].sort()).toEqual(['customer_id', 'ordered_at']);
		expect(u.clauses.JOIN).toContain('order_id');
		expect(u.clauses.GROUP_BY).toContain('order_id');
		expect(u.aggregated).toContain('order_cost');
		expect(u.aggregated).not.toContain('customer_order_number');
	});
});

describeFixtures('the events validate against the official OpenLineage schemas', () => {
	it('the validator accepts the spec example and rejects a broken event', () => {
		const v = openLineageValidator();
		// The spec's own example, checked against the 1-2-0 facet this export writes.
		const example = JSON.parse(readFileSync(`${OPENLINEAGE_REFERENCE}/tests__ColumnLineageDatasetFacet__1.json`, 'utf8'));
		example.columnLineage._schemaURL = 'https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet';
		const ev = eventsOf(namedGraphs[0])[3];
		expect(v.errors(ev)).toEqual([]);
		expect(v.errors({ ...ev, outputs: [{ namespace: 'n', name: 'x', facets: example }] })).toEqual([]);
		expect(v.errors({ ...ev, run: {} }).join()).toMatch(/runId/);
		expect(v.errors({ ...ev, eventTime: 'yesterday' }).join()).toMatch(/date-time/);
		const broken = structuredClone(ev);
		delete (broken.outputs[0].facets!.columnLineage!.fields.x.inputFields[0] as Partial<{ field: string }>).field;
		expect(v.errors(broken).join()).toMatch(/field/);
	});

	it.each(namedGraphs.map((g) => [g.name, g] as const))('%s', (_name, g) => {
		const v = openLineageValidator();
		for (const ev of [...eventsOf(g), ...eventsOf(g, false)]) expect(v.errors(ev)).toEqual([]);
	});

	it("the OpenAPI document's example, which the mapping itself makes", async () => {
		const { openapiDocument } = await import('../server/openapi');
		const doc = openapiDocument() as any;
		const example = doc.paths['/api/w/{ws}/dbt/openlineage'].get.responses[200].content['application/x-ndjson'].example;
		expect(openLineageValidator().errors(example)).toEqual([]);
		expect(example.outputs[0].facets.columnLineage.fields.total.inputFields.map((i: any) => i.transformations[0].subtype)).toEqual(['AGGREGATION', 'FILTER']);
	});

	it('a producer event with its column lineage', () => {
		const v = openLineageValidator();
		const ev = producerEvent(
			{
				workspace: 'acme',
				scriptPath: 'f/lake/report',
				reads: [{ kind: 'dbt', path: 'main/analytics/orders' }],
				writes: [{ kind: 'ducklake', path: 'main/report' }],
				lineage: [
					{ outputAssetKind: 'ducklake', outputAssetPath: 'main/report', outputColumn: 'ref', inputAssetKind: 'dbt', inputAssetPath: 'main/analytics/orders', inputColumn: 'order_id', lineageKind: 'copy' },
					{ outputAssetKind: 'ducklake', outputAssetPath: 'main/report', outputColumn: 'total', inputAssetKind: 'dbt', inputAssetPath: 'main/analytics/orders', inputColumn: 'amount', lineageKind: null }
				],
				naming,
				datasetAllowed: all
			},
			{ ...frame, parent: { runId: frame.runId, jobName: 'f/a/p' } }
		);
		expect(v.errors(ev)).toEqual([]);
		expect(ev.outputs[0].facets?.columnLineage?.fields.ref.inputFields).toEqual([
			{ namespace: 'dbt://acme/main', name: 'jaffle_shop.analytics.orders', field: 'order_id', transformations: [{ type: 'DIRECT', subtype: 'IDENTITY' }] }
		]);
		expect(ev.outputs[0].facets?.columnLineage?.fields.total.inputFields[0].transformations).toEqual([{ type: 'DIRECT' }]);
		expect(v.checkedFacets).toContain('https://openlineage.io/spec/facets/1-2-0/ParentRunFacet.json');
	});
});

describe('consumerEvent', () => {
	const base = { script_path: 'f/a/p', label: null, description: null, depends_on_assets: [] as string[] };
	const sm: GraphConsumer = {
		...base,
		unique_id: 'semantic_model.p.orders',
		type: 'semantic_model',
		name: 'orders',
		depends_on: ['model.p.orders'],
		depends_on_assets: ['main/analytics/orders'],
		model_asset: 'main/analytics/orders',
		fields: [
			{ name: 'order_id', role: 'entity', expr: null, reads: ['order_id'] },
			{ name: 'net', role: 'dimension', expr: 'amount * 0.9', reads: ['amount'] },
			{ name: 'total', role: 'measure', expr: 'amount', agg: 'sum', reads: ['amount'] }
		]
	};
	const metric: GraphConsumer = {
		...base,
		unique_id: 'metric.p.revenue',
		type: 'metric',
		name: 'revenue',
		depends_on: ['semantic_model.p.orders', 'semantic_model.p.hidden'],
		columns: [{ asset_path: 'main/analytics/orders', column: 'amount' }]
	};
	const ev = (c: GraphConsumer, shown = ['semantic_model.p.orders', 'metric.p.revenue']) =>
		consumerEvent({ workspace: 'acme', scriptPath: 'f/a/p', consumer: c, shownConsumers: new Set(shown), naming }, frame);

	it("a semantic model: its model as input, a field per entity, dimension and measure from the model's columns", () => {
		const e = ev(sm);
		expect(e.job).toMatchObject({ namespace: 'tributary://acme', name: 'f/a/p/semantic_model.p.orders', facets: { jobType: { integration: 'DBT', jobType: 'SEMANTIC_MODEL' } } });
		expect(e.inputs).toEqual([{ namespace: 'dbt://acme/main', name: 'jaffle_shop.analytics.orders' }]);
		const fields = e.outputs[0].facets!.columnLineage!.fields;
		const sub = (f: string) => fields[f].inputFields.map((i) => `${i.field}:${i.transformations.map((t) => t.subtype).join()}`);
		expect([sub('order_id'), sub('net'), sub('total')]).toEqual([['order_id:IDENTITY'], ['amount:TRANSFORMATION'], ['amount:AGGREGATION']]);
		expect(e.outputs[0]).toMatchObject({ namespace: 'dbt-consumer://acme/f/a/p', name: 'semantic_model.p.orders' });
	});

	it('a metric reads the consumer datasets it builds on, only those shown; an exposure writes nothing', () => {
		const m = ev(metric);
		expect(m.inputs).toEqual([{ namespace: 'dbt-consumer://acme/f/a/p', name: 'semantic_model.p.orders' }]);
		expect(m.outputs[0].facets!.columnLineage!.fields.revenue.inputFields).toEqual([
			{ namespace: 'dbt://acme/main', name: 'jaffle_shop.analytics.orders', field: 'amount', transformations: [{ type: 'DIRECT', subtype: 'AGGREGATION' }] }
		]);
		const x = ev({ ...base, unique_id: 'exposure.p.dash', type: 'exposure', name: 'dash', depends_on: ['metric.p.revenue'] });
		expect([x.inputs, x.outputs]).toEqual([[{ namespace: 'dbt-consumer://acme/f/a/p', name: 'metric.p.revenue' }], []]);
		expect(x.job.facets!.jobType!.jobType).toBe('EXPOSURE');
	});
});
