// The gate matrix of the page endpoints under /w/{ws} (the details pane's `relation`, the run
// page's `run/{id}/relation`, the canvas's `layout`), on both databases: every caller kind × pin
// (none, a version hash the caller may read, one it may not, a run job, a job that does not
// exist) × the hash/path parameters, with the exact visible shape of each answer. A hidden
// project contributes nothing: no script path, no hash, no test kind, nothing it authored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeAssets, lineageOwners } from '../../src/lib/server/repo/lineage';
import type { DbtProvenance } from '../../src/lib/types/asset-graph';
import type { ApiClient } from '../support/api';
import { testBackends } from '../support/db';
import { needFixtures } from '../support/fixtures';
import { buildLineageWorld, hex, LEDGER, SECRET, SHOP, WS, type LineageWorld } from '../support/lineage-world';

/**
 * Who calls. alice writes folder analytics (SHOP), carol reads folder finance (LEDGER) through
 * her group, bob is a member reading neither. Tokens are alice's: `tokA` assets:read + jobs:read
 * (no scripts:read), `tokO` assets:read on `orders` only + jobs:read + scripts:read on
 * analytics, `tokS` scripts:read only. `link` is a public link to RUN1 held by someone without
 * a session, `mlink` a member link to RUN1 held by bob, `link2` a public link to RUN2 (RUN1's
 * sibling), `tampered` the RUN1 link with a MAC digit changed.
 */
const CALLERS = ['wsadmin', 'alice', 'carol', 'bob', 'tokA', 'tokO', 'tokS', 'link', 'mlink', 'link2', 'tampered', 'anon'] as const;
type CallerKey = (typeof CALLERS)[number];

const O = 'main/analytics/orders'; // shop's model (v1 and v2), ledger's source
const SD = 'main/analytics/stock_daily'; // shop v1 only (and RUN2's snapshot)
const SW = 'main/analytics/stock_weekly'; // RUN2's own snapshot only
const L = 'main/finance/ledger'; // ledger only

/**
 * An expected answer: a status, or the description that answers with 200 written
 * `<project><version>` (`shop1`, `shop2`, `ledger`), `*` when the caller gets the authored
 * fields.
 */
type Expect = number | `${'shop1' | 'shop2' | 'ledger'}${'' | '*'}`;

interface Case {
	name: string;
	method?: 'POST';
	url: (w: LineageWorld) => string;
	/** The relation asked (for the expected unique id and tests), or null for layout. */
	path: string | null;
	expect: Record<CallerKey, Expect>;
}

/** One row: the callers in CALLERS order. */
function row(...cells: Expect[]): Record<CallerKey, Expect> {
	expect(cells.length).toBe(CALLERS.length);
	return Object.fromEntries(CALLERS.map((c, i) => [c, cells[i]])) as Record<CallerKey, Expect>;
}

const rel = (path: string, hash?: string) => `/w/${WS}/relation?path=${encodeURIComponent(path)}${hash === undefined ? '' : `&hash=${hash}`}`;
const runRel = (job: string, path: string, extra = '') => `/w/${WS}/run/${job}/relation?path=${encodeURIComponent(path)}${extra}`;
const NO_SUCH_JOB = '00000000-0000-4000-8000-00000000beef';

// prettier-ignore
const CASES: Case[] = [
	//                                                                        wsadmin   alice     carol     bob  tokA     tokO      tokS link mlink link2 tampered anon
	{ name: 'relation, unpinned', path: O, url: () => rel(O),
		expect: row('shop2*', 'shop2*', 'ledger*', 404, 'shop2', 'shop2*', 403, 401, 404, 401, 401, 401) },
	{ name: 'relation, hash of shop v1', path: O, url: (w) => rel(O, hex(w.hashes.shopV1)),
		expect: row('shop1*', 'shop1*', 404,       404, 'shop1', 'shop1*', 403, 401, 404, 401, 401, 401) },
	{ name: 'relation, hash of ledger', path: O, url: (w) => rel(O, hex(w.hashes.ledger)),
		expect: row('shop2*', 404,      'ledger*', 404, 404,     404,      403, 401, 404, 401, 401, 401) },
	{ name: 'relation of v1 only, unpinned', path: SD, url: () => rel(SD),
		expect: row(404,      404,      404,       404, 404,     404,      403, 401, 404, 401, 401, 401) },
	// Finding 9: naming the hash of a version one may not read must not describe its relations.
	{ name: 'relation of v1 only, hash of shop v1', path: SD, url: (w) => rel(SD, hex(w.hashes.shopV1)),
		expect: row('shop1*', 'shop1*', 404,       404, 'shop1', 404,      403, 401, 404, 401, 401, 401) },
	{ name: "ledger's relation, hash of shop v1", path: L, url: (w) => rel(L, hex(w.hashes.shopV1)),
		expect: row('ledger*', 404,     404,       404, 404,     404,      403, 401, 404, 401, 401, 401) },
	{ name: 'relation, hash of no version', path: O, url: () => rel(O, '00000000000000ff'),
		expect: row(404,      404,      404,       404, 404,     404,      403, 401, 404, 401, 401, 401) },
	{ name: "relation, hash of a producer's version", path: O, url: (w) => rel(O, hex(w.hashes.report)),
		expect: row(404,      404,      404,       404, 404,     404,      403, 401, 404, 401, 401, 401) },
	{ name: 'relation, malformed hash', path: O, url: () => rel(O, 'xyz'),
		expect: row(400,      400,      400,       400, 400,     400,      403, 401, 400, 401, 401, 401) },
	{ name: 'relation, no path', path: O, url: () => `/w/${WS}/relation`,
		expect: row(400,      400,      400,       400, 400,     400,      403, 401, 400, 401, 401, 401) },
	{ name: 'run relation, RUN1', path: O, url: (w) => runRel(w.jobs.RUN1, O),
		expect: row('shop1*', 'shop1*', 403,       403, 'shop1', 'shop1*', 403, 'shop1', 'shop1', 404, 401, 401) },
	{ name: 'run relation, RUN1, a relation of v1 only', path: SD, url: (w) => runRel(w.jobs.RUN1, SD),
		expect: row('shop1*', 'shop1*', 403,       403, 'shop1', 404,      403, 'shop1', 'shop1', 404, 401, 401) },
	{ name: 'run relation, RUN1, a relation it does not describe', path: L, url: (w) => runRel(w.jobs.RUN1, L),
		expect: row(404,      404,      403,       403, 404,     404,      403, 404, 404, 404, 401, 401) },
	// The version read comes from the job row: a hash in the query changes nothing.
	{ name: 'run relation, RUN1, with a hash of ledger', path: O, url: (w) => runRel(w.jobs.RUN1, O, `&hash=${hex(w.hashes.ledger)}`),
		expect: row('shop1*', 'shop1*', 403,       403, 'shop1', 'shop1*', 403, 'shop1', 'shop1', 404, 401, 401) },
	{ name: "run relation, RUN2's own snapshot", path: SW, url: (w) => runRel(w.jobs.RUN2, SW),
		expect: row('shop1*', 'shop1*', 403,       403, 'shop1', 404,      403, 404, 403, 'shop1', 401, 401) },
	// A job that does not exist answers unpinned to a member (the run page of an aged-out job).
	{ name: 'run relation, no such job', path: O, url: () => runRel(NO_SUCH_JOB, O),
		expect: row('shop2*', 'shop2*', 'ledger*', 404, 'shop2', 'shop2*', 403, 404, 404, 404, 401, 401) },
	{ name: 'run relation, no path', path: O, url: (w) => `/w/${WS}/run/${w.jobs.RUN1}/relation`,
		expect: row(400,      400,      400,       400, 400,     400,      400, 400, 400, 400, 400, 400) },
	// A share link lays out only the levels of the run it opens, so it must name that run.
	{ name: 'layout', method: 'POST', path: null, url: () => `/w/${WS}/layout`,
		expect: row(200,      200,      200,       200, 200,     200,      200, 400, 400, 400, 400, 401) },
	{ name: 'layout, ?job=RUN1, levels not of its canvas', method: 'POST', path: null, url: (w) => `/w/${WS}/layout?job=${w.jobs.RUN1}`,
		expect: row(200,      200,      200,       200, 200,     200,      200, 403, 403, 404, 401, 401) }
];

const LEVELS = [{ id: 'g:', children: [{ id: 'a', w: 220, h: 58 }, { id: 'b', w: 220, h: 58 }], edges: [[0, 1]] }];

const AUTHORED = ['tags', 'description', 'columns', 'column_schema', 'freshness', 'raw_code', 'original_file_path'];

/** The unique id a project gives a relation of this world. */
function uniqueIdOf(project: string, path: string): string {
	const name = path.split('/').pop()!;
	if (project === 'ledger') return path === O ? 'source.ledger.analytics.orders' : `model.ledger.${name}`;
	return `model.shop.${name}`;
}

interface Caller {
	client: ApiClient;
	viewToken?: string;
}

// The lineage world deploys the real jaffle-shop manifest.
describe.skipIf(!needFixtures('the page endpoints gate matrix')).each(testBackends())('page endpoints gate matrix ($name)', (backend) => {
	let w: LineageWorld;
	const callers = new Map<CallerKey, Caller>();

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
		callers.set('carol', { client: w.c.carol });
		callers.set('bob', { client: w.c.bob });
		callers.set('tokA', { client: await w.token('alice', ['assets:read', 'jobs:read']) });
		callers.set('tokO', { client: await w.token('alice', [`assets:read:${O}`, 'jobs:read', 'scripts:read:f/analytics/*']) });
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

	it('has every caller', () => expect([...callers.keys()]).toEqual([...CALLERS]));

	const cells = CASES.flatMap((c) => CALLERS.map((k) => [c.name, k, c] as const));

	it.each(cells)('%s: %s', async (_name, k, c) => {
		const caller = callers.get(k)!;
		const want = c.expect[k];
		const url = c.url(w);
		const headers = caller.viewToken ? { 'x-view-token': caller.viewToken } : undefined;
		const r = c.method === 'POST' ? await caller.client.post(url, { levels: LEVELS }, { headers }) : await caller.client.get(url, { headers });
		const text = JSON.stringify(r.body);
		if (typeof want === 'number') {
			expect(r.status, text).toBe(want);
			if (c.path === null && want === 200) expect(Object.keys(r.body.layouts)).toEqual(['g:']);
			if (want !== 200) {
				// A refusal names no project, version or anything authored.
				for (const leak of [SHOP, LEDGER, hex(w.hashes.shopV1), hex(w.hashes.shopV2), hex(w.hashes.ledger), SECRET, 'accepted_values']) {
					expect(text).not.toContain(leak);
				}
			}
			return;
		}
		expect(r.status, text).toBe(200);
		const project = want.replace('*', '');
		const authored = want.endsWith('*');
		const dbt = r.body as DbtProvenance;
		const hash = project === 'shop1' ? w.hashes.shopV1 : project === 'shop2' ? w.hashes.shopV2 : w.hashes.ledger;
		expect({
			script_path: dbt.script_path,
			script_hash: dbt.script_hash,
			unique_id: dbt.unique_id,
			authored: dbt.authored,
			tests: dbt.data_tests.map((t) => t.kind)
		}).toEqual({
			script_path: project === 'ledger' ? LEDGER : SHOP,
			script_hash: hex(hash),
			unique_id: uniqueIdOf(project === 'ledger' ? 'ledger' : 'shop', c.path!),
			authored,
			// Only shop tests orders; a test kind is shape, shown wherever its project's relation is.
			tests: project !== 'ledger' && c.path === O ? ['accepted_values'] : []
		});
		if (authored) {
			expect(text).toContain(SECRET);
		} else {
			for (const key of AUTHORED) expect(dbt).not.toHaveProperty(key);
			for (const t of dbt.data_tests) expect(t).not.toHaveProperty('args');
			expect(text).not.toContain(SECRET);
		}
		// Exactly one project describes the answer: the other one's path never appears.
		expect(text).not.toContain(project === 'ledger' ? SHOP : LEDGER);
	});

	// Behind the gate, the SQL holds too: a named version of a path outside the filter reads nothing.
	it('the repo reads a named version only through the path filter', async () => {
		const carol = { readable: { all: false, folders: ['finance'], userPrefix: 'u/carol/' }, scope: null };
		const v1 = { path: SHOP, hash: w.hashes.shopV1, language: 'dbt' };
		expect(await describeAssets(w.database, WS, [SD], carol, v1)).toEqual([]);
		expect((await lineageOwners(w.database, WS, [SD], carol, v1)).map((o) => o.key.scriptPath)).toEqual([]);
		const alice = { readable: { all: false, folders: ['analytics'], userPrefix: 'u/alice/' }, scope: null };
		expect((await describeAssets(w.database, WS, [SD], alice, v1)).map((g) => [g.key.scriptPath, g.key.scriptHash])).toEqual([[SHOP, w.hashes.shopV1]]);
		expect((await lineageOwners(w.database, WS, [SD], alice, v1)).map((o) => o.key.scriptPath)).toEqual([SHOP]);
	});
});
