import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { describeFixtures, fixture } from '../../../tests/support/fixtures';
import { parseManifest } from '../server/ingest/manifest';
import { assetNodeId, scriptNodeId, type CanvasEdge, type CanvasNode } from './canvas-model';
import { buildDbtColumnGraph, buildProducerColumnGraph, columnId, mergeColumnGraphs, type ColumnId } from './column-trace';
import { columnUniverse, evaluateSelector, parseSelector, searchByName, selectorGraph, type CanvasNodeLike, type SelectorResult } from './selector';
import { col, traceFixtures, type TraceFixture } from '../../../tests/support/trace-fixtures';

// ---------------------------------------------------------------------------------------------
// A small canvas: dbt models, a source, a seed, a producer script and the lake table it writes.
// raw_orders → stg_orders → orders → orders_daily → (script) report_job → lake report
//                       ↘ customers (view)     payments → orders
function n(name: string, extra: Partial<CanvasNode> = {}): CanvasNode {
	const path = `main/analytics/${name}`;
	return { id: assetNodeId('dbt', path), type: 'asset', kind: 'dbt', path, name, schema: 'main/analytics', resourceType: 'model', materialized: 'table', uniqueId: `model.shop.${name}`, ...extra };
}
const nodes: CanvasNode[] = [
	n('raw_orders', { resourceType: 'source', uniqueId: 'source.shop.stripe.raw_orders', materialized: null }),
	n('stg_orders', { materialized: 'view', filePath: 'models/staging/stg_orders.sql' }),
	n('orders', { tags: ['finance', 'daily'], filePath: 'models/marts/orders.sql' }),
	n('payments', { tags: ['finance'], filePath: 'models/marts/payments.sql' }),
	n('customers', { materialized: 'view', filePath: 'models/marts/customers.sql' }),
	n('orders_daily', { filePath: 'models/marts/orders_daily.sql' }),
	n('country_codes', { resourceType: 'seed', materialized: 'seed', uniqueId: 'seed.shop.country_codes', filePath: 'seeds/country_codes.csv' }),
	{ id: scriptNodeId('f/demo/report_job'), type: 'runnable', kind: 'sql', path: 'f/demo/report_job', name: 'report_job', schema: 'f/demo' },
	{ id: assetNodeId('ducklake', 'main/report'), type: 'asset', kind: 'ducklake', path: 'main/report', name: 'report', schema: 'main' }
];
const id = (name: string) => nodes.find((x) => x.name === name)!.id;
const e = (a: string, b: string): CanvasEdge => ({ source: id(a), target: id(b), kind: 'ref' });
const edges = [e('raw_orders', 'stg_orders'), e('stg_orders', 'orders'), e('stg_orders', 'customers'), e('payments', 'orders'), e('orders', 'orders_daily'), e('orders_daily', 'report_job'), e('report_job', 'report')];
const g = selectorGraph(nodes, edges);
const nameOf = (x: string) => nodes.find((m) => m.id === x)!.name;

function selected(r: SelectorResult): string[] {
	return r.kind === 'selection' ? [...r.ids] : r.kind === 'names' ? r.ids : [];
}

// Each as `dbt ls --select` reads it; the comment says where this differs from the box before.
const cases: { q: string; want: string[]; kind?: SelectorResult['kind'] }[] = [
	// A bare word is dbt's fqn method: the model of that name, not a name search (it was one).
	{ q: 'orders', want: ['orders'] },
	{ q: '+orders', want: ['orders', 'stg_orders', 'raw_orders', 'payments'] },
	{ q: 'orders+', want: ['orders', 'orders_daily', 'report_job', 'report'] },
	{ q: '1+orders', want: ['orders', 'stg_orders', 'payments'] },
	{ q: 'orders+1', want: ['orders', 'orders_daily'] },
	{ q: '2+orders_daily', want: ['orders_daily', 'orders', 'stg_orders', 'payments'] },
	{ q: '+orders+', want: ['orders', 'stg_orders', 'raw_orders', 'payments', 'orders_daily', 'report_job', 'report'] },
	// @: downstream, and everything the downstream needs.
	{ q: '@stg_orders', want: ['stg_orders', 'orders', 'customers', 'orders_daily', 'report_job', 'report', 'raw_orders', 'payments'] },
	{ q: 'tag:finance', want: ['orders', 'payments'] },
	{ q: 'tag:fin*', want: ['orders', 'payments'] },
	{ q: 'tag:finance+1', want: ['orders', 'payments', 'orders_daily'] },
	{ q: 'tag:finance,tag:daily', want: ['orders'] },
	{ q: 'tag:finance customers', want: ['orders', 'payments', 'customers'] },
	{ q: '+orders --exclude tag:finance', want: ['stg_orders', 'raw_orders'] },
	{ q: 'config.materialized:view', want: ['stg_orders', 'customers'] },
	{ q: 'resource_type:seed', want: ['country_codes'] },
	{ q: 'path:models/marts', want: ['orders', 'payments', 'customers', 'orders_daily'] },
	{ q: 'models/marts', want: ['orders', 'payments', 'customers', 'orders_daily'] },
	{ q: 'orders.sql', want: ['orders'] },
	{ q: 'file:orders_*', want: ['orders_daily'] },
	// The fqn without its package: a folder selects what is in it, as in dbt.
	{ q: 'marts', want: ['orders', 'payments', 'customers', 'orders_daily'] },
	{ q: 'shop.marts.orders', want: ['orders'] },
	{ q: 'marts.orders*', want: ['orders', 'orders_daily'] },
	{ q: 'source:stripe', want: ['raw_orders'] },
	{ q: 'source:stripe.raw_orders+1', want: ['raw_orders', 'stg_orders'] },
	{ q: 'orders*', want: ['orders', 'orders_daily'] },
	{ q: 'stg_[op]rders', want: ['stg_orders'] },
	// Globs are case-sensitive, as dbt's fnmatch is on Linux (the box ignored case before).
	{ q: 'Orders*', want: [], kind: 'selection' },
	{ q: 'package:shop,resource_type:model,config.materialized:table', want: ['orders', 'payments', 'orders_daily'] },
	{ q: 'kind:script', want: ['report_job'] },
	{ q: 'kind:ducklake', want: ['report'] },
	// Producer scripts and lake tables answer to their name.
	{ q: '+report', want: ['report', 'report_job', 'orders_daily', 'orders', 'stg_orders', 'raw_orders', 'payments'] },
	{ q: 'tag:nothing', want: [], kind: 'selection' },
	// The fallback: one plain word that selects nothing is looked up by name.
	{ q: 'ord', want: ['orders', 'orders_daily', 'raw_orders', 'stg_orders'], kind: 'names' },
	{ q: 'Orders', want: ['orders', 'orders_daily', 'raw_orders', 'stg_orders'], kind: 'names' },
	{ q: 'zzz', want: [], kind: 'selection' },
	// No fallback once there is syntax: it means what dbt says, here nothing.
	{ q: '+ord', want: [], kind: 'selection' }
];

describe('dbt selectors over the canvas', () => {
	it.each(cases)('$q', ({ q, want, kind }) => {
		const r = evaluateSelector(q, g);
		expect(r.kind).toBe(kind ?? 'selection');
		expect(selected(r).map(nameOf).sort()).toEqual([...want].sort());
	});

	it('seeds are what the atoms matched, before graph operators', () => {
		const r = evaluateSelector('+orders tag:finance', g);
		expect(r.kind === 'selection' && [...r.seeds].map(nameOf).sort()).toEqual(['orders', 'payments']);
	});

	it('the name fallback ranks exact, then prefix, then substring', () => {
		expect(searchByName(nodes, 'orders').map(nameOf)).toEqual(['orders', 'orders_daily', 'raw_orders', 'stg_orders']);
		expect(evaluateSelector('   ', g).kind).toBe('empty');
	});
});

// Where a selector does not parse: the message and the 0-based offset the box marks.
const errors: { q: string; at: number; message: RegExp }[] = [
	{ q: 'bogus:x', at: 0, message: /unknown method "bogus:"/ },
	{ q: '  bogus:x', at: 2, message: /unknown method/ },
	{ q: 'orders tag:', at: 11, message: /"tag:" needs a value/ },
	{ q: '@+orders', at: 0, message: /"@" and a leading "\+" cannot be combined/ },
	{ q: 'orders +', at: 7, message: /names nothing to select/ },
	{ q: 'a+b', at: 1, message: /"\+" can only lead or trail/ },
	{ q: 'or@ders', at: 2, message: /"@" can only lead/ },
	{ q: 'tag:a,:x', at: 6, message: /a method name must come before ":"/ },
	{ q: 'orders.', at: 6, message: /cannot end in "\."/ },
	{ q: 'orders --exclude', at: 16, message: /followed by nothing/ },
	{ q: 'a --exclude b --exclude c', at: 14, message: /given twice/ },
	{ q: 'orders --full-refresh', at: 7, message: /not part of the selector syntax/ },
	{ q: 'resource_type:modle', at: 14, message: /"modle" is not a dbt resource type/ },
	{ q: 'test_type:big', at: 10, message: /not a test type/ },
	{ q: 'source:a.b.c.d', at: 7, message: /a source is source, source.table or package.source.table/ },
	{ q: 'tag:a state:modified', at: 6, message: /cannot be evaluated \(it compares against a previous manifest\)/ }
];

describe('a selector that does not parse names the position, never throws', () => {
	it.each(errors)('$q', ({ q, at, message }) => {
		const r = evaluateSelector(q, g);
		expect(r.kind).toBe('error');
		if (r.kind !== 'error') return;
		expect(r.position).toBe(at);
		expect(r.message).toMatch(message);
		expect(r.message).toMatch(new RegExp(`^at character ${at + 1}: `));
	});

	it('a parse keeps each atom with where it starts', () => {
		const p = parseSelector('2+a+1,tag:x  @b --exclude c', { allowExclude: true });
		expect(p.ok).toBe(true);
		if (!p.ok) return;
		expect(p.ast.select.map((t) => t.map((a) => [a.raw, a.start, a.method, a.value, a.parents, a.children, a.childrensParents]))).toEqual([
			[
				['2+a+1', 0, null, 'a', 2, 1, false],
				['tag:x', 6, 'tag', 'x', 0, 0, false]
			],
			[['@b', 13, null, 'b', 0, 0, true]]
		]);
		expect(p.ast.exclude.map((t) => t.map((a) => a.value))).toEqual([['c']]);
	});
});

// ---------------------------------------------------------------------------------------------
// Column selectors over the named trace graphs (trace-fixtures.ts, the wire side of
// test-graphs.ts): diamond, cycle, self-loop, fan-out, two projects sharing a relation, a
// producer between dbt and a lake table.

/** A fixture as the canvas would show it: its relations, its scripts, their edges, its columns. */
function canvasOf(f: TraceFixture) {
	const columns = mergeColumnGraphs(...f.answers.map((a) => buildDbtColumnGraph(a)), buildProducerColumnGraph({ runnables: f.producers ?? [] }));
	const byId = new Map<string, CanvasNodeLike>();
	const asset = (kind: string, path: string) => {
		const nodeId = `${kind}:${path}`;
		const name = path.slice(path.lastIndexOf('/') + 1);
		if (!byId.has(nodeId)) byId.set(nodeId, { id: nodeId, type: 'asset', kind, path, name, ...(kind === 'dbt' ? { uniqueId: `model.p.${name}`, resourceType: 'model' } : {}) });
		return nodeId;
	};
	const relEdges: { source: string; target: string }[] = [];
	for (const answer of f.answers) {
		for (const x of answer) {
			const a = asset('dbt', x.from_asset_path);
			const b = asset('dbt', x.to_asset_path);
			if (a !== b) relEdges.push({ source: a, target: b });
		}
	}
	for (const r of f.producers ?? []) {
		const s = scriptNodeId(r.path);
		byId.set(s, { id: s, type: 'runnable', kind: r.language, path: r.path, name: r.path.split('/').pop()! });
		for (const out of r.column_lineage ?? []) {
			relEdges.push({ source: s, target: asset(out.asset_kind, out.asset_path) });
			for (const i of out.inputs) relEdges.push({ source: asset(i.from_kind, i.from_path), target: s });
		}
	}
	return { graph: selectorGraph([...byId.values()], relEdges), columns };
}

/** `orders.amount` / `lake:report.total` (fixture refs) → the column id. */
const colId = (ref: string): ColumnId => {
	const c = col(ref);
	return columnId(c.kind, c.path, c.column);
};
/** A fixture ref as typed in the box: a lake table by its name. */
const typed = (ref: string) => ref.replace(/^lake:/, '');

function columnRun(f: TraceFixture, q: string, known: (nodeId: string) => boolean = () => true) {
	const { graph, columns } = canvasOf(f);
	return evaluateSelector(q, graph, columnUniverse(columns, known));
}

const fixtureNamed = (name: string) => traceFixtures.find((f) => f.name === name)!;

describe('column selectors: +c+ is the column trace, over every named graph', () => {
	const rows = traceFixtures.flatMap((f) => (f.traces ?? []).map((t) => ({ name: `${f.name}: +${t.from}+`, f, ...t })));
	it.each(rows)('$name', ({ f, from, expect: want }) => {
		const r = columnRun(f, `+${typed(from)}+`);
		expect(r.kind).toBe('selection');
		if (r.kind !== 'selection') return;
		expect(r.columns).toEqual(want.map(colId).sort());
		expect([...r.columnSeeds]).toEqual([colId(from)]);
	});
});

const columnCases: { graph: string; q: string; columns: string[]; relations?: string[] }[] = [
	{ graph: 'diamond', q: 'd.x', columns: ['d.x'], relations: ['dbt:main/s/d'] },
	{ graph: 'diamond', q: '+d.x', columns: ['a.x', 'b.x', 'c.x', 'd.x'] },
	{ graph: 'diamond', q: '1+d.x', columns: ['b.x', 'c.x', 'd.x'] },
	{ graph: 'diamond', q: 'a.x+1', columns: ['a.x', 'b.x', 'c.x'] },
	{ graph: 'diamond', q: '1+b.x+1', columns: ['a.x', 'b.x', 'd.x'] },
	// @: the downstream and all it needs: c.x comes in as d.x's parent.
	{ graph: 'diamond', q: '@b.x', columns: ['a.x', 'b.x', 'c.x', 'd.x'] },
	{ graph: 'diamond', q: 'b.x c.x', columns: ['b.x', 'c.x'] },
	{ graph: 'diamond', q: '+d.x --exclude b', columns: ['a.x', 'c.x', 'd.x'] },
	{ graph: 'cycle', q: 'a.x+', columns: ['a.x', 'b.x', 'c.x'] },
	{ graph: 'cycle', q: '1+a.x', columns: ['a.x', 'c.x'] },
	{ graph: 'cycle', q: '2+a.x+1', columns: ['a.x', 'b.x', 'c.x'] },
	{ graph: 'self-loop', q: 'a.x+', columns: ['a.x'], relations: ['dbt:main/s/a'] },
	{ graph: 'self-loop', q: 'a.*+', columns: ['a.x', 'a.y', 'b.y'] },
	{ graph: 'self-loop', q: 'b.Y', columns: ['b.y'] },
	{ graph: 'fan-out 10,000', q: 'm42.id', columns: ['m42.id'] },
	{ graph: 'fan-out 10,000', q: '1+m42.id', columns: ['m42.id', 's.id'] },
	// scan is never walked: the relation d is downstream of a, its column is not.
	{ graph: 'two disconnected families', q: 'a.x+', columns: ['a.x', 'b.x'], relations: ['dbt:main/s/a', 'dbt:main/s/b'] },
	{ graph: 'two projects sharing a relation', q: 'mart.id+', columns: ['mart.id'] },
	{ graph: 'two projects sharing a relation', q: '+mart.id', columns: ['mart.id', 'raw.id', 'shared.id'] },
	{ graph: 'two projects sharing a relation', q: 'shared.id+1', columns: ['mart.id', 'shared.id'] },
	// Across a producer: the script between two lit relations is lit too.
	{
		graph: 'a producer reading two dbt relations',
		q: 'stg_orders.amount+',
		columns: ['lake:report.total', 'orders.amount', 'stg_orders.amount'],
		relations: ['dbt:main/s/orders', 'dbt:main/s/stg_orders', 'ducklake:main/report', 'script:f/x/report']
	},
	{
		graph: 'a producer reading two dbt relations',
		q: '1+report.total',
		columns: ['lake:report.total', 'orders.amount', 'payments.amount'],
		relations: ['dbt:main/s/orders', 'dbt:main/s/payments', 'ducklake:main/report', 'script:f/x/report']
	},
	// An intersection keeps the columns whose relation survives it.
	{ graph: 'a producer reading two dbt relations', q: '+report.total,payments', columns: ['payments.amount'], relations: ['dbt:main/s/payments'] }
];

describe('column selectors: depth, @, unions, intersections, excludes', () => {
	it.each(columnCases)('$graph: $q', ({ graph, q, columns, relations }) => {
		const r = columnRun(fixtureNamed(graph), q);
		expect(r.kind).toBe('selection');
		if (r.kind !== 'selection') return;
		expect(r.columns).toEqual(columns.map(colId).sort());
		const lit = new Set(columns.map((c) => `${col(c).kind}:${col(c).path}`));
		expect([...r.ids].sort()).toEqual(relations ?? [...lit].sort());
	});

	it.each([
		['diamond', 'd.nope'],
		['diamond', 'nothing.x'],
		['self-loop', 'b.x+']
	])('%s: %s matches nothing, so nothing is lit', (graph, q) => {
		const r = columnRun(fixtureNamed(graph), q);
		expect(r).toMatchObject({ kind: 'selection', columns: [], pending: [] });
		expect(selected(r)).toEqual([]);
	});

	it('a relation whose columns are not known yet is pending, not a miss', () => {
		const f = fixtureNamed('diamond');
		const r = columnRun(f, '+d.x', (nodeId) => nodeId !== 'dbt:main/s/d');
		expect(r).toMatchObject({ kind: 'selection', columns: [], pending: ['dbt:main/s/d'] });
		expect(selected(r)).toEqual([]);
	});

	it('dbt reads the value first: an fqn that selects something is never a column', () => {
		const f = fixtureNamed('diamond');
		const { columns } = canvasOf(f);
		// A folder `d` holding a model `x`: `d.x` is that model, as dbt would have it.
		const folder: CanvasNodeLike = { id: 'dbt:main/s/x', type: 'asset', kind: 'dbt', path: 'main/s/x', name: 'x', uniqueId: 'model.p.x', resourceType: 'model', filePath: 'models/d/x.sql' };
		const graph = selectorGraph([...canvasOf(f).graph.nodes, folder], []);
		const r = evaluateSelector('d.x', graph, columnUniverse(columns, () => true));
		expect(r).toMatchObject({ kind: 'selection', columns: [] });
		expect(selected(r)).toEqual(['dbt:main/s/x']);
	});

	it('column: is the explicit form, and dbt (the deploy side) does not know it', () => {
		const r = columnRun(fixtureNamed('diamond'), 'column:a.x+1');
		expect(r.kind === 'selection' && r.columns).toEqual(['a.x', 'b.x', 'c.x'].map(colId).sort());
		expect(evaluateSelector('column:a.x', g).kind).toBe('error');
	});
});

// ---------------------------------------------------------------------------------------------
// One grammar for both: over real manifests, the deploy side (parseManifest) and the canvas
// (its nodes rebuilt from what the canvas carries) select the same relations. Selectors whose
// atoms match tests are left out: tests are not cards, so `+tag:x` over tagged tests has
// nothing to start from on the canvas.

const SHARED = [
	'customers',
	'+customers',
	'customers+',
	'1+orders+1',
	'@stg_orders',
	'staging',
	'marts.customers',
	'jaffle_shop.staging.*',
	'stg_*',
	'*orders*',
	'models/staging',
	'path:models/marts',
	'stg_orders.sql',
	'file:raw_*',
	'resource_type:seed',
	'config.materialized:view',
	'package:jaffle_shop,config.materialized:table',
	'source:ecom',
	'source:ecom.raw_orders+1',
	'tag:crm',
	'tag:crm+',
	'+tag:payment,resource_type:model',
	'tag:example_tag',
	'package:tiktok_ads*',
	'tiktok_ads',
	'tiktok_ads+ --exclude tiktok_ads_source'
];

describeFixtures('one grammar: deploy selection and the canvas agree on real manifests', () => {
	for (const dir of ['jaffle-shop-1.12-duckdb-docs-generate', 'dbt-bouncer-1.11.2-build']) {
		const text = readFileSync(fixture(dir, 'manifest.json'), 'utf8');
		const whole = parseManifest(text);
		const RELATIONS = new Set(['model', 'seed', 'snapshot', 'source']);
		const relations = whole.nodes.filter((x) => RELATIONS.has(x.resourceType));
		const canvasNodes: CanvasNodeLike[] = relations.map((x) => ({
			id: x.uniqueId,
			type: 'asset',
			kind: 'dbt',
			path: x.assetPath ?? x.uniqueId,
			name: x.name,
			resourceType: x.resourceType,
			materialized: x.materialized,
			uniqueId: x.uniqueId,
			tags: x.tags,
			filePath: x.originalFilePath ?? undefined
		}));
		const ids = new Set(canvasNodes.map((x) => x.id));
		const canvas = selectorGraph(
			canvasNodes,
			whole.edges.filter((x) => ids.has(x.parent) && ids.has(x.child)).map((x) => ({ source: x.parent, target: x.child }))
		);
		it.each(SHARED)(`${dir}: %s`, (q) => {
			const r = evaluateSelector(q, canvas);
			const onCanvas = r.kind === 'selection' ? [...r.ids].sort() : [];
			let deployed: string[] = [];
			try {
				// The descriptor has its own exclude field for what the box writes after --exclude.
				const [select, exclude] = q.split(' --exclude ');
				const g = parseManifest(text, { selection: { select: [select], exclude: exclude ? [exclude] : [] }, indirectSelection: 'empty' });
				deployed = g.nodes.filter((x) => !x.anchorOnly && RELATIONS.has(x.resourceType)).map((x) => x.uniqueId);
			} catch (e) {
				// "matches no node" is the deploy side's word for an empty selection.
				expect(String(e)).toMatch(/matches no node|excludes every node/);
			}
			expect(r.kind).not.toBe('error');
			expect(onCanvas).toEqual([...deployed].sort());
		});
		it(`${dir}: the shared selectors select something somewhere`, () => {
			const hits = SHARED.filter((q) => {
				const r = evaluateSelector(q, canvas);
				return r.kind === 'selection' && r.ids.size > 0;
			});
			expect(hits.length).toBeGreaterThan(SHARED.length / 2);
		});
	}
});
