import { describe, expect, it } from 'vitest';
import type { ColumnLineageEdge, GraphRunnable } from '../types/asset-graph';
import {
	bridgeRelationless,
	buildImpactGraph,
	csvField,
	impactCsv,
	impactRelations,
	walkColumnImpact,
	type ImpactDirection,
	type ImpactEntry
} from './column-impact';
import { columnId, downstreamOf, upstreamOf } from './column-trace';
import type { ColumnEdgeLike } from './components';
import { col, edge, producer, storageGraphsAsAnswers, traceFixtures } from '../../../tests/support/trace-fixtures';

/** Back to the fixtures' `asset.column` spelling. */
function refOf(e: { kind: string; asset_path: string; column: string }): string {
	const asset = e.kind === 'ducklake' ? `lake:${e.asset_path.slice('main/'.length)}` : e.asset_path.slice('main/s/'.length);
	return `${asset}.${e.column}`;
}

/** `ref@depth:kind>kind[via a;b]`, so a failure reads like the table. */
const show = (e: ImpactEntry) => `${refOf(e)}@${e.depth}:${e.kinds.join('>')}${e.via.length ? `[via ${e.via.join(';')}]` : ''}`;

const producers = (rs: readonly GraphRunnable[] = []) => rs.map((r) => ({ path: r.path, column_lineage: r.column_lineage ?? [] }));

interface Named {
	name: string;
	edges: ColumnLineageEdge[];
	producers?: GraphRunnable[];
}

// Every named graph both test modules know, in wire terms.
const graphs: Named[] = [
	...traceFixtures.map((f) => ({ name: f.name, edges: f.answers.flat(), producers: f.producers })),
	...storageGraphsAsAnswers.map((g) => ({ name: `storage ${g.name}`, edges: g.answer }))
];

const graphNamed = (name: string) => {
	const g = graphs.find((x) => x.name === name);
	if (!g) throw new Error(`no named graph ${name}`);
	return buildImpactGraph(g.edges, producers(g.producers));
};

const lakeChain = [
	producer('f/etl/daily', { 'lake:daily.total': ['orders.amount'] }, 'mod'),
	producer('f/etl/weekly', { 'lake:weekly.total': ['lake:daily.total'] }),
	producer('f/etl/back', { 'back.total': ['lake:weekly.total'] }, 'copy')
];

const walks: { graph: string; from: string; direction: ImpactDirection; expect: string[]; limit?: number; truncated?: boolean }[] = [
	{ graph: 'diamond', from: 'a.x', direction: 'downstream', expect: ['b.x@1:copy', 'c.x@1:mod', 'd.x@2:copy>copy'] },
	{ graph: 'diamond', from: 'd.x', direction: 'upstream', expect: ['b.x@1:copy', 'c.x@1:copy', 'a.x@2:copy>copy'] },
	// A sibling through the shared parent is neither.
	{ graph: 'diamond', from: 'b.x', direction: 'downstream', expect: ['d.x@1:copy'] },
	{ graph: 'cycle', from: 'a.x', direction: 'downstream', expect: ['b.x@1:copy', 'c.x@2:copy>copy'] },
	{ graph: 'cycle', from: 'a.x', direction: 'upstream', expect: ['c.x@1:copy', 'b.x@2:copy>copy'] },
	{ graph: 'self-loop', from: 'a.x', direction: 'downstream', expect: [] },
	{ graph: 'self-loop', from: 'a.y', direction: 'downstream', expect: ['b.y@1:copy'] },
	{ graph: 'storage self-loop', from: 'a.x', direction: 'upstream', expect: [] },
	{ graph: 'storage fan-out', from: 's.id', direction: 'downstream', expect: ['a.id@1:copy', 'b.id@1:copy', 'c.id@1:mod'] },
	{ graph: 'storage fan-out', from: 'd.n', direction: 'upstream', expect: [] },
	{ graph: 'two disconnected families', from: 'a.x', direction: 'downstream', expect: ['b.x@1:copy'] },
	{ graph: 'storage disconnected families', from: 'c.y', direction: 'downstream', expect: ['d.y@1:copy'] },
	{ graph: 'two projects sharing a relation', from: 'raw.id', direction: 'downstream', expect: ['shared.id@1:copy', 'mart.id@2:copy>mod'] },
	{ graph: 'two projects sharing a relation', from: 'mart.id', direction: 'upstream', expect: ['shared.id@1:mod', 'raw.id@2:mod>copy'] },
	{
		graph: 'a producer reading two dbt relations',
		from: 'stg_orders.amount',
		direction: 'downstream',
		expect: ['orders.amount@1:copy', 'lake:report.total@2:copy>producer[via f/x/report]']
	},
	{
		graph: 'a producer reading two dbt relations',
		from: 'lake:report.total',
		direction: 'upstream',
		expect: [
			'orders.amount@1:producer[via f/x/report]',
			'payments.amount@1:producer[via f/x/report]',
			'stg_orders.amount@2:producer>copy[via f/x/report]',
			'stg_payments.amount@2:producer>mod[via f/x/report]'
		]
	},
	{ graph: 'unknown kinds are never drawn', from: 'a.x', direction: 'downstream', expect: ['b.x@1:copy'] },
	{ graph: 'storage long chain', from: 'm18.x', direction: 'downstream', expect: ['m19.x@1:copy', 'm20.x@2:copy>copy'] },
	// Bounded: the nearest are kept, and the cut says so.
	{ graph: 'storage long chain', from: 'm0.x', direction: 'downstream', limit: 2, truncated: true, expect: ['m1.x@1:copy', 'm2.x@2:copy>copy'] },
	// Exactly `limit` reachable columns is a complete answer.
	{ graph: 'diamond', from: 'a.x', direction: 'downstream', limit: 3, truncated: false, expect: ['b.x@1:copy', 'c.x@1:mod', 'd.x@2:copy>copy'] },
	{ graph: 'fan-out 10,000', from: 's.id', direction: 'downstream', limit: 3, truncated: true, expect: ['m0.id@1:copy', 'm1.id@1:copy', 'm10.id@1:copy'] },
	{ graph: 'diamond', from: 'nowhere.x', direction: 'downstream', expect: [] }
];

describe('walkColumnImpact over the named graphs', () => {
	it.each(walks)('$graph: $direction of $from', ({ graph, from, direction, expect: want, limit, truncated }) => {
		const got = walkColumnImpact(graphNamed(graph), col(from), direction, { limit });
		expect(got.columns.map(show)).toEqual(want);
		expect(got.truncated).toBe(truncated ?? false);
		expect(got.withheld).toBe(0);
	});

	// The list and the trace agree: the walk reaches exactly the trace's reach, each column once,
	// at its least depth — on every named graph, from every column, both ways.
	it.each(graphs)('$name: agrees with the trace from every column', (g) => {
		const ig = buildImpactGraph(g.edges, producers(g.producers));
		for (const [id, node] of ig.graph.nodes) {
			for (const direction of ['downstream', 'upstream'] as const) {
				const got = walkColumnImpact(ig, node, direction, { limit: Infinity });
				const reach = direction === 'downstream' ? downstreamOf(id, ig.graph) : upstreamOf(id, ig.graph);
				reach.delete(id);
				const ids = got.columns.map((c) => columnId(c.kind, c.asset_path, c.column));
				expect(new Set(ids).size).toBe(ids.length);
				expect(new Set(ids)).toEqual(reach);
				for (const c of got.columns) expect(c.kinds.length).toBe(c.depth);
				for (let i = 1; i < got.columns.length; i++) expect(got.columns[i].depth).toBeGreaterThanOrEqual(got.columns[i - 1].depth);
			}
		}
	});
});

describe('across producers and lake tables', () => {
	const ig = buildImpactGraph([edge('stg.amount', 'orders.amount', 'mod'), edge('back.total', 'final.total')], producers(lakeChain));

	it('walks dbt → producer → lake → producer → lake → producer → dbt, naming each producer once', () => {
		const got = walkColumnImpact(ig, col('stg.amount'), 'downstream');
		expect(got.columns.map(show)).toEqual([
			'orders.amount@1:mod',
			'lake:daily.total@2:mod>mod[via f/etl/daily]',
			'lake:weekly.total@3:mod>mod>producer[via f/etl/daily;f/etl/weekly]',
			'back.total@4:mod>mod>producer>copy[via f/etl/daily;f/etl/weekly;f/etl/back]',
			'final.total@5:mod>mod>producer>copy>copy[via f/etl/daily;f/etl/weekly;f/etl/back]'
		]);
		expect(got.columns.map((c) => c.kind)).toEqual(['dbt', 'ducklake', 'ducklake', 'dbt', 'dbt']);
	});

	it('lists only dbt relations as the ones with tests', () => {
		expect(impactRelations(walkColumnImpact(ig, col('stg.amount'), 'downstream').columns)).toEqual(['main/s/back', 'main/s/final', 'main/s/orders']);
	});

	it('neither lists nor walks through a hidden relation, only counts it', () => {
		const hidden = (n: { path: string }) => n.path !== 'main/daily';
		const got = walkColumnImpact(ig, col('stg.amount'), 'downstream', { visible: hidden });
		expect(got.columns.map(refOf)).toEqual(['orders.amount']);
		expect(got.withheld).toBe(1);
		expect(JSON.stringify(got)).not.toContain('daily');
	});

	it('counts hidden columns once, however many ways they are reached', () => {
		const d = buildImpactGraph([edge('a.x', 'h.x'), edge('b.x', 'h.x'), edge('a.x', 'b.x'), edge('a.x', 'h.y')], []);
		const got = walkColumnImpact(d, col('a.x'), 'downstream', { visible: (n) => n.path !== 'main/s/h' });
		expect(got.columns.map(refOf)).toEqual(['b.x']);
		expect(got.withheld).toBe(2);
	});

	it('draws an edge two producers both derive once, naming both', () => {
		const both = buildImpactGraph([], [
			...producers([producer('f/a/one', { 'lake:t.c': ['src.c'] }, 'copy')]),
			...producers([producer('f/a/two', { 'lake:t.c': ['src.c'] }, 'mod')])
		]);
		expect(walkColumnImpact(both, col('src.c'), 'downstream').columns.map(show)).toEqual(['lake:t.c@1:mod[via f/a/one;f/a/two]']);
	});

	it('ends on a cycle through a producer', () => {
		const loop = buildImpactGraph([edge('a.x', 'b.x')], producers([producer('f/p/loop', { 'a.x': ['b.x'] }, 'copy')]));
		expect(walkColumnImpact(loop, col('a.x'), 'downstream').columns.map(show)).toEqual(['b.x@1:copy']);
		expect(walkColumnImpact(loop, col('b.x'), 'downstream').columns.map(show)).toEqual(['a.x@1:copy[via f/p/loop]']);
	});
});

describe('impactCsv', () => {
	const ig = graphNamed('a producer reading two dbt relations');
	const got = walkColumnImpact(ig, col('stg_orders.amount'), 'downstream');

	it('has a header row and one row per entry', () => {
		const lines = impactCsv(got.columns, (e) => (e.asset_path === 'main/s/orders' ? ['not_null(amount)', 'unique(amount)'] : [])).split('\r\n');
		expect(lines).toEqual([
			'kind,asset_path,column,depth,kinds,via,tests',
			'dbt,main/s/orders,amount,1,copy,,"not_null(amount);unique(amount)"',
			'ducklake,main/report,total,2,copy>producer,f/x/report,',
			''
		]);
	});

	it('defuses every item of a list, not only the first', () => {
		const [, row] = impactCsv(got.columns.slice(0, 1), () => ['unique(id)', '=HYPERLINK("http://x")', '@x']).split('\r\n');
		expect(row).toBe(`dbt,main/s/orders,amount,1,copy,,"unique(id);'=HYPERLINK(""http://x"");'@x"`);
	});

	it.each([
		['plain', 'plain'],
		['a,b', '"a,b"'],
		['say "hi"', '"say ""hi"""'],
		['two\nlines', '"two\nlines"'],
		['=cmd()', "'=cmd()"],
		['-1', "'-1"],
		['+1', "'+1"],
		['@SUM(A1)', "'@SUM(A1)"],
		['\t=1', "'\t=1"],
		['=HYPERLINK("http://x","y")', `"'=HYPERLINK(""http://x"",""y"")"`],
		['a;=1', '"a;=1"']
	])('field %j → %j', (raw, want) => {
		expect(csvField(raw)).toBe(want);
	});
});

describe('bridgeRelationless: walking through ephemeral models', () => {
	const e = (from: string, to: string, kind = 'copy'): ColumnEdgeLike => {
		const [pu, pc] = from.split('.');
		const [cu, cc] = to.split('.');
		return { parentUniqueId: pu, parentColumn: pc, childUniqueId: cu, childColumn: cc, lineageKind: kind };
	};
	const show = (x: ColumnEdgeLike) => `${x.parentUniqueId}.${x.parentColumn}>${x.childUniqueId}.${x.childColumn}:${x.lineageKind}`;
	// Relations named `eph*` have no relation (ephemeral); the rest are placed.
	const placed = (uid: string) => !uid.startsWith('eph');

	it.each([
		{ name: 'placed edges kept as they are', edges: [e('a.x', 'b.x'), e('a.x', 'c.x', 'mod')], want: ['a.x>b.x:copy', 'a.x>c.x:mod'] },
		{ name: 'one ephemeral, copies', edges: [e('a.x', 'eph.x'), e('eph.x', 'b.x')], want: ['a.x>b.x:copy'] },
		{ name: 'one ephemeral, a mod on the way', edges: [e('a.x', 'eph.x'), e('eph.x', 'b.y', 'mod')], want: ['a.x>b.y:mod'] },
		{ name: 'a chain of two', edges: [e('a.x', 'eph1.x'), e('eph1.x', 'eph2.x', 'mod'), e('eph2.x', 'b.x')], want: ['a.x>b.x:mod'] },
		{ name: 'fan-out below an ephemeral', edges: [e('a.x', 'eph.x'), e('eph.x', 'b.x'), e('eph.x', 'c.x')], want: ['a.x>b.x:copy', 'a.x>c.x:copy'] },
		{ name: 'a copy way and a mod way: mod wins', edges: [e('a.x', 'eph1.x'), e('a.x', 'eph2.x', 'mod'), e('eph1.x', 'b.x'), e('eph2.x', 'b.x')], want: ['a.x>b.x:mod'] },
		{ name: 'a cycle among ephemerals ends', edges: [e('a.x', 'eph1.x'), e('eph1.x', 'eph2.x'), e('eph2.x', 'eph1.x'), e('eph2.x', 'b.x')], want: ['a.x>b.x:copy'] },
		{ name: 'an ephemeral leading nowhere placed', edges: [e('a.x', 'eph.x')], want: [] },
		{ name: 'scan is never bridged', edges: [e('a.x', 'eph.x', 'scan'), e('eph.x', 'b.x')], want: [] }
	])('$name', ({ edges, want }) => {
		expect(bridgeRelationless(edges, placed).map(show).sort()).toEqual(want);
	});
});
