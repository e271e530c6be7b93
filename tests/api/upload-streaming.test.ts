// Every file of an upload is bounded while the multipart body streams in: the file that crosses
// its limit is refused with a 413 naming it and the limit, and the rest of the body is never
// pulled (the body here is a stream that counts what the server took from it). A catalog is
// bounded in relations, columns per relation and columns in all, refused naming the limit and
// the file. A refusal changes nothing stored.
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/api';
import { testBackends } from '../support/db';
import { describeFixtures, fixture } from '../support/fixtures';
import { buildLineageWorld, JAFFLE, WS, type LineageWorld } from '../support/lineage-world';

const BOUNDARY = 'tributary-streaming-boundary';
const CHUNK = 256 * 1024;
const CHUNKS = 32;
const LIMIT_VARS = [
	'TRIBUTARY_MAX_MANIFEST_MB',
	'TRIBUTARY_MAX_CATALOG_MB',
	'TRIBUTARY_MAX_INDEX_MB',
	'TRIBUTARY_MAX_RUN_RESULTS_MB',
	'TRIBUTARY_MAX_PROJECT_MB',
	'TRIBUTARY_MAX_LOG_MB',
	'TRIBUTARY_MAX_CATALOG_RELATIONS',
	'TRIBUTARY_MAX_CATALOG_RELATION_COLUMNS',
	'TRIBUTARY_MAX_CATALOG_COLUMNS'
];

/** A multipart body: text fields, then one file part of CHUNKS × CHUNK bytes, pulled lazily. */
function countedBody(fields: [string, string][], field: string, filename: string) {
	const enc = new TextEncoder();
	const head =
		fields.map(([k, v]) => `--${BOUNDARY}\r\ncontent-disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join('') +
		`--${BOUNDARY}\r\ncontent-disposition: form-data; name="${field}"; filename="${filename}"\r\ncontent-type: application/octet-stream\r\n\r\n`;
	const tail = enc.encode(`\r\n--${BOUNDARY}--\r\n`);
	const counter = { fileChunksPulled: 0 };
	let step = 0;
	const body = new ReadableStream<Uint8Array>(
		{
			pull(controller) {
				if (step === 0) controller.enqueue(enc.encode(head));
				else if (step <= CHUNKS) {
					counter.fileChunksPulled++;
					controller.enqueue(new Uint8Array(CHUNK).fill(0x78));
				} else if (step === CHUNKS + 1) controller.enqueue(tail);
				else controller.close();
				step++;
			}
		},
		{ highWaterMark: 0 }
	);
	return { body, counter };
}

function postCounted(client: ApiClient, url: string, field: string, filename: string, headers: Record<string, string> = {}) {
	const { body, counter } = countedBody([['path', 'f/analytics/streamed']], field, filename);
	return client.call('POST', url, { headers, raw: { body, contentType: `multipart/form-data; boundary=${BOUNDARY}` } }).then((r) => ({ ...r, ...counter }));
}

function form(files: Record<string, [Uint8Array, string]>, path: string): FormData {
	const f = new FormData();
	f.set('path', path);
	for (const [k, [bytes, name]] of Object.entries(files)) f.set(k, new Blob([bytes as Uint8Array<ArrayBuffer>]), name);
	return f;
}

const fmt = (n: number) => n.toLocaleString('en-US');

describeFixtures('uploads bounded as they stream', () => {
	describe.each(testBackends())('uploads bounded as they stream ($name)', (backend) => {
		let w: LineageWorld;
		const DIR = fixture('jaffle-shop-1.12-duckdb-docs-generate');
		const manifest = new Uint8Array(readFileSync(`${DIR}/manifest.json`));
		const catalogText = readFileSync(`${DIR}/catalog.json`, 'utf8');
		const catalog = JSON.parse(catalogText);
		// Counted from the file itself.
		const tables = [...Object.entries(catalog.nodes), ...Object.entries(catalog.sources ?? {})] as [string, { columns: Record<string, unknown> }][];
		const widths = tables.map(([uid, t]) => [uid, Object.keys(t.columns).length] as const);
		const relations = tables.length;
		const totalColumns = widths.reduce((a, [, n]) => a + n, 0);
		const widest = Math.max(...widths.map(([, n]) => n));
		const firstWidest = widths.find(([, n]) => n === widest)![0];
		const widestSection = firstWidest in catalog.nodes ? 'nodes' : 'sources';

		/** Everything a refused upload could have changed: versions, jobs, stored nodes and their typed columns. */
		const stored = async () =>
			(
				await w.database.rows<{ scripts: number; jobs: number; nodes: number; schemas: string }>(
					sql`select (select count(*)::int from script where workspace = ${WS}) as scripts,
					           (select count(*)::int from job where workspace = ${WS}) as jobs,
					           (select count(*)::int from dbt_node where workspace = ${WS}) as nodes,
					           (select md5(coalesce(string_agg(coalesce(column_schema::text, '-'), ',' order by script_path, job_id, unique_id), ''))
					              from dbt_node where workspace = ${WS}) as schemas`
				)
			)[0];

		beforeAll(async () => {
			w = await buildLineageWorld(await backend.open());
		}, 120_000);

		afterEach(() => {
			for (const v of LIMIT_VARS) delete process.env[v];
		});

		afterAll(async () => {
			w?.restoreEnv();
			await w?.database.close();
		});

		const deploy = `/api/w/${WS}/scripts/dbt/deploy`;
		const preview = `/api/w/${WS}/scripts/dbt/preview`;
		const record = `/api/w/${WS}/jobs/record`;
		const files = [
			{ url: deploy, field: 'manifest', filename: 'manifest.json', what: 'manifest', env: 'TRIBUTARY_MAX_MANIFEST_MB' },
			{ url: preview, field: 'manifest', filename: 'manifest.json', what: 'manifest', env: 'TRIBUTARY_MAX_MANIFEST_MB' },
			{ url: deploy, field: 'catalog', filename: 'catalog.json', what: 'catalog', env: 'TRIBUTARY_MAX_CATALOG_MB' },
			{ url: preview, field: 'catalog', filename: 'my-catalog.json', what: 'catalog', env: 'TRIBUTARY_MAX_CATALOG_MB' },
			{ url: deploy, field: 'column_lineage', filename: 'dbt.column_lineage.parquet', what: 'index', env: 'TRIBUTARY_MAX_INDEX_MB' },
			{ url: deploy, field: 'node_columns', filename: 'dbt.node_columns.parquet', what: 'index', env: 'TRIBUTARY_MAX_INDEX_MB' },
			{ url: deploy, field: 'run_results', filename: 'run_results.json', what: 'run_results', env: 'TRIBUTARY_MAX_RUN_RESULTS_MB' },
			{ url: deploy, field: 'project', filename: 'project.tar.gz', what: 'project archive', env: 'TRIBUTARY_MAX_PROJECT_MB' },
			{ url: record, field: 'run_results', filename: 'run_results.json', what: 'run_results', env: 'TRIBUTARY_MAX_RUN_RESULTS_MB' },
			{ url: record, field: 'manifest', filename: 'manifest.json', what: 'manifest', env: 'TRIBUTARY_MAX_MANIFEST_MB' },
			{ url: record, field: 'log', filename: 'dbt.log', what: 'log', env: 'TRIBUTARY_MAX_LOG_MB' }
		];

		it.each(files)('$url: a $field over its limit is refused as it streams, naming it and the limit; the rest is never pulled', async ({ url, field, filename, what, env }) => {
			process.env[env] = '1';
			const before = await stored();
			const r = await postCounted(w.c.alice, url, field, filename);
			expect(r.status, JSON.stringify(r.body)).toBe(413);
			expect(r.body.error).toBe(`${filename}: more than 1.0 MB, over the ${what} size limit of 1.0 MB (${env}); refused there, the rest of the upload unread`);
			// 1 MB is four chunks: the fifth crosses the limit; nothing after it is pulled.
			expect(r.fileChunksPulled).toBeLessThanOrEqual(6);
			expect(await stored()).toEqual(before);
		});

		it.each([deploy, preview, record])('%s: a Content-Length over every limit together is refused before a file byte is read', async (url) => {
			const before = await stored();
			const r = await postCounted(w.c.alice, url, url === record ? 'run_results' : 'manifest', 'x.json', { 'content-length': String(50 * 1024 ** 3) });
			expect(r.status, JSON.stringify(r.body)).toBe(413);
			expect(r.body.error).toMatch(/^the request body: 51200\.0 MB \(Content-Length\) is over the [\d.]+ MB its files may weigh together \(.*manifest\.json 128\.0 MB/);
			expect(r.fileChunksPulled).toBeLessThanOrEqual(1);
			expect(await stored()).toEqual(before);
		});

		const catalogCaps = [
			{
				name: 'relations',
				env: 'TRIBUTARY_MAX_CATALOG_RELATIONS',
				limit: relations - 1,
				error: () => `catalog.json: ${fmt(relations)} relations is over the limit of ${fmt(relations - 1)} relations (TRIBUTARY_MAX_CATALOG_RELATIONS)`
			},
			{
				name: 'columns per relation',
				env: 'TRIBUTARY_MAX_CATALOG_RELATION_COLUMNS',
				limit: widest - 1,
				error: () =>
					`catalog.json (${widestSection}.${firstWidest}.columns): ${firstWidest} has ${fmt(widest)} columns, over the limit of ${fmt(widest - 1)} columns per relation (TRIBUTARY_MAX_CATALOG_RELATION_COLUMNS)`
			},
			{
				name: 'columns in all',
				env: 'TRIBUTARY_MAX_CATALOG_COLUMNS',
				limit: totalColumns - 1,
				error: () => `catalog.json: ${fmt(totalColumns)} columns in all is over the limit of ${fmt(totalColumns - 1)} columns (TRIBUTARY_MAX_CATALOG_COLUMNS)`
			}
		];

		describe.each([deploy, preview])('%s', (url) => {
			it.each(catalogCaps)('a catalog over its $name limit: 413 naming the limit and the file, nothing stored changes', async ({ env, limit, error }) => {
				process.env[env] = String(limit);
				const before = await stored();
				// Over a path with a live version: it keeps its graph and typed columns.
				const r = await w.c.alice.call('POST', url, { form: form({ manifest: [manifest, 'manifest.json'], catalog: [new TextEncoder().encode(catalogText), 'catalog.json'] }, JAFFLE) });
				expect(r.status, JSON.stringify(r.body)).toBe(413);
				expect(r.body.error).toBe(error());
				expect(await stored()).toEqual(before);
			});
		});

		it('the same catalog at exactly its counts deploys, typed', async () => {
			process.env.TRIBUTARY_MAX_CATALOG_RELATIONS = String(relations);
			process.env.TRIBUTARY_MAX_CATALOG_RELATION_COLUMNS = String(widest);
			process.env.TRIBUTARY_MAX_CATALOG_COLUMNS = String(totalColumns);
			const r = await w.c.alice.call('POST', deploy, { form: form({ manifest: [manifest, 'manifest.json'], catalog: [new TextEncoder().encode(catalogText), 'catalog.json'] }, 'f/analytics/typed') });
			expect(r.status, JSON.stringify(r.body)).toBe(201);
			expect(r.body.typed_nodes).toBeGreaterThan(0);
		});

		it('by default one relation may have 10,000 columns, not 10,001', async () => {
			const uid = firstWidest;
			const wide = structuredClone(catalog);
			const columns = Object.fromEntries(Array.from({ length: 10_001 }, (_, i) => [`c${i}`, { name: `c${i}`, type: 'INTEGER', index: i + 1 }]));
			wide[widestSection][uid].columns = columns;
			const before = await stored();
			const r = await w.c.alice.call('POST', deploy, { form: form({ manifest: [manifest, 'manifest.json'], catalog: [new TextEncoder().encode(JSON.stringify(wide)), 'catalog.json'] }, JAFFLE) });
			expect(r.status, JSON.stringify(r.body)).toBe(413);
			expect(r.body.error).toBe(
				`catalog.json (${widestSection}.${uid}.columns): ${uid} has 10,001 columns, over the limit of 10,000 columns per relation (TRIBUTARY_MAX_CATALOG_RELATION_COLUMNS)`
			);
			expect(await stored()).toEqual(before);
			delete columns.c10000;
			const ok = await w.c.alice.call('POST', deploy, { form: form({ manifest: [manifest, 'manifest.json'], catalog: [new TextEncoder().encode(JSON.stringify(wide)), 'catalog.json'] }, 'f/analytics/wide') });
			expect(ok.status, JSON.stringify(ok.body)).toBe(201);
		});
	});
});
