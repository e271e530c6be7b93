// POST /api/w/{ws}/fork through the real routes, on both databases: the fork's graph, column
// lineage and column impact answer what the source's do (for an admin and for a folder reader),
// digests and hashes are kept, runs/previews/tokens are not carried, warehouse secrets are not
// and the runner says so, a pending deploy stays behind, and the gates (409, 403, 404).
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/lib/server/db';
import { FORK_COPIED, FORK_NOT_COPIED } from '../../src/lib/server/repo/fork';
import { getWarehouseWithSecrets } from '../../src/lib/server/repo/warehouses';
import { insertScriptVersion, newScriptHash } from '../../src/lib/server/repo/scripts';
import { replaceGraph, graphDigest } from '../../src/lib/server/repo/graph';
import * as schema from '../../src/lib/server/schema';
import { actions as settingsActions } from '../../src/routes/w/[ws]/settings/+page.server';
import { ApiClient } from '../support/api';
import { pageEventOf, pageOutcome } from '../support/pages';
import { testBackends } from '../support/db';
import { describeFixtures } from '../support/fixtures';
import { buildLineageWorld, jaffleAssetPaths, login, shopV1, SHOP, WS, type LineageWorld } from '../support/lineage-world';

const FORK = 'acme-dev';

describe('what a fork carries', () => {
	it('names every table of the schema exactly once: copied or not', () => {
		const tables = (Object.values(schema) as unknown[])
			.filter((v): v is PgTable => v instanceof PgTable)
			.map((t) => getTableConfig(t).name)
			.sort();
		const listed = [...FORK_COPIED, ...FORK_NOT_COPIED].sort();
		expect(listed).toEqual(tables);
	});
});

describeFixtures('workspace fork', () => {
	describe.each(testBackends())('on $name', (backend) => {
		let database: Database;
		let w: LineageWorld;
		let forked: any;
		let pendingHash: bigint;

		const body = async (p: Promise<{ status: number; body: any }>) => {
			const r = await p;
			expect(r.status, JSON.stringify(r.body)).toBe(200);
			return r.body;
		};
		const count = async (q: ReturnType<typeof sql>) => Number((await database.rows<{ n: unknown }>(q))[0].n);

		beforeAll(async () => {
			database = await backend.open();
			w = await buildLineageWorld(database);
			// A warehouse with secrets, and a deploy of the shop still pending (not live).
			expect((await w.c.root.post(`/api/w/${WS}/warehouses`, { name: 'prod', settings: { type: 'postgres', host: 'db', secrets: { password: 'pw-1', token: 't' } } })).status).toBe(201);
			pendingHash = newScriptHash();
			await database.db.transaction(async (tx) => {
				await insertScriptVersion(tx, { workspace: WS, hash: pendingHash, path: SHOP, language: 'dbt', content: '', createdBy: 'alice', pending: true });
				const g = shopV1();
				await replaceGraph(database, tx, { workspace: WS, scriptPath: SHOP, scriptHash: pendingHash, jobId: schema.ZERO_UUID }, g, { digest: graphDigest(g), permissionedAs: 'u/alice' });
			});
			// A share link of a run in the source.
			expect((await w.c.alice.get(`/api/w/${WS}/jobs/share/${w.jobs.RUN1}?kind=member`)).status).toBe(200);
			const r = await w.c.wsadmin.post(`/api/w/${WS}/fork`, { id: FORK, name: 'Acme (dev)' });
			expect(r.status, JSON.stringify(r.body)).toBe(201);
			forked = r.body;
		});
		afterAll(async () => {
			w?.restoreEnv();
			await database?.close();
		});

		it('answers what it copied', () => {
			expect(forked.id).toBe(FORK);
			expect(forked.name).toBe('Acme (dev)');
			expect(forked.forked_from).toBe(WS);
			// shop (v2, not the pending one), ledger, report (producer), jaffle.
			expect(forked.copied.scripts).toBe(4);
			expect(forked.copied.graphs).toBe(3);
			expect(forked.copied.column_edges).toBeGreaterThan(100);
			expect(forked.copied.producer_lineage).toBe(1);
			expect(forked.copied.warehouses_needing_secrets).toEqual(['prod']);
			expect(forked.copied.members).toBe(5);
		});

		const JAFFLE_CHECKS = ['orders', 'customers', 'stg_orders', 'stg_payments'];

		it("the fork's graph, column lineage and column impact equal the source's, for an admin and a folder reader", async () => {
			const paths = jaffleAssetPaths(w.manifest);
			const jaffle = [...paths.values()].filter((p) => JAFFLE_CHECKS.some((n) => p.endsWith(`/${n}`)));
			expect(jaffle.length).toBeGreaterThanOrEqual(3);
			const relations = ['main/analytics/orders', 'main/analytics/raw_orders', 'main/finance/ledger', ...jaffle];
			for (const c of [w.c.wsadmin, w.c.alice, w.c.carol]) {
				const src = await body(c.get(`/api/w/${WS}/assets/graph`));
				const dst = await body(c.get(`/api/w/${FORK}/assets/graph`));
				expect(src.assets.length).toBeGreaterThan(0);
				expect(dst).toEqual(src);
				const q = relations.map((p) => `asset_path=${encodeURIComponent(p)}`).join('&');
				const lsrc = await body(c.get(`/api/w/${WS}/assets/column_lineage?${q}&include=scan`));
				expect(await body(c.get(`/api/w/${FORK}/assets/column_lineage?${q}&include=scan`))).toEqual(lsrc);
				for (const [path, column] of [
					['main/analytics/raw_orders', 'id'],
					['main/finance/ledger', 'order_ref'],
					[jaffle[0], 'order_id']
				]) {
					for (const dir of ['downstream', 'upstream']) {
						const qs = `asset_path=${encodeURIComponent(path)}&column=${column}&direction=${dir}`;
						const isrc = await body(c.get(`/api/w/${WS}/assets/column_impact?${qs}`));
						expect(await body(c.get(`/api/w/${FORK}/assets/column_impact?${qs}`))).toEqual(isrc);
					}
				}
			}
			// The answers compared are not empty: the admin's lineage crosses projects.
			const all = await body(w.c.wsadmin.get(`/api/w/${FORK}/assets/column_impact?asset_path=main/analytics/raw_orders&column=id`));
			expect(all.columns.length).toBe(3);
		});

		it('keeps hashes and digests, carries neither the pending version nor runs, previews, tokens or share links', async () => {
			const versions = (ws: string) =>
				database.rows<{ path: string; hash: string; digest: string | null }>(
					sql`select s.path, s.hash::text as hash, g.digest from script s
					      left join dbt_graph_snapshot g on g.workspace = s.workspace and g.script_hash = s.hash and g.job_id = ${schema.ZERO_UUID}::uuid
					     where s.workspace = ${ws} order by s.path`
				);
			const dst = await versions(FORK);
			expect(dst.map((v) => v.hash)).toContain(w.hashes.shopV2.toString());
			expect(dst.map((v) => v.hash)).not.toContain(pendingHash.toString());
			expect(dst.map((v) => v.hash)).not.toContain(w.hashes.shopV1.toString());
			const src = await versions(WS);
			for (const v of dst) expect(src).toContainEqual(v);
			const nodeDigests = (ws: string) =>
				database.rows<{ u: string; d: string }>(sql`select n.unique_id as u, n.digest as d from dbt_node n where n.workspace = ${ws} and n.script_hash = ${w.hashes.jaffle.toString()}::bigint and n.job_id = ${schema.ZERO_UUID}::uuid order by 1`);
			expect(await nodeDigests(FORK)).toEqual(await nodeDigests(WS));
			expect(await count(sql`select count(*) as n from job where workspace = ${FORK}`)).toBe(0);
			expect(await count(sql`select count(*) as n from dbt_graph_snapshot where workspace = ${FORK} and (job_id <> ${schema.ZERO_UUID}::uuid or script_hash is null)`)).toBe(0);
			expect(await count(sql`select count(*) as n from share_link where workspace = ${FORK}`)).toBe(0);
			expect(await count(sql`select count(*) as n from api_token where workspace = ${FORK}`)).toBe(0);
			expect(await count(sql`select count(*) as n from dbt_graph_snapshot where workspace = ${FORK} and lineage_job_id is not null`)).toBe(0);
			// The pending deploy in the source is untouched, and still pending.
			expect(await count(sql`select count(*) as n from script where workspace = ${WS} and hash = ${pendingHash.toString()}::bigint and pending`)).toBe(1);
		});

		it('carries folders, groups and members; warehouses without their secrets, and the runner names them', async () => {
			const src = await body(w.c.root.get(`/api/w/${WS}/folders`));
			expect(await body(w.c.root.get(`/api/w/${FORK}/folders`))).toEqual(src);
			expect(await body(w.c.root.get(`/api/w/${FORK}/groups`))).toEqual(await body(w.c.root.get(`/api/w/${WS}/groups`)));
			const whs = await body(w.c.root.get(`/api/w/${FORK}/warehouses`));
			expect(JSON.stringify(whs)).not.toContain('pw-1');
			expect(whs.find((x: any) => x.name === 'prod').settings.secrets).toEqual({ password: '***', token: '***' });
			await expect(getWarehouseWithSecrets(database, FORK, 'prod')).rejects.toThrow(/"prod" came with this workspace's fork without its secrets \(password, token\)/);
			// The source's secrets still open; the fork's open once set again.
			expect((await getWarehouseWithSecrets(database, WS, 'prod'))!.secrets).toEqual({ password: 'pw-1', token: 't' });
			expect((await w.c.root.post(`/api/w/${FORK}/warehouses`, { name: 'prod', settings: { type: 'postgres', host: 'db', secrets: { password: 'pw-2', token: 't2' } } })).status).toBe(200);
			expect((await getWarehouseWithSecrets(database, FORK, 'prod'))!.secrets).toEqual({ password: 'pw-2', token: 't2' });
			// A warehouse without secrets runs as it did.
			expect((await getWarehouseWithSecrets(database, FORK, 'main'))!.secrets).toEqual({});
		});

		it('the caller is an admin of the fork; members keep their rights', async () => {
			const members = await body(w.c.wsadmin.get(`/api/w/${FORK}/users`));
			const wsadmin = members.find((m: any) => m.username === 'wsadmin');
			expect(wsadmin.is_admin ?? wsadmin.isAdmin).toBe(true);
			const alice = members.find((m: any) => m.username === 'alice');
			expect(alice.is_admin ?? alice.isAdmin).toBe(false);
			// bob reads nothing in either.
			const bob = await body(w.c.bob.get(`/api/w/${FORK}/assets/graph`));
			expect(bob).toEqual(await body(w.c.bob.get(`/api/w/${WS}/assets/graph`)));
		});

		it('gates: 409 on an existing id, 403 to a non-admin member or a token without workspaces:write, 404 to an outsider, 401 to no one', async () => {
			const before = await count(sql`select count(*) as n from dbt_node`);
			const again = await w.c.wsadmin.post(`/api/w/${WS}/fork`, { id: FORK, name: 'x' });
			expect(again.status).toBe(409);
			expect(again.body.error).toContain(FORK);
			expect((await w.c.wsadmin.post(`/api/w/${WS}/fork`, { id: WS })).status).toBe(409);
			expect(await count(sql`select count(*) as n from dbt_node`)).toBe(before);
			const denied = await w.c.alice.post(`/api/w/${WS}/fork`, { id: 'alice-fork' });
			expect(denied.status).toBe(403);
			expect(denied.body.error).toMatch(/admin/);
			const narrow = await w.token('wsadmin', ['assets:read', 'scripts:read']);
			const t = await narrow.post(`/api/w/${WS}/fork`, { id: 'token-fork' });
			expect(t.status).toBe(403);
			expect(t.body.error).toContain('workspaces:write');
			expect((await w.c.root.post('/api/workspaces', { id: 'elsewhere', name: 'Elsewhere' })).status).toBe(201);
			expect((await w.c.root.post('/api/w/elsewhere/users', { username: 'olga', password: 'olga-password-1', is_admin: true })).status).toBe(201);
			const olga = await login('olga');
			const out = await olga.post(`/api/w/${WS}/fork`, { id: 'olga-fork' });
			expect(out.status).toBe(404);
			expect(JSON.stringify(out.body)).not.toContain('admin');
			expect((await new ApiClient().post(`/api/w/${WS}/fork`, { id: 'anon-fork' })).status).toBe(401);
			for (const id of ['alice-fork', 'token-fork', 'olga-fork', 'anon-fork']) {
				expect(await count(sql`select count(*) as n from workspace where id = ${id}`)).toBe(0);
			}
		});

		it('bad input: a clear 400 naming the field', async () => {
			const r = await w.c.wsadmin.post(`/api/w/${WS}/fork`, { id: 'Not An Id' });
			expect(r.status).toBe(400);
			expect(r.body.error).toMatch(/^id/);
			const n = await w.c.wsadmin.post(`/api/w/${WS}/fork`, { id: 'ok-id', name: '' });
			expect(n.status).toBe(400);
			expect(n.body.error).toMatch(/^name/);
		});

		it('the settings page forks under the same gates, and says what to do next', async () => {
			const fork = async (c: ApiClient, form: Record<string, string>) =>
				pageOutcome(settingsActions.fork((await pageEventOf(c, `/w/${WS}/settings?/fork`, { ws: WS }, form)) as never));
			const ok = await fork(w.c.wsadmin, { id: 'acme-page', name: '' });
			expect(ok.status, JSON.stringify(ok.data)).toBe(200);
			expect(ok.data).toMatchObject({ section: 'fork', forked: 'acme-page' });
			expect(ok.data.done).toMatch(/^Forked into acme-page: 4 scripts, 3 graphs, [\d,]+ column edges\. Set the secrets of prod there before running\.$/);
			expect(await count(sql`select count(*) as n from workspace where id = 'acme-page' and name = 'acme-page'`)).toBe(1);
			expect(await fork(w.c.wsadmin, { id: 'acme-page' })).toMatchObject({ status: 409, data: { section: 'fork', adminError: 'id: workspace acme-page already exists' } });
			expect(await fork(w.c.alice, { id: 'alice-page' })).toMatchObject({ status: 403, data: { section: 'fork' } });
			expect(await fork(w.c.wsadmin, { id: 'Bad Id' })).toMatchObject({ status: 400, data: { adminError: expect.stringMatching(/^id/) } });
			expect(await count(sql`select count(*) as n from workspace where id in ('alice-page', 'Bad Id')`)).toBe(0);
		});

		it('a fork of a fork is a fork too, and a redeploy-free canvas: the graph cache of the source is not shared', async () => {
			const r = await w.c.wsadmin.post(`/api/w/${FORK}/fork`, { id: 'acme-dev-2', name: 'Acme (dev 2)' });
			expect(r.status, JSON.stringify(r.body)).toBe(201);
			expect(r.body.copied.column_edges).toBe(forked.copied.column_edges);
			expect(await body(w.c.alice.get(`/api/w/acme-dev-2/assets/graph`))).toEqual(await body(w.c.alice.get(`/api/w/${WS}/assets/graph`)));
		});
	});
});
