// Deploy and preview through the real route, on both databases, with the REAL fixture artifacts.
// Expected counts are computed here from the raw files (JSON.parse / hyparquet), never taken
// from the code under test.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { Header } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap } from '../../src/lib/server/bootstrap';
import { setDatabase, type Database } from '../../src/lib/server/db';
import { dumpGraph, versionKey, type GraphKey } from '../../src/lib/server/repo/graph';
import { hexToHash } from '../../src/lib/types/script-hash';
import { ApiClient } from '../support/api';
import { testBackends } from '../support/db';
import { describeFixtures, fixture } from '../support/fixtures';

const JAFFLE = fixture('jaffle-shop-1.12-duckdb-docs-generate');
const INDEX = fixture('constructed-index', 'jaffle-shop-1.12');
const read = (p: string) => new Uint8Array(readFileSync(p));

/** Nodes the ingest keeps, counted straight from the manifest JSON. */
function manifestNodeCount(m: any): number {
	const kept = new Set(['model', 'seed', 'snapshot', 'test', 'analysis', 'unit_test']);
	const nodes = Object.values(m.nodes).filter((n: any) => kept.has(n.resource_type)).length;
	return nodes + Object.keys(m.sources ?? {}).length + Object.keys(m.unit_tests ?? {}).length;
}

async function parquetRows(path: string) {
	const buf = readFileSync(path);
	const file = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
	return parquetReadObjects({ file, compressors });
}

function form(fields: Record<string, string | Uint8Array | undefined>, names: Record<string, string> = {}): FormData {
	const f = new FormData();
	for (const [k, v] of Object.entries(fields)) {
		if (v === undefined) continue;
		if (typeof v === 'string' && k !== 'manifest') f.set(k, v);
		else f.set(k, new Blob([typeof v === 'string' ? new TextEncoder().encode(v) : (v as Uint8Array<ArrayBuffer>)]), names[k] ?? `${k}.bin`);
	}
	return f;
}

function evilTarGz(): Uint8Array {
	const entry = (name: string, body: string) => {
		const header = Buffer.alloc(512);
		new Header({ path: name, mode: 0o644, size: body.length, type: 'File', mtime: new Date(0) }).encode(header, 0);
		const data = Buffer.alloc(Math.ceil(body.length / 512) * 512);
		data.write(body);
		return Buffer.concat([header, data]);
	};
	return new Uint8Array(gzipSync(Buffer.concat([entry('dbt_project.yml', 'name: x'), entry('../../escape.sql', 'select 1'), Buffer.alloc(1024)])));
}

describeFixtures('deploy and preview', () => {
	const manifestBytes = read(`${JAFFLE}/manifest.json`);
	const manifestJson = JSON.parse(new TextDecoder().decode(manifestBytes));
	const flatLineage = read(`${INDEX}/index/dbt.column_lineage.parquet`);
	const flatColumns = read(`${INDEX}/index/dbt.node_columns.parquet`);
	const v1Lineage = read(`${INDEX}/info_schema/v1/dbt.column_lineage.parquet`);
	const v1Columns = read(`${INDEX}/info_schema/v1/dbt.node_columns.parquet`);

	describe.each(testBackends())('on $name', (backend) => {
		let database: Database;
		const admin = new ApiClient();
		const alice = new ApiClient();
		const bob = new ApiClient();
		const ws = 'shop';
		let expectedColumnEdges = 0;
		let expectedTypedNodes = 0;

		beforeAll(async () => {
			database = await backend.open();
			setDatabase(database);
			process.env.TRIBUTARY_ADMIN_USER = 'admin';
			process.env.TRIBUTARY_ADMIN_PASSWORD = 'admin-password-1';
			await bootstrap(database, { log: () => {} });
			expect((await admin.post('/api/auth/login', { username: 'admin', password: 'admin-password-1' })).status).toBe(200);
			expect((await admin.post('/api/workspaces', { id: ws, name: 'Shop' })).status).toBeLessThan(300);
			for (const u of ['alice', 'bob']) {
				expect((await admin.post(`/api/w/${ws}/users`, { username: u, password: `${u}-password-1` })).status).toBeLessThan(300);
			}
			expect((await admin.post(`/api/w/${ws}/folders`, { name: 'analytics', readers: [], writers: ['u/alice'] })).status).toBeLessThan(300);
			// jaffle-shop 1.12 builds into the DuckDB database `jaffle_shop`.
			expect((await admin.post(`/api/w/${ws}/warehouses`, { name: 'main', default_database: 'jaffle_shop' })).status).toBeLessThan(300);
			expect((await alice.post('/api/auth/login', { username: 'alice', password: 'alice-password-1' })).status).toBe(200);
			expect((await bob.post('/api/auth/login', { username: 'bob', password: 'bob-password-1' })).status).toBe(200);

			const lineage = await parquetRows(`${INDEX}/index/dbt.column_lineage.parquet`);
			expectedColumnEdges = new Set(
				lineage.map((r: any) => [r.from_node_unique_id, r.from_column_name, r.to_node_unique_id, r.to_column_name, r.lineage_kind].join('|'))
			).size;
			const cols = await parquetRows(`${INDEX}/index/dbt.node_columns.parquet`);
			expectedTypedNodes = new Set(cols.filter((r: any) => r.column_index !== null && r.column_index !== undefined).map((r: any) => r.unique_id)).size;
		});
		afterAll(async () => {
			await database?.close();
		});

		const deploy = (client: ApiClient, fields: Record<string, string | Uint8Array | undefined>, kind = 'deploy') =>
			client.call('POST', `/api/w/${ws}/scripts/dbt/${kind}`, {
				form: form(fields, {
					manifest: 'manifest.json',
					column_lineage: 'dbt.column_lineage.parquet',
					node_columns: 'dbt.node_columns.parquet',
					project: 'project.tar.gz'
				})
			});

		let firstHash: bigint;

		it('deploys jaffle-shop with its flat index and reports what it stored', async () => {
			const r = await deploy(alice, {
				path: 'f/analytics/jaffle',
				manifest: manifestBytes,
				column_lineage: flatLineage,
				node_columns: flatColumns
			});
			expect(r.status, JSON.stringify(r.body)).toBe(201);
			expect(r.body.nodes).toBe(manifestNodeCount(manifestJson));
			expect(r.body.column_edges).toBe(expectedColumnEdges);
			expect(r.body.typed_nodes).toBe(expectedTypedNodes);
			expect(r.body.warnings).toEqual([]);
			expect(r.body.hash).toMatch(/^[0-9a-f]{16}$/);
			firstHash = hexToHash(r.body.hash)!;
			const job = await database.rows<{ kind: string; status: string; logs: string }>(
				// The deploy's job row says what happened.
				(await import('drizzle-orm')).sql`select kind, status, logs from job where id = ${r.body.job_id}::uuid`
			);
			expect(job[0]).toMatchObject({ kind: 'deploy', status: 'success' });
			expect(job[0].logs).toContain('column edges stored');
		});

		it('the information-schema-v1 layout stores the same rows', async () => {
			const r = await deploy(alice, {
				path: 'f/analytics/jaffle_v1',
				manifest: manifestBytes,
				column_lineage: v1Lineage,
				node_columns: v1Columns
			});
			expect(r.status, JSON.stringify(r.body)).toBe(201);
			const a = await dumpGraph(database.db, versionKey(ws, 'f/analytics/jaffle', firstHash));
			const b = await dumpGraph(database.db, versionKey(ws, 'f/analytics/jaffle_v1', hexToHash(r.body.hash)!));
			const strip = (d: typeof a) => ({ ...d, nodes: d.nodes.map(({ scriptPath: _p, scriptHash: _h, ...n }) => n) });
			expect(strip(b)).toEqual(strip(a));
		});

		it('a preview is stored under its job with a NULL hash and answers with its page', async () => {
			const r = await deploy(alice, { path: 'f/analytics/jaffle', manifest: manifestBytes }, 'preview');
			expect(r.status, JSON.stringify(r.body)).toBe(201);
			expect(r.body.hash).toBeNull();
			expect(r.body.url).toBe(`/w/${ws}/run/${r.body.job_id}`);
			const key: GraphKey = { workspace: ws, scriptPath: 'f/analytics/jaffle', scriptHash: null, jobId: r.body.job_id };
			const d = await dumpGraph(database.db, key);
			expect(d.nodes).toHaveLength(manifestNodeCount(manifestJson));
			expect(d.columnEdges).toHaveLength(0);
		});

		describe('bad index files never fail a deploy', () => {
			const wrongType = parquetWriteBuffer({
				columnData: [
					{ name: 'from_node_unique_id', data: ['model.jaffle_shop.orders'], type: 'STRING' },
					{ name: 'from_column_name', data: ['order_id'], type: 'STRING' },
					{ name: 'to_node_unique_id', data: ['model.jaffle_shop.customers'], type: 'STRING' },
					{ name: 'to_column_name', data: [42], type: 'INT32' },
					{ name: 'lineage_kind', data: ['copy'], type: 'STRING' }
				]
			});
			const missingColumn = parquetWriteBuffer({
				columnData: [
					{ name: 'from_node_unique_id', data: ['model.jaffle_shop.orders'], type: 'STRING' },
					{ name: 'from_column_name', data: ['order_id'], type: 'STRING' },
					{ name: 'lineage_kind', data: ['copy'], type: 'STRING' }
				]
			});
			it.each([
				['truncated', flatLineage.slice(0, Math.floor(flatLineage.length / 2))],
				['not parquet', new TextEncoder().encode('{"this is": "json, not parquet"}')],
				['missing a required column', new Uint8Array(missingColumn)],
				['a column of the wrong type', new Uint8Array(wrongType)]
			])('%s', async (_name, bytes) => {
				const r = await deploy(alice, { path: 'f/analytics/jaffle_bad_index', manifest: manifestBytes, column_lineage: bytes });
				expect(r.status, JSON.stringify(r.body)).toBe(201);
				expect(r.body.column_edges).toBeNull();
				expect(r.body.nodes).toBe(manifestNodeCount(manifestJson));
				// One warning about the index; the others are the inference's (it runs in the index's place).
				const about = r.body.warnings.filter((w: string) => w.includes('dbt.column_lineage.parquet'));
				expect(about).toHaveLength(1);
				expect(about[0]).toContain('without column lineage');
				expect(r.body.column_lineage.source).toBe('inferred');
				expect(r.body.lineage_job_id).not.toBeNull();
			});
		});

		describe('bad input is refused, naming the file or field, and the stored graph is unchanged', () => {
			const junk = new Uint8Array(100 * 1024 * 1024);
			for (let i = 0; i < junk.length; i += 4096) junk[i] = (i * 31) & 0xff;
			const v8 = read(fixture('tuva-1.4.9-snowflake-large-v8', 'manifest.json'));
			const missingField = (() => {
				const m = structuredClone(manifestJson);
				const first = Object.keys(m.nodes).find((k) => m.nodes[k].resource_type === 'model')!;
				delete m.nodes[first].resource_type;
				return new TextEncoder().encode(JSON.stringify(m));
			})();
			it.each([
				['truncated JSON', { manifest: manifestBytes.slice(0, 5000) }, 400, /manifest\.json/],
				['JSON that is not a manifest', { manifest: new TextEncoder().encode('{"hello": "world"}') }, 400, /manifest\.json/],
				['an unsupported manifest version', { manifest: v8 }, 400, /manifest\.json.*v8/],
				['a node missing a required field', { manifest: missingField }, 400, /manifest\.json.*resource_type/],
				['100 MB of junk', { manifest: junk }, 400, /manifest\.json/],
				['a tar.gz escaping its directory', { manifest: manifestBytes, project: evilTarGz() }, 400, /project\.tar\.gz.*escapes/],
				['a path outside u/ and f/', { manifest: manifestBytes, path: 'x/analytics/jaffle' }, 400, /^path/],
				['a path with an empty segment', { manifest: manifestBytes, path: 'f/analytics//jaffle' }, 400, /^path/],
				['no manifest', { manifest: undefined }, 400, /^manifest/],
				// The selector module's refusals reach the deploy answer with their position.
				['a select that does not parse', { manifest: manifestBytes, descriptor: 'select: ["orders a+b"]\n' }, 400, /^descriptor \(select\): "orders a\+b" at character 9: "\+" can only lead or trail/],
				['a method dbt does not know', { manifest: manifestBytes, descriptor: 'exclude: ["wat:x"]\n' }, 400, /^descriptor \(exclude\): "wat:x" at character 1: unknown method "wat:"/]
			])('%s', async (_name, fields, status, re) => {
				const key = versionKey(ws, 'f/analytics/jaffle', firstHash);
				const before = await dumpGraph(database.db, key);
				const [{ n: versionsBefore }] = await database.rows<{ n: number }>((await import('drizzle-orm')).sql`select count(*)::int as n from script`);
				const r = await deploy(alice, { path: 'f/analytics/jaffle', ...fields } as Record<string, Uint8Array | string | undefined>);
				expect(r.status).toBe(status);
				expect(r.body.error).toMatch(re);
				expect(await dumpGraph(database.db, key)).toEqual(before);
				const [{ n: versionsAfter }] = await database.rows<{ n: number }>((await import('drizzle-orm')).sql`select count(*)::int as n from script`);
				expect(versionsAfter).toBe(versionsBefore);
			}, 120_000);
		});

		it('gates: unauthenticated 401, an outsider 403, a narrow token 403, a member of another workspace 404', async () => {
			expect((await deploy(new ApiClient(), { path: 'f/analytics/x', manifest: manifestBytes })).status).toBe(401);
			const r = await deploy(bob, { path: 'f/analytics/x', manifest: manifestBytes });
			expect(r.status).toBe(403);
			const t = await alice.post(`/api/w/${ws}/tokens`, { label: 'ci', scopes: ['scripts:write:f/other/*'] });
			expect(t.status).toBeLessThan(300);
			const narrow = new ApiClient().withBearer(t.body.token);
			expect((await deploy(narrow, { path: 'f/analytics/x', manifest: manifestBytes })).status).toBe(403);
			const wide = await alice.post(`/api/w/${ws}/tokens`, { label: 'ci', scopes: ['scripts:write:f/analytics/*'] });
			const ok = await deploy(new ApiClient().withBearer(wide.body.token), { path: 'f/analytics/by_token', manifest: manifestBytes });
			expect(ok.status, JSON.stringify(ok.body)).toBe(201);
			expect((await admin.post('/api/workspaces', { id: 'other', name: 'Other' })).status).toBeLessThan(300);
			expect((await alice.call('POST', '/api/w/other/scripts/dbt/deploy', { form: form({ path: 'f/analytics/x', manifest: manifestBytes }) })).status).toBe(404);
		});
	});
});

// Keep the parquet helpers honest: the constructed index really is ZSTD (hyparquet alone fails).
describeFixtures('constructed index codec', () => {
	it('is ZSTD-compressed', () => {
		const buf = readFileSync(`${INDEX}/index/dbt.column_lineage.parquet`);
		const meta = parquetMetadata(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
		expect(meta.row_groups[0].columns[0].meta_data?.codec).toBe('ZSTD');
	});
});
