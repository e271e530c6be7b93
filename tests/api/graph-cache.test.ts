// The graph cache (src/lib/server/graph-cache.ts) through the real routes, on both databases:
// a repeated read is byte-identical with one ETag (If-None-Match → 304); every write an answer
// depends on (a deploy, a replace in place, a producer deploy, a delete, a prune) changes the
// answer at once; callers who may see different things never share an entry — whoever warmed
// it, an outsider never gets authored fields, hidden node names or their edges; and
// `fields=shape` reads and serves only the shape (plus tags and file path to readers).
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphCacheOf } from '../../src/lib/server/graph-cache';
import type { Database } from '../../src/lib/server/db';
import { graphDigest, replaceGraph, versionKey } from '../../src/lib/server/repo/graph';
import { insertScriptVersion, newScriptHash, publishAssetUsage } from '../../src/lib/server/repo/scripts';
import { producerColumnLineage } from '../../src/lib/server/schema';
import type { AssetGraph } from '../../src/lib/types/asset-graph';
import type { ApiClient } from '../support/api';
import { testBackends } from '../support/db';
import { describeFixtures } from '../support/fixtures';
import { buildLineageWorld, content, deployGraph, LEDGER, login, node, REPORT, SECRET, SHOP, shopV2, WS, type LineageWorld } from '../support/lineage-world';

const HEAVY = ['description', 'columns', 'column_schema', 'freshness', 'raw_code'];
const AUTHORED = ['tags', 'original_file_path', ...HEAVY];

function expectNothingAuthored(g: AssetGraph): void {
	for (const a of g.assets) {
		if (!a.dbt) continue;
		expect(a.dbt.authored, a.path).toBe(false);
		for (const k of AUTHORED) expect(a.dbt, `${a.path}.${k}`).not.toHaveProperty(k);
		for (const t of a.dbt.data_tests) expect(t).not.toHaveProperty('args');
	}
	expect(JSON.stringify(g)).not.toContain(SECRET);
}

describeFixtures('graph cache', () => {
	describe.each(testBackends())('on $name', (backend) => {
		let database: Database;
		let w: LineageWorld;

		beforeAll(async () => {
			database = await backend.open();
			w = await buildLineageWorld(database);
		}, 120_000);
		afterAll(async () => {
			w?.restoreEnv();
			await database?.close();
		});

		const get = async (c: ApiClient, url: string, etag?: string) => {
			const r = await c.get(`/api/w/${WS}/${url}`, etag ? { headers: { 'if-none-match': etag } } : {});
			expect([200, 304], JSON.stringify(r.body)).toContain(r.status);
			return { status: r.status, body: r.body as AssetGraph, etag: r.headers.get('etag')!, text: JSON.stringify(r.body) };
		};
		const shareLink = async (job: string, kind: 'member' | 'public') => {
			const r = await w.c.alice.get(`/api/w/${WS}/jobs/share/${job}?kind=${kind}`);
			expect(r.status).toBe(200);
			return r.body.token as string;
		};

		it('a repeated read is served from the cache: the same bytes, one ETag, and 304 to If-None-Match', async () => {
			const cache = graphCacheOf(database);
			const first = await get(w.c.alice, 'assets/graph?folder=analytics');
			const hits = cache.stats.hits;
			const second = await get(w.c.alice, 'assets/graph?folder=analytics');
			expect(cache.stats.hits).toBe(hits + 1);
			expect(second.text).toBe(first.text);
			expect(second.etag).toBe(first.etag);
			expect(first.etag).toMatch(/^"[\w-]+"$/);
			const again = await get(w.c.alice, 'assets/graph?folder=analytics', first.etag);
			expect(again.status).toBe(304);
			expect(again.body).toBeNull();
			// A pinned read too, and the ETag of one answer never matches another's.
			const run = await get(w.c.alice, `jobs/dbt_graph/${w.jobs.RUN1}`);
			expect((await get(w.c.alice, `jobs/dbt_graph/${w.jobs.RUN1}`, run.etag)).status).toBe(304);
			expect((await get(w.c.alice, `jobs/dbt_graph/${w.jobs.RUN1}`, first.etag)).status).toBe(200);
		});

		it('a deploy of a new version changes the answer at once (a stale ETag gets the new bytes)', async () => {
			const before = await get(w.c.alice, 'assets/graph?folder=analytics');
			const v3 = shopV2();
			v3.nodes.push(node('model.shop.fresh', 'main/analytics/fresh'));
			v3.edges.push({ parent: 'model.shop.orders', child: 'model.shop.fresh' });
			await deployGraph(database, SHOP, v3, 'alice');
			const after = await get(w.c.alice, 'assets/graph?folder=analytics', before.etag);
			expect(after.status).toBe(200);
			expect(after.etag).not.toBe(before.etag);
			expect(after.body.assets.map((a) => a.path)).toContain('main/analytics/fresh');
			expect(after.body.dbt_edges).toContainEqual({ from_asset_path: 'main/analytics/orders', to_asset_path: 'main/analytics/fresh' });
		});

		it('a graph replaced in place (same version, new rows) changes the answer', async () => {
			const [{ hash }] = await database.rows<{ hash: string }>(
				sql`select hash::text as hash from script where workspace = ${WS} and path = ${SHOP} and not deleted order by created_at desc limit 1`
			);
			const before = await get(w.c.alice, 'assets/graph?folder=analytics');
			const g = shopV2();
			g.nodes[1] = { ...g.nodes[1], rawCode: 'select 42 as replaced_in_place' };
			await database.db.transaction((tx) => replaceGraph(database, tx, versionKey(WS, SHOP, BigInt(hash)), g, { digest: graphDigest(g), permissionedAs: 'u/alice' }));
			const after = await get(w.c.alice, 'assets/graph?folder=analytics');
			expect(after.etag).not.toBe(before.etag);
			expect(after.body.assets.find((a) => a.path === 'main/analytics/orders')!.dbt!.raw_code).toBe('select 42 as replaced_in_place');
			// Its usage rows still name `fresh` (they are the deploy's), but no stored graph describes it now.
			expect(after.body.assets.find((a) => a.path === 'main/analytics/fresh')?.dbt).toBeUndefined();
		});

		it('a producer deploy changes the answer: its writes and its column lineage', async () => {
			const before = await get(w.c.alice, 'assets/graph?folder=analytics');
			const hash = newScriptHash();
			await database.db.transaction(async (tx) => {
				await insertScriptVersion(tx, { workspace: WS, hash, path: REPORT, language: 'sql', content: 'select 2', createdBy: 'alice' });
				await publishAssetUsage(database, tx, WS, REPORT, hash, [
					{ assetKind: 'dbt', assetPath: 'main/analytics/orders', access: 'r' },
					{ assetKind: 'ducklake', assetPath: 'main/report_v2', access: 'w' }
				]);
				await tx.insert(producerColumnLineage).values({
					workspace: WS,
					scriptPath: REPORT,
					scriptHash: hash,
					outputAssetKind: 'ducklake',
					outputAssetPath: 'main/report_v2',
					outputColumn: 'order_ref_v2',
					inputAssetKind: 'dbt',
					inputAssetPath: 'main/analytics/orders',
					inputColumn: 'order_id',
					source: 'inferred',
					lineageKind: 'copy'
				});
			});
			const after = await get(w.c.alice, 'assets/graph?folder=analytics');
			expect(after.etag).not.toBe(before.etag);
			expect(after.body.assets.map((a) => a.path)).toContain('main/report_v2');
			expect(after.body.assets.map((a) => a.path)).not.toContain('main/report');
			expect(JSON.stringify(after.body.runnables)).toContain('order_ref_v2');
		});

		it('callers who may see different things never share an entry, whoever warmed it', async () => {
			// Warm every entry with the most privileged callers first.
			const admin = await get(w.c.wsadmin, 'assets/graph');
			const alice = await get(w.c.alice, 'assets/graph');
			expect(admin.text).toContain(SECRET);
			expect(alice.text).toContain(SECRET);
			const shopPaths = alice.body.assets.filter((a) => a.dbt?.script_path === SHOP).map((a) => a.path);
			expect(shopPaths.length).toBeGreaterThan(0);

			// alice's own token without scripts:read: the same user, another scope, another entry.
			const noScripts = await get(await w.token('alice', ['assets:read']), 'assets/graph');
			expect(noScripts.etag).not.toBe(alice.etag);
			expectNothingAuthored(noScripts.body);
			expect(noScripts.body.assets.map((a) => a.path)).toEqual(alice.body.assets.map((a) => a.path));

			// bob reads neither analytics nor finance: shop's relations are hidden, names and edges.
			const bob = await get(w.c.bob, 'assets/graph');
			expect(bob.etag).not.toBe(alice.etag);
			expect(bob.body.hidden).toBeGreaterThan(0);
			for (const p of shopPaths) expect(bob.text).not.toContain(p);
			expect(bob.body.dbt_edges).toEqual([]);
			expect(bob.text).not.toContain(SECRET);
			// carol reads finance only: the ledger's description of `orders`, never shop's, and
			// none of shop's other relations or its ref() edges.
			const carol = await get(w.c.carol, 'assets/graph');
			expect(carol.body.assets.find((a) => a.path === 'main/analytics/orders')?.dbt?.script_path).toBe(LEDGER);
			for (const p of shopPaths.filter((x) => x !== 'main/analytics/orders')) expect(carol.text).not.toContain(p);
			expect(carol.body.dbt_edges).toEqual([{ from_asset_path: 'main/analytics/orders', to_asset_path: 'main/finance/ledger' }]);
			expect(carol.text).not.toContain('model.shop.');
			// An If-None-Match with someone else's ETag is a 200 with bob's own answer, never a 304.
			const probe = await get(w.c.bob, 'assets/graph', alice.etag);
			expect(probe.status).toBe(200);
			expect(probe.text).toBe(bob.text);

			// A folder a caller cannot read stays a 404 after a reader warmed it.
			await get(w.c.alice, 'assets/graph?folder=analytics');
			expect((await w.c.bob.get(`/api/w/${WS}/assets/graph?folder=analytics`)).status).toBe(404);
		});

		it('members alike share an entry; a member with scripts of their own under u/ does not', async () => {
			const root = w.c.root;
			expect((await root.post(`/api/w/${WS}/users`, { username: 'dave', password: 'dave-password-1' })).status).toBeLessThan(300);
			expect((await root.post(`/api/w/${WS}/groups`, { name: 'finance-team', members: ['carol', 'dave'] })).status).toBeLessThan(300);
			const dave = await login('dave');
			const cache = graphCacheOf(database);
			const carol = await get(w.c.carol, 'assets/graph');
			const hits = cache.stats.hits;
			const daves = await get(dave, 'assets/graph');
			expect(cache.stats.hits).toBe(hits + 1);
			expect(daves.text).toBe(carol.text);
			// dave deploys a project of his own: his answer shows it, carol's never does.
			await deployGraph(database, 'u/dave/mine', content([node('model.mine.private_model', 'main/dave/private_model')], [], null), 'dave');
			const davesNow = await get(dave, 'assets/graph');
			const carolNow = await get(w.c.carol, 'assets/graph');
			expect(davesNow.text).toContain('main/dave/private_model');
			expect(davesNow.text).toContain(SECRET);
			expect(carolNow.text).not.toContain('private_model');
			expect(carolNow.text).not.toContain('u/dave');
			// ...whoever asked first.
			expect((await get(w.c.carol, 'assets/graph')).text).not.toContain('private_model');
		});

		it('a pinned graph: the run page viewer through a link gets the shape only, after a reader warmed it', async () => {
			const { RUN1 } = w.jobs;
			const reader = await get(w.c.alice, `jobs/dbt_graph/${RUN1}`);
			expect(reader.text).toContain(SECRET);
			const pub = await shareLink(RUN1, 'public');
			const viaLink = await get(w.c.anon, `jobs/dbt_graph/${RUN1}?view_token=${pub}`);
			expect(viaLink.etag).not.toBe(reader.etag);
			expectNothingAuthored(viaLink.body);
			expect(viaLink.body.assets.map((a) => a.path)).toEqual(reader.body.assets.map((a) => a.path));
			const member = await shareLink(RUN1, 'member');
			expectNothingAuthored((await get(w.c.bob, `jobs/dbt_graph/${RUN1}?view_token=${member}`)).body);
			// A run snapshot replaced under the same job changes its answer.
			const own = await get(w.c.alice, `jobs/dbt_graph/${w.jobs.RUN2}`);
			const snap = content([node('model.shop.only_now', 'main/analytics/only_now')], [], null);
			await database.db.transaction((tx) =>
				replaceGraph(database, tx, { workspace: WS, scriptPath: SHOP, scriptHash: w.hashes.shopV1, jobId: w.jobs.RUN2 }, snap, { digest: graphDigest(snap), permissionedAs: 'u/alice' })
			);
			const replaced = await get(w.c.alice, `jobs/dbt_graph/${w.jobs.RUN2}`);
			expect(replaced.etag).not.toBe(own.etag);
			expect(replaced.body.assets.map((a) => a.path)).toEqual(['main/analytics/only_now']);
		});

		it('fields=shape: no heavy authored field is served; tags and file path only to readers; bad values are a 400', async () => {
			const full = await get(w.c.alice, 'assets/graph?folder=analytics');
			const shape = await get(w.c.alice, 'assets/graph?folder=analytics&fields=shape');
			expect(shape.etag).not.toBe(full.etag);
			expect(shape.body.assets.map((a) => a.path)).toEqual(full.body.assets.map((a) => a.path));
			expect(shape.body.dbt_edges).toEqual(full.body.dbt_edges);
			expect(shape.body.edges).toEqual(full.body.edges);
			expect(shape.body.hidden).toBe(full.body.hidden);
			const orders = shape.body.assets.find((a) => a.path === 'main/analytics/orders')!.dbt!;
			expect(orders.authored).toBe(true);
			expect(orders.tags).toEqual([`${SECRET}-tag`]);
			expect(orders.original_file_path).toBe(`models/${SECRET}/orders.sql`);
			expect(orders.data_tests).toEqual([{ kind: 'accepted_values', column: 'status', severity: 'error' }]);
			for (const a of shape.body.assets) for (const k of HEAVY) expect(a.dbt ?? {}, `${a.path}.${k}`).not.toHaveProperty(k);
			expect(shape.text.length).toBeLessThan(full.text.length);

			const pinned = await get(w.c.alice, `jobs/dbt_graph/${w.jobs.RUN1}?fields=shape`);
			for (const a of pinned.body.assets) for (const k of HEAVY) expect(a.dbt ?? {}, `${a.path}.${k}`).not.toHaveProperty(k);
			expect(pinned.body.assets.find((a) => a.path === 'main/analytics/orders')!.dbt!.tags).toEqual([`${SECRET}-tag`]);
			expectNothingAuthored((await get(await w.token('alice', ['assets:read']), 'assets/graph?folder=analytics&fields=shape')).body);

			for (const bad of ['fields=all', 'fields=shape&fields=full']) {
				const r = await w.c.alice.get(`/api/w/${WS}/assets/graph?${bad}`);
				expect(r.status).toBe(400);
				expect(r.body.error).toContain('fields');
			}
		});

		it('deleting a version (its graph goes by cascade, as a prune deletes it) changes the answer', async () => {
			const before = await get(w.c.wsadmin, 'assets/graph');
			expect(before.body.assets.map((a) => a.path)).toContain('main/finance/ledger');
			await database.rows(sql`delete from script where workspace = ${WS} and path = ${LEDGER}`);
			const after = await get(w.c.wsadmin, 'assets/graph');
			expect(after.etag).not.toBe(before.etag);
			expect(after.body.assets.map((a) => a.path)).not.toContain('main/finance/ledger');
		});
	});
});
