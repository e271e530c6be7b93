import { describe, expect, it } from 'vitest';
import { assetColumns, columnId, edgeKey } from '$lib/lineage/column-trace';
import { edge } from '../../../tests/support/trace-fixtures';
import type { ColumnLineageAnswer } from '$lib/types/asset-graph';
import { ColumnLineage, httpLineageFetcher, type LineagePin } from './column-lineage.svelte';

interface Call {
	path: string;
	pin: LineagePin;
	resolve: (a: ColumnLineageAnswer) => void;
	reject: (e: Error) => void;
}

/** A fetcher whose answers the test releases one by one, in any order. */
function heldFetcher() {
	const calls: Call[] = [];
	const fetcher = (path: string, pin: LineagePin) =>
		new Promise<ColumnLineageAnswer>((resolve, reject) => calls.push({ path, pin, resolve, reject }));
	return { calls, fetcher };
}

const UNPINNED: LineagePin = { kind: 'unpinned' };
const ORDERS = 'main/s/orders';
const PAYMENTS = 'main/s/payments';
const answer = (...edges: ReturnType<typeof edge>[]): ColumnLineageAnswer => ({ edges, truncated: false });
const cols = (l: ColumnLineage, path: string) => assetColumns(l.graph, 'dbt', path).length;

describe('ColumnLineage', () => {
	it('fetches every relation asked and merges them', async () => {
		const { calls, fetcher } = heldFetcher();
		const l = new ColumnLineage(fetcher);
		const done = l.request([ORDERS, PAYMENTS], UNPINNED);
		expect(calls.map((c) => c.path)).toEqual([ORDERS, PAYMENTS]);
		expect(l.loading).toBe(true);
		calls[0].resolve(answer(edge('stg_orders.amount', 'orders.amount')));
		calls[1].resolve(answer(edge('stg_payments.amount', 'payments.amount')));
		await done;
		expect(l.loading).toBe(false);
		expect(cols(l, ORDERS)).toBe(1);
		expect(cols(l, PAYMENTS)).toBe(1);
	});

	it('asks a relation it only saw as an endpoint of another answer', async () => {
		// `shared` comes back inside raw's answer, but another project may describe it too:
		// only an answer FOR it counts as having asked.
		const { calls, fetcher } = heldFetcher();
		const l = new ColumnLineage(fetcher);
		const first = l.request(['main/s/raw'], UNPINNED);
		calls[0].resolve(answer(edge('raw.id', 'shared.id')));
		await first;
		expect(cols(l, 'main/s/shared')).toBe(1);
		const second = l.request(['main/s/shared'], UNPINNED);
		expect(calls.map((c) => c.path)).toEqual(['main/s/raw', 'main/s/shared']);
		calls[1].resolve(answer(edge('shared.id', 'mart.id', 'mod')));
		await second;
		expect(cols(l, 'main/s/mart')).toBe(1);
		expect(cols(l, 'main/s/raw')).toBe(1);
	});

	it('does not ask again under the same pin, and asks again under another', async () => {
		const { calls, fetcher } = heldFetcher();
		const l = new ColumnLineage(fetcher);
		const a = l.request([ORDERS], UNPINNED);
		calls[0].resolve(answer(edge('stg_orders.amount', 'orders.amount')));
		await a;
		await l.request([ORDERS], UNPINNED);
		expect(calls).toHaveLength(1);
		expect(l.loading).toBe(false);
		const pinned: LineagePin = { kind: 'job', jobId: 'j1' };
		const b = l.request([ORDERS], pinned);
		expect(calls).toHaveLength(2);
		expect(calls[1].pin).toEqual(pinned);
		// A new pin starts empty: the old pin's lineage never describes this graph.
		expect(cols(l, ORDERS)).toBe(0);
		calls[1].resolve(answer());
		await b;
		expect(cols(l, ORDERS)).toBe(0);
	});

	it('drops an answer that arrives after the selection changed', async () => {
		const { calls, fetcher } = heldFetcher();
		const l = new ColumnLineage(fetcher);
		const old = l.request([ORDERS], UNPINNED);
		const next = l.request([PAYMENTS], UNPINNED);
		calls[0].resolve(answer(edge('stg_orders.amount', 'orders.amount')));
		await old;
		expect(cols(l, ORDERS)).toBe(0);
		// Still loading: the current selection's answer has not come.
		expect(l.loading).toBe(true);
		calls[1].resolve(answer(edge('stg_payments.amount', 'payments.amount')));
		await next;
		expect(l.loading).toBe(false);
		expect(cols(l, PAYMENTS)).toBe(1);
		// The dropped one was never marked asked: selecting it again fetches it.
		void l.request([ORDERS], UNPINNED);
		expect(calls.map((c) => c.path)).toEqual([ORDERS, PAYMENTS, ORDERS]);
	});

	it('a repeated identical request keeps waiting for the answer in flight', async () => {
		const { calls, fetcher } = heldFetcher();
		const l = new ColumnLineage(fetcher);
		const a = l.request([ORDERS], UNPINNED);
		const b = l.request([ORDERS], UNPINNED);
		expect(calls).toHaveLength(1);
		calls[0].resolve(answer(edge('stg_orders.amount', 'orders.amount')));
		await Promise.all([a, b]);
		expect(cols(l, ORDERS)).toBe(1);
	});

	it('reports a partial failure and keeps what did arrive', async () => {
		const { calls, fetcher } = heldFetcher();
		const l = new ColumnLineage(fetcher);
		const done = l.request([ORDERS, PAYMENTS], UNPINNED);
		calls[0].reject(new Error('500'));
		calls[1].resolve(answer(edge('stg_payments.amount', 'payments.amount')));
		await done;
		expect(l.failed).toEqual([ORDERS]);
		expect(cols(l, PAYMENTS)).toBe(1);
		// A failure is retried on the next selection rather than remembered as empty.
		void l.request([ORDERS], UNPINNED);
		expect(calls).toHaveLength(3);
		expect(l.failed).toEqual([]);
	});

	it('says when an answer was truncated, for as long as that relation is selected', async () => {
		const { calls, fetcher } = heldFetcher();
		const l = new ColumnLineage(fetcher);
		const done = l.request([ORDERS], UNPINNED);
		calls[0].resolve({ edges: [edge('stg_orders.amount', 'orders.amount')], truncated: true });
		await done;
		expect(l.truncated).toBe(true);
		await l.request([ORDERS], UNPINNED);
		expect(l.truncated).toBe(true);
		void l.request([PAYMENTS], UNPINNED);
		expect(l.truncated).toBe(false);
	});

	it('marks the edges an answer says were inferred from SQL, and refresh asks again for the same relations', async () => {
		const { calls, fetcher } = heldFetcher();
		const l = new ColumnLineage(fetcher);
		const first = l.request([ORDERS], UNPINNED);
		calls[0].resolve(answer());
		await first;
		expect(cols(l, ORDERS)).toBe(0);
		expect(l.inferred.size).toBe(0);
		// The same request again is answered from what arrived: no second fetch.
		await l.request([ORDERS], UNPINNED);
		expect(calls).toHaveLength(1);
		// The lineage job ended: refresh forgets the empty answer and asks again.
		const again = l.refresh([ORDERS], UNPINNED);
		expect(calls.map((c) => c.path)).toEqual([ORDERS, ORDERS]);
		expect(l.loading).toBe(true);
		calls[1].resolve(answer(edge('stg_orders.amount', 'orders.amount', 'copy', 'inferred'), edge('stg_orders.tax', 'orders.tax', 'mod', 'engine')));
		await again;
		expect(cols(l, ORDERS)).toBe(2);
		const key = (from: string, to: string) => edgeKey(columnId('dbt', 'main/s/stg_orders', from), columnId('dbt', ORDERS, to));
		expect([...l.inferred]).toEqual([key('amount', 'amount')]);
		expect(l.inferred.has(key('tax', 'tax'))).toBe(false);
	});
});

describe('httpLineageFetcher: the request each pin and option makes', () => {
	const answer = { edges: [], truncated: false };
	const cases: { name: string; pin: LineagePin; include?: 'scan'; url: string; headers: Record<string, string> }[] = [
		{ name: 'unpinned', pin: { kind: 'unpinned' }, url: '/api/w/acme%20co/assets/column_lineage?asset_path=main%2Forders', headers: {} },
		{
			name: 'unpinned at a version, with scan',
			pin: { kind: 'unpinned', scriptHash: '00ff' },
			include: 'scan',
			url: '/api/w/acme%20co/assets/column_lineage?asset_path=main%2Forders&include=scan&dbt_script_hash=00ff',
			headers: {}
		},
		{
			name: "a run's own graph through a share link",
			pin: { kind: 'job', jobId: 'j/1', viewToken: 'tok' },
			url: '/api/w/acme%20co/jobs/dbt_column_lineage/j%2F1?asset_path=main%2Forders',
			headers: { 'x-view-token': 'tok' }
		}
	];
	for (const c of cases) {
		it(c.name, async () => {
			const seen: { url: string; headers: Record<string, string> }[] = [];
			const fetchFn = (async (url: string, init: RequestInit) => {
				seen.push({ url, headers: init.headers as Record<string, string> });
				return new Response(JSON.stringify(answer), { status: 200 });
			}) as typeof fetch;
			const got = await httpLineageFetcher('acme co', fetchFn, { include: c.include })('main/orders', c.pin);
			expect(seen).toEqual([{ url: c.url, headers: c.headers }]);
			expect(got).toEqual(answer);
		});
	}

	it('a refused read is a failure naming what was asked, never an empty lineage', async () => {
		const fetchFn = (async () => new Response('no', { status: 403 })) as unknown as typeof fetch;
		await expect(httpLineageFetcher('acme', fetchFn, { include: 'scan' })('main/orders', { kind: 'unpinned' })).rejects.toThrow('scan edges of main/orders: 403');
		await expect(httpLineageFetcher('acme', fetchFn)('main/orders', { kind: 'unpinned' })).rejects.toThrow('column lineage of main/orders: 403');
	});
});
