// Column lineage through the real routes, on both databases: the seed's dbt_pinned_graph cases,
// two projects owning one relation, the jaffle-shop components against the fixture's own
// expected.json, the bound, bad input, and what a component read costs in a 200,000-edge project.
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directComponents } from '../../src/lib/lineage/components';
import { authoredPathFilter, columnLineageAccess, grantOf, readableLineageOwners, type Principal } from '../../src/lib/server/access';
import type { AuthContext } from '../../src/lib/server/auth/context';
import { findAccountByUsername } from '../../src/lib/server/repo/accounts';
import type { Database } from '../../src/lib/server/db';
import { unpinnedColumnLineage } from '../../src/lib/server/api/lineage/reads';
import { graphDigest, replaceGraph, versionKey, type GraphContent, type NodeRow } from '../../src/lib/server/repo/graph';
import { componentEdgesSql, componentIdsSql, componentReadSql, lineageOwners, lineageOwnersSql } from '../../src/lib/server/repo/lineage';
import { insertScriptVersion, newScriptHash, publishAssetUsage } from '../../src/lib/server/repo/scripts';
import type { ColumnLineageEdge } from '../../src/lib/types/asset-graph';
import { hashToHex } from '../../src/lib/types/script-hash';
import type { ApiClient } from '../support/api';
import { testBackends } from '../support/db';
import { describeFixtures, fixture } from '../support/fixtures';
import { buildLineageWorld, jaffleAssetPaths, node, SECRET, SHOP, WS, type LineageWorld } from '../support/lineage-world';

const ORDERS_COPY: ColumnLineageEdge = {
	from_asset_path: 'main/analytics/raw_orders',
	from_column: 'id',
	to_asset_path: 'main/analytics/orders',
	to_column: 'order_id',
	kind: 'copy',
	provenance: 'engine'
};
const STOCK_COPY: ColumnLineageEdge = {
	from_asset_path: 'main/analytics/stock',
	from_column: 'sku',
	to_asset_path: 'main/analytics/stock_daily',
	to_column: 'sku',
	kind: 'copy',
	provenance: 'engine'
};
const LEDGER_COPY: ColumnLineageEdge = {
	from_asset_path: 'main/analytics/orders',
	from_column: 'order_id',
	to_asset_path: 'main/finance/ledger',
	to_column: 'order_ref',
	kind: 'copy',
	provenance: 'engine'
};

const qs = (paths: string[]) => paths.map((p) => `asset_path=${encodeURIComponent(p)}`).join('&');

/** A principal as the gates see it, for calling the service with a small bound. */
function principal(username: string, folders: string[], isAdmin = false): Principal {
	return {
		workspace: WS,
		username,
		accountId: username,
		isAdmin,
		instanceAdmin: false,
		groups: [],
		readFolders: new Set(folders),
		writeFolders: new Set(),
		scopes: null,
		via: 'session'
	};
}

describeFixtures('column lineage', () => {
	const expected = JSON.parse(readFileSync(fixture('constructed-index', 'jaffle-shop-1.12', 'expected.json'), 'utf8'));

	describe.each(testBackends())('on $name', (backend) => {
		let database: Database;
		let w: LineageWorld;

		beforeAll(async () => {
			database = await backend.open();
			w = await buildLineageWorld(database);
		});
		afterAll(async () => {
			w?.restoreEnv();
			await database?.close();
		});

		const unpinned = (c: ApiClient, paths: string[], extra = '') => c.get(`/api/w/${WS}/assets/column_lineage?${qs(paths)}${extra}`);
		const pinned = (c: ApiClient, job: string, paths: string[], token?: string) =>
			c.get(`/api/w/${WS}/jobs/dbt_column_lineage/${job}?${qs(paths)}${token ? `&view_token=${token}` : ''}`);
		const edgesOf = async (p: Promise<{ status: number; body: any }>) => {
			const r = await p;
			expect(r.status, JSON.stringify(r.body)).toBe(200);
			expect(Object.keys(r.body).sort()).toEqual(['edges', 'truncated']);
			return r.body.edges as ColumnLineageEdge[];
		};
		const shareLink = async (job: string, kind: 'member' | 'public') => {
			const r = await w.c.alice.get(`/api/w/${WS}/jobs/share/${job}?kind=${kind}`);
			expect(r.status, JSON.stringify(r.body)).toBe(200);
			return r.body.token as string;
		};

		describe('the seed cases (dbt_pinned_graph)', () => {
			it("a pinned run does not hand over the project's column lineage", async () => {
				const { RUN1, BOBRUN } = w.jobs;
				const member = await shareLink(RUN1, 'member');
				const pub = await shareLink(RUN1, 'public');
				// The run renders for a link holder (its shape: see asset-graph.test.ts); its column-level shape does not.
				expect(await edgesOf(pinned(w.c.bob, RUN1, ['main/analytics/orders'], member))).toEqual([]);
				expect(await edgesOf(pinned(w.c.anon, RUN1, ['main/analytics/orders'], pub))).toEqual([]);
				// bob created BOBRUN, so he is entitled to the run, not to the project behind it.
				expect(await edgesOf(pinned(w.c.bob, BOBRUN, ['main/analytics/orders']))).toEqual([]);
				// Without the link bob is told to ask for one.
				const refused = await pinned(w.c.bob, RUN1, ['main/analytics/orders']);
				expect(refused.status).toBe(403);
				expect(refused.body.error).toMatch(/share link/);
				// While a reader of the project gets it, from the same runs.
				for (const c of [w.c.alice, w.c.wsadmin, w.c.root]) {
					expect(await edgesOf(pinned(c, RUN1, ['main/analytics/orders']))).toEqual([ORDERS_COPY]);
					expect(await edgesOf(pinned(c, BOBRUN, ['main/analytics/orders']))).toEqual([ORDERS_COPY]);
				}
				// And a reader holding a link gets it too: the link never takes anything away.
				expect(await edgesOf(pinned(w.c.alice, RUN1, ['main/analytics/orders'], member))).toEqual([ORDERS_COPY]);
			});

			it("a preview's column lineage answers only through its job", async () => {
				const draft = {
					from_asset_path: 'main/analytics/draft_src',
					from_column: 'raw',
					to_asset_path: 'main/analytics/draft',
					to_column: 'clean',
					kind: 'mod',
					provenance: 'engine'
				};
				// The NULL-hash rows are found (a `= NULL` comparison would find nothing).
				expect(await edgesOf(pinned(w.c.wsadmin, w.jobs.PREVIEW, ['main/analytics/draft']))).toEqual([draft]);
				expect(await edgesOf(pinned(w.c.alice, w.jobs.PREVIEW, ['dbt://main/analytics/draft_src']))).toEqual([draft]);
				// Unpinned, the relation resolves through the deployed version, which never heard of it.
				expect(await edgesOf(unpinned(w.c.wsadmin, ['main/analytics/draft']))).toEqual([]);
				expect(await edgesOf(unpinned(w.c.alice, ['main/analytics/draft', 'main/analytics/draft_src']))).toEqual([]);
				// Nor through a run of the deployed version.
				expect(await edgesOf(pinned(w.c.wsadmin, w.jobs.RUN1, ['main/analytics/draft']))).toEqual([]);
				// A link holder who may not read the project does not get the preview's lineage either.
				const member = await shareLink(w.jobs.PREVIEW, 'member');
				expect(await edgesOf(pinned(w.c.bob, w.jobs.PREVIEW, ['main/analytics/draft'], member))).toEqual([]);
			});

			it("column lineage takes the script's gate and only the direct kinds", async () => {
				// The copy edge, and not the `scan` beside it (raw_orders.status → orders.order_id).
				expect(await edgesOf(unpinned(w.c.alice, ['main/analytics/orders']))).toEqual([ORDERS_COPY]);
				expect(await edgesOf(unpinned(w.c.wsadmin, ['main/analytics/orders']))).toEqual([LEDGER_COPY, ORDERS_COPY]);
				// Nothing at all for a caller who cannot read the project (bob reads only `analytic`).
				expect(await edgesOf(unpinned(w.c.bob, ['main/analytics/orders']))).toEqual([]);
				// A token acts as its owner narrowed: `assets:read` reaches the route, not the project's SQL shape.
				const assetsOnly = await w.token('alice', ['assets:read']);
				expect(await edgesOf(unpinned(assetsOnly, ['main/analytics/orders']))).toEqual([]);
				const scoped = await w.token('alice', ['assets:read', 'scripts:read:f/analytics/*']);
				expect(await edgesOf(unpinned(scoped, ['main/analytics/orders']))).toEqual([ORDERS_COPY]);
				// `f/analytic/*` is a prefix of the string, not of the path.
				const wrongPrefix = await w.token('alice', ['assets:read', 'scripts:read:f/analytic/*']);
				expect(await edgesOf(unpinned(wrongPrefix, ['main/analytics/orders']))).toEqual([]);
				const exact = await w.token('alice', ['assets:read', 'scripts:read:f/analytics/shop']);
				expect(await edgesOf(unpinned(exact, ['main/analytics/orders']))).toEqual([ORDERS_COPY]);
				// The route itself needs `assets:read`.
				const scriptsOnly = await w.token('alice', ['scripts:read']);
				expect((await unpinned(scriptsOnly, ['main/analytics/orders'])).status).toBe(403);
				// Pinned, the same token rules: the job gate needs jobs:read, the answer assets:read and scripts:read.
				const jobsAndAssets = await w.token('alice', ['jobs:read', 'assets:read']);
				expect(await edgesOf(pinned(jobsAndAssets, w.jobs.RUN1, ['main/analytics/orders']))).toEqual([]);
				const all = await w.token('alice', ['jobs:read', 'assets:read', 'scripts:read']);
				expect(await edgesOf(pinned(all, w.jobs.RUN1, ['main/analytics/orders']))).toEqual([ORDERS_COPY]);
				const jobsOnly = await w.token('alice', ['jobs:read']);
				expect((await pinned(jobsOnly, w.jobs.RUN1, ['main/analytics/orders'])).status).toBe(403);
			});

			it("column lineage stops at the selected relation's component, in both directions", async () => {
				// RUN1 reads shop v1, which holds the orders family and the stock family.
				expect(await edgesOf(pinned(w.c.alice, w.jobs.RUN1, ['main/analytics/orders']))).toEqual([ORDERS_COPY]);
				// Reached from the child end, which is upstream.
				expect(await edgesOf(pinned(w.c.alice, w.jobs.RUN1, ['main/analytics/stock_daily']))).toEqual([STOCK_COPY]);
				expect(await edgesOf(pinned(w.c.alice, w.jobs.RUN1, ['main/analytics/stock']))).toEqual([STOCK_COPY]);
				// RUN2 stored its own snapshot with stock_weekly downstream: upstream AND downstream, transitively.
				const weekly = { ...STOCK_COPY, from_asset_path: 'main/analytics/stock_daily', to_asset_path: 'main/analytics/stock_weekly' };
				expect(await edgesOf(pinned(w.c.alice, w.jobs.RUN2, ['main/analytics/stock']))).toEqual([STOCK_COPY, weekly]);
				expect(await edgesOf(pinned(w.c.alice, w.jobs.RUN2, ['main/analytics/stock_weekly']))).toEqual([STOCK_COPY, weekly]);
				// Asking for both families answers both, sorted.
				expect(await edgesOf(pinned(w.c.alice, w.jobs.RUN1, ['main/analytics/stock', 'main/analytics/orders']))).toEqual([ORDERS_COPY, STOCK_COPY]);
			});
		});

		describe('versions and pins', () => {
			it('unpinned reads the current version; a named dbt_script_hash reads that one', async () => {
				// v2 (current) dropped the stock family.
				expect(await edgesOf(unpinned(w.c.alice, ['main/analytics/stock_daily']))).toEqual([]);
				const v1 = `&dbt_script_hash=${hashToHex(w.hashes.shopV1)}`;
				expect(await edgesOf(unpinned(w.c.alice, ['main/analytics/stock_daily'], v1))).toEqual([STOCK_COPY]);
				// A version the caller cannot see is as absent as a missing one.
				expect((await unpinned(w.c.bob, ['main/analytics/stock_daily'], v1)).status).toBe(404);
				expect((await unpinned(w.c.alice, ['main/analytics/stock_daily'], '&dbt_script_hash=0123456789abcdef')).status).toBe(404);
				// Naming a version answers for that project only: the ledger's lineage of `orders` is not included.
				expect(await edgesOf(unpinned(w.c.wsadmin, ['main/analytics/orders'], v1))).toEqual([ORDERS_COPY]);
			});

			it('a job whose version is gone answers unpinned; a job that never existed too, for a member', async () => {
				expect(await edgesOf(pinned(w.c.alice, w.jobs.GONE, ['main/analytics/orders']))).toEqual([ORDERS_COPY]);
				const nowhere = '7f1d7a3e-0000-4000-8000-000000000001';
				expect(await edgesOf(pinned(w.c.alice, nowhere, ['main/analytics/orders']))).toEqual([ORDERS_COPY]);
				// ...which costs what the unpinned route costs: nothing more for bob, 401 without a session.
				expect(await edgesOf(pinned(w.c.bob, nowhere, ['main/analytics/orders']))).toEqual([]);
				expect((await pinned(w.c.anon, nowhere, ['main/analytics/orders'])).status).toBe(401);
				expect((await pinned(w.c.anon, w.jobs.RUN1, ['main/analytics/orders'])).status).toBe(401);
			});

			it('the query never chooses the version of a pinned read', async () => {
				const v2 = `&dbt_script_hash=${'f'.repeat(16)}`;
				const r = await w.c.alice.get(`/api/w/${WS}/jobs/dbt_column_lineage/${w.jobs.RUN1}?${qs(['main/analytics/stock_daily'])}${v2}&script_path=f/finance/ledger`);
				expect(r.status).toBe(200);
				expect(r.body.edges).toEqual([STOCK_COPY]);
			});
		});

		describe('two projects describing one relation', () => {
			it('are both answered, each under its own gate', async () => {
				// shop builds `orders`; the ledger (folder finance) reads it as a source.
				expect(await edgesOf(unpinned(w.c.wsadmin, ['main/analytics/orders']))).toEqual([LEDGER_COPY, ORDERS_COPY]);
				expect(await edgesOf(unpinned(w.c.root, ['dbt://main/analytics/orders']))).toEqual([LEDGER_COPY, ORDERS_COPY]);
				// alice reads analytics only; carol reads finance only; bob neither.
				expect(await edgesOf(unpinned(w.c.alice, ['main/analytics/orders']))).toEqual([ORDERS_COPY]);
				expect(await edgesOf(unpinned(w.c.carol, ['main/analytics/orders']))).toEqual([LEDGER_COPY]);
				expect(await edgesOf(unpinned(w.c.bob, ['main/analytics/orders']))).toEqual([]);
				// Each project answers with its own component: the walk does not cross into the other project.
				expect(await edgesOf(unpinned(w.c.wsadmin, ['main/finance/ledger']))).toEqual([LEDGER_COPY]);
			});

			it('an answer never names a relation of a project the caller may not read', async () => {
				const r = await unpinned(w.c.alice, ['main/analytics/orders', 'main/finance/ledger']);
				expect(r.status).toBe(200);
				expect(JSON.stringify(r.body)).not.toContain('ledger');
			});
		});

		describe('jaffle-shop against expected.json direct_lineage_components', () => {
			const cases = Object.entries(expected.direct_lineage_components as Record<string, { edge_count: number; nodes: string[]; edges: string[][] }>);

			it('has the five relations of the fixture', () => {
				expect(cases.map(([k]) => k).sort()).toEqual([
					'model.jaffle_shop.customers',
					'model.jaffle_shop.locations',
					'model.jaffle_shop.order_items',
					'model.jaffle_shop.orders',
					'model.jaffle_shop.stg_orders'
				]);
			});

			it.each(cases)('%s: the same edges and relations, unpinned and pinned to the deploy', async (uid, comp) => {
				const pathOf = jaffleAssetPaths(w.manifest);
				const want = comp.edges
					.map(([pu, pc, cu, cc, k]) => ({ from_asset_path: pathOf.get(pu)!, from_column: pc, to_asset_path: pathOf.get(cu)!, to_column: cc, kind: k, provenance: 'engine' }))
					.map((e) => JSON.stringify(e))
					.sort();
				const wantNodes = new Set(comp.nodes.map((n) => pathOf.get(n)));
				for (const answer of [
					await edgesOf(unpinned(w.c.alice, [`dbt://${pathOf.get(uid)}`])),
					await edgesOf(pinned(w.c.alice, w.jobs.DEPLOY, [pathOf.get(uid)!]))
				]) {
					expect(answer).toHaveLength(comp.edge_count);
					expect(answer.map((e) => JSON.stringify(e)).sort()).toEqual(want);
					expect(new Set(answer.flatMap((e) => [e.from_asset_path, e.to_asset_path]))).toEqual(wantNodes);
					expect(answer.every((e) => e.kind === 'copy' || e.kind === 'mod')).toBe(true);
					// Sorted by (from path, from column, to path, to column, kind).
					const keys = answer.map((e) => [e.from_asset_path, e.from_column, e.to_asset_path, e.to_column, e.kind].join('\u0000'));
					expect(keys).toEqual([...keys].sort());
				}
			});

			it('asking two relations of one component answers it once', async () => {
				const pathOf = jaffleAssetPaths(w.manifest);
				const both = await edgesOf(unpinned(w.c.alice, [pathOf.get('model.jaffle_shop.orders')!, pathOf.get('model.jaffle_shop.stg_orders')!]));
				const ordersOnly = await edgesOf(unpinned(w.c.alice, [pathOf.get('model.jaffle_shop.orders')!]));
				expect(new Set(both.map((e) => JSON.stringify(e))).size).toBe(both.length);
				expect(both.length).toBeGreaterThanOrEqual(ordersOnly.length);
			});
		});

		describe('the 5000-edge bound', () => {
			const alice = () => principal('alice', ['analytics']);
			const ORDERS = 'main/main/orders';
			const size = () => (expected.direct_lineage_components['model.jaffle_shop.orders'] as { edge_count: number }).edge_count;

			it('is not truncated at exactly the limit, and is one edge over it', async () => {
				const exact = await unpinnedColumnLineage(grantOf(alice()), database, [ORDERS], null, { limit: size() });
				expect(exact.edges).toHaveLength(size());
				expect(exact.truncated).toBe(false);
				const under = await unpinnedColumnLineage(grantOf(alice()), database, [ORDERS], null, { limit: size() - 1 });
				expect(under.edges).toHaveLength(size() - 1);
				expect(under.truncated).toBe(true);
			});

			it('keeps the edges nearest the selection', async () => {
				const cut = await unpinnedColumnLineage(grantOf(alice()), database, [ORDERS], null, { limit: 10 });
				expect(cut.truncated).toBe(true);
				expect(cut.edges).toHaveLength(10);
				// Ten edges fit in the first ring: every kept edge touches a column of `orders` itself.
				for (const e of cut.edges) expect([e.from_asset_path, e.to_asset_path]).toContain(ORDERS);
			});

			it('a real answer says it is complete', async () => {
				const r = await unpinned(w.c.alice, [ORDERS]);
				expect(r.body.truncated).toBe(false);
			});
		});

		describe("the owners read in the principal's statement, gated in process", () => {
			// columnLineageAccess reads every project's owners of the asked relations beside the
			// principal; readableLineageOwners must leave exactly what lineageOwners' SQL filter
			// (authoredPathFilter) reads for that caller.
			const relations = ['main/analytics/orders', 'main/analytics/stock_daily', 'main/finance/ledger', 'main/main/orders', 'main/main/customers'];
			const callers: [string, string, string[] | null][] = [
				['root', 'root', null],
				['wsadmin', 'wsadmin', null],
				['alice', 'alice', null],
				['carol (a group grants her finance)', 'carol', null],
				['bob (reads no project)', 'bob', null],
				["alice's token narrowed to f/analytics/*", 'alice', ['assets:read', 'scripts:read:f/analytics/*']],
				["alice's token narrowed to one project", 'alice', ['assets:read', `scripts:read:${SHOP}`]],
				["alice's token without scripts:read", 'alice', ['assets:read']]
			];
			const seen = { narrowed: 0, kept: 0 };
			it.each(callers)('%s', async (_name, username, scopes) => {
				const a = (await findAccountByUsername(database, username))!;
				const auth: AuthContext = {
					accountId: a.id,
					username: a.username,
					instanceAdmin: a.instanceAdmin,
					via: scopes ? 'token' : 'session',
					...(scopes ? { token: { id: 'test-token', workspace: WS, scopes } } : {})
				};
				for (const paths of [...relations.map((r) => [r]), relations]) {
					const { principal, candidates } = await columnLineageAccess({ locals: { auth } } as never, WS, () => ({ assetPaths: paths, scriptHash: null }));
					const expected = await lineageOwners(database, WS, paths, authoredPathFilter(principal), null);
					expect(readableLineageOwners(principal, candidates!).map(({ key, uniqueIds }) => ({ key, uniqueIds }))).toEqual(expected);
					if (candidates!.length > expected.length) seen.narrowed++;
					if (expected.length > 0) seen.kept++;
				}
			});
			it('the table both keeps and narrows owners', () => {
				expect(seen.narrowed).toBeGreaterThan(0);
				expect(seen.kept).toBeGreaterThan(0);
			});
			it('a named version reads no candidates (its own gate, readableVersion, comes first)', async () => {
				const a = (await findAccountByUsername(database, 'alice'))!;
				const auth: AuthContext = { accountId: a.id, username: a.username, instanceAdmin: false, via: 'session' };
				const r = await columnLineageAccess({ locals: { auth } } as never, WS, () => ({ assetPaths: relations, scriptHash: w.hashes.shopV1 }));
				expect(r.candidates).toBeNull();
			});
			it('a non-member is refused before any candidate is served', async () => {
				await expect(
					columnLineageAccess({ locals: { auth: { accountId: '00000000-0000-4000-8000-00000000abcd', username: 'nobody', instanceAdmin: false, via: 'session' } } } as never, WS, () => ({
						assetPaths: relations,
						scriptHash: null
					}))
				).rejects.toMatchObject({ status: 404 });
			});
		});

		describe('bad input is a 400 naming the parameter, never a 500', () => {
			const long = `main/analytics/${'x'.repeat(10 * 1024)}`;
			it.each([
				['no asset_path', ''],
				['an empty asset_path', 'asset_path='],
				['1001 asset_path values', qs(Array.from({ length: 1001 }, (_, i) => `main/analytics/t${i}`))],
				['a 10 KB asset_path', qs([long])],
				['a NUL byte', 'asset_path=main/analytics/orders%00'],
				['a quote', qs(["main/analytics/orders'--"])],
				['a comment marker', qs(['main/analytics/orders--x'])],
				['a dot-dot segment', qs(['main/../orders'])],
				['non-ASCII', qs(['main/analytics/ordérs'])],
				['another scheme', qs(['ducklake://main/report'])],
				['two segments', qs(['main/orders'])],
				['a non-hex dbt_script_hash', `${qs(['main/analytics/orders'])}&dbt_script_hash=12345`],
				['a repeated dbt_script_hash', `${qs(['main/analytics/orders'])}&dbt_script_hash=${'0'.repeat(16)}&dbt_script_hash=${'1'.repeat(16)}`]
			])('%s', async (_name, query) => {
				const r = await w.c.alice.get(`/api/w/${WS}/assets/column_lineage?${query}`);
				expect(r.status, JSON.stringify(r.body)).toBe(400);
				expect(r.body.error).toMatch(/asset_path|dbt_script_hash/);
				expect(JSON.stringify(r.body)).not.toContain(SECRET);
				const p = await w.c.alice.get(`/api/w/${WS}/jobs/dbt_column_lineage/${w.jobs.RUN1}?${query}`);
				expect([400, 200]).toContain(p.status);
				if (!query.includes('dbt_script_hash')) expect(p.status).toBe(400);
			});

			it('1000 asset_path values are accepted', async () => {
				const paths = Array.from({ length: 999 }, (_, i) => `main/analytics/t${i}`);
				const r = await unpinned(w.c.alice, [...paths, 'main/analytics/orders']);
				expect(r.status).toBe(200);
				expect(r.body.edges).toEqual([ORDERS_COPY]);
			});

			it('a job id that is not a uuid', async () => {
				for (const id of ['not-a-uuid', '1', "x'--"]) {
					const r = await w.c.alice.get(`/api/w/${WS}/jobs/dbt_column_lineage/${encodeURIComponent(id)}?${qs(['main/analytics/orders'])}`);
					expect(r.status).toBe(400);
					expect(r.body.error).toMatch(/uuid/);
				}
			});
		});
	});
});

describe.each(testBackends())('a column-lineage read costs the component, not the project, on $name', (backend) => {
	let database: Database;
	const FAMILIES = 2000;
	const LEVELS = 10;
	const path = 'f/big/project';
	let hash: bigint;
	const key = () => versionKey('big', path, hash);

	/**
	 * 2000 families of 11 models; in each, level i's c0..c4 feed level i+1's c_j and c_{j+1}:
	 * 100 copy edges per family, one component per family, 200,000 column edges in all.
	 */
	function bigGraph(): GraphContent {
		const nodes: NodeRow[] = [];
		const edges: { parent: string; child: string }[] = [];
		const cols: GraphContent['columnEdges'] = [];
		const raw: { parentUniqueId: string; parentColumn: string; childUniqueId: string; childColumn: string; lineageKind: string }[] = [];
		for (let f = 0; f < FAMILIES; f++) {
			for (let i = 0; i <= LEVELS; i++) nodes.push(node(`model.big.f${f}_m${i}`, `main/big/f${f}_m${i}`));
			for (let i = 0; i < LEVELS; i++) {
				edges.push({ parent: `model.big.f${f}_m${i}`, child: `model.big.f${f}_m${i + 1}` });
				for (let j = 0; j < 5; j++) {
					for (const to of [j, j + 1]) {
						raw.push({ parentUniqueId: `model.big.f${f}_m${i}`, parentColumn: `c${j}`, childUniqueId: `model.big.f${f}_m${i + 1}`, childColumn: `c${to}`, lineageKind: 'copy' });
					}
				}
			}
		}
		const comps = directComponents(raw);
		raw.forEach((e, i) => cols.push({ ...e, component: comps[i] }));
		return { nodes, edges, columnEdges: cols };
	}

	beforeAll(async () => {
		database = await backend.open();
		await database.rows(sql`insert into workspace (id, name) values ('big', 'Big')`);
		hash = newScriptHash();
		const g = bigGraph();
		expect(g.columnEdges).toHaveLength(200_000);
		await database.db.transaction(async (tx) => {
			await insertScriptVersion(tx, { workspace: 'big', hash, path, language: 'dbt', content: '', createdBy: 'admin' });
			await replaceGraph(database, tx, key(), g, { digest: graphDigest(g), permissionedAs: 'u/admin' });
			await publishAssetUsage(database, tx, 'big', path, hash, []);
		});
		// What autovacuum does after a bulk load; without statistics the planner guesses blind.
		await database.rows(sql`analyze dbt_column_edge`);
		await database.rows(sql`analyze dbt_node`);
	}, 600_000);
	afterAll(async () => {
		await database?.close();
	});

	/** Rows each scan of `table` produced or threw away, from EXPLAIN ANALYZE. */
	async function rowsRead(query: ReturnType<typeof sql>, table = 'dbt_column_edge'): Promise<{ rows: number; seqScan: boolean; ms: number }> {
		const [r] = await database.rows<Record<string, unknown>>(sql`explain (analyze, format json) ${query}`);
		const raw = Object.values(r)[0];
		const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: any; 'Execution Time': number }[];
		let rows = 0;
		let seqScan = false;
		const walk = (n: any) => {
			if (n['Relation Name'] === table) {
				const loops = n['Actual Loops'] ?? 1;
				rows += (n['Actual Rows'] + (n['Rows Removed by Filter'] ?? 0) + (n['Rows Removed by Index Recheck'] ?? 0)) * loops;
				if (n['Node Type'] === 'Seq Scan') seqScan = true;
			}
			for (const c of n.Plans ?? []) walk(c);
		};
		walk(plan[0].Plan);
		return { rows, seqScan, ms: plan[0]['Execution Time'] };
	}

	it('reads about 100 rows for a 100-edge component, and answers it', async () => {
		// Finding the owner reads the relation's node by asset path, not the project's 22,000 nodes.
		const everything = { readable: { all: true, folders: [], userPrefix: 'u/admin/' }, scope: null };
		const owners = await rowsRead(lineageOwnersSql('big', ['main/big/f1234_m5'], everything, null), 'dbt_node');
		expect(owners.seqScan).toBe(false);
		expect(owners.rows).toBeLessThanOrEqual(5);
		const uids = ['model.big.f1234_m5'];
		const ids = await rowsRead(componentIdsSql(key(), uids));
		const [{ c }] = await database.rows<{ c: number }>(componentIdsSql(key(), uids));
		const edges = await rowsRead(componentEdgesSql(key(), [Number(c)]));
		process.stdout.write(
			`[measure ${backend.name}] 200,000-edge project, 100-edge component: owner lookup read ${owners.rows} dbt_node rows (${owners.ms.toFixed(2)} ms), ` +
				`component ids read ${ids.rows} rows (${ids.ms.toFixed(2)} ms), ` +
				`component edges read ${edges.rows} rows (${edges.ms.toFixed(2)} ms)\n`
		);
		expect(ids.seqScan).toBe(false);
		expect(edges.seqScan).toBe(false);
		// The relation's own incident edges (10 in, 10 out), then exactly its component.
		expect(ids.rows).toBeLessThanOrEqual(25);
		expect(edges.rows).toBe(100);
		// What the service runs: the same reads in one statement, each end's node by its key.
		const one = await rowsRead(componentReadSql(key(), uids));
		const nodes = await rowsRead(componentReadSql(key(), uids), 'dbt_node');
		process.stdout.write(`[measure ${backend.name}] one statement: ${one.rows} edge rows, ${nodes.rows} node rows (${one.ms.toFixed(2)} ms)\n`);
		expect(one.seqScan).toBe(false);
		expect(nodes.seqScan).toBe(false);
		expect(one.rows).toBeLessThanOrEqual(125);
		expect(nodes.rows).toBeLessThanOrEqual(200);

		const t0 = performance.now();
		const answer = await unpinnedColumnLineage(grantOf({ ...principal('admin', [], true), workspace: 'big' }), database, ['main/big/f1234_m5'], null);
		const ms = performance.now() - t0;
		process.stdout.write(`[measure ${backend.name}] column_lineage service call for that component: ${ms.toFixed(1)} ms\n`);
		expect(answer.truncated).toBe(false);
		expect(answer.edges).toHaveLength(100);
		expect(answer.edges.every((e) => e.from_asset_path.startsWith('main/big/f1234_m'))).toBe(true);
	});
});
