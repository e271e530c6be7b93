// Column lineage inferred from compiled SQL (issue 15), through the real routes and the real
// worker, on both databases: jaffle-shop 1.12 deployed with manifest + catalog only, its lineage
// job run by a Worker, the answer scored against the hand-built index; provenance on pinned and
// unpinned answers; the index winning over compiled SQL; bad catalogs refused; a catalog of
// another project and a `dbt parse` manifest warned about; a worker that dies; the cache on a
// redeploy. Expected values come from the raw fixture files (JSON.parse / hyparquet).
import { readFileSync } from 'node:fs';
import { parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bootstrap } from '../../src/lib/server/bootstrap';
import { setDatabase, type Database } from '../../src/lib/server/db';
import { graphCounts, readMarker, versionKey } from '../../src/lib/server/repo/graph';
import { INFER_CACHE_DAYS } from '../../src/lib/server/repo/inference';
import { claimNextJob } from '../../src/lib/server/repo/queue';
import { Worker } from '../../src/lib/server/runner/worker';
import { runnerIngest } from '../../src/lib/server/runner-ingest';
import type { ColumnLineageEdge, DbtProvenance } from '../../src/lib/types/asset-graph';
import { hexToHash } from '../../src/lib/types/script-hash';
import { ApiClient } from '../support/api';
import { testBackends } from '../support/db';
import { describeFixtures, fixture } from '../support/fixtures';
import { jaffleAssetPaths } from '../support/lineage-world';

const JAFFLE = fixture('jaffle-shop-1.12-duckdb-docs-generate');
const INDEX = fixture('constructed-index', 'jaffle-shop-1.12');
const OTHER_CATALOG = fixture('dbt-bouncer-1.11.2-build', 'catalog.json');
const read = (p: string) => new Uint8Array(readFileSync(p));
const WS = 'infer';
// A lineage job starts its inference threads (through tsx under vitest): on a loaded 2-core
// machine that alone can take longer than the default test timeout.
vi.setConfig({ testTimeout: 180_000 });

function form(fields: Record<string, string | Uint8Array | undefined>): FormData {
	const names: Record<string, string> = {
		manifest: 'manifest.json',
		catalog: 'catalog.json',
		column_lineage: 'dbt.column_lineage.parquet',
		node_columns: 'dbt.node_columns.parquet'
	};
	const f = new FormData();
	for (const [k, v] of Object.entries(fields)) {
		if (v === undefined) continue;
		if (typeof v === 'string') f.set(k, v);
		else f.set(k, new Blob([v as Uint8Array<ArrayBuffer>]), names[k] ?? `${k}.bin`);
	}
	return f;
}

const edgeKey = (e: { from: string; fromCol: string; to: string; toCol: string }) => `${e.from}|${e.fromCol}|${e.to}|${e.toCol}`;

describeFixtures('column lineage inferred from compiled SQL', () => {
	const manifestBytes = read(`${JAFFLE}/manifest.json`);
	const manifest = JSON.parse(new TextDecoder().decode(manifestBytes));
	const catalogBytes = read(`${JAFFLE}/catalog.json`);
	const catalog = JSON.parse(new TextDecoder().decode(catalogBytes));
	const assetOf = jaffleAssetPaths(manifest);
	const relationPaths = [...new Set(assetOf.values())];
	const sqlModels = Object.values(manifest.nodes as Record<string, any>).filter(
		(n) => n.resource_type === 'model' && n.config?.materialized !== 'ephemeral' && typeof n.compiled_code === 'string' && n.compiled_code.trim() !== ''
	);

	describe.each(testBackends())('on $name', (backend) => {
		let database: Database;
		const admin = new ApiClient();
		const alice = new ApiClient();
		let worker: Worker | null = null;
		/** The index's direct (copy/mod) edges in asset terms, with their kind. */
		const expected = new Map<string, string>();

		const startWorker = (opts: { staleS?: number } = {}) => {
			// No run slot at all: lineage jobs have slots of their own.
			worker = new Worker({ database, ingest: runnerIngest, slots: 0, lineageSlots: 1, pollMs: 30, heartbeatMs: 100, staleS: opts.staleS ?? 30 }).start();
			return worker;
		};
		const stopWorker = async () => {
			await worker?.stop();
			worker = null;
		};

		beforeAll(async () => {
			// The per-model budget is a guard against pathological SQL; on a loaded 2-core machine a
			// thread's first parses can exceed the default, which would make the scores flaky.
			process.env.TRIBUTARY_LINEAGE_MODEL_BUDGET_MS = '60000';
			database = await backend.open();
			setDatabase(database);
			process.env.TRIBUTARY_ADMIN_USER = 'admin';
			process.env.TRIBUTARY_ADMIN_PASSWORD = 'admin-password-1';
			await bootstrap(database, { log: () => {} });
			expect((await admin.post('/api/auth/login', { username: 'admin', password: 'admin-password-1' })).status).toBe(200);
			expect((await admin.post('/api/workspaces', { id: WS, name: 'Infer' })).status).toBeLessThan(300);
			expect((await admin.post(`/api/w/${WS}/users`, { username: 'alice', password: 'alice-password-1' })).status).toBeLessThan(300);
			expect((await admin.post(`/api/w/${WS}/folders`, { name: 'analytics', readers: [], writers: ['u/alice'] })).status).toBeLessThan(300);
			expect((await admin.post(`/api/w/${WS}/warehouses`, { name: 'main', default_database: 'jaffle_shop' })).status).toBeLessThan(300);
			expect((await alice.post('/api/auth/login', { username: 'alice', password: 'alice-password-1' })).status).toBe(200);

			const buf = readFileSync(`${INDEX}/index/dbt.column_lineage.parquet`);
			const rows = await parquetReadObjects({ file: buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength), compressors });
			for (const r of rows as any[]) {
				if (r.lineage_kind !== 'copy' && r.lineage_kind !== 'mod') continue;
				const from = assetOf.get(r.from_node_unique_id);
				const to = assetOf.get(r.to_node_unique_id);
				expect(from && to).toBeTruthy();
				expected.set(edgeKey({ from: from!, fromCol: r.from_column_name, to: to!, toCol: r.to_column_name }), r.lineage_kind);
			}
			expect(expected.size).toBe(87);
		});
		afterAll(async () => {
			delete process.env.TRIBUTARY_LINEAGE_MODEL_BUDGET_MS;
			await stopWorker();
			await database?.close();
		});

		const deploy = (path: string, fields: Record<string, string | Uint8Array | undefined>, kind = 'deploy') =>
			alice.call('POST', `/api/w/${WS}/scripts/dbt/${kind}`, { form: form({ path, ...fields }) });

		async function waitJob(id: string, timeoutMs = 150_000): Promise<any> {
			// Each test may run alone (-t): a worker is there whenever a job is waited for.
			if (!worker) startWorker();
			const until = Date.now() + timeoutMs;
			for (;;) {
				const r = await alice.get(`/api/w/${WS}/jobs/get/${id}`);
				expect(r.status).toBe(200);
				if (r.body.status !== 'queued' && r.body.status !== 'running') return r.body;
				if (Date.now() > until) throw new Error(`job ${id} still ${r.body.status} after ${timeoutMs} ms`);
				await new Promise((res) => setTimeout(res, 50));
			}
		}

		const qs = (paths: string[]) => paths.map((p) => `asset_path=${encodeURIComponent(p)}`).join('&');
		const pinnedLineage = async (jobId: string): Promise<ColumnLineageEdge[]> => {
			const r = await alice.get(`/api/w/${WS}/jobs/dbt_column_lineage/${jobId}?${qs(relationPaths)}`);
			expect(r.status).toBe(200);
			expect(r.body.truncated).toBe(false);
			return r.body.edges;
		};
		/** The details pane's read: unpinned, or pinned to a job (its version's graph). */
		const relation = async (path: string, jobId?: string): Promise<DbtProvenance> => {
			const r = await alice.get(jobId ? `/w/${WS}/run/${jobId}/relation?path=${encodeURIComponent(path)}` : `/w/${WS}/relation?path=${encodeURIComponent(path)}`);
			expect(r.status).toBe(200);
			return r.body;
		};
		const jobRows = async () => Number((await database.rows<{ n: unknown }>(sql`select count(*)::int as n from job where workspace = ${WS}`))[0].n);

		let inferred: { hash: string; jobId: string; lineageJobId: string };

		it('deploys manifest + catalog only: typed columns from the catalog and a queued lineage job', async () => {
			const r = await deploy('f/analytics/jaffle', { manifest: manifestBytes, catalog: catalogBytes });
			expect(r.status).toBe(201);
			expect(r.body.column_edges).toBeNull();
			expect(r.body.lineage_job_id).toMatch(/^[0-9a-f-]{36}$/);
			expect(r.body.column_lineage.source).toBe('inferred');
			expect(r.body.column_lineage.models.pending).toBe(sqlModels.length);
			expect(r.body.column_lineage.models.analyzed).toBe(0);
			const catalogued = [...assetOf.keys()].filter((u) => catalog.nodes[u] || catalog.sources[u]).length;
			expect(r.body.typed_nodes).toBe(catalogued);
			inferred = { hash: r.body.hash, jobId: r.body.job_id, lineageJobId: r.body.lineage_job_id };

			// The catalog's own order and types, for a model.
			const customers = await relation(assetOf.get('model.jaffle_shop.customers')!);
			const cols = Object.values(catalog.nodes['model.jaffle_shop.customers'].columns as Record<string, any>)
				.sort((a, b) => a.index - b.index)
				.map((c) => ({ name: c.name, type: c.type }));
			expect(customers.column_schema).toEqual(cols);
			// Before the job ran: the pane says it is coming, never "no lineage".
			expect(customers.column_lineage).toMatchObject({ source: 'inferred', outcome: null, job: { id: inferred.lineageJobId, status: 'queued' } });
			const job = (await alice.get(`/api/w/${WS}/jobs/get/${inferred.lineageJobId}`)).body;
			expect(job).toMatchObject({ kind: 'lineage', status: 'queued', parent_job: inferred.jobId, result: { progress: { done: 0, total: sqlModels.length } } });
		});

		it('runs the lineage job on the worker and scores against the hand-built index', async () => {
			const key = versionKey(WS, 'f/analytics/jaffle', hexToHash(inferred.hash)!);
			const before = await readMarker(database.db, key);
			startWorker();
			const job = await waitJob(inferred.lineageJobId);
			expect(job.status).toBe('success');
			const m = job.result.models;
			expect(job.logs).not.toMatch(/^failed: /m);
			expect(m.analyzed + m.partial + m.failed).toBe(sqlModels.length);
			expect(job.result.progress).toEqual({ done: sqlModels.length, total: sqlModels.length });
			expect(job.result.cache_hits).toBe(0);
			expect(await database.rows(sql`select 1 from lineage_plan where job_id = ${inferred.lineageJobId}::uuid`)).toHaveLength(0);

			const edges = await pinnedLineage(inferred.jobId);
			expect(edges.length).toBeGreaterThan(0);
			expect(new Set(edges.map((e) => e.provenance))).toEqual(new Set(['inferred']));
			const got = new Map(edges.map((e) => [edgeKey({ from: e.from_asset_path, fromCol: e.from_column, to: e.to_asset_path, toCol: e.to_column }), e.kind]));
			const matched = [...got.keys()].filter((k) => expected.has(k));
			const precision = matched.length / got.size;
			const recall = matched.length / expected.size;
			const kindAgreement = matched.filter((k) => got.get(k) === expected.get(k)).length / matched.length;
			process.stderr.write(`[jaffle-shop 1.12 inferred, ${backend.name}] precision ${precision.toFixed(3)}, recall ${recall.toFixed(3)}, kind agreement ${kindAgreement.toFixed(3)}\n`);
			expect(precision).toBeGreaterThanOrEqual(0.99);
			expect(recall).toBeGreaterThanOrEqual(0.98);
			expect(kindAgreement).toBeGreaterThanOrEqual(0.95);

			// Unpinned: the same edges, the same provenance.
			const unpinned = await alice.get(`/api/w/${WS}/assets/column_lineage?${qs(relationPaths)}`);
			expect(unpinned.status).toBe(200);
			expect(unpinned.body.edges.length).toBe(edges.length);
			expect(unpinned.body.edges.every((e: ColumnLineageEdge) => e.provenance === 'inferred')).toBe(true);

			// Each model's outcome is stored with the version and served in its description.
			const d = await relation(assetOf.get('model.jaffle_shop.orders')!);
			expect(d.column_lineage).toMatchObject({ source: 'inferred', job: { id: inferred.lineageJobId, status: 'success' } });
			expect(['analyzed', 'partial']).toContain(d.column_lineage!.outcome);
			const stored = await graphCounts(database.db, key);
			expect(stored.columnEdges).toBeGreaterThanOrEqual(got.size);
			// The marker's time moved: every cache keyed on it (graph-cache.ts) misses. Its digest is
			// still the uploaded graph's, so a run of the same manifest reads this graph (storeRunSnapshot).
			const after = await readMarker(database.db, key);
			expect(after!.ingestedAt.getTime()).toBeGreaterThan(before!.ingestedAt.getTime());
			expect(after!.digest).toBe(before!.digest);
		});

		it("withholds the lineage state from a caller not shown the project's authored fields", async () => {
			const t = await alice.post(`/api/w/${WS}/tokens`, { label: 'assets-only', scopes: ['assets:read'] });
			expect(t.status).toBe(201);
			const r = await new ApiClient().withBearer(t.body.token).get(`/w/${WS}/relation?path=${encodeURIComponent(assetOf.get('model.jaffle_shop.orders')!)}`);
			expect(r.status).toBe(200);
			expect(r.body.authored).toBe(false);
			expect(r.body).not.toHaveProperty('column_lineage');
		});

		it('serves the engine index when both an index and compiled SQL are present (no lineage job)', async () => {
			const lineage = read(`${INDEX}/index/dbt.column_lineage.parquet`);
			const r = await deploy('f/analytics/jaffle_engine', { manifest: manifestBytes, catalog: catalogBytes, column_lineage: lineage });
			expect(r.status).toBe(201);
			expect(r.body.lineage_job_id).toBeNull();
			expect(r.body.column_lineage.source).toBe('engine');
			const edges = await pinnedLineage(r.body.job_id);
			expect(edges.length).toBe(expected.size);
			expect(edges.every((e) => e.provenance === 'engine')).toBe(true);
			const d = await relation(assetOf.get('model.jaffle_shop.orders')!, r.body.job_id);
			expect(d.script_path).toBe('f/analytics/jaffle_engine');
			expect(d.column_lineage).toMatchObject({ source: 'engine', job: null, outcome: null });
		});

		it.each([
			['not JSON', new TextEncoder().encode('{"nodes": {'), /catalog\.json: is not valid JSON/],
			['a manifest', manifestBytes, /catalog\.json \(metadata\.dbt_schema_version\): is not a dbt catalog.*manifest/],
			['a JSON array', new TextEncoder().encode('[1, 2]'), /catalog\.json: is not a dbt catalog/],
			['an object without nodes', new TextEncoder().encode('{"metadata": {}, "sources": {}}'), /catalog\.json \(nodes\): is not a dbt catalog/]
		])('refuses a catalog that is %s with a 400 naming the file, storing nothing', async (_what, bytes, message) => {
			const before = await jobRows();
			const versions = await database.rows(sql`select hash from script where workspace = ${WS} and path = 'f/analytics/bad_catalog'`);
			const r = await deploy('f/analytics/bad_catalog', { manifest: manifestBytes, catalog: bytes as Uint8Array });
			expect(r.status).toBe(400);
			expect(r.body.error).toMatch(message);
			expect(await jobRows()).toBe(before);
			expect(await database.rows(sql`select hash from script where workspace = ${WS} and path = 'f/analytics/bad_catalog'`)).toEqual(versions);
		});

		it('refuses a catalog over the size limit with a 413 naming the file and the variable', async () => {
			// A real catalog padded past its own limit (whitespace keeps it valid JSON).
			const padded = new TextEncoder().encode(new TextDecoder().decode(catalogBytes) + ' '.repeat(2 * manifestBytes.length));
			process.env.TRIBUTARY_MAX_CATALOG_MB = String((manifestBytes.length * 1.5) / 1024 / 1024);
			try {
				const r = await deploy('f/analytics/bad_catalog', { manifest: manifestBytes, catalog: padded });
				expect(r.status).toBe(413);
				expect(r.body.error).toMatch(/^catalog\.json: .* over the catalog size limit .*TRIBUTARY_MAX_CATALOG_MB/);
			} finally {
				delete process.env.TRIBUTARY_MAX_CATALOG_MB;
			}
		});

		it('refuses a bad catalog the same way when the manifest is parsed on its thread', async () => {
			process.env.TRIBUTARY_MANIFEST_THREAD_MB = '0';
			try {
				const before = await jobRows();
				const r = await deploy('f/analytics/bad_catalog', { manifest: manifestBytes, catalog: new TextEncoder().encode('not json') });
				expect(r.status).toBe(400);
				expect(r.body.error).toMatch(/^catalog\.json: is not valid JSON/);
				expect(await jobRows()).toBe(before);
			} finally {
				delete process.env.TRIBUTARY_MANIFEST_THREAD_MB;
			}
		});

		it("warns about a catalog of another project, counting what it lacks, and still infers (planned on the manifest's thread)", async () => {
			// The plan and the catalog are read where the manifest is: here on its thread.
			process.env.TRIBUTARY_MANIFEST_THREAD_MB = '0';
			const r = await deploy('f/analytics/other_catalog', { manifest: manifestBytes, catalog: read(OTHER_CATALOG) }, 'preview');
			delete process.env.TRIBUTARY_MANIFEST_THREAD_MB;
			expect(r.status).toBe(201);
			const w = r.body.warnings.find((x: string) => /catalog/.test(x));
			expect(w).toMatch(/none of the manifest's \d+ relations|another project/);
			expect(r.body.lineage_job_id).not.toBeNull();
			const job = await waitJob(r.body.lineage_job_id);
			expect(job.status).toBe('success');
			// A preview's own graph (NULL hash, keyed by its job) got the inferred edges.
			const edges = await pinnedLineage(r.body.job_id);
			expect(edges.length).toBeGreaterThan(0);
			expect(edges.every((e) => e.provenance === 'inferred')).toBe(true);
		});

		it('warns that a manifest without compiled SQL (dbt parse) needs dbt compile, run or build', async () => {
			const parsed = structuredClone(manifest);
			for (const n of Object.values(parsed.nodes as Record<string, any>)) delete n.compiled_code;
			const r = await deploy('f/analytics/parsed', { manifest: new TextEncoder().encode(JSON.stringify(parsed)), catalog: catalogBytes });
			expect(r.status).toBe(201);
			expect(r.body.warnings.join('\n')).toMatch(/no compiled SQL.*dbt parse.*`dbt compile`, `dbt run` or `dbt build`/s);
			expect(r.body.lineage_job_id).toBeNull();
			expect(r.body.column_lineage.source).toBeNull();
		});

		it('a model whose SQL does not parse is failed with the parser message in the log and its description; the others are unaffected', async () => {
			const broken = structuredClone(manifest);
			broken.nodes['model.jaffle_shop.customers'].compiled_code = 'select id,\n  from where ((( order';
			const r = await deploy('f/analytics/broken', { manifest: new TextEncoder().encode(JSON.stringify(broken)), catalog: catalogBytes });
			expect(r.status).toBe(201);
			const job = await waitJob(r.body.lineage_job_id);
			expect(job.status).toBe('success');
			expect(job.result.models.failed).toBe(1);
			expect(job.result.models.analyzed + job.result.models.partial).toBe(sqlModels.length - 1);
			expect(job.logs).toMatch(/^failed: model\.jaffle_shop\.customers: .+/m);
			const d = await relation(assetOf.get('model.jaffle_shop.customers')!, r.body.job_id);
			expect(d.script_path).toBe('f/analytics/broken');
			expect(d.column_lineage).toMatchObject({ source: 'inferred', outcome: 'failed', job: { status: 'success' } });
			expect(d.column_lineage!.message).toBeTruthy();
			const ok = await relation(assetOf.get('model.jaffle_shop.orders')!, r.body.job_id);
			expect(ok.column_lineage!.outcome).toBe('analyzed');
		});

		it('re-infers only the changed model on a redeploy (the rest are cache hits)', async () => {
			const changed = structuredClone(manifest);
			const leaf = changed.nodes['model.jaffle_shop.customers'];
			leaf.compiled_code = `${leaf.compiled_code}\n-- changed`;
			const r = await deploy('f/analytics/jaffle', { manifest: new TextEncoder().encode(JSON.stringify(changed)), catalog: catalogBytes });
			expect(r.status).toBe(201);
			const job = await waitJob(r.body.lineage_job_id);
			expect(job.status).toBe('success');
			expect(job.result.cache_hits).toBe(sqlModels.length - 1);
			expect(job.result.inferred).toBe(1);
			const edges = await pinnedLineage(r.body.job_id);
			expect(edges.every((e) => e.provenance === 'inferred')).toBe(true);
		});

		it("the retention sweep drops cache entries unused for INFER_CACHE_DAYS, keeping the others", async () => {
			await database.rows(
				sql`insert into infer_cache (workspace, cache_key, data, used_at)
				    values (${WS}, 'stale-entry', '{}'::jsonb, now() - make_interval(days => ${INFER_CACHE_DAYS + 1})),
				           (${WS}, 'recent-entry', '{}'::jsonb, now() - make_interval(days => ${INFER_CACHE_DAYS - 1}))`
			);
			const r = await deploy('f/analytics/sweep', { manifest: manifestBytes, catalog: catalogBytes }, 'preview');
			expect(r.status).toBe(201);
			const left = await database.rows<{ k: string }>(sql`select cache_key as k from infer_cache where workspace = ${WS} and cache_key like '%-entry'`);
			expect(left.map((x) => x.k)).toEqual(['recent-entry']);
		});

		it('a lineage job past TRIBUTARY_LINEAGE_TIMEOUT_S ends failed; the version keeps its graph', async () => {
			await stopWorker();
			process.env.TRIBUTARY_LINEAGE_TIMEOUT_S = '77';
			// Every model changed: nothing comes from the cache, so the job cannot end before its deadline.
			const changed = structuredClone(manifest);
			for (const n of Object.values(changed.nodes as Record<string, any>)) if (typeof n.compiled_code === 'string') n.compiled_code += '\n-- timeout';
			const r = await deploy('f/analytics/slow', { manifest: new TextEncoder().encode(JSON.stringify(changed)), catalog: catalogBytes });
			delete process.env.TRIBUTARY_LINEAGE_TIMEOUT_S;
			expect(r.status).toBe(201);
			const id = r.body.lineage_job_id as string;
			const [row] = await database.rows<{ t: unknown }>(sql`select timeout_s as t from job where id = ${id}::uuid`);
			expect(Number(row.t)).toBe(77);
			// A deadline already passed when it is claimed (the column is whole seconds).
			await database.rows(sql`update job set timeout_s = 0 where id = ${id}::uuid`);
			startWorker();
			const job = await waitJob(id);
			expect(job.status).toBe('failure');
			expect(job.result.error).toMatch(/deadline passed \(TRIBUTARY_LINEAGE_TIMEOUT_S\)/);
			const counts = await graphCounts(database.db, versionKey(WS, 'f/analytics/slow', hexToHash(r.body.hash)!));
			expect(counts.nodes).toBe(r.body.nodes);
			expect(counts.columnEdges).toBe(0);
			const d = await relation(assetOf.get('model.jaffle_shop.orders')!, r.body.job_id);
			expect(d.column_lineage).toMatchObject({ source: 'inferred', outcome: null, job: { id, status: 'failure' } });
			expect(await database.rows(sql`select 1 from lineage_plan where job_id = ${id}::uuid`)).toHaveLength(0);
		});

		it('a lineage job whose worker dies is reaped as failed; the version keeps its graph and says why', async () => {
			await stopWorker();
			const r = await deploy('f/analytics/orphan', { manifest: manifestBytes, catalog: catalogBytes });
			expect(r.status).toBe(201);
			const id = r.body.lineage_job_id as string;
			// A worker that claims the job and then dies: no heartbeat ever again.
			const claimed = await claimNextJob(database, 'ghost-worker');
			expect(claimed?.id).toBe(id);
			await database.rows(sql`update job set heartbeat_at = now() - interval '1 hour' where id = ${id}::uuid`);
			startWorker({ staleS: 1 });
			const job = await waitJob(id, 30_000);
			expect(job.status).toBe('failure');
			expect(job.result.error).toMatch(/stopped/);
			const key = versionKey(WS, 'f/analytics/orphan', hexToHash(r.body.hash)!);
			const counts = await graphCounts(database.db, key);
			expect(counts.nodes).toBe(r.body.nodes);
			expect(counts.columnEdges).toBe(0);
			const d = await relation(assetOf.get('model.jaffle_shop.orders')!, r.body.job_id);
			expect(d.script_path).toBe('f/analytics/orphan');
			expect(d.column_lineage).toMatchObject({ source: 'inferred', outcome: null, job: { id, status: 'failure' } });
			expect(d.column_lineage!.message).toMatch(/stopped/);
			expect(await database.rows(sql`select 1 from lineage_plan where job_id = ${id}::uuid`)).toHaveLength(0);
		});
	});
});
