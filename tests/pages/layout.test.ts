// The layout endpoint lays out what a canvas page sends and reads nothing stored: open to
// members and to share-link holders of the workspace, closed to everyone else, and bounded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBackends } from '../support/db';
import { needFixtures } from '../support/fixtures';
import { buildLineageWorld, WS, type LineageWorld } from '../support/lineage-world';

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
		await w?.h.close();
	});

	it('lays out a member\'s cut: every child placed, the nested level as a frame, edges pointing down', async () => {
		const r = await w.c.bob.post(`/w/${WS}/layout`, { levels });
		expect(r.status, JSON.stringify(r.body)).toBe(200);
		const { layouts } = r.body;
		expect(Object.keys(layouts).sort()).toEqual(['g:', 'g:x']);
		expect(Object.keys(layouts['g:'].pos).sort()).toEqual(['a', 'b', 'g:x']);
		expect(layouts['g:'].pos.b[1]).toBeGreaterThan(layouts['g:'].pos.a[1]);
		expect(layouts['g:x'].w).toBe(220);
	});

	it('is open to a share link of this workspace, and to no one else', async () => {
		const token = (await w.c.alice.get(`/api/w/${WS}/jobs/share/${w.jobs.RUN1}?kind=public`)).body.token as string;
		expect((await w.c.anon.post(`/w/${WS}/layout`, { levels }, { headers: { 'x-view-token': token } })).status).toBe(200);
		expect((await w.c.anon.post(`/w/${WS}/layout`, { levels })).status).toBe(401);
		expect((await w.c.anon.post(`/w/${WS}/layout`, { levels }, { headers: { 'x-view-token': `${token.slice(0, -2)}00` } })).status).toBe(401);
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
