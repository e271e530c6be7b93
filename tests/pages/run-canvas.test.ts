// GET jobs/run_canvas/{id}: the run page's canvas as cached bytes, on both databases. Its gate
// is the run page's own (runPageAccess): the same callers are let in and refused, and each one
// let in is sent exactly the bytes its page names (the page data's canvasEtag). Share-link
// holders and callers who may not read the project see the run's shape and nothing authored
// (insiders are sent the project's tags and file paths too, never its SQL or docs); a
// held ETag answers 304 with no body; another pinned graph is other bytes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromWire, type CanvasWire } from '../../src/lib/lineage/canvas-model';
import { load as runLoad } from '../../src/routes/w/[ws]/run/[id]/+page.server';
import type { ApiClient } from '../support/api';
import { testBackends } from '../support/db';
import { needFixtures } from '../support/fixtures';
import { pageEventOf, pageOutcome } from '../support/pages';
import { buildLineageWorld, hex, LEDGER, SECRET, WS, type LineageWorld } from '../support/lineage-world';

const SD = 'main/analytics/stock_daily'; // shop v1 (RUN1's version)
const SW = 'main/analytics/stock_weekly'; // RUN2's own snapshot only
const L = 'main/finance/ledger'; // ledger only, on no run's canvas
const NO_SUCH_JOB = '00000000-0000-4000-8000-00000000beef';

/**
 * Callers: insiders (wsadmin, alice: she writes the shop's folder), a token of alice's without
 * scripts:read (tokA), outsiders (carol reads only finance, bob reads neither; tokS has no
 * jobs:read), a public link held without a session (link), a member link held by bob (mlink),
 * RUN2's link presented for RUN1 (link2), RUN1's link with a MAC digit changed, no one.
 */
const CALLERS = ['wsadmin', 'alice', 'tokA', 'carol', 'bob', 'tokS', 'link', 'mlink', 'link2', 'tampered', 'anon'] as const;
type CallerKey = (typeof CALLERS)[number];

/** Callers who see the run but not the project's authored parts. */
const SHAPE_ONLY = new Set<CallerKey>(['tokA', 'link', 'mlink', 'link2']);

// prettier-ignore
const CASES: { job: 'RUN1' | 'RUN2' | 'none'; expect: Record<CallerKey, number>; has: string[]; lacks: string[] }[] = [
	//                        wsadmin alice tokA carol bob  tokS link mlink link2 tampered anon
	{ job: 'RUN1', expect: row(200,    200,  200, 403,  403, 403, 200, 200,  404,  401,     401), has: [SD], lacks: [SW, L] },
	{ job: 'RUN2', expect: row(200,    200,  200, 403,  403, 403, 404, 403,  200,  401,     401), has: [SD, SW], lacks: [L] },
	// The page shows one run: a job that does not exist is a 404, never the unpinned graph.
	{ job: 'none', expect: row(404,    404,  404, 404,  404, 403, 404, 404,  404,  401,     401), has: [], lacks: [] }
];

function row(...cells: number[]): Record<CallerKey, number> {
	return Object.fromEntries(CALLERS.map((c, i) => [c, cells[i]])) as Record<CallerKey, number>;
}

interface Caller {
	client: ApiClient;
	viewToken?: string;
}

describe.skipIf(!needFixtures('the run canvas endpoint')).each(testBackends())('jobs/run_canvas ($name)', (backend) => {
	let w: LineageWorld;
	const callers = new Map<CallerKey, Caller>();
	const jobOf = (job: 'RUN1' | 'RUN2' | 'none') => (job === 'none' ? NO_SUCH_JOB : w.jobs[job]);

	beforeAll(async () => {
		w = await buildLineageWorld(await backend.open());
		const mint = async (job: string, kind: 'member' | 'public') => {
			const r = await w.c.alice.get(`/api/w/${WS}/jobs/share/${job}?kind=${kind}`);
			expect(r.status, JSON.stringify(r.body)).toBe(200);
			return r.body.token as string;
		};
		const pub = await mint(w.jobs.RUN1, 'public');
		const at = pub.length - 5;
		callers.set('wsadmin', { client: w.c.wsadmin });
		callers.set('alice', { client: w.c.alice });
		callers.set('tokA', { client: await w.token('alice', ['assets:read', 'jobs:read']) });
		callers.set('carol', { client: w.c.carol });
		callers.set('bob', { client: w.c.bob });
		callers.set('tokS', { client: await w.token('alice', ['scripts:read']) });
		callers.set('link', { client: w.c.anon, viewToken: pub });
		callers.set('mlink', { client: w.c.bob, viewToken: await mint(w.jobs.RUN1, 'member') });
		callers.set('link2', { client: w.c.anon, viewToken: await mint(w.jobs.RUN2, 'public') });
		callers.set('tampered', { client: w.c.anon, viewToken: pub.slice(0, at) + (pub[at] === '0' ? '1' : '0') + pub.slice(at + 1) });
		callers.set('anon', { client: w.c.anon });
	}, 120_000);

	afterAll(async () => {
		w?.restoreEnv();
		await w?.database.close();
	});

	const canvasOf = (c: Caller, job: string, headers: Record<string, string> = {}) =>
		c.client.get(`/api/w/${WS}/jobs/run_canvas/${job}`, { headers: { ...headers, ...(c.viewToken ? { 'x-view-token': c.viewToken } : {}) } });

	const pageOf = async (c: Caller, job: string) =>
		pageOutcome(runLoad((await pageEventOf(c.client, `/w/${WS}/run/${job}${c.viewToken ? `?view_token=${c.viewToken}` : ''}`, { ws: WS, id: job })) as never));

	const cells = CASES.flatMap((k) => CALLERS.map((caller) => [k.job, caller, k] as const));

	it.each(cells)('%s, %s: the page\'s status, and its bytes', async (jobKey, key, k) => {
		const c = callers.get(key)!;
		const job = jobOf(jobKey);
		const want = k.expect[key];
		const r = await canvasOf(c, job);
		const text = JSON.stringify(r.body);
		expect(r.status, text).toBe(want);
		const page = await pageOf(c, job);
		// The page lets in exactly the same callers (a refused session is redirected to log in
		// only when it has none; that is the page's 401).
		expect(page.status === 200, JSON.stringify(page.data)).toBe(want === 200);
		if (want !== 200) {
			for (const leak of [SD, SW, L, LEDGER, hex(w.hashes.shopV1), SECRET]) expect(text).not.toContain(leak);
			return;
		}
		expect(r.headers.get('etag')).toBe(page.data.canvasEtag);
		expect(r.headers.get('cache-control')).toBe('private, no-cache');
		const canvas = fromWire(r.body.wire as CanvasWire);
		const paths = new Set(canvas.nodes.flatMap((n) => (n.type === 'asset' ? [n.path] : [])));
		for (const p of k.has) expect(paths.has(p), p).toBe(true);
		for (const p of k.lacks) expect(paths.has(p), p).toBe(false);
		expect(r.body.direction).toBe('LR');
		expect(Object.keys(r.body.layouts).length).toBeGreaterThan(0);
		// No caller is sent SQL, descriptions or column docs on the canvas; the project's tags and
		// file paths (authored too) only to those who may read the project.
		for (const never of [`${SECRET} sql`, `${SECRET} description`, `${SECRET} column doc`]) expect(text).not.toContain(never);
		if (SHAPE_ONLY.has(key)) {
			expect(text).not.toContain(SECRET);
			expect(page.data.restricted).toMatch(/not/);
		} else {
			expect(text).toContain(`${SECRET}-tag`);
			expect(page.data.restricted).toBeNull();
		}
	});

	it('answers 304 with no body to a caller holding the bytes, and the bytes to one holding others', async () => {
		for (const key of ['alice', 'link'] as const) {
			const c = callers.get(key)!;
			const first = await canvasOf(c, w.jobs.RUN1);
			expect(first.status).toBe(200);
			const etag = first.headers.get('etag')!;
			expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
			const again = await canvasOf(c, w.jobs.RUN1, { 'if-none-match': etag });
			expect(again.status).toBe(304);
			expect(again.body).toBeNull();
			expect(again.headers.get('etag')).toBe(etag);
			// RUN2's own snapshot is another graph: the RUN1 ETag does not match it.
			const other = await canvasOf(c, w.jobs.RUN2, { 'if-none-match': etag });
			if (key === 'alice') {
				expect(other.status).toBe(200);
				expect(other.headers.get('etag')).not.toBe(etag);
			} else expect(other.status).toBe(404);
		}
	});

	it('names the direction it lays out, and refuses any other', async () => {
		const alice = callers.get('alice')!;
		const lr = await canvasOf(alice, w.jobs.RUN1);
		const tb = await alice.client.get(`/api/w/${WS}/jobs/run_canvas/${w.jobs.RUN1}?direction=TB`);
		expect(tb.status).toBe(200);
		expect(tb.body.direction).toBe('TB');
		expect(tb.headers.get('etag')).not.toBe(lr.headers.get('etag'));
		const bad = await alice.client.get(`/api/w/${WS}/jobs/run_canvas/${w.jobs.RUN1}?direction=up`);
		expect(bad.status).toBe(400);
		expect(bad.body.error).toMatch(/^direction\b/);
	});
});
