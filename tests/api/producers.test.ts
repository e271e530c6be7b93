// Producer scripts through the real route, on both databases, over the REAL jaffle-shop fixture
// deployed first (warehouse `main`, default database `jaffle_shop`: relations are main/main/*).
// Expected column lists are read here from the fixture files, never from the code under test.
import { execFile } from 'node:child_process';
import { readFileSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import { parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap } from '../../src/lib/server/bootstrap';
import { setDatabase, type Database } from '../../src/lib/server/db';
import { producerLineageOfVersion } from '../../src/lib/server/repo/producers';
import { assetUsageOf } from '../../src/lib/server/repo/scripts';
import { hexToHash } from '../../src/lib/types/script-hash';
import { ApiClient } from '../support/api';
import { testBackends } from '../support/db';
import { describeFixtures, fixture } from '../support/fixtures';

const JAFFLE = fixture('jaffle-shop-1.12-duckdb-docs-generate');
const INDEX = fixture('constructed-index', 'jaffle-shop-1.12');
const read = (p: string) => new Uint8Array(readFileSync(p));
const run = promisify(execFile);

async function parquetRows(p: string): Promise<Record<string, unknown>[]> {
	const buf = readFileSync(p);
	return parquetReadObjects({ file: buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength), compressors });
}

function dbtForm(fields: Record<string, string | Uint8Array | undefined>): FormData {
	const f = new FormData();
	for (const [k, v] of Object.entries(fields)) {
		if (v === undefined) continue;
		if (typeof v === 'string') f.set(k, v);
		else f.set(k, new Blob([v as Uint8Array<ArrayBuffer>]), `${k}.bin`);
	}
	return f;
}

const ORDERS = 'dbt://main/main/orders';
const CUSTOMERS = 'dbt://main/main/customers';
const ATTACH = `ATTACH 'ducklake:lake.ducklake' AS lake;\n`;

describeFixtures('producer scripts: deploy, lineage, usage', () => {
	const manifestBytes = read(`${JAFFLE}/manifest.json`);
	const manifest = JSON.parse(new TextDecoder().decode(manifestBytes));
	const lineageBytes = read(`${INDEX}/index/dbt.column_lineage.parquet`);
	const columnsBytes = read(`${INDEX}/index/dbt.node_columns.parquet`);

	describe.each(testBackends())('on $name', (backend) => {
		let database: Database;
		const admin = new ApiClient();
		const alice = new ApiClient();
		const bob = new ApiClient();
		const carol = new ApiClient();
		const ws = 'shop';
		/** Typed columns per node, in column_index order, straight from the fixture parquet. */
		const typed = new Map<string, string[]>();

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
			// alice writes both folders; carol writes producers but cannot read the dbt project; bob writes nothing.
			expect((await admin.post(`/api/w/${ws}/folders`, { name: 'analytics', readers: [], writers: ['u/alice'] })).status).toBeLessThan(300);
			expect((await admin.post(`/api/w/${ws}/folders`, { name: 'lake', readers: ['u/bob'], writers: ['u/alice', 'u/carol'] })).status).toBeLessThan(300);
			expect((await admin.post(`/api/w/${ws}/warehouses`, { name: 'main', default_database: 'jaffle_shop' })).status).toBeLessThan(300);
			for (const [c, u] of [[alice, 'alice'], [bob, 'bob'], [carol, 'carol']] as const) {
				expect((await c.post('/api/auth/login', { username: u, password: `${u}-password-1` })).status).toBe(200);
			}
			const dbt = await alice.call('POST', `/api/w/${ws}/scripts/dbt/deploy`, {
				form: dbtForm({ path: 'f/analytics/jaffle', manifest: manifestBytes, column_lineage: lineageBytes, node_columns: columnsBytes })
			});
			expect(dbt.status, JSON.stringify(dbt.body)).toBe(201);
			const rows = await parquetRows(`${INDEX}/index/dbt.node_columns.parquet`);
			for (const r of rows.filter((x) => x.column_index !== null && x.column_index !== undefined).sort((a, b) => Number(a.column_index) - Number(b.column_index))) {
				const id = String(r.unique_id);
				if (!typed.has(id)) typed.set(id, []);
				typed.get(id)!.push(String(r.column_name));
			}
		});
		afterAll(async () => {
			await database?.close();
		});

		const deploy = (client: ApiClient, path: string, content: unknown) =>
			client.post(`/api/w/${ws}/scripts/sql/deploy`, { path, content });

		const storedRows = async (hashHex: string) => producerLineageOfVersion(database, ws, hexToHash(hashHex)!);

		it('the fixture relations live at main/main/<name> (what the producers below name)', async () => {
			const orders = manifest.nodes['model.jaffle_shop.orders'];
			expect(orders.schema).toBe('main');
			expect(orders.database).toBe('jaffle_shop');
			const [n] = await database.rows<{ asset_path: string }>(
				sql`select asset_path from dbt_node where workspace = ${ws} and unique_id = 'model.jaffle_shop.orders' and script_path = 'f/analytics/jaffle'`
			);
			expect(n.asset_path).toBe('main/main/orders');
		});

		it('select * expands from the relation’s typed columns, and the stored rows say so', async () => {
			const r = await deploy(alice, 'f/lake/customers_copy', `${ATTACH}CREATE OR REPLACE TABLE lake.customers_copy AS SELECT * FROM main.customers;`);
			expect(r.status, JSON.stringify(r.body)).toBe(201);
			const expected = typed.get('model.jaffle_shop.customers')!;
			expect(expected.length).toBeGreaterThan(5);
			expect(r.body.target).toBe('ducklake://main/customers_copy');
			expect(r.body.columns.map((c: { column: string }) => c.column)).toEqual(expected);
			expect(r.body.columns_inferred).toBe(expected.length);
			expect(r.body.columns_annotated).toBe(0);
			expect(r.body.warnings).toEqual([]);
			const rows = await storedRows(r.body.hash);
			expect(rows.map((x) => [x.outputColumn, x.inputAssetPath, x.inputColumn, x.source])).toEqual(
				expected.map((c) => [c, 'main/main/customers', c, 'inferred'])
			);
			expect(rows.every((x) => x.outputAssetKind === 'ducklake' && x.outputAssetPath === 'main/customers_copy')).toBe(true);
			const job = await database.rows<{ kind: string; status: string; logs: string; script_path: string }>(
				sql`select kind, status, logs, script_path from job where id = ${r.body.job_id}::uuid`
			);
			expect(job[0]).toMatchObject({ kind: 'deploy', status: 'success', script_path: 'f/lake/customers_copy' });
			expect(job[0].logs).toContain('target: ducklake://main/customers_copy');
			expect(job[0].logs).toContain(`${expected.length} inferred`);
		});

		it("a producer's dbt input is the same (dbt, path, column) node as dbt's own lineage", async () => {
			const r = await deploy(
				alice,
				'f/lake/order_totals',
				`${ATTACH}CREATE TABLE lake.order_totals AS SELECT o.order_id, o.order_total * 100 AS total_cents FROM main.orders AS o;`
			);
			expect(r.status, JSON.stringify(r.body)).toBe(201);
			const rows = await storedRows(r.body.hash);
			const edge = rows.find((x) => x.outputColumn === 'total_cents')!;
			expect(edge).toMatchObject({ inputAssetKind: 'dbt', inputColumn: 'order_total', source: 'inferred' });
			const [node] = await database.rows<{ asset_path: string }>(
				sql`select asset_path from dbt_node where workspace = ${ws} and script_path = 'f/analytics/jaffle' and unique_id = 'model.jaffle_shop.orders'`
			);
			expect(edge.inputAssetPath).toBe(node.asset_path);
			// dbt's own lineage has that very column as a child: the two graphs meet there.
			const [dbtEdge] = await database.rows<{ n: unknown }>(
				sql`select count(*) as n from dbt_column_edge e
				      join dbt_graph_snapshot g on g.id = e.graph_id
				      join dbt_graph_column c on c.graph_id = e.graph_id and c.column_id = e.child_col
				     where g.workspace = ${ws} and g.script_path = 'f/analytics/jaffle'
				       and c.unique_id = 'model.jaffle_shop.orders' and c.column_name = ${edge.inputColumn}
				       and e.lineage_kind in ('copy', 'mod')`
			);
			expect(Number(dbtEdge.n)).toBeGreaterThan(0);
			const usage = await assetUsageOf(database.db, ws, 'f/lake/order_totals');
			expect(usage).toEqual(
				expect.arrayContaining([
					{ assetKind: 'dbt', assetPath: node.asset_path, access: 'r' },
					{ assetKind: 'ducklake', assetPath: 'main/order_totals', access: 'w' }
				])
			);
			expect(usage).toHaveLength(2);
		});

		it('an annotation wins over inference for its column, and records its source', async () => {
			const r = await deploy(
				alice,
				'f/lake/spend',
				`-- materialize ducklake://main/spend
-- column spend <- ${ORDERS}.order_total, ${ORDERS}.tax_paid
// column customer_id <- ${CUSTOMERS}.CUSTOMER_ID
${ATTACH}CREATE TABLE lake.spend AS
SELECT customer_id, lifetime_spend AS spend, customer_name FROM main.customers;`
			);
			expect(r.status, JSON.stringify(r.body)).toBe(201);
			expect(r.body.columns_annotated).toBe(2);
			expect(r.body.columns_inferred).toBe(1);
			const rows = await storedRows(r.body.hash);
			const by = (c: string) => rows.filter((x) => x.outputColumn === c).map((x) => `${x.inputAssetPath}.${x.inputColumn}:${x.source}`).sort();
			expect(by('spend')).toEqual(['main/main/orders.order_total:annotation', 'main/main/orders.tax_paid:annotation']);
			// The annotation's column is spelled as the relation spells it.
			expect(by('customer_id')).toEqual(['main/main/customers.customer_id:annotation']);
			expect(by('customer_name')).toEqual(['main/main/customers.customer_name:inferred']);
			expect(r.body.reads.sort()).toEqual([CUSTOMERS, ORDERS]);
		});

		it('an unresolved reference is a warning and no input; malformed annotations are dropped with warnings', async () => {
			const r = await deploy(
				alice,
				'f/lake/scratch',
				`-- column bad <- s3://bucket/file.amount, ${ORDERS}.
${ATTACH}CREATE TABLE lake.scratch AS
SELECT s.id, c.customer_name FROM scratch_orders AS s JOIN main.customers AS c ON c.customer_id = s.customer_id;`
			);
			expect(r.status, JSON.stringify(r.body)).toBe(201);
			expect(r.body.warnings.some((w: string) => w.includes('scratch_orders'))).toBe(true);
			expect(r.body.warnings.some((w: string) => w.startsWith('line 1:') && w.includes('unknown scheme "s3"'))).toBe(true);
			expect(r.body.warnings.some((w: string) => w.startsWith('line 1:') && w.includes('an empty column name'))).toBe(true);
			expect(r.body.warnings.some((w: string) => w.includes('column annotation of bad dropped'))).toBe(true);
			expect(r.body.reads).toEqual([CUSTOMERS]);
			const rows = await storedRows(r.body.hash);
			expect(rows.map((x) => `${x.outputColumn}<-${x.inputAssetPath}.${x.inputColumn}`)).toEqual(['customer_name<-main/main/customers.customer_name']);
		});

		it('SQL that does not parse still deploys, with its annotations and a warning naming the line', async () => {
			const r = await deploy(
				alice,
				'f/lake/broken',
				`-- materialize ducklake://main/broken
-- column total <- ${ORDERS}.order_total
${ATTACH}
CREATE TABLE lake.broken AS SELEC order_id,, FROM main.orders;`
			);
			expect(r.status, JSON.stringify(r.body)).toBe(201);
			expect(r.body.warnings.some((w: string) => w.startsWith('line 5: could not parse'))).toBe(true);
			expect(r.body.columns).toEqual([{ column: 'total', source: 'annotation', inputs: [{ column: `${ORDERS}.order_total`, kind: null }] }]);
			expect(r.body.writes).toEqual(['ducklake://main/broken']);
			expect(r.body.reads).toEqual([ORDERS]);
		});

		it('bad input: path and content are named; nothing is stored', async () => {
			const before = await database.rows<{ n: unknown }>(sql`select count(*) as n from script where workspace = ${ws}`);
			const cases: [unknown, RegExp][] = [
				[{ content: 'select 1' }, /^path:/],
				[{ path: 'f/lake/../x', content: 'select 1' }, /^path:/],
				[{ path: 'lake/x', content: 'select 1' }, /^path:/],
				[{ path: 'f/lake/empty', content: '   \n' }, /^content:/],
				[{ path: 'f/lake/empty' }, /^content:/],
				[{ path: 'f/lake/empty', content: 42 }, /^content:/],
				[{ path: 'f/lake/nul', content: 'select 1\u0000' }, /^\$\.content: contains a NUL character/]
			];
			for (const [body, msg] of cases) {
				const r = await alice.post(`/api/w/${ws}/scripts/sql/deploy`, body);
				expect(r.status, JSON.stringify(body)).toBe(400);
				expect(r.body.error).toMatch(msg);
			}
			const notJson = await alice.call('POST', `/api/w/${ws}/scripts/sql/deploy`, { raw: { body: 'path=x', contentType: 'application/json' } });
			expect(notJson.status).toBe(400);
			const after = await database.rows<{ n: unknown }>(sql`select count(*) as n from script where workspace = ${ws}`);
			expect(Number(after[0].n)).toBe(Number(before[0].n));
		});

		it('gates: unauthenticated 401, an outsider 403, a narrow token 403, another workspace 404', async () => {
			const content = `${ATTACH}CREATE TABLE lake.g AS SELECT order_id FROM main.orders;`;
			expect((await deploy(new ApiClient(), 'f/lake/g', content)).status).toBe(401);
			const outsider = await deploy(bob, 'f/lake/g', content);
			expect(outsider.status).toBe(403);
			expect(outsider.body.error).toContain('f/lake/g');
			const narrow = await alice.post(`/api/w/${ws}/tokens`, { label: 'ci', scopes: ['scripts:write:f/analytics/*'] });
			expect(narrow.status).toBe(201);
			const refused = await deploy(new ApiClient().withBearer(narrow.body.token), 'f/lake/g', content);
			expect(refused.status).toBe(403);
			expect(refused.body.error).toContain('scripts:write');
			const readOnly = await alice.post(`/api/w/${ws}/tokens`, { label: 'ro', scopes: ['scripts:read'] });
			expect((await deploy(new ApiClient().withBearer(readOnly.body.token), 'f/lake/g', content)).status).toBe(403);
			const wide = await alice.post(`/api/w/${ws}/tokens`, { label: 'ci2', scopes: ['scripts:write:f/lake/*', 'scripts:read:f/analytics/*'] });
			const ok = await deploy(new ApiClient().withBearer(wide.body.token), 'f/lake/g', content);
			expect(ok.status, JSON.stringify(ok.body)).toBe(201);
			expect((await admin.post('/api/workspaces', { id: 'other', name: 'Other' })).status).toBeLessThan(300);
			expect((await alice.post('/api/w/other/scripts/sql/deploy', { path: 'f/lake/g', content })).status).toBe(404);
			expect((await database.rows(sql`select 1 from script where workspace = ${ws} and path = 'f/lake/g'`)).length).toBe(1);
		});

		it('a deployer who cannot read the dbt project gets no select * expansion from it', async () => {
			const r = await deploy(carol, 'f/lake/carol_copy', `${ATTACH}CREATE TABLE lake.carol_copy AS SELECT * FROM main.locations;`);
			expect(r.status, JSON.stringify(r.body)).toBe(201);
			expect(r.body.columns).toEqual([]);
			expect(r.body.warnings.some((w: string) => w.includes('cannot expand * over dbt://main/main/locations'))).toBe(true);
			expect(r.body.reads).toEqual(['dbt://main/main/locations']);
		});

		it('asset_usage belongs to the newest version; lineage is kept per version', async () => {
			const v1 = await deploy(alice, 'f/lake/evolving', `${ATTACH}CREATE TABLE lake.evolving AS SELECT order_id FROM main.orders;`);
			const v2 = await deploy(alice, 'f/lake/evolving', `${ATTACH}CREATE TABLE lake.evolving_v2 AS SELECT customer_id FROM main.customers;`);
			expect([v1.status, v2.status]).toEqual([201, 201]);
			expect(await assetUsageOf(database.db, ws, 'f/lake/evolving')).toEqual([
				{ assetKind: 'dbt', assetPath: 'main/main/customers', access: 'r' },
				{ assetKind: 'ducklake', assetPath: 'main/evolving_v2', access: 'w' }
			]);
			expect((await storedRows(v1.body.hash)).map((x) => x.outputColumn)).toEqual(['order_id']);
			expect((await storedRows(v2.body.hash)).map((x) => x.outputColumn)).toEqual(['customer_id']);
			// The asset graph publishes the newest version's lineage, with its kind.
			const g = await alice.get(`/api/w/${ws}/assets/graph?folder=lake`);
			expect(g.status, JSON.stringify(g.body)).toBe(200);
			const runnable = g.body.runnables.find((r: { path: string }) => r.path === 'f/lake/evolving');
			expect(runnable.script_hash).toBe(v2.body.hash);
			expect(runnable.column_lineage).toEqual([
				{
					asset_kind: 'ducklake',
					asset_path: 'main/evolving_v2',
					column: 'customer_id',
					inputs: [{ from_kind: 'dbt', from_path: 'main/main/customers', from_column: 'customer_id', source: 'inferred', kind: 'copy' }]
				}
			]);
		});

		it('two deploys of one path at once: the newer version owns the usage rows', async () => {
			const [a, b] = await Promise.all([
				deploy(alice, 'f/lake/race', `${ATTACH}CREATE TABLE lake.race_a AS SELECT order_id FROM main.orders;`),
				deploy(alice, 'f/lake/race', `${ATTACH}CREATE TABLE lake.race_b AS SELECT customer_id FROM main.customers;`)
			]);
			expect([a.status, b.status]).toEqual([201, 201]);
			const [newest] = await database.rows<{ hash: string }>(
				sql`select hash::text as hash from script where workspace = ${ws} and path = 'f/lake/race' order by created_at desc, hash desc limit 1`
			);
			const winner = [a, b].find((r) => hexToHash(r.body.hash)!.toString() === newest.hash)!;
			expect(winner).toBeDefined();
			const usage = await assetUsageOf(database.db, ws, 'f/lake/race');
			expect(usage.find((u) => u.access === 'w')?.assetPath).toBe(winner.body.writes[0].replace('ducklake://', ''));
			expect(usage).toHaveLength(2);
		});

		it('identical re-deploys are new versions with identical lineage', async () => {
			const content = `${ATTACH}CREATE TABLE lake.same AS SELECT c.customer_id, upper(c.customer_name) AS name FROM main.customers AS c;`;
			const a = await deploy(alice, 'f/lake/same', content);
			const b = await deploy(alice, 'f/lake/same', content);
			expect(a.body.hash).not.toBe(b.body.hash);
			const strip = (rows: Awaited<ReturnType<typeof storedRows>>) => JSON.stringify(rows);
			expect(strip(await storedRows(a.body.hash))).toBe(strip(await storedRows(b.body.hash)));
			expect((await storedRows(a.body.hash)).length).toBe(2);
		});

		it("a lake table another producer wrote expands from that producer's stored columns, in part", async () => {
			// f/lake/customers_copy (above) wrote ducklake://main/customers_copy.
			const r = await deploy(alice, 'f/lake/downstream', `${ATTACH}CREATE TABLE lake.downstream AS SELECT * FROM lake.customers_copy;`);
			expect(r.status, JSON.stringify(r.body)).toBe(201);
			expect(r.body.columns.map((c: { column: string }) => c.column)).toEqual(typed.get('model.jaffle_shop.customers'));
			expect(r.body.columns[0].inputs).toEqual([{ column: 'ducklake://main/customers_copy.customer_id', kind: 'copy' }]);
			expect(r.body.warnings.some((w: string) => w.includes('expands only the columns known so far'))).toBe(true);
			expect(await assetUsageOf(database.db, ws, 'f/lake/downstream')).toEqual([
				{ assetKind: 'ducklake', assetPath: 'main/customers_copy', access: 'r' },
				{ assetKind: 'ducklake', assetPath: 'main/downstream', access: 'w' }
			]);
		});

		it('a 1 MB script with 5,000 annotation lines (the limit) deploys, inference bounded with a warning', async () => {
			let big = `${ATTACH}-- materialize ducklake://main/big\n`;
			for (let k = 0; k < 4999; k++) big += `-- column c${k} <- ${ORDERS}.order_total\n`;
			let n = 0;
			while (big.length < 1024 * 1024) big += `CREATE TEMP TABLE t${n++} AS SELECT o.order_id, o.order_total * ${n} AS v FROM main.orders AS o;\n`;
			big += 'CREATE TABLE lake.big AS SELECT order_id FROM main.orders;\n';
			const r = await deploy(alice, 'f/lake/big', big);
			expect(r.status, JSON.stringify(r.body).slice(0, 500)).toBe(201);
			expect(r.body.columns_annotated).toBe(4999);
			expect(r.body.warnings.some((w: string) => w.includes('KB of queries'))).toBe(true);
			expect((await storedRows(r.body.hash)).length).toBe(4999);
		}, 120_000);

		it('declared columns stand in when a relation has no typed columns', async () => {
			// A newer project describing the same relations, deployed without node_columns.
			const dbt = await alice.call('POST', `/api/w/${ws}/scripts/dbt/deploy`, {
				form: dbtForm({ path: 'f/analytics/jaffle_untyped', manifest: manifestBytes })
			});
			expect(dbt.status).toBe(201);
			const declared = Object.keys(manifest.nodes['model.jaffle_shop.locations'].columns);
			expect(declared.length).toBeGreaterThan(0);
			const r = await deploy(alice, 'f/lake/locations_copy', `${ATTACH}CREATE TABLE lake.locations_copy AS SELECT * FROM main.locations;`);
			// Declared columns are a set (jsonb keeps no key order): the same names, no positions.
			expect(r.body.columns.map((c: { column: string }) => c.column).sort()).toEqual([...declared].sort());
			expect(r.body.warnings).toEqual([]);
			const positional = await deploy(
				alice,
				'f/lake/locations_union',
				`${ATTACH}CREATE TABLE lake.locations_union AS SELECT * FROM main.locations UNION ALL SELECT * FROM main.locations;`
			);
			expect(positional.body.columns).toEqual([]);
			expect(positional.body.warnings.some((w: string) => w.includes('by position'))).toBe(true);
		});

		it('npx tributary deploy-sql prints what was stored, and fails with the server message', async () => {
			const token = (await alice.post(`/api/w/${ws}/tokens`, { label: 'cli', scopes: ['scripts:write:f/lake/*', 'scripts:read:f/analytics/*'] })).body.token;
			// The CLI speaks HTTP; this server hands each request to the app's real route handlers.
			const server: Server = createServer(async (req, res) => {
				const chunks: Buffer[] = [];
				for await (const c of req) chunks.push(c as Buffer);
				const headers: Record<string, string> = {};
				if (req.headers.authorization) headers.authorization = req.headers.authorization;
				const r = await new ApiClient().call(req.method!, req.url!, {
					headers,
					raw: chunks.length ? { body: Buffer.concat(chunks).toString('utf8'), contentType: String(req.headers['content-type']) } : undefined
				});
				res.writeHead(r.status, { 'content-type': 'application/json' });
				res.end(typeof r.body === 'string' ? r.body : JSON.stringify(r.body));
			});
			await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
			const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
			const dir = mkdtempSync(path.join(tmpdir(), 'tributary-sql-'));
			try {
				const file = path.join(dir, 'report.sql');
				writeFileSync(file, `-- column total <- ${ORDERS}.order_total\n${ATTACH}CREATE TABLE lake.cli_report AS SELECT order_id, order_total AS total FROM main.orders;\n`);
				const cli = (args: string[]) =>
					run(process.execPath, ['bin/tributary.js', ...args, '--url', url, '--token', token], { env: { PATH: process.env.PATH } });
				const { stdout } = await cli(['deploy-sql', file, '--path', 'f/lake/cli_report']);
				expect(stdout).toMatch(/deployed f\/lake\/cli_report version [0-9a-f]{16}/);
				expect(stdout).toContain('target: ducklake://main/cli_report');
				expect(stdout).toContain(`reads: ${ORDERS}`);
				expect(stdout).toContain('columns: 1 annotated, 1 inferred, 2 lineage edges');
				expect(stdout).toContain(`total <- ${ORDERS}.order_total [annotation]`);
				const failed = await cli(['deploy-sql', file, '--path', 'f/analytics/not_mine']).then(
					() => null,
					(e: { code: number; stderr: string }) => e
				);
				expect(failed?.code).toBe(1);
				expect(failed?.stderr).toContain('deploy-sql failed (403): this token lacks the scope scripts:write:f/analytics/not_mine');
			} finally {
				server.close();
				rmSync(dir, { recursive: true, force: true });
			}
		});
	});
});
