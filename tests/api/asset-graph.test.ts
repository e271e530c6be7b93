// The asset graph through the real routes, on both databases: the seed's pinned-graph cases
// (shape for a run's viewer, authored fields for the project's readers, a preview only through
// its job), one node per relation, hidden means hidden, pins and their fallbacks, bad input.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/lib/server/db';
import type { AssetGraph, GraphAsset } from '../../src/lib/types/asset-graph';
import { hashToHex } from '../../src/lib/types/script-hash';
import type { ApiClient } from '../support/api';
import { testBackends } from '../support/db';
import { describeFixtures } from '../support/fixtures';
import { buildLineageWorld, jaffleAssetPaths, JAFFLE, LEDGER, REPORT, SECRET, SHOP, WS, type LineageWorld } from '../support/lineage-world';

const AUTHORED = ['tags', 'description', 'columns', 'column_schema', 'freshness', 'raw_code', 'original_file_path'];

const asset = (g: AssetGraph, path: string): GraphAsset | undefined => g.assets.find((a) => a.path === path);

/** Every dbt provenance in the answer is shape only: no authored key, no test args, nothing planted. */
function expectShapeOnly(g: AssetGraph): void {
	const dbt = g.assets.filter((a) => a.dbt);
	expect(dbt.length).toBeGreaterThan(0);
	for (const a of dbt) {
		expect(a.dbt!.authored).toBe(false);
		for (const k of AUTHORED) expect(a.dbt).not.toHaveProperty(k);
		// A tested column's name is a column name: authored.
		for (const t of a.dbt!.data_tests) expect(Object.keys(t).sort()).toEqual(['kind', 'severity']);
	}
	expect(JSON.stringify(g)).not.toContain(SECRET);
}

describeFixtures('asset graph', () => {
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

		const graph = async (c: ApiClient, query = ''): Promise<AssetGraph> => {
			const r = await c.get(`/api/w/${WS}/assets/graph${query ? `?${query}` : ''}`);
			expect(r.status, JSON.stringify(r.body)).toBe(200);
			return r.body;
		};
		const jobGraph = async (c: ApiClient, job: string, token?: string, query = ''): Promise<AssetGraph> => {
			const r = await c.get(`/api/w/${WS}/jobs/dbt_graph/${job}?${query}${token ? `&view_token=${token}` : ''}`);
			expect(r.status, JSON.stringify(r.body)).toBe(200);
			return r.body;
		};
		const shareLink = async (job: string, kind: 'member' | 'public') => {
			const r = await w.c.alice.get(`/api/w/${WS}/jobs/share/${job}?kind=${kind}`);
			expect(r.status, JSON.stringify(r.body)).toBe(200);
			return r.body.token as string;
		};

		describe('the seed cases (dbt_pinned_graph)', () => {
			it('a pinned run survives no access to its script: shape and ref() edges, nothing authored', async () => {
				const { RUN1, BOBRUN } = w.jobs;
				const member = await shareLink(RUN1, 'member');
				const pub = await shareLink(RUN1, 'public');
				for (const g of [await jobGraph(w.c.bob, RUN1, member), await jobGraph(w.c.anon, RUN1, pub), await jobGraph(w.c.bob, BOBRUN)]) {
					// The relations the run wrote are what the page is for.
					expect(asset(g, 'main/analytics/orders')?.dbt).toMatchObject({
						unique_id: 'model.shop.orders',
						resource_type: 'model',
						materialized: 'table',
						script_path: SHOP,
						script_hash: hashToHex(w.hashes.shopV1),
						data_tests: [{ kind: 'accepted_values', severity: 'error' }]
					});
					// ...and the ref() edges between them, resolved to relations (v1 has both families).
					expect(g.dbt_edges).toEqual([
						{ from_asset_path: 'main/analytics/raw_orders', to_asset_path: 'main/analytics/orders' },
						{ from_asset_path: 'main/analytics/stock', to_asset_path: 'main/analytics/stock_daily' }
					]);
					expectShapeOnly(g);
					expect(g.dbt_graph_ingested_at).toMatch(/^\d{4}-\d\d-\d\dT/);
					expect(g).not.toHaveProperty('dbt_snapshot_job');
				}
				// The same read by someone who may open the project: the gate is the caller's access.
				for (const c of [w.c.alice, w.c.wsadmin]) {
					const g = await jobGraph(c, RUN1);
					const orders = asset(g, 'main/analytics/orders')!.dbt!;
					expect(orders.authored).toBe(true);
					expect(orders.raw_code).toContain(`${SECRET} sql of orders`);
					expect(orders.original_file_path).toBe(`models/${SECRET}/orders.sql`);
					expect(orders.data_tests[0].args).toEqual({ values: [`${SECRET}-placed`, 'shipped'] });
					expect(orders.column_schema).toEqual([{ name: 'id', type: 'INTEGER' }]);
				}
				// A link holder who also reads the project loses nothing by holding the link.
				expect(asset(await jobGraph(w.c.alice, RUN1, member), 'main/analytics/orders')!.dbt!.authored).toBe(true);
			});

			it('an editor graph renders only through its own job', async () => {
				const g = await jobGraph(w.c.alice, w.jobs.PREVIEW);
				expect(g.dbt_snapshot_job).toBe(w.jobs.PREVIEW);
				expect(g.assets.map((a) => a.path)).toEqual(['main/analytics/draft', 'main/analytics/draft_src']);
				expect(asset(g, 'main/analytics/draft')!.dbt).toMatchObject({ raw_code: 'select 3', script_hash: null, authored: true });
				expect(g.runnables).toEqual([{ path: SHOP, language: 'dbt', script_hash: null, dbt: { model_count: 2 } }]);
				expect(g.dbt_edges).toEqual([{ from_asset_path: 'main/analytics/draft_src', to_asset_path: 'main/analytics/draft' }]);
				// Never through a path, nor through a run of the deployed version.
				for (const other of [
					await graph(w.c.wsadmin),
					await graph(w.c.wsadmin, 'folder=analytics'),
					await graph(w.c.alice, `folder=analytics&dbt_script_hash=${hashToHex(w.hashes.shopV1)}`),
					await jobGraph(w.c.wsadmin, w.jobs.RUN1),
					await jobGraph(w.c.wsadmin, w.jobs.RUN2)
				]) {
					expect(JSON.stringify(other)).not.toContain('draft');
				}
				// A member link to the preview shows its shape to bob, not what alice typed.
				const member = await shareLink(w.jobs.PREVIEW, 'member');
				const viaLink = await jobGraph(w.c.bob, w.jobs.PREVIEW, member);
				expect(viaLink.assets.map((a) => a.path)).toEqual(['main/analytics/draft', 'main/analytics/draft_src']);
				expectShapeOnly(viaLink);
				expect(JSON.stringify(viaLink)).not.toContain('select 3');
			});

			it("a run's own snapshot answers for it, and only for it", async () => {
				const own = await jobGraph(w.c.alice, w.jobs.RUN2);
				expect(own.dbt_snapshot_job).toBe(w.jobs.RUN2);
				expect(asset(own, 'main/analytics/stock_weekly')).toBeDefined();
				expect(own.dbt_edges).toContainEqual({ from_asset_path: 'main/analytics/stock_daily', to_asset_path: 'main/analytics/stock_weekly' });
				const fallback = await jobGraph(w.c.alice, w.jobs.RUN1);
				expect(asset(fallback, 'main/analytics/stock_weekly')).toBeUndefined();
				expect(asset(fallback, 'main/analytics/stock')).toBeDefined();
				// The current version dropped the stock family; unpinned shows the current version.
				expect(asset(await graph(w.c.alice, 'folder=analytics'), 'main/analytics/stock')).toBeUndefined();
			});
		});

		describe('the unpinned graph of a folder', () => {
			it('draws assets with dbt provenance, runnables, usage edges, ref() edges and folded tests', async () => {
				const g = await graph(w.c.alice, 'folder=analytics');
				const orders = asset(g, 'main/analytics/orders')!;
				expect(orders.kind).toBe('dbt');
				expect(orders.dbt).toMatchObject({
					unique_id: 'model.shop.orders',
					script_path: SHOP,
					script_hash: hashToHex(w.hashes.shopV2),
					authored: true,
					data_tests: [{ kind: 'accepted_values', column: 'status', severity: 'error', args: { values: [`${SECRET}-placed`, 'shipped'] } }]
				});
				expect(asset(g, 'main/report')).toEqual({ kind: 'ducklake', path: 'main/report' });
				expect(g.edges).toContainEqual({ runnable_path: REPORT, asset_kind: 'dbt', asset_path: 'main/analytics/orders', access: 'r' });
				expect(g.edges).toContainEqual({ runnable_path: SHOP, asset_kind: 'dbt', asset_path: 'main/analytics/orders', access: 'w' });
				expect(g.dbt_edges).toContainEqual({ from_asset_path: 'main/analytics/raw_orders', to_asset_path: 'main/analytics/orders' });
				const runnables = Object.fromEntries(g.runnables.map((r) => [r.path, r]));
				expect(Object.keys(runnables).sort()).toEqual([JAFFLE, REPORT, SHOP]);
				expect(runnables[SHOP]).toEqual({ path: SHOP, language: 'dbt', script_hash: hashToHex(w.hashes.shopV2), dbt: { model_count: 2 } });
				expect(runnables[REPORT]).toEqual({
					path: REPORT,
					language: 'sql',
					script_hash: hashToHex(w.hashes.report),
					column_lineage: [
						{
							asset_kind: 'ducklake',
							asset_path: 'main/report',
							column: 'order_ref',
							inputs: [{ from_kind: 'dbt', from_path: 'main/analytics/orders', from_column: 'order_id', source: 'annotation', kind: 'copy' }]
						}
					]
				});
				// jaffle builds its 13 models and 6 seeds; its sources name the seeds' tables.
				const built = new Set(
					(Object.values(w.manifest.nodes) as any[])
						.filter((n) => ['model', 'seed', 'snapshot'].includes(n.resource_type))
						.map((n) => jaffleAssetPaths(w.manifest).get(n.unique_id))
				);
				expect(runnables[JAFFLE].dbt).toEqual({ model_count: built.size });
				expect(built.size).toBe(19);
				// The ledger (finance, not alice's) also describes `orders`: its description is withheld and counted.
				expect(g.hidden).toBe(1);
				// Sorted, so a poll that changes nothing changes no byte.
				expect(g.assets.map((a) => `${a.kind}:${a.path}`)).toEqual(g.assets.map((a) => `${a.kind}:${a.path}`).sort());
				expect(JSON.stringify(await graph(w.c.alice, 'folder=analytics'))).toBe(JSON.stringify(g));
			});

			it('jaffle-shop: one node per relation (a seed beats the source naming its table) and the ref() edges of the manifest', async () => {
				const g = await graph(w.c.alice, 'folder=analytics&asset_kinds=dbt');
				const pathOf = jaffleAssetPaths(w.manifest);
				const rawOrders = g.assets.filter((a) => a.path === 'main/raw/raw_orders');
				expect(rawOrders).toHaveLength(1);
				expect(rawOrders[0].dbt?.unique_id).toBe('seed.jaffle_shop.raw_orders');
				// Expected from parent_map, relations only, no self-edges.
				const want = new Set<string>();
				for (const [child, parents] of Object.entries(w.manifest.parent_map as Record<string, string[]>)) {
					for (const parent of parents) {
						const from = pathOf.get(parent);
						const to = pathOf.get(child);
						if (from && to && from !== to) want.add(`${from} -> ${to}`);
					}
				}
				const jaffleEdges = g.dbt_edges.filter((e) => e.to_asset_path.startsWith('main/main/') || e.to_asset_path.startsWith('main/raw/'));
				expect(new Set(jaffleEdges.map((e) => `${e.from_asset_path} -> ${e.to_asset_path}`))).toEqual(want);
				// Tests folded onto the model they test.
				const orders = asset(g, 'main/main/orders')!.dbt!;
				const manifestTests = (Object.values(w.manifest.nodes) as any[]).filter((n) => n.resource_type === 'test' && n.attached_node === 'model.jaffle_shop.orders');
				const unitTests = (Object.values(w.manifest.unit_tests) as any[]).filter((n) => n.model === 'orders');
				expect(manifestTests).toHaveLength(5);
				// Each data test differs in kind, column or arguments, so none folds into another.
				expect(orders.data_tests).toHaveLength(manifestTests.length + unitTests.length);
				expect(orders.data_tests.filter((t) => t.kind === 'not_null')).toEqual([{ kind: 'not_null', column: 'order_id', severity: 'error', args: null }]);
			});

			it("a token without scripts:read gets the same graph with every author's words removed", async () => {
				const reader = await graph(w.c.alice, 'folder=analytics');
				const token = await w.token('alice', ['assets:read']);
				const g = await graph(token, 'folder=analytics');
				expect(g.assets.map((a) => a.path)).toEqual(reader.assets.map((a) => a.path));
				expect(g.dbt_edges).toEqual(reader.dbt_edges);
				expectShapeOnly(g);
				expect(g.runnables.find((r) => r.path === REPORT)).not.toHaveProperty('column_lineage');
				// A scope covering one project unlocks exactly that project.
				const shopOnly = await graph(await w.token('alice', ['assets:read', 'scripts:read:f/analytics/shop']), 'folder=analytics');
				expect(asset(shopOnly, 'main/analytics/orders')!.dbt!.authored).toBe(true);
				expect(asset(shopOnly, 'main/main/orders')!.dbt!.authored).toBe(false);
				// A route scope is needed at all.
				expect((await (await w.token('alice', ['scripts:read'])).get(`/api/w/${WS}/assets/graph`)).status).toBe(403);
			});

			it("a token's assets:read paths narrow the assets and count what they withheld", async () => {
				const g = await graph(await w.token('alice', ['assets:read:main/analytics/*', 'scripts:read']), 'folder=analytics');
				expect(g.assets.length).toBeGreaterThan(0);
				expect(g.assets.every((a) => a.path.startsWith('main/analytics/'))).toBe(true);
				expect(g.edges.every((e) => e.asset_path.startsWith('main/analytics/'))).toBe(true);
				const all = await graph(w.c.alice, 'folder=analytics');
				expect(g.hidden).toBe(all.hidden + all.assets.length - g.assets.length);
			});

			it('asset_kinds filters, and an unknown kind is a 400 naming asset_kinds', async () => {
				const lake = await graph(w.c.alice, 'folder=analytics&asset_kinds=ducklake');
				expect(lake.assets).toEqual([{ kind: 'ducklake', path: 'main/report' }]);
				expect(lake.dbt_edges).toEqual([]);
				expect(lake.edges).toEqual([{ runnable_path: REPORT, asset_kind: 'ducklake', asset_path: 'main/report', access: 'w' }]);
				const dbt = await graph(w.c.alice, 'folder=analytics&asset_kinds=dbt');
				expect(dbt.assets.every((a) => a.kind === 'dbt')).toBe(true);
				expect((await graph(w.c.alice, 'folder=analytics&asset_kinds=dbt,ducklake')).assets.length).toBe(dbt.assets.length + 1);
				for (const bad of ['table', 'dbt,bogus', '', 'DBT']) {
					const r = await w.c.alice.get(`/api/w/${WS}/assets/graph?asset_kinds=${bad}`);
					expect(r.status).toBe(400);
					expect(r.body.error).toMatch(/^asset_kinds/);
				}
			});

			it('a named dbt_script_hash draws that version of its project', async () => {
				const v1 = hashToHex(w.hashes.shopV1);
				const g = await graph(w.c.alice, `folder=analytics&dbt_script_hash=${v1}`);
				expect(asset(g, 'main/analytics/stock_daily')!.dbt).toMatchObject({ unique_id: 'model.shop.stock_daily', script_hash: v1 });
				expect(g.runnables.find((r) => r.path === SHOP)).toEqual({ path: SHOP, language: 'dbt', script_hash: v1, dbt: { model_count: 4 } });
				expect(g.dbt_edges).toContainEqual({ from_asset_path: 'main/analytics/stock', to_asset_path: 'main/analytics/stock_daily' });
				expect((await w.c.bob.get(`/api/w/${WS}/assets/graph?dbt_script_hash=${v1}`)).status).toBe(404);
				expect((await w.c.alice.get(`/api/w/${WS}/assets/graph?dbt_script_hash=${hashToHex(w.hashes.report)}`)).status).toBe(404);
				expect((await w.c.alice.get(`/api/w/${WS}/assets/graph?dbt_script_hash=42`)).status).toBe(400);
			});
		});

		describe('one node per relation across projects', () => {
			it('the project that builds a relation describes it; the reader of both sees one node', async () => {
				const g = await graph(w.c.wsadmin);
				expect(g.assets.filter((a) => a.path === 'main/analytics/orders')).toHaveLength(1);
				expect(asset(g, 'main/analytics/orders')!.dbt!.unique_id).toBe('model.shop.orders');
				expect(g.dbt_edges).toContainEqual({ from_asset_path: 'main/analytics/orders', to_asset_path: 'main/finance/ledger' });
			});

			it("a finance reader sees the relation through the ledger's own description, never shop's", async () => {
				const g = await graph(w.c.carol, 'folder=finance');
				expect(g.assets.map((a) => a.path)).toEqual(['main/analytics/orders', 'main/finance/ledger']);
				expect(asset(g, 'main/analytics/orders')!.dbt).toMatchObject({ unique_id: 'source.ledger.analytics.orders', script_path: LEDGER, authored: true });
				expect(asset(g, 'main/analytics/orders')!.dbt!.freshness).toEqual({ warn_after: { count: 1, period: 'day' } });
				expect(g.dbt_edges).toEqual([{ from_asset_path: 'main/analytics/orders', to_asset_path: 'main/finance/ledger' }]);
				expect(g.runnables.map((r) => r.path)).toEqual([LEDGER]);
				// shop's description of `orders` was withheld: counted, not named.
				expect(g.hidden).toBe(1);
				expect((await graph(w.c.carol, 'folder=finance&asset_kinds=ducklake')).hidden).toBe(0);
				expect((await graph(w.c.wsadmin, 'folder=finance')).hidden).toBe(0);
				const text = JSON.stringify(g);
				expect(text).not.toContain(SHOP);
				expect(text).not.toContain('raw_orders');
			});
		});

		describe('hidden means hidden', () => {
			it("an outsider's graph names no node and no edge of a project they cannot see", async () => {
				const g = await graph(w.c.bob);
				expect(g.assets).toEqual([]);
				expect(g.runnables).toEqual([]);
				expect(g.edges).toEqual([]);
				expect(g.dbt_edges).toEqual([]);
				// How much was withheld, never what: shop, jaffle, report, ledger and the assets only they touch.
				expect(g.hidden).toBeGreaterThanOrEqual(4);
				const text = JSON.stringify(g);
				for (const word of ['orders', 'shop', 'ledger', 'jaffle', 'report', SECRET]) expect(text).not.toContain(word);
				// bob's own folder (a prefix of `analytics`) holds nothing, and withholds nothing.
				expect(await graph(w.c.bob, 'folder=analytic')).toEqual({ assets: [], runnables: [], edges: [], dbt_edges: [], hidden: 0 });
			});

			it('a reader of one folder sees nothing of the other, and a count of it', async () => {
				const g = await graph(w.c.alice);
				const text = JSON.stringify(g);
				expect(text).not.toContain('ledger');
				expect(text).not.toContain('finance');
				// The ledger script, and the one asset only it touches (orders is also shop's).
				expect(g.hidden).toBe(2);
				expect(asset(g, 'main/analytics/orders')!.dbt!.unique_id).toBe('model.shop.orders');
			});

			it("a folder the caller cannot read is a 404, the same as one that does not exist; `_` is not a wildcard", async () => {
				for (const [c, folder] of [
					[w.c.bob, 'analytics'],
					[w.c.alice, 'finance'],
					[w.c.alice, 'nowhere'],
					[w.c.wsadmin, 'nowhere'],
					[w.c.alice, 'analytic_'],
					[w.c.alice, 'ana_ytics']
				] as const) {
					const r = await c.get(`/api/w/${WS}/assets/graph?folder=${folder}`);
					expect(r.status).toBe(404);
					expect(r.body.error).toBe('no such folder');
				}
				for (const folder of ['a%25b', '..', 'f/analytics', '%00', 'x'.repeat(300).replace(/x/g, 'é')]) {
					const r = await w.c.alice.get(`/api/w/${WS}/assets/graph?folder=${encodeURIComponent(decodeURIComponent(folder))}`);
					expect(r.status).toBe(400);
					expect(r.body.error).toMatch(/^folder/);
				}
				expect((await w.c.anon.get(`/api/w/${WS}/assets/graph`)).status).toBe(401);
			});
		});

		describe('pins and their fallbacks', () => {
			it('path and hash come from the job row, never from the query', async () => {
				const g = await jobGraph(w.c.alice, w.jobs.RUN1, undefined, `dbt_script_hash=${hashToHex(w.hashes.ledger)}&folder=finance`);
				expect(g.runnables.map((r) => r.path)).toEqual([SHOP]);
				expect(g.runnables[0].script_hash).toBe(hashToHex(w.hashes.shopV1));
				expect(JSON.stringify(g)).not.toContain('ledger');
			});

			it('the deploy job reads its version graph', async () => {
				const g = await jobGraph(w.c.alice, w.jobs.DEPLOY);
				expect(g.runnables).toEqual([{ path: JAFFLE, language: 'dbt', script_hash: hashToHex(w.hashes.jaffle), dbt: { model_count: 19 } }]);
				expect(g.dbt_graph_ingested_at).toBeDefined();
				expect(g).not.toHaveProperty('dbt_snapshot_job');
			});

			it('a job whose version is gone, or that never existed, answers the unpinned graph', async () => {
				const unpinned = await graph(w.c.alice, 'folder=analytics');
				const gone = await jobGraph(w.c.alice, w.jobs.GONE, undefined, 'folder=analytics');
				expect(gone).toEqual(unpinned);
				expect(gone).not.toHaveProperty('dbt_graph_ingested_at');
				expect(await jobGraph(w.c.alice, '7f1d7a3e-0000-4000-8000-000000000002', undefined, 'folder=analytics')).toEqual(unpinned);
				// For bob the unpinned graph is what /assets/graph gives bob.
				expect(await jobGraph(w.c.bob, '7f1d7a3e-0000-4000-8000-000000000002')).toEqual(await graph(w.c.bob));
			});

			it('refusals: no session, no link, wrong scopes, a malformed id', async () => {
				expect((await w.c.anon.get(`/api/w/${WS}/jobs/dbt_graph/${w.jobs.RUN1}`)).status).toBe(401);
				const r = await w.c.bob.get(`/api/w/${WS}/jobs/dbt_graph/${w.jobs.RUN1}`);
				expect(r.status).toBe(403);
				expect(r.body.error).toMatch(/share link/);
				expect((await (await w.token('alice', ['jobs:read'])).get(`/api/w/${WS}/jobs/dbt_graph/${w.jobs.RUN1}`)).status).toBe(403);
				expect((await (await w.token('alice', ['assets:read'])).get(`/api/w/${WS}/jobs/dbt_graph/${w.jobs.RUN1}`)).status).toBe(403);
				const both = await jobGraph(await w.token('alice', ['jobs:read', 'assets:read']), w.jobs.RUN1);
				expectShapeOnly(both);
				expect((await w.c.alice.get(`/api/w/${WS}/jobs/dbt_graph/not-a-uuid`)).status).toBe(400);
				expect((await w.c.alice.get(`/api/w/${WS}/jobs/dbt_graph/${w.jobs.RUN1}?asset_kinds=table`)).status).toBe(400);
			});

			// Last: it archives shop v1 for good.
			it('an archived version still renders for its runs, and by name, but never as the current one', async () => {
				const before = await jobGraph(w.c.alice, w.jobs.RUN1);
				await database.rows(sql`update script set archived = true where workspace = ${WS} and hash = ${w.hashes.shopV1.toString()}::bigint`);
				expect(await jobGraph(w.c.alice, w.jobs.RUN1)).toEqual(before);
				const named = await graph(w.c.alice, `dbt_script_hash=${hashToHex(w.hashes.shopV1)}`);
				expect(asset(named, 'main/analytics/stock')).toBeDefined();
				// Archiving the CURRENT version leaves the path with no live version: no provenance, no runnable.
				await database.rows(sql`update script set archived = true where workspace = ${WS} and hash = ${w.hashes.shopV2.toString()}::bigint`);
				const now = await graph(w.c.alice, 'folder=analytics');
				expect(now.runnables.map((r) => r.path)).not.toContain(SHOP);
				expect(asset(now, 'main/analytics/orders')?.dbt?.script_path).not.toBe(SHOP);
			});
		});
	});
});
