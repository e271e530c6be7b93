// One member's largest accepted uploads against the BUILT app, and what everyone else's requests
// see meanwhile. Three uploads, one after another: a catalog.json at every catalog limit at once
// (relations, the widest relation, columns in all, bytes) beside jaffle-shop's manifest; a
// manifest.json at the node limit and close to the byte limit; and a 224 MB catalog, refused as it
// streams. While each is in flight, `GET /login` and `GET assets/graph?folder=` (jaffle-shop's
// folder, not the upload's) are sent side by side, pair after pair; the same pairs just before,
// idle, give the baseline. The server's RSS is read before the upload and again after a minute
// of light reads (one pair a second).
// Named metrics, per upload (catalog, manifest, refused):
//   upload_<u>_login_p99_over_idle_ms, upload_<u>_graph_p99_over_idle_ms: p99 in flight minus
//     p99 idle (goal ≤ 100 ms: no request stalls another);
//   upload_<u>_rss_after_60s_ratio: RSS a minute after the upload over RSS before (goal ≤ 1.2).
// BENCH_QUICK: limits set small through the environment (a catalog of 8 MB, a manifest of 3,000
// nodes), 10 s of settling (a smoke run).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { backends, Client, freshDatabase, QUICK, rssMb, setupWorkspace, startApp } from './app';
import { FIXTURES_DIR, metric, type BenchResult, type Metric, type Row } from './lib';
import { largestCatalog, largestManifest, percentileOf, postUpload, postUploadFromChild, streamOversized, timeReads } from '../tests/support/largest-upload';

const WS = 'bench';
const JAFFLE = path.join(FIXTURES_DIR, 'jaffle-shop-1.12-duckdb-docs-generate');
const SETTLE_S = Number(process.env.BENCH_UPLOAD_SETTLE_S ?? (QUICK ? 10 : 60));
const IDLE_PAIRS = QUICK ? 30 : 150;
const REFUSED_MB = QUICK ? 32 : 224;

/** Limits the app runs with: its defaults, or small ones for a smoke run. */
const LIMITS = QUICK
	? {
			catalog: { bytes: 8 * 1024 * 1024, relations: 3000, relationColumns: 2000, columns: 50_000 },
			manifest: { bytes: 16 * 1024 * 1024, nodes: 3000 }
		}
	: {
			catalog: { bytes: 64 * 1024 * 1024, relations: 30_000, relationColumns: 10_000, columns: 500_000 },
			manifest: { bytes: 128 * 1024 * 1024, nodes: 30_000 }
		};
const APP_ENV = {
	TRIBUTARY_MAX_CATALOG_MB: String(LIMITS.catalog.bytes / 1024 / 1024),
	TRIBUTARY_MAX_CATALOG_RELATIONS: String(LIMITS.catalog.relations),
	TRIBUTARY_MAX_CATALOG_RELATION_COLUMNS: String(LIMITS.catalog.relationColumns),
	TRIBUTARY_MAX_CATALOG_COLUMNS: String(LIMITS.catalog.columns),
	TRIBUTARY_MAX_MANIFEST_MB: String(LIMITS.manifest.bytes / 1024 / 1024),
	TRIBUTARY_MAX_MANIFEST_NODES: String(LIMITS.manifest.nodes)
};

const round = (x: number) => Math.round(x * 10) / 10;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function run(): Promise<BenchResult> {
	const rows: Row[] = [];
	const metrics: Metric[] = [];
	const manifest = new Uint8Array(readFileSync(path.join(JAFFLE, 'manifest.json')));
	const catalogText = readFileSync(path.join(JAFFLE, 'catalog.json'), 'utf8');
	const bigCatalog = largestCatalog(JSON.parse(catalogText), LIMITS.catalog);
	const bigManifest = largestManifest(JSON.parse(new TextDecoder().decode(manifest)), LIMITS.manifest);
	// The uploads are sent by another process, from these files (see postUploadFromChild).
	const files = mkdtempSync(path.join(tmpdir(), 'tributary-bench-upload-'));
	const file = (name: string, bytes: Uint8Array) => {
		writeFileSync(path.join(files, name), bytes);
		return path.join(files, name);
	};
	const bigCatalogFile = file('catalog.json', bigCatalog);
	const bigManifestFile = file('manifest.json', bigManifest);
	const manifestFile = path.join(JAFFLE, 'manifest.json');

	for (const backend of backends()) {
		const db = await freshDatabase(backend, 'upload');
		const app = await startApp(db, APP_ENV);
		try {
			const c = await Client.login(app.url);
			await setupWorkspace(c, WS, 'read', 'jaffle_shop');
			await c.post(`/api/w/${WS}/folders`, { name: 'big', readers: [], writers: [] });
			const deployUrl = `${app.url}/api/w/${WS}/scripts/dbt/deploy`;
			const seeded = await postUpload(deployUrl, c.cookieHeader, { path: 'f/read/jaffle' }, { manifest: [manifest, 'manifest.json'], catalog: [new TextEncoder().encode(catalogText), 'catalog.json'] });
			if (seeded.status !== 201) throw new Error(`deploying jaffle-shop: ${seeded.status} ${JSON.stringify(seeded.body).slice(0, 500)}`);
			const graphPath = `/api/w/${WS}/assets/graph?folder=read`;
			await timeReads(app.url, c.cookieHeader, graphPath, { pairs: 10 });

			const uploads: { id: string; label: string; expect: number; send: () => Promise<{ status: number; body: unknown; ms: number }> }[] = [
				{
					id: 'catalog',
					label: `catalog.json ${(bigCatalog.length / 1e6).toFixed(1)} MB: ${LIMITS.catalog.relations.toLocaleString('en-US')} relations, ${LIMITS.catalog.columns.toLocaleString('en-US')} columns, one ${LIMITS.catalog.relationColumns.toLocaleString('en-US')} wide`,
					expect: 201,
					send: () => postUploadFromChild(deployUrl, c.cookieHeader, { path: 'f/big/catalog' }, { manifest: [manifestFile, 'manifest.json'], catalog: [bigCatalogFile, 'catalog.json'] })
				},
				{
					id: 'manifest',
					label: `manifest.json ${(bigManifest.length / 1e6).toFixed(1)} MB: ${LIMITS.manifest.nodes.toLocaleString('en-US')} nodes`,
					expect: 201,
					send: () => postUploadFromChild(deployUrl, c.cookieHeader, { path: 'f/big/manifest' }, { manifest: [bigManifestFile, 'manifest.json'] })
				},
				{
					id: 'refused',
					label: `catalog.json of ${REFUSED_MB} MB, refused as it streams`,
					expect: 413,
					send: () => streamOversized(deployUrl, c.cookieHeader, 'f/big/refused', 'catalog', 'catalog.json', REFUSED_MB * 1024 * 1024)
				}
			];

			// BENCH_UPLOADS=catalog,manifest: only those (a shorter run while looking into one).
			const only = (process.env.BENCH_UPLOADS ?? '').split(',').filter(Boolean);
			for (const u of uploads.filter((x) => only.length === 0 || only.includes(x.id))) {
				const idle = await timeReads(app.url, c.cookieHeader, graphPath, { pairs: IDLE_PAIRS });
				const rssBefore = rssMb(app.pid);
				let rssPeak = rssBefore;
				const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMb(app.pid))), 100);
				const sending = u.send();
				const during = await timeReads(app.url, c.cookieHeader, graphPath, { until: sending, minPairs: 5 });
				const answer = await sending;
				clearInterval(sampler);
				if (answer.status !== u.expect) throw new Error(`${u.id}: ${answer.status}, not ${u.expect}: ${JSON.stringify(answer.body).slice(0, 500)}`);
				// A minute of light traffic, as a server sees between uploads.
				const settleUntil = Date.now() + SETTLE_S * 1000;
				while (Date.now() < settleUntil) {
					await timeReads(app.url, c.cookieHeader, graphPath, { pairs: 1 });
					await sleep(1000);
				}
				const rssAfter = rssMb(app.pid);
				const over = (k: 'login' | 'graph') => percentileOf(during[k], 99) - percentileOf(idle[k], 99);
				rows.push({
					case: u.label,
					database: backend,
					upload_ms: Math.round(answer.ms),
					pairs_in_flight: during.answeredInFlight,
					failures: during.failures.length,
					login_p99_idle_ms: round(percentileOf(idle.login, 99)),
					login_p99_in_flight_ms: round(percentileOf(during.login, 99)),
					graph_p99_idle_ms: round(percentileOf(idle.graph, 99)),
					graph_p99_in_flight_ms: round(percentileOf(during.graph, 99)),
					login_max_in_flight_ms: round(Math.max(...during.login)),
					// Pairs go one after another, so one long stall is one pair: the p99 hides it, the max does not.
					graph_max_in_flight_ms: round(Math.max(...during.graph)),
					rss_before_mb: Math.round(rssBefore),
					rss_peak_mb: Math.round(rssPeak),
					[`rss_after_${SETTLE_S}s_mb`]: Math.round(rssAfter)
				});
				const note = `${u.label}; ${during.answeredInFlight} pairs in flight over ${Math.round(answer.ms)} ms`;
				const goals = !QUICK;
				metrics.push(metric(`upload_${u.id}_login_p99_over_idle_ms`, over('login'), 'ms', backend, { goal: goals ? 100 : null, note }));
				metrics.push(metric(`upload_${u.id}_graph_p99_over_idle_ms`, over('graph'), 'ms', backend, { goal: goals ? 100 : null, note }));
				metrics.push(
					metric(`upload_${u.id}_rss_after_60s_ratio`, rssAfter / rssBefore, 'ratio', backend, {
						goal: goals ? 1.2 : null,
						note: `${Math.round(rssBefore)} MB before, ${Math.round(rssPeak)} MB at the peak, ${Math.round(rssAfter)} MB ${SETTLE_S} s after`
					})
				);
			}
		} finally {
			await app.stop();
			await db.drop();
		}
	}
	rmSync(files, { recursive: true, force: true });
	return {
		name: 'upload-latency',
		description: 'the largest accepted catalog and manifest uploads, and a refused one: GET /login and assets/graph meanwhile, and the server RSS a minute later',
		rows,
		ratios: [],
		environment: { limits: LIMITS, settle_s: SETTLE_S, idle_pairs: IDLE_PAIRS },
		metrics
	};
}
