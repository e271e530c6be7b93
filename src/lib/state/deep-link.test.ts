import { describe, expect, it, vi } from 'vitest';
import { assetNodeId, digestOf, scriptNodeId, toWire, type CanvasGraph, type CanvasNode } from '$lib/lineage/canvas-model';
import { columnId } from '$lib/lineage/column-trace';
import type { DeepLink } from '$lib/lineage/deep-link';
import { dbtPath, edge, producer } from '../../../tests/support/trace-fixtures';
import type { ColumnLineageAnswer } from '$lib/types/asset-graph';
import { NOT_FOUND } from './deep-link.svelte';
import { LineagePage } from './lineage-page.svelte';

const asset = (name: string, kind = 'dbt'): CanvasNode => {
	const path = kind === 'dbt' ? dbtPath(name) : `main/${name}`;
	return { id: assetNodeId(kind, path), type: 'asset', kind, path, name, schema: path.slice(0, path.lastIndexOf('/')) };
};
const nodes = [asset('stg_orders'), asset('orders'), asset('report', 'ducklake'), { ...asset('report', 'ducklake'), id: scriptNodeId('f/x/report'), type: 'runnable' as const, kind: 'sql', path: 'f/x/report' }];
const graph: CanvasGraph = {
	nodes,
	edges: [{ source: nodes[0].id, target: nodes[1].id, kind: 'ref' }],
	projects: [],
	hidden: 0,
	digest: digestOf('deep-link')
};
const answers: Record<string, ColumnLineageAnswer> = {
	[dbtPath('orders')]: { edges: [edge('stg_orders.amount', 'orders.amount'), edge('stg_orders.id', 'orders.id')], truncated: false }
};
const producers = [{ path: 'f/x/report', column_lineage: producer('f/x/report', { 'lake:report.total': ['orders.amount'] }).column_lineage! }];
const ORDERS = nodes[1].id;

function pageWith(opts: { viewToken?: string; fail?: boolean } = {}) {
	const lineageFetcher = vi.fn(async (p: string) => {
		if (opts.fail) throw new Error('status 500');
		return answers[p] ?? { edges: [], truncated: false };
	});
	const page = new LineagePage({ workspace: 'w', pin: { kind: 'unpinned' }, relationUrl: (p) => p, viewToken: opts.viewToken, lineageFetcher, relationFetcher: async () => null });
	page.load({ wire: toWire(graph), open: [], layouts: {}, producerLineage: producers });
	const written: DeepLink[] = [];
	/** What LineageView's effect does on a selection, awaited. */
	const follow = async () => {
		page.follow(page.canvas.selected);
		await new Promise((r) => setTimeout(r, 0));
	};
	return { page, lineageFetcher, written, follow, start: () => page.link.start((l) => written.push(l)) };
}

describe('DeepLinkState', () => {
	it('opens on the linked relation and traces the linked column once its lineage is in; nothing is written back', async () => {
		const { page, written, follow, start } = pageWith();
		page.link.open({ select: ORDERS, column: 'amount' });
		expect(page.canvas.selected).toBe(ORDERS);
		expect(page.trace.traced).toBeNull();
		await follow();
		expect(page.trace.traced).toBe(columnId('dbt', dbtPath('orders'), 'amount'));
		expect(page.trace.linked).toBe(page.trace.traced);
		expect(page.link.notice).toBeNull();
		expect(page.link.current).toEqual({ select: ORDERS, column: 'amount' });
		start();
		page.link.sync();
		expect(written).toEqual([]);
	});

	it('a column further up the trace is linked by its asset and name, and opens traced again', async () => {
		const first = pageWith();
		first.page.link.open({ select: ORDERS, column: null });
		await first.follow();
		first.start();
		first.page.trace.trace(columnId('dbt', dbtPath('stg_orders'), 'id'));
		first.page.link.sync();
		expect(first.written).toEqual([{ select: ORDERS, column: `dbt:${dbtPath('stg_orders')}.id` }]);

		const again = pageWith();
		again.page.link.open(first.written[0]);
		await again.follow();
		expect(again.page.trace.traced).toBe(columnId('dbt', dbtPath('stg_orders'), 'id'));
	});

	it('after opening, a click on a column, another selection and clearing are each written', async () => {
		const { page, written, follow, start } = pageWith();
		page.link.open({ select: ORDERS, column: 'amount' });
		await follow();
		start();
		page.trace.trace(columnId('dbt', dbtPath('orders'), 'id'));
		page.link.sync();
		page.trace.trace(null);
		page.link.sync();
		page.canvas.selected = nodes[0].id;
		page.link.sync();
		await follow();
		page.link.sync();
		page.canvas.selected = null;
		page.link.sync();
		expect(written).toEqual([
			{ select: ORDERS, column: 'id' },
			{ select: ORDERS, column: null },
			{ select: nodes[0].id, column: null },
			{ select: null, column: null }
		]);
	});

	it('holds a change made before the router is up (or during a navigation) and writes it once it is', async () => {
		const { page, written, follow, start } = pageWith();
		page.link.open({ select: ORDERS, column: null });
		await follow();
		page.canvas.selected = nodes[0].id;
		page.link.sync();
		expect(written).toEqual([]);
		start();
		expect(written).toEqual([{ select: nodes[0].id, column: null }]);
		// Nor while a navigation is under way.
		page.link.stop();
		page.canvas.selected = null;
		page.link.sync();
		expect(written).toHaveLength(1);
	});

	// Hidden and missing are the same to the page: the graph holds neither.
	it.each([
		['a node of no graph', 'dbt:main/s/nowhere'],
		['a relation id without its kind', dbtPath('orders')],
		['markup', '"><img src=x>'],
		['a style breaker', '</style><script>alert(1)</script>'],
		['quotes and spaces', `it's "here" `],
		['unicode', 'dbt:main/s/ördérs😀'],
		['a group id', 'group:root']
	])('a select of %s: the notice, no selection, nothing written', async (_, select) => {
		const { page, written, follow, start } = pageWith();
		page.link.open({ select, column: 'amount' });
		expect(page.canvas.selected).toBeNull();
		expect(page.link.notice).toBe(NOT_FOUND.relation);
		expect(page.canvas.highlightCss).toBe('');
		await follow();
		start();
		expect(written).toEqual([]);
		// The next selection replaces the link and the notice goes.
		page.canvas.selected = ORDERS;
		page.link.sync();
		expect(written).toEqual([{ select: ORDERS, column: null }]);
		expect(page.link.notice).toBeNull();
	});

	it.each(['nope', 'Amount', 'amount ', '"><img src=x>', 'dbt:main/s/nowhere.amount', 'ducklake:main/report.missing'])(
		'a column=%s not in the trace: the notice, the relation still open, nothing traced',
		async (column) => {
			const { page, written, follow, start } = pageWith();
			page.link.open({ select: ORDERS, column });
			await follow();
			expect(page.canvas.selected).toBe(ORDERS);
			expect(page.trace.state).toBe('ready');
			expect(page.trace.traced).toBeNull();
			expect(page.link.notice).toBe(NOT_FOUND.column);
			start();
			expect(written).toEqual([]);
		}
	);

	it('a column without a selection, or on a producer script, is not found', async () => {
		const alone = pageWith();
		alone.page.link.open({ select: null, column: 'amount' });
		expect(alone.page.link.notice).toBe(NOT_FOUND.column);
		const script = pageWith();
		script.page.link.open({ select: nodes[3].id, column: 'total' });
		await script.follow();
		expect(script.page.canvas.selected).toBe(nodes[3].id);
		expect(script.page.link.notice).toBe(NOT_FOUND.column);
	});

	it('a lake table opens with its own column traced across into dbt', async () => {
		const { page, follow } = pageWith();
		page.link.open({ select: nodes[2].id, column: 'total' });
		await follow();
		expect(page.trace.traced).toBe(columnId('ducklake', 'main/report', 'total'));
		expect(page.trace.impact?.has(columnId('dbt', dbtPath('stg_orders'), 'amount'))).toBe(true);
	});

	it('a share-link viewer sees no lineage: the column is ignored without a word, and never fetched', async () => {
		const { page, lineageFetcher, follow, written, start } = pageWith({ viewToken: 'j.sig' });
		page.link.open({ select: ORDERS, column: 'amount' });
		await follow();
		expect(page.canvas.selected).toBe(ORDERS);
		expect(page.link.notice).toBeNull();
		expect(page.trace.traced).toBeNull();
		expect(lineageFetcher).not.toHaveBeenCalled();
		start();
		expect(written).toEqual([]);
	});

	it('a lineage that failed to load is not called "not found"', async () => {
		const { page, follow } = pageWith({ fail: true });
		page.link.open({ select: ORDERS, column: 'amount' });
		await follow();
		expect(page.trace.lineage.failed).toEqual([dbtPath('orders')]);
		expect(page.link.notice).toBeNull();
	});

	it('a selection made before the lineage came drops the linked column', async () => {
		const { page, follow } = pageWith();
		page.link.open({ select: ORDERS, column: 'amount' });
		page.follow(ORDERS);
		page.canvas.selected = nodes[0].id;
		await follow();
		expect(page.trace.target?.path).toBe(dbtPath('stg_orders'));
		expect(page.trace.traced).toBeNull();
		expect(page.link.current).toEqual({ select: nodes[0].id, column: null });
	});
});
