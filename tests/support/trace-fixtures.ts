// Named graphs for the column-trace tests, in wire terms (asset paths, producer lineage) rather
// than the storage terms of test-graphs.ts. Columns are written `<asset>.<column>`; a dbt asset
// `x` lives at `main/s/x`, a lake table `lake:x` at `ducklake` path `main/x`.
import type { ColumnLineageEdge, GraphRunnable } from '../../src/lib/types/asset-graph';
import { namedGraphs } from './test-graphs';

export const dbtPath = (name: string) => `main/s/${name}`;

/** `orders.amount` → its column id parts; `lake:report.total` is a lake table's column. */
export function col(ref: string): { kind: string; path: string; column: string } {
	const i = ref.lastIndexOf('.');
	const asset = ref.slice(0, i);
	const column = ref.slice(i + 1);
	if (asset.startsWith('lake:')) return { kind: 'ducklake', path: `main/${asset.slice(5)}`, column };
	return { kind: 'dbt', path: dbtPath(asset), column };
}

export function edge(from: string, to: string, kind = 'copy', provenance: ColumnLineageEdge['provenance'] = 'engine'): ColumnLineageEdge {
	const a = col(from);
	const b = col(to);
	return { from_asset_path: a.path, from_column: a.column, to_asset_path: b.path, to_column: b.column, kind, provenance };
}

/** A producer script writing `out` from `inputs` (each `asset.column`); `kind` as the producer's SQL analysis said. */
export function producer(path: string, outputs: Record<string, string[]>, kind: 'copy' | 'mod' | null = null): GraphRunnable {
	return {
		path,
		language: 'sql',
		script_hash: '0000000000000001',
		column_lineage: Object.entries(outputs).map(([out, inputs]) => {
			const o = col(out);
			return {
				asset_kind: o.kind,
				asset_path: o.path,
				column: o.column,
				inputs: inputs.map((i) => {
					const c = col(i);
					return { from_kind: c.kind, from_path: c.path, from_column: c.column, source: 'annotation' as const, kind };
				})
			};
		})
	};
}

export interface TraceFixture {
	name: string;
	/** Column-lineage answers, one per request (two projects answer separately). */
	answers: ColumnLineageEdge[][];
	producers?: GraphRunnable[];
	/** A column's impact set (itself, upstream, downstream), as `asset.column` refs. */
	traces?: { from: string; expect: string[] }[];
	/** The undirected component of the seeds. */
	components?: { seeds: string[]; expect: string[] }[];
	/** The dbt relations the component of `of`'s columns reaches. */
	relations?: { of: string; expect: string[] }[];
	/** Lanes of the component of an asset's columns: per lane, the asset names. */
	lanes?: { of: string; expect: string[][] }[];
}

const fanOut = (n: number) => Array.from({ length: n }, (_, i) => edge('s.id', `m${i}.id`));

export const traceFixtures: TraceFixture[] = [
	{
		name: 'diamond',
		answers: [[edge('a.x', 'b.x'), edge('a.x', 'c.x', 'mod'), edge('b.x', 'd.x'), edge('c.x', 'd.x')]],
		traces: [
			{ from: 'a.x', expect: ['a.x', 'b.x', 'c.x', 'd.x'] },
			// A sibling through the shared parent is neither upstream nor downstream.
			{ from: 'b.x', expect: ['a.x', 'b.x', 'd.x'] }
		],
		lanes: [{ of: 'd', expect: [['a'], ['b', 'c'], ['d']] }]
	},
	{
		name: 'cycle',
		answers: [[edge('a.x', 'b.x'), edge('b.x', 'c.x'), edge('c.x', 'a.x')]],
		traces: [{ from: 'b.x', expect: ['a.x', 'b.x', 'c.x'] }],
		// Broken where entered, by name: still three lanes, and it terminates.
		lanes: [{ of: 'a', expect: [['a'], ['b'], ['c']] }]
	},
	{
		name: 'self-loop',
		answers: [[edge('a.x', 'a.x'), edge('a.y', 'b.y')]],
		traces: [
			{ from: 'a.x', expect: ['a.x'] },
			{ from: 'b.y', expect: ['a.y', 'b.y'] }
		],
		lanes: [{ of: 'b', expect: [['a'], ['b']] }]
	},
	{
		name: 'fan-out 10,000',
		answers: [fanOut(10_000)],
		traces: [{ from: 'm5.id', expect: ['s.id', 'm5.id'] }],
		components: [{ seeds: ['m9999.id'], expect: ['s.id', ...Array.from({ length: 10_000 }, (_, i) => `m${i}.id`)] }]
	},
	{
		name: 'two disconnected families',
		answers: [[edge('a.x', 'b.x'), edge('c.y', 'd.y'), edge('a.x', 'd.y', 'scan')]],
		traces: [{ from: 'a.x', expect: ['a.x', 'b.x'] }],
		components: [
			{ seeds: ['b.x'], expect: ['a.x', 'b.x'] },
			{ seeds: ['d.y'], expect: ['c.y', 'd.y'] }
		]
	},
	{
		// Each project answers with its own half; the relation they share joins them.
		name: 'two projects sharing a relation',
		answers: [[edge('raw.id', 'shared.id')], [edge('shared.id', 'mart.id', 'mod')]],
		traces: [
			{ from: 'raw.id', expect: ['raw.id', 'shared.id', 'mart.id'] },
			{ from: 'mart.id', expect: ['raw.id', 'shared.id', 'mart.id'] }
		],
		lanes: [{ of: 'shared', expect: [['raw'], ['shared'], ['mart']] }]
	},
	{
		name: 'a producer reading two dbt relations',
		answers: [[edge('stg_orders.amount', 'orders.amount')], [edge('stg_payments.amount', 'payments.amount', 'mod')]],
		producers: [producer('f/x/report', { 'lake:report.total': ['orders.amount', 'payments.amount'] })],
		relations: [{ of: 'lake:report', expect: ['orders', 'payments'] }],
		traces: [
			{ from: 'lake:report.total', expect: ['lake:report.total', 'orders.amount', 'payments.amount', 'stg_orders.amount', 'stg_payments.amount'] },
			{ from: 'stg_orders.amount', expect: ['stg_orders.amount', 'orders.amount', 'lake:report.total'] }
		],
		lanes: [{ of: 'lake:report', expect: [['stg_orders', 'stg_payments'], ['orders', 'payments'], ['lake:report']] }]
	},
	{
		name: 'unknown kinds are never drawn',
		answers: [[edge('a.x', 'b.x'), edge('b.x', 'c.x', 'future_kind'), edge('b.x', 'c.x', 'scan')]],
		traces: [{ from: 'a.x', expect: ['a.x', 'b.x'] }]
	}
];

/**
 * The storage-side named graphs (test-graphs.ts) in wire terms: a unique id becomes the relation
 * `main/s/<id>`, so their expected direct components hold for the trace graph too.
 */
export const storageGraphsAsAnswers = namedGraphs.map((g) => ({
	name: g.name,
	answer: g.edges.map((e) => edge(`${e.parentUniqueId}.${e.parentColumn}`, `${e.childUniqueId}.${e.childColumn}`, e.lineageKind)),
	components: g.components
}));
