// Named column graphs shared by the lineage tests (house rule: tests are table-driven over
// these shapes). Columns are written `model.col`; every edge is `copy` unless given.
import type { ColumnEdgeLike } from '../../src/lib/lineage/components';

function e(from: string, to: string, kind = 'copy'): ColumnEdgeLike {
	const [pu, pc] = split(from);
	const [cu, cc] = split(to);
	return { parentUniqueId: pu, parentColumn: pc, childUniqueId: cu, childColumn: cc, lineageKind: kind };
}

function split(s: string): [string, string] {
	const i = s.lastIndexOf('.');
	return [s.slice(0, i), s.slice(i + 1)];
}

export interface NamedGraph {
	name: string;
	edges: ColumnEdgeLike[];
	/** Expected direct components, each a sorted list of `model.col` members. */
	components: string[][];
	/**
	 * Expected column-lineage walks: from the columns of the `select`ed models, the direct edges
	 * served, written `from>to:kind` in sorted order.
	 */
	walks?: { select: string[]; edges: string[] }[];
}

/** A chain `m0.x → m1.x → … → m<n>.x` of copy edges. */
function chain(n: number): ColumnEdgeLike[] {
	return Array.from({ length: n }, (_, i) => e(`m${i}.x`, `m${i + 1}.x`));
}

export const namedGraphs: NamedGraph[] = [
	{
		name: 'diamond',
		edges: [e('a.x', 'b.x'), e('a.x', 'c.x', 'mod'), e('b.x', 'd.x'), e('c.x', 'd.x')],
		components: [['a.x', 'b.x', 'c.x', 'd.x']]
	},
	{
		name: 'cycle',
		edges: [e('a.x', 'b.x'), e('b.x', 'c.x'), e('c.x', 'a.x')],
		components: [['a.x', 'b.x', 'c.x']]
	},
	{
		name: 'self-loop',
		edges: [e('a.x', 'a.x'), e('a.y', 'b.y')],
		components: [['a.x'], ['a.y', 'b.y']]
	},
	{
		name: 'fan-out',
		edges: [e('s.id', 'a.id'), e('s.id', 'b.id'), e('s.id', 'c.id', 'mod'), e('s.id', 'd.n', 'scan')],
		components: [['a.id', 'b.id', 'c.id', 's.id']]
	},
	{
		name: 'disconnected families',
		edges: [e('a.x', 'b.x'), e('c.y', 'd.y'), e('a.x', 'd.y', 'scan'), e('e.z', 'f.z', 'mod')],
		components: [['a.x', 'b.x'], ['c.y', 'd.y'], ['e.z', 'f.z']]
	},
	{
		name: 'scan only',
		edges: [e('a.k', 'b.v', 'scan'), e('a.k', 'b.w', 'scan')],
		components: []
	},
	// The seed's cases: two model families in one project; `scan` beside a direct edge.
	{
		name: 'orders and stock families',
		edges: [
			e('raw_orders.id', 'orders.order_id'),
			e('raw_orders.status', 'orders.order_id', 'scan'),
			e('stock.sku', 'stock_daily.sku')
		],
		components: [['orders.order_id', 'raw_orders.id'], ['stock.sku', 'stock_daily.sku']],
		walks: [
			{ select: ['orders'], edges: ['raw_orders.id>orders.order_id:copy'] },
			// Reached from the child end, which is upstream.
			{ select: ['stock_daily'], edges: ['stock.sku>stock_daily.sku:copy'] },
			{ select: ['raw_orders'], edges: ['raw_orders.id>orders.order_id:copy'] },
			{ select: ['orders', 'stock'], edges: ['raw_orders.id>orders.order_id:copy', 'stock.sku>stock_daily.sku:copy'] }
		]
	},
	{
		name: 'preview draft',
		edges: [e('draft_src.raw', 'draft.clean', 'mod')],
		components: [['draft.clean', 'draft_src.raw']],
		walks: [{ select: ['draft'], edges: ['draft_src.raw>draft.clean:mod'] }]
	},
	{
		// Upstream and downstream of the middle, transitively; a sibling column of the selected
		// relation's parent is reached through the parent only if an edge joins them.
		name: 'both directions',
		edges: [
			e('src.a', 'stg.a'),
			e('stg.a', 'mart.a', 'mod'),
			e('mart.a', 'report.a'),
			e('src.b', 'stg.b'),
			e('src.c', 'other.c'),
			e('src.a', 'mart.n', 'scan')
		],
		components: [['mart.a', 'report.a', 'src.a', 'stg.a'], ['other.c', 'src.c'], ['src.b', 'stg.b']],
		walks: [
			{ select: ['mart'], edges: ['mart.a>report.a:copy', 'src.a>stg.a:copy', 'stg.a>mart.a:mod'] },
			{ select: ['stg'], edges: ['mart.a>report.a:copy', 'src.a>stg.a:copy', 'src.b>stg.b:copy', 'stg.a>mart.a:mod'] },
			{ select: ['nothing'], edges: [] }
		]
	},
	{
		name: 'unknown kinds are never walked',
		edges: [e('a.x', 'b.x'), e('b.x', 'c.x', 'future_kind'), e('c.x', 'd.x')],
		components: [['a.x', 'b.x'], ['c.x', 'd.x']],
		walks: [{ select: ['b'], edges: ['a.x>b.x:copy'] }]
	},
	{
		name: 'duplicate rows',
		edges: [e('a.x', 'b.x'), e('a.x', 'b.x'), e('a.x', 'b.x', 'mod')],
		components: [['a.x', 'b.x']],
		walks: [{ select: ['a'], edges: ['a.x>b.x:copy', 'a.x>b.x:mod'] }]
	},
	{
		name: 'long chain',
		edges: chain(20),
		components: [Array.from({ length: 21 }, (_, i) => `m${i}.x`).sort()],
		walks: [{ select: ['m10'], edges: chain(20).map((x) => `${x.parentUniqueId}.x>${x.childUniqueId}.x:copy`).sort() }]
	}
];
