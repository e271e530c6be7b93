// The layout endpoint lays out what a canvas page sends: open to members, and to share-link
// holders for the levels of the run they may see only; closed to everyone else; its work
// bounded by nodes × edges, by the ranks its edges span, and by time (issue 14, finding 1).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGroupTree, ROOT } from '../../src/lib/lineage/canvas-groups';
import { canvasFromAssetGraph } from '../../src/lib/lineage/canvas-model';
import { levelsOf } from '../../src/lib/lineage/canvas-view';
import { LAYOUT_LIMITS } from '../../src/lib/server/limits';
import { testBackends } from '../support/db';
import { needFixtures } from '../support/fixtures';
import { tamper } from '../support/jobs-world';
import { buildLineageWorld, WS, type LineageWorld } from '../support/lineage-world';

const card = (id: string) => ({ id, w: 220, h: 58 });
const cards = (n: number) => Array.from({ length: n }, (_, i) => card(`n${i}`));
/** A chain 0 → 1 → … → n-1, plus `long` copies of the edge from its first to its last card. */
const chainWithLongEdges = (n: number, long: number) => ({
	id: 'g:',
	children: cards(n),
	edges: [...Array.from({ length: n - 1 }, (_, i) => [i, i + 1]), ...Array.from({ length: long }, () => [0, n - 1])]
});

const levels = [
	{ id: 'g:', children: [{ id: 'a', w: 220, h: 58 }, { id: 'b', w: 220, h: 58 }, { id: 'g:x', level: 'g:x' }], edges: [[0, 1], [1, 2]] },
	{ id: 'g:x', children: [{ id: 'c', w: 220, h: 58 }], edges: [] }
];

// The lineage world deploys the real jaffle-shop artifacts.
describe.skipIf(!needFixtures('POST /w/{ws}/layout')).each(testBackends())('POST /w/{ws}/layout ($name)', (backend) => {
	let w: LineageWorld;

	beforeAll(async () => {
		w = await buildLineageWorld(await backend.open());
	}, 120_000);

	afterAll(async () => {
		w?.restoreEnv();
		await w?.database.close();
	});

	it.each([
		['left to right by default: edges point right', undefined, 0],
		['left to right asked for', 'LR', 0],
		['top-down asked for: edges point down', 'TB', 1]
	] as const)('lays out a member\'s cut, %s; every child placed, the nested level as a frame', async (_name, direction, axis) => {
		const r = await w.c.bob.post(`/w/${WS}/layout`, direction ? { levels, direction } : { levels });
		expect(r.status, JSON.stringify(r.body)).toBe(200);
		const { layouts } = r.body;
		expect(Object.keys(layouts).sort()).toEqual(['g:', 'g:x']);
		expect(Object.keys(layouts['g:'].pos).sort()).toEqual(['a', 'b', 'g:x']);
		expect(layouts['g:'].pos.b[axis]).toBeGreaterThan(layouts['g:'].pos.a[axis]);
		expect(layouts['g:x'].w).toBe(220);
	});

	it.each([['sideways'], [''], [1], [null], [['LR']]])('refuses direction %j with a 400 naming the field', async (direction) => {
		const r = await w.c.bob.post(`/w/${WS}/layout`, { levels, direction });
		expect(r.status).toBe(400);
		expect(JSON.stringify(r.body)).toContain('direction');
	});

	it('is open to a share link for the levels of its run only, and to no one else', async () => {
		const token = (await w.c.alice.get(`/api/w/${WS}/jobs/share/${w.jobs.RUN2}?kind=public`)).body.token as string;
		const viewer = { headers: { 'x-view-token': token } };
		// The levels the run page draws: its pinned graph's disclosure tree, as the page builds it.
		const graph = (await w.c.anon.get(`/api/w/${WS}/jobs/dbt_graph/${w.jobs.RUN2}?fields=shape`, viewer)).body;
		const canvas = canvasFromAssetGraph(graph);
		const runLevels = levelsOf(buildGroupTree(canvas.nodes, canvas.edges), new Set([ROOT]));
		expect(runLevels[0].children.length).toBeGreaterThan(1);

		const ok = await w.c.anon.post(`/w/${WS}/layout?job=${w.jobs.RUN2}`, { levels: runLevels }, viewer);
		expect(ok.status, JSON.stringify(ok.body)).toBe(200);
		expect(Object.keys(ok.body.layouts[ROOT].pos).sort()).toEqual(runLevels[0].children.map((c) => c.id).sort());

		// Anything else — levels of no run, a run's level with a card added, no job named, or a
		// job the link does not open — is refused.
		const padded = [{ ...runLevels[0], children: [...runLevels[0].children, card('dbt:main/x/invented')] }];
		for (const [url, body, status] of [
			[`/w/${WS}/layout?job=${w.jobs.RUN2}`, { levels }, 403],
			[`/w/${WS}/layout?job=${w.jobs.RUN2}`, { levels: padded }, 403],
			[`/w/${WS}/layout`, { levels: runLevels }, 400],
			[`/w/${WS}/layout?job=${w.jobs.RUN1}`, { levels: runLevels }, 404]
		] as const) {
			const r = await w.c.anon.post(url, body, viewer);
			expect(r.status, `${url} ${JSON.stringify(r.body)}`).toBe(status);
		}
		expect((await w.c.anon.post(`/w/${WS}/layout`, { levels })).status).toBe(401);
		expect((await w.c.anon.post(`/w/${WS}/layout?job=${w.jobs.RUN2}`, { levels: runLevels }, { headers: { 'x-view-token': tamper(token) } })).status).toBe(401);
	});

	it('lays out a level as big as the largest real one (a 150-card flat folder, 300 edges)', async () => {
		const flat = { id: 'g:', children: cards(150), edges: Array.from({ length: 300 }, (_, i) => [i % 149, (i % 149) + 1 + (i % 2)].map((x) => Math.min(x, 149))) };
		const r = await w.c.alice.post(`/w/${WS}/layout`, { levels: [flat] });
		expect(r.status, JSON.stringify(r.body)).toBe(200);
		expect(Object.keys(r.body.layouts['g:'].pos)).toHaveLength(150);
	});

	// Each refused request is cheap to lay out (so the test is quick before the bound existed):
	// the bounds are what refuse them, not their time.
	it.each([
		[
			'nodes × edges in one level',
			{ levels: [{ id: 'g:', children: cards(500), edges: Array.from({ length: 121 }, (_, i) => [i, i + 1]) }] },
			new RegExp(`^level g:: 500 children × 121 edges = 60,500, over the limit of ${LAYOUT_LIMITS.perLevelNodesTimesEdges.toLocaleString('en-US')} per level`)
		],
		[
			'nodes × edges across levels',
			{
				levels: [
					{ id: 'g:', children: [...cards(3), ...['g:b', 'g:c', 'g:d'].map((id) => ({ id, level: id }))], edges: [] },
					...['g:b', 'g:c', 'g:d'].map((id) => ({ id, children: cards(250).map((c) => ({ ...c, id: `${id}/${c.id}` })), edges: Array.from({ length: 240 }, (_, i) => [i, i + 1]) }))
				]
			},
			/^levels: children × edges add up to more than the limit of 120,000 per request/
		],
		['ranks spanned in one level', { levels: [chainWithLongEdges(30, 30)] }, /^level g:: its edges span 899 ranks, over the limit of 800 per level/]
	])('refuses %s with a 413 naming the limit', async (_name, body, message) => {
		const r = await w.c.alice.post(`/w/${WS}/layout`, body);
		expect(r.status, JSON.stringify(r.body)).toBe(413);
		expect(r.body.error).toMatch(message);
	});

	it.each([
		['no levels', {}],
		['a level that contains itself', { levels: [{ id: 'g:', children: [{ id: 'g:', level: 'g:' }], edges: [] }] }],
		['an edge out of range', { levels: [{ id: 'g:', children: [{ id: 'a', w: 1, h: 1 }], edges: [[0, 9]] }] }],
		['a child without a size', { levels: [{ id: 'g:', children: [{ id: 'a' }], edges: [] }] }],
		['too many children', { levels: [{ id: 'g:', children: Array.from({ length: 600 }, (_, i) => ({ id: `n${i}`, w: 1, h: 1 })), edges: [] }] }]
	])('refuses %s with a 400', async (_name, body) => {
		const r = await w.c.alice.post(`/w/${WS}/layout`, body);
		expect(r.status).toBe(400);
		expect(r.body.error).toBeTruthy();
	});
});
