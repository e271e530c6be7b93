import { describe, expect, it, vi } from 'vitest';
import type { ColumnImpactAnswer } from '$lib/types/column-impact';
import { httpImpactFetcher, ImpactList, impactFileName, impactUrl, type ImpactFetcher, type ImpactQuestion } from './impact.svelte';

const q: ImpactQuestion = { kind: 'dbt', path: 'main/s/orders', column: 'amount', direction: 'downstream' };
const answer: ColumnImpactAnswer = {
	columns: [
		{ kind: 'ducklake', asset_path: 'main/report', column: 'total', depth: 2, kinds: ['copy', 'mod'], via: ['f/x/report'] },
		{ kind: 'dbt', asset_path: 'main/s/totals', column: 'amount', depth: 1, kinds: ['copy'], via: [] },
		{ kind: 'dbt', asset_path: 'main/s/fct', column: 'amount', depth: 1, kinds: ['mod'], via: [] }
	],
	truncated: false,
	withheld: 1,
	tests: { 'main/s/totals': [{ kind: 'not_null', column: 'amount', severity: null }, { kind: 'row_count', column: null, severity: 'warn' }] }
};

describe('impactUrl', () => {
	it.each([
		{ name: 'unpinned', pin: { kind: 'unpinned' as const }, q, url: '/api/w/ws/assets/column_impact?asset_path=main%2Fs%2Forders&column=amount&direction=downstream', token: undefined },
		{ name: 'a named version', pin: { kind: 'unpinned' as const, scriptHash: 'abc' }, q, url: '/api/w/ws/assets/column_impact?asset_path=main%2Fs%2Forders&column=amount&direction=downstream&dbt_script_hash=abc', token: undefined },
		{ name: 'a run, by share link', pin: { kind: 'job' as const, jobId: 'j1', viewToken: 't' }, q: { ...q, direction: 'upstream' as const }, url: '/api/w/ws/jobs/dbt_column_impact/j1?asset_path=main%2Fs%2Forders&column=amount&direction=upstream', token: 't' },
		{ name: 'a lake table', pin: { kind: 'unpinned' as const }, q: { ...q, kind: 'ducklake', path: 'main/report', column: 'total' }, url: '/api/w/ws/assets/column_impact?asset_path=ducklake%3A%2F%2Fmain%2Freport&column=total&direction=downstream', token: undefined }
	])('$name', ({ pin, q: question, url, token }) => {
		const u = impactUrl('ws', question, pin, 'json');
		expect(u.url).toBe(url);
		expect(u.headers['x-view-token']).toBe(token);
		expect(impactUrl('ws', question, pin, 'csv').url).toContain('format=csv');
	});
});

describe('ImpactList', () => {
	it('lists nearest first with the tests of each relation, and asks again the other way', async () => {
		const json = vi.fn(async () => answer);
		const l = new ImpactList({ json, csv: async () => new Blob(['x']) }, { kind: 'unpinned' });
		await l.show(q);
		expect(l.rows.map((r) => `${r.depth} ${r.asset_path}.${r.column}`)).toEqual(['1 main/s/fct.amount', '1 main/s/totals.amount', '2 main/report.total']);
		expect(l.rows[1].testNames).toEqual(['not_null(amount)', 'row_count']);
		expect(l.rows[0].testCount).toBe(0);
		await l.setDirection('upstream');
		expect(json).toHaveBeenLastCalledWith({ ...q, direction: 'upstream' }, { kind: 'unpinned' });
		await l.show(null);
		expect(l.rows).toEqual([]);
	});

	it('drops an answer that arrives after another column was asked', async () => {
		const held: ((a: ColumnImpactAnswer) => void)[] = [];
		const f: ImpactFetcher = { json: () => new Promise((r) => held.push(r)), csv: async () => new Blob() };
		const l = new ImpactList(f, { kind: 'unpinned' });
		const first = l.show(q);
		const second = l.show({ ...q, column: 'id' });
		held[1]({ ...answer, columns: [] });
		await second;
		held[0](answer);
		await first;
		expect(l.question!.column).toBe('id');
		expect(l.rows).toEqual([]);
		expect(l.loading).toBe(false);
	});

	it('shows the server\'s message for a refused question', async () => {
		const fetchFn = vi.fn(async () => new Response(JSON.stringify({ error: 'column: dbt://main/s/orders has no column "nope"' }), { status: 400 }));
		const l = new ImpactList(httpImpactFetcher('ws', fetchFn as unknown as typeof fetch), { kind: 'unpinned' });
		await l.show({ ...q, column: 'nope' });
		expect(l.error).toMatch(/has no column "nope"/);
		expect(l.answer).toBeNull();
	});

	it('names its CSV after the column, safely', () => {
		expect(impactFileName(q)).toBe('impact-downstream-orders.amount.csv');
		expect(impactFileName({ ...q, column: 'a b/"c"' })).toBe('impact-downstream-orders.a_b_c_.csv');
	});
});
