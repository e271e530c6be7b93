import { describe, expect, it } from 'vitest';
import type { GraphDiff } from '$lib/types/graph-diff';
import { DiffReview, impactSentence, sideHref, sideShown, type DiffFetcher } from './diff-review.svelte';

const M = 'model.shop.';
const P = 'main/analytics/';
const diff: GraphDiff = {
	from: { hash: '00000000000000aa', job_id: null },
	to: { hash: null, job_id: 'job-1' },
	models: {
		added: [`${M}loyalty`],
		removed: [`${M}legacy`],
		renamed: [],
		modified: [
			{ unique_id: `${M}customers`, asset_path: `${P}customers`, changes: ['sql', 'columns'], classification: 'breaking', reason: 'removes email' },
			{ unique_id: `${M}orders`, asset_path: `${P}orders`, changes: ['materialized'], classification: 'non_breaking', reason: 'only materialized' }
		]
	},
	asset_paths: { [`${M}loyalty`]: `${P}loyalty`, [`${M}legacy`]: `${P}legacy`, [`${M}customers`]: `${P}customers`, [`${M}orders`]: `${P}orders` },
	columns: {
		added: [],
		removed: [
			{
				asset_path: `${P}customers`,
				column: 'email',
				type: 'varchar',
				impact: [
					{ kind: 'dbt', asset_path: `${P}mart`, column: 'email', depth: 1, kinds: ['copy'], via: [] },
					{ kind: 'ducklake', asset_path: 'lake/crm/export', column: 'email', depth: 1, kinds: ['producer'], via: ['f/lake/crm_export'] },
					{ kind: 'ducklake', asset_path: 'lake/crm/mail', column: 'email', depth: 2, kinds: ['producer', 'producer'], via: ['f/lake/crm_export'] }
				]
			}
		],
		retyped: [{ asset_path: `${P}customers`, column: 'id', from_type: 'integer', to_type: 'bigint', impact: [] }]
	},
	ref_edges: { added: [], removed: [] },
	column_edges: { added: 1, removed: 2 },
	classification: 'breaking',
	authored: true
};

function server(answers: Record<string, { status: number; body: unknown }>): { fetcher: DiffFetcher; asked: string[] } {
	const asked: string[] = [];
	return {
		asked,
		fetcher: async (url) => {
			asked.push(url);
			const q = new URL(url, 'http://x').searchParams;
			return answers[`${q.get('from')}>${q.get('to')}`] ?? { status: 404, body: { error: 'no such version, run or preview of this path' } };
		}
	};
}

describe('DiffReview', () => {
	it('asks the diff of the two refs of its path and groups it worst first', async () => {
		const s = server({ 'latest>job-1': { status: 200, body: diff } });
		const r = new DiffReview({ workspace: 'acme', path: 'f/analytics/shop', fetcher: s.fetcher });
		await r.compare('latest', 'job-1');
		expect(s.asked).toEqual(['/api/w/acme/dbt/diff?path=f%2Fanalytics%2Fshop&from=latest&to=job-1']);
		expect(r.error).toBeNull();
		expect(r.groups.map((g) => [g.key, g.items.map((i) => i.uniqueId)])).toEqual([
			['breaking', [`${M}customers`]],
			['removed', [`${M}legacy`]],
			['added', [`${M}loyalty`]],
			['non_breaking', [`${M}orders`]]
		]);
		expect(r.counts).toEqual({ added: 1, removed: 1, modified: 2 });
	});

	it("marks the canvas's nodes and colours them, or the closed group holding them", async () => {
		const r = new DiffReview({ workspace: 'acme', path: 'f/analytics/shop', fetcher: server({ 'latest>job-1': { status: 200, body: diff } }).fetcher });
		await r.compare('latest', 'job-1');
		expect([...r.marks]).toEqual([
			[`dbt:${P}customers`, 'modified'],
			[`dbt:${P}orders`, 'modified'],
			[`dbt:${P}legacy`, 'removed'],
			[`dbt:${P}loyalty`, 'added']
		]);
		const css = r.css((id) => id);
		expect(css).toContain(`[data-id="dbt:${P}loyalty"] > *{outline:3px solid var(--diff-added)`);
		expect(css).toContain('var(--diff-removed)');
		// Everything collapsed into one group: the group shows as modified.
		const grouped = r.css(() => 'group:analytics');
		expect(grouped.split('\n')).toEqual([expect.stringContaining('[data-id="group:analytics"] > *{outline:3px solid var(--diff-modified)')]);
	});

	it("opens a breaking change's impact with the sentence naming its readers", async () => {
		const r = new DiffReview({ workspace: 'acme', path: 'f/analytics/shop', fetcher: server({ 'latest>job-1': { status: 200, body: diff } }).fetcher });
		await r.compare('latest', 'job-1');
		r.toggle(`${M}customers`);
		expect(r.open).toBe(`${M}customers`);
		const impact = r.impactOf({ unique_id: `${M}customers` });
		expect(impact.map((c) => c.sentence)).toEqual([
			'this change removes `customers.email`, which 3 downstream columns and the producer `f/lake/crm_export` read',
			'this change retypes `customers.id` (integer → bigint), which nothing downstream reads'
		]);
		r.toggle(`${M}customers`);
		expect(r.open).toBeNull();
		expect(r.impactOf({ unique_id: `${M}orders` })).toEqual([]);
	});

	it('shows the server message of a refused ref, and a later compare wins over an earlier answer', async () => {
		let release: (v: { status: number; body: unknown }) => void = () => {};
		const slow = new Promise<{ status: number; body: unknown }>((res) => (release = res));
		const fetcher: DiffFetcher = async (url) => (url.includes('from=slow') ? slow : { status: 410, body: { error: 'pruned by retention' } });
		const r = new DiffReview({ workspace: 'acme', path: 'f/a/b', fetcher });
		const first = r.compare('slow', 'job-1');
		await r.compare('latest', 'job-2');
		release({ status: 200, body: diff });
		await first;
		expect(r.diff).toBeNull();
		expect(r.error).toBe('pruned by retention');
		expect(r.to).toBe('job-2');
		expect(r.loading).toBe(false);
	});

	it('says when nobody knows who reads a column', () => {
		expect(impactSentence({ asset_path: `${P}x`, column: 'y', change: 'removed', detail: '', impact: null })).toMatch(/unknown \(the graph has no column lineage\)/);
	});
});

describe('sideHref and sidesOf: a listed model opens on the graph that holds it', () => {
	const node = 'asset:dbt:main/analytics/legacy';
	it('a removed model is on the older side, an added one on the newer, a modified one on either (the newer first)', () => {
		const r = new DiffReview({ workspace: 'acme', path: 'f/analytics/shop' });
		expect(['removed', 'added', 'breaking', 'non_breaking'].map((k) => r.sidesOf(k as 'removed'))).toEqual([['from'], ['to'], ['to', 'from'], ['to', 'from']]);
	});
	it('knows which side a page draws: a version by its hash, a preview by its job', () => {
		expect(sideShown({ hash: 'aa', job_id: null }, { hash: 'aa' })).toBe(true);
		expect(sideShown({ hash: 'aa', job_id: null }, { jobId: 'aa' })).toBe(false);
		expect(sideShown({ hash: null, job_id: 'j' }, { jobId: 'j' })).toBe(true);
		expect(sideShown({ hash: null, job_id: 'j' }, { hash: null })).toBe(false);
	});
	it("a version's graph opens on the project page at that version, unless the page shows it already", () => {
		const side = { hash: '00000000000000aa', job_id: null };
		expect(sideHref({ workspace: 'acme', path: 'f/analytics/shop', side, nodeId: node, shown: { jobId: 'job-1' } })).toBe(
			`/w/acme/dbt/f/analytics/shop?v=00000000000000aa&select=${encodeURIComponent(node)}`
		);
		expect(sideHref({ workspace: 'acme', path: 'f/analytics/shop', side, nodeId: node, shown: { hash: '00000000000000aa' } })).toBeNull();
		expect(sideHref({ workspace: 'acme', path: 'f/analytics/shop', side, nodeId: node, shown: { hash: '00000000000000bb' } })).toContain('v=00000000000000aa');
	});
	it("a preview's own graph opens on its run page, unless that is the page asking", () => {
		const side = { hash: null, job_id: 'job-1' };
		expect(sideHref({ workspace: 'acme', path: 'f/analytics/shop', side, nodeId: node, shown: { hash: '00000000000000aa' } })).toBe(`/w/acme/run/job-1?select=${encodeURIComponent(node)}`);
		expect(sideHref({ workspace: 'acme', path: 'f/analytics/shop', side, nodeId: node, shown: { jobId: 'job-1' } })).toBeNull();
	});
});
