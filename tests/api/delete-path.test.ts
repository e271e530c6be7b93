// Deleting a project or a producer (GET / DELETE scripts/p/{path}) through the real routes, on
// both databases, with a real fixture project: an outsider learns nothing, a reader is refused,
// a writer deletes every version, graph, run and preview of the path and nothing of another.
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap } from '../../src/lib/server/bootstrap';
import { setDatabase, type Database } from '../../src/lib/server/db';
import { ApiClient } from '../support/api';
import { testBackends } from '../support/db';
import { describeFixtures, fixture } from '../support/fixtures';

const JAFFLE = fixture('jaffle-shop-1.12-duckdb-docs-generate');
const INDEX = fixture('constructed-index', 'jaffle-shop-1.12');

describeFixtures('deleting a project or producer', () => {
	describe.each(testBackends())('on $name', (backend) => {
		let database: Database;
		const admin = new ApiClient();
		const alice = new ApiClient(); // writes the folder
		const bob = new ApiClient(); // reads it
		const carol = new ApiClient(); // neither
		const ws = 'shop';
		const PROJECT = 'f/analytics/jaffle';
		const OTHER = 'f/analytics/jaffle_too';
		const PRODUCER = 'f/analytics/daily';

		const upload = (client: ApiClient, path: string, kind: 'deploy' | 'preview') => {
			const f = new FormData();
			f.set('path', path);
			f.set('manifest', new Blob([readFileSync(`${JAFFLE}/manifest.json`)]), 'manifest.json');
			f.set('column_lineage', new Blob([readFileSync(`${INDEX}/index/dbt.column_lineage.parquet`)]), 'dbt.column_lineage.parquet');
			f.set('node_columns', new Blob([readFileSync(`${INDEX}/index/dbt.node_columns.parquet`)]), 'dbt.node_columns.parquet');
			return client.call('POST', `/api/w/${ws}/scripts/dbt/${kind}?path=${encodeURIComponent(path)}`, { form: f });
		};
		/** Rows stored under a path, table by table, read straight from the database. */
		const stored = async (path: string) => {
			const [r] = await database.rows<Record<string, number>>(
				sql`select (select count(*)::int from script where workspace = ${ws} and path = ${path}) as scripts,
				           (select count(*)::int from job where workspace = ${ws} and script_path = ${path}) as jobs,
				           (select count(*)::int from dbt_node where workspace = ${ws} and script_path = ${path}) as nodes,
				           (select count(*)::int from dbt_edge where workspace = ${ws} and script_path = ${path}) as edges,
				           (select count(*)::int from dbt_graph_snapshot where workspace = ${ws} and script_path = ${path}) as graphs,
				           (select count(*)::int from asset_usage where workspace = ${ws} and script_path = ${path}) as usage`
			);
			return r;
		};
		const columnEdges = async () => (await database.rows<{ n: number }>(sql`select count(*)::int as n from dbt_column_edge`))[0].n;

		beforeAll(async () => {
			database = await backend.open();
			setDatabase(database);
			process.env.TRIBUTARY_ADMIN_USER = 'admin';
			process.env.TRIBUTARY_ADMIN_PASSWORD = 'admin-password-1';
			await bootstrap(database, { log: () => {} });
			expect((await admin.post('/api/auth/login', { username: 'admin', password: 'admin-password-1' })).status).toBe(200);
			expect((await admin.post('/api/workspaces', { id: ws, name: 'Shop' })).status).toBeLessThan(300);
			for (const u of ['alice', 'bob', 'carol']) {
				expect((await admin.post(`/api/w/${ws}/users`, { username: u, password: `${u}-password-1` })).status).toBeLessThan(300);
			}
			expect((await admin.post(`/api/w/${ws}/folders`, { name: 'analytics', readers: ['u/bob'], writers: ['u/alice'] })).status).toBeLessThan(300);
			expect((await admin.post(`/api/w/${ws}/warehouses`, { name: 'main', default_database: 'jaffle_shop' })).status).toBeLessThan(300);
			for (const [c, u] of [[alice, 'alice'], [bob, 'bob'], [carol, 'carol']] as const) {
				expect((await c.post('/api/auth/login', { username: u, password: `${u}-password-1` })).status).toBe(200);
			}
			// Two versions and a preview of the project; one version of another; a producer.
			for (const [path, kind] of [[PROJECT, 'deploy'], [PROJECT, 'deploy'], [PROJECT, 'preview'], [OTHER, 'deploy']] as const) {
				const r = await upload(alice, path, kind);
				expect(r.status, JSON.stringify(r.body)).toBe(201);
			}
			const content = `-- materialize ducklake://main/daily\nCREATE TABLE lake.daily AS SELECT order_date, count(*) AS n FROM jaffle_shop.main.orders GROUP BY 1;\n`;
			const p = await alice.post(`/api/w/${ws}/scripts/sql/deploy`, { path: PRODUCER, content });
			expect(p.status, JSON.stringify(p.body)).toBe(201);
		}, 120_000);
		afterAll(async () => {
			await database?.close();
		});

		it('names what a deletion takes to whoever may read the path, and nothing to an outsider', async () => {
			const url = `/api/w/${ws}/scripts/p/${PROJECT}`;
			const seen = await bob.get(url);
			expect(seen.status, JSON.stringify(seen.body)).toBe(200);
			expect(seen.body).toEqual({ path: PROJECT, languages: ['dbt'], versions: 2, graphs: 3, jobs: 3, runs: 0, previews: 1, active: 0 });
			expect((await alice.get(url)).body).toEqual(seen.body);
			const outsider = await carol.get(url);
			expect(outsider.status).toBe(404);
			// The same answer as for a path where nothing was ever deployed.
			expect((await alice.get(`/api/w/${ws}/scripts/p/f/analytics/never`)).body).toEqual({ error: 'nothing deployed at f/analytics/never' });
			expect(outsider.body).toEqual({ error: `nothing deployed at ${PROJECT}` });
			expect((await alice.get(`/api/w/${ws}/scripts/p/not-a-path`)).status).toBe(400);
		});

		it('refuses an outsider (404) and a reader (403), and deletes nothing for them', async () => {
			const before = await stored(PROJECT);
			expect((await carol.call('DELETE', `/api/w/${ws}/scripts/p/${PROJECT}`)).status).toBe(404);
			const reader = await bob.call('DELETE', `/api/w/${ws}/scripts/p/${PROJECT}`);
			expect(reader.status).toBe(403);
			expect(reader.body.error).toMatch(/needs write access/);
			expect(await stored(PROJECT)).toEqual(before);
		});

		it('waits while one of its jobs is queued or running (409)', async () => {
			const [j] = await database.rows<{ id: string }>(sql`select id::text as id from job where workspace = ${ws} and script_path = ${PROJECT} and kind = 'preview'`);
			await database.rows(sql`update job set status = 'running' where id = ${j.id}::uuid`);
			const r = await alice.call('DELETE', `/api/w/${ws}/scripts/p/${PROJECT}`);
			expect(r.status).toBe(409);
			expect(r.body.error).toContain('queued or running');
			await database.rows(sql`update job set status = 'success' where id = ${j.id}::uuid`);
			expect((await stored(PROJECT)).scripts).toBe(2);
		});

		it("a writer deletes the project: every version, graph, preview and job of it, and nothing of the other project", async () => {
			const other = await stored(OTHER);
			const edgesBefore = await columnEdges();
			const r = await alice.call('DELETE', `/api/w/${ws}/scripts/p/${PROJECT}`);
			expect(r.status, JSON.stringify(r.body)).toBe(200);
			expect(r.body).toMatchObject({ path: PROJECT, versions: 2, graphs: 3, jobs: 3, previews: 1 });
			expect(await stored(PROJECT)).toEqual({ scripts: 0, jobs: 0, nodes: 0, edges: 0, graphs: 0, usage: 0 });
			expect(await stored(OTHER)).toEqual(other);
			// The three graphs' column edges went with them (the other project's stay).
			const edgesAfter = await columnEdges();
			expect(edgesAfter).toBeLessThan(edgesBefore);
			expect(edgesAfter).toBeGreaterThan(0);
			expect((await alice.get(`/api/w/${ws}/scripts/p/${PROJECT}`)).status).toBe(404);
			// Its project page is gone with it; the workspace still lists the other.
			expect((await alice.get(`/api/w/${ws}/dbt/diff?path=${PROJECT}&to=latest`)).status).toBe(404);
		});

		it('a writer deletes a producer: its versions and the assets it said it reads and writes', async () => {
			expect((await stored(PRODUCER)).usage).toBeGreaterThan(0);
			expect((await bob.call('DELETE', `/api/w/${ws}/scripts/p/${PRODUCER}`)).status).toBe(403);
			const r = await alice.call('DELETE', `/api/w/${ws}/scripts/p/${PRODUCER}`);
			expect(r.status, JSON.stringify(r.body)).toBe(200);
			expect(r.body).toMatchObject({ path: PRODUCER, languages: ['sql'], versions: 1 });
			expect(await stored(PRODUCER)).toMatchObject({ scripts: 0, jobs: 0, usage: 0 });
		});

		it("a token without scripts:write on the path may not delete it, even its writer's", async () => {
			const minted = await alice.post(`/api/w/${ws}/tokens`, { label: 'read only', scopes: ['scripts:read:f/analytics/*'] });
			expect(minted.status, JSON.stringify(minted.body)).toBeLessThan(300);
			const r = await new ApiClient().withBearer(minted.body.token).call('DELETE', `/api/w/${ws}/scripts/p/${OTHER}`);
			expect(r.status).toBe(403);
			expect((await stored(OTHER)).scripts).toBe(1);
		});
	});
});
