// The cached component read of GET assets/column_lineage (api/lineage/reads.ts cachedRankedEdges), on
// both databases: an entry is keyed by the graph marker version the request read from the
// database beside its principal, so a repeated read is a hit, and a new deploy, a graph replaced
// in place, a write through another connection pool (another process's), a lost folder grant,
// a revoked token and a removed member are all seen by the very next request.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/lib/server/db';
import { graphCacheOf } from '../../src/lib/server/graph-cache';
import { graphDigest, replaceGraph, versionKey } from '../../src/lib/server/repo/graph';
import { removeMember } from '../../src/lib/server/repo/workspaces';
import type { ColumnLineageEdge } from '../../src/lib/types/asset-graph';
import { ApiClient } from '../support/api';
import { testBackends } from '../support/db';
import { describeFixtures } from '../support/fixtures';
import { buildLineageWorld, content, deployGraph, node, SHOP, WS, type LineageWorld } from '../support/lineage-world';

const ORDERS = 'main/analytics/orders';
const A = (name: string) => `main/analytics/${name}`;

/** Shop with one extra copy edge into orders (`label` names its column), as a deploy or a replace writes it. */
const shopWith = (label: string) =>
	content(
		[node('model.shop.raw_orders', A('raw_orders')), node('model.shop.orders', A('orders'))],
		[['model.shop.raw_orders', 'model.shop.orders']],
		[
			['model.shop.raw_orders', 'id', 'model.shop.orders', 'order_id', 'copy'],
			['model.shop.raw_orders', label, 'model.shop.orders', label, 'mod']
		]
	);

const columnsOf = (edges: ColumnLineageEdge[]) => edges.map((e) => e.to_column).sort();

describeFixtures('column lineage cache', () => {
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

		const lineage = (c: ApiClient) => c.get(`/api/w/${WS}/assets/column_lineage?asset_path=${encodeURIComponent(ORDERS)}`);
		const edges = async (c: ApiClient): Promise<ColumnLineageEdge[]> => {
			const r = await lineage(c);
			expect(r.status, JSON.stringify(r.body)).toBe(200);
			return r.body.edges;
		};
		const newestShopHash = async () => {
			const [{ hash }] = await database.rows<{ hash: string }>(
				sql`select hash::text as hash from script where workspace = ${WS} and path = ${SHOP} and not deleted order by created_at desc limit 1`
			);
			return BigInt(hash);
		};

		it('a repeated read is a hit with the same answer', async () => {
			await deployGraph(database, SHOP, shopWith('first'), 'alice');
			const cache = graphCacheOf(database);
			const first = await edges(w.c.alice);
			expect(columnsOf(first)).toEqual(['first', 'order_id']);
			const hits = cache.stats.hits;
			expect(await edges(w.c.alice)).toEqual(first);
			expect(cache.stats.hits).toBe(hits + 1);
		});

		it('a new deploy is seen at once', async () => {
			await edges(w.c.alice);
			await deployGraph(database, SHOP, shopWith('deployed'), 'alice');
			expect(columnsOf(await edges(w.c.alice))).toEqual(['deployed', 'order_id']);
		});

		it('a graph replaced in place (same version, new marker) is seen at once', async () => {
			await edges(w.c.alice);
			const g = shopWith('replaced');
			const hash = await newestShopHash();
			await database.db.transaction((tx) => replaceGraph(database, tx, versionKey(WS, SHOP, hash), g, { digest: graphDigest(g), permissionedAs: 'u/alice' }));
			expect(columnsOf(await edges(w.c.alice))).toEqual(['order_id', 'replaced']);
		});

		it('a caller who loses the folder grant gets nothing from the entry another warmed', async () => {
			await edges(w.c.wsadmin);
			expect((await edges(w.c.alice)).length).toBeGreaterThan(0);
			const folders = (await w.c.root.get(`/api/w/${WS}/folders`)).body as { name: string; readers: string[]; writers: string[] }[];
			const analytics = folders.find((f) => f.name === 'analytics')!;
			const without = (xs: string[]) => xs.filter((g) => g !== 'u/alice');
			expect((await w.c.root.post(`/api/w/${WS}/folders`, { name: 'analytics', readers: without(analytics.readers), writers: without(analytics.writers) })).status).toBeLessThan(300);
			try {
				expect(await edges(w.c.alice)).toEqual([]);
				expect((await edges(w.c.wsadmin)).length).toBeGreaterThan(0);
			} finally {
				expect((await w.c.root.post(`/api/w/${WS}/folders`, analytics)).status).toBeLessThan(300);
			}
			expect((await edges(w.c.alice)).length).toBeGreaterThan(0);
		});

		it('a revoked token is refused by the next request', async () => {
			const minted = await w.c.alice.post(`/api/w/${WS}/tokens`, { label: 'lineage-cache', scopes: ['assets:read', 'scripts:read'] });
			expect(minted.status).toBe(201);
			const token = new ApiClient().withBearer(minted.body.token);
			expect((await edges(token)).length).toBeGreaterThan(0);
			expect((await w.c.alice.call('DELETE', `/api/w/${WS}/tokens/${minted.body.id}`)).status).toBeLessThan(300);
			expect((await lineage(token)).status).toBe(401);
		});

		it('a removed member is refused by the next request', async () => {
			expect((await lineage(w.c.carol)).status).toBe(200);
			expect(await removeMember(database, WS, 'carol')).toBe(true);
			expect((await lineage(w.c.carol)).status).toBe(404);
		});

		// Another web process shares nothing with this one but the database: a second connection
		// pool (its own graph cache) writes, this process's next read must see it. Only Postgres
		// has a second process to speak of: a PGlite database is open in one process.
		if (backend.name === 'postgres') it('a deploy written through another connection pool is seen at once', async () => {
			await edges(w.c.alice);
			const [{ db }] = await database.rows<{ db: string }>(sql`select current_database() as db`);
			const u = new URL(process.env.TEST_DATABASE_URL!);
			u.pathname = `/${db}`;
			const other = await openDatabase({ url: u.toString(), migrate: false });
			try {
				await deployGraph(other, SHOP, shopWith('elsewhere'), 'alice');
			} finally {
				await other.close();
			}
			expect(columnsOf(await edges(w.c.alice))).toEqual(['elsewhere', 'order_id']);
		});
	});
});
