// The graph reads a page makes, through the real routes of the BUILT app, on a folder holding
// the generated 3000-model project and 20 producer SQL scripts reading its relations:
//   GET assets/graph?folder=              the folder's asset graph, full fields, as an API client
//                                         calls it (no If-None-Match): cold (the first call after
//                                         the deploys, the graph cache empty) and warm
//   GET assets/graph?folder=&fields=shape the same, shape only (what the pipeline page reads)
//   GET assets/graph?folder= + If-None-Match  a client revalidating its copy: 304
//   GET jobs/dbt_graph/{id}               a preview's own graph (NULL hash), and a recorded run's
//                                         (no snapshot of its own: its version's graph)
//   GET jobs/run_progress/{id}            a recorded run of the whole project: one row per relation
//   the run page's and the pipeline page's data (__data.json)
// All are timed in one interleaved loop after one cold round. Named metrics (BenchResult.metrics):
// graph_<n>_p50_ms (goal ≤ 100 at 3000), graph_<n>_cold_ms, graph_<n>_shape_p50_ms,
// dbt_graph_<n>_p50_ms, run_progress_<n>_p50_ms, one per database.
// BENCH_QUICK: 300 models / 10,000 column edges, 3 runs, no in-process breakdown (under 30 s).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { backends, Client, cpuSeconds, freshDatabase, QUICK, rssMb, setupWorkspace, startApp } from './app';
import { child, metric, stat, type BenchResult, type Metric, type Row } from './lib';
import { benchProject, type BenchProject } from './projects';

const SIZE = QUICK ? { models: 300, edges: 10_000 } : { models: 3000, edges: 200_000 };
const RUNS = Number(process.env.BENCH_RUNS ?? (QUICK ? 3 : 10));
const PRODUCERS = QUICK ? 5 : 20;
const WS = 'bench';
const FOLDER = 'bench';
const SCRIPT = `f/${FOLDER}/project`;

/** GET with the client's session and extra headers, timed like Client.get (to the last byte). */
async function timedGet(c: Client, pathAndQuery: string, headers: Record<string, string> = {}): Promise<{ ms: number; status: number; bytes: number; etag: string | null }> {
	const t0 = performance.now();
	const r = await fetch(`${c.url}${pathAndQuery}`, { headers: { cookie: c.cookieHeader, ...headers } });
	const buf = await r.arrayBuffer();
	return { ms: performance.now() - t0, status: r.status, bytes: buf.byteLength, etag: r.headers.get('etag') };
}

interface ManifestNode {
	resource_type: string;
	schema: string;
	alias?: string;
	name: string;
	columns: Record<string, unknown>;
	config: { materialized?: string };
}

/** 20 producer scripts, each reading two columns of a model spread across the project (a third join every fourth). */
export function producerScripts(p: BenchProject, count = PRODUCERS): { path: string; content: string }[] {
	const manifest = JSON.parse(readFileSync(path.join(p.target, 'manifest.json'), 'utf8')) as { nodes: Record<string, ManifestNode> };
	const models = Object.values(manifest.nodes)
		.filter((n) => n.resource_type === 'model' && n.config.materialized !== 'ephemeral' && Object.keys(n.columns).length >= 2)
		.sort((a, b) => (a.name < b.name ? -1 : 1));
	const step = Math.floor(models.length / count);
	const out: { path: string; content: string }[] = [];
	for (let i = 0; i < count; i++) {
		const m = models[i * step];
		const [a, b] = Object.keys(m.columns);
		const rel = `${m.schema}.${m.alias ?? m.name}`;
		let content = `-- Bench producer ${i}: reads ${rel}.\nATTACH 'ducklake:lake.ducklake' AS lake;\n\nCREATE TABLE lake.bench_t_${i} AS\nSELECT ${a}, ${b}\nFROM ${rel};\n`;
		if (i % 4 === 3) {
			const o = models[(i * step + Math.floor(step / 2)) % models.length];
			const [c] = Object.keys(o.columns);
			const other = `${o.schema}.${o.alias ?? o.name}`;
			content = `-- Bench producer ${i}: reads ${rel} and ${other}.\nATTACH 'ducklake:lake.ducklake' AS lake;\n\nCREATE TABLE lake.bench_t_${i} AS\nSELECT x.${a}, x.${b}, count(*) AS n_${c}\nFROM ${rel} AS x\nCROSS JOIN ${other} AS y\nGROUP BY x.${a}, x.${b};\n`;
		}
		out.push({ path: `f/${FOLDER}/producer_${String(i).padStart(2, '0')}`, content });
	}
	return out;
}

/** Bytes of JSON per field across the answer's assets (and their `dbt` provenance): what the payload is made of. */
function payloadShares(g: Graph, total: number): Record<string, string> {
	const sizes = new Map<string, number>();
	const add = (k: string, v: unknown) => sizes.set(k, (sizes.get(k) ?? 0) + JSON.stringify(v ?? null).length + k.length + 3);
	for (const a of g.assets as Record<string, unknown>[]) {
		for (const [k, v] of Object.entries(a)) {
			if (k === 'dbt' && v && typeof v === 'object') for (const [dk, dv] of Object.entries(v)) add(`assets[].dbt.${dk}`, dv);
			else add(`assets[].${k}`, v);
		}
	}
	for (const k of ['runnables', 'edges', 'dbt_edges'] as const) add(k, g[k]);
	return Object.fromEntries(
		[...sizes]
			.sort((a, b) => b[1] - a[1])
			.slice(0, 8)
			.map(([k, n]) => [k, `${(n / 1e6).toFixed(2)} MB (${((n / total) * 100).toFixed(0)}%)`])
	);
}

interface GraphBreakdown {
	total: number[];
	sql: number[];
	statements: number;
	replacer: number[];
	plain: number[];
	bytes: number;
	analyzed: { total: number[]; sql: number[] };
}

interface Graph {
	assets: unknown[];
	runnables: unknown[];
	edges: unknown[];
	dbt_edges: unknown[];
	dbt_snapshot_job?: string;
}

export async function run(): Promise<BenchResult> {
	const project = await benchProject(SIZE.models, SIZE.edges);
	const producers = producerScripts(project);
	const rows: Row[] = [];
	const ratios: BenchResult['ratios'] = [];
	const metrics: Metric[] = [];
	const n = SIZE.models;
	const environment: Record<string, unknown> = { project: `${SIZE.models} models, ${SIZE.edges} column edges (seed 1)`, producers: PRODUCERS, runs: RUNS };

	for (const backend of backends()) {
		const t0 = Date.now();
		const phase = (what: string) => process.stderr.write(`graph: ${backend}: ${what} (${((Date.now() - t0) / 1000).toFixed(1)} s)\n`);
		phase('starting');
		const db = await freshDatabase(backend, 'graph');
		const app = await startApp(db);
		try {
			const c = await Client.login(app.url);
			phase('app started; deploying');
			await setupWorkspace(c, WS, FOLDER, project.meta.database);
			const read = (f: string) => new Uint8Array(readFileSync(path.join(project.target, f)));
			const files = {
				manifest: read('manifest.json'),
				column_lineage: read('index/dbt.column_lineage.parquet'),
				node_columns: read('index/dbt.node_columns.parquet')
			};
			const d = await c.postForm<{ hash: string; nodes: number; column_edges: number }>(`/api/w/${WS}/scripts/dbt/deploy`, { path: SCRIPT, ...files });
			let lineageEdges = 0;
			for (const p of producers) lineageEdges += (await c.post<{ lineage_edges: number }>(`/api/w/${WS}/scripts/sql/deploy`, p)).lineage_edges;
			const preview = await c.postForm<{ job_id: string }>(`/api/w/${WS}/scripts/dbt/preview`, { path: SCRIPT, ...files });
			const recorded = await c.postForm<{ job_id: string; progress_rows: number; graph_snapshot: boolean; status: string }>(`/api/w/${WS}/jobs/record`, {
				path: SCRIPT,
				run_results: new Uint8Array(readFileSync(path.join(project.target, 'run_results.json'))),
				log: new Uint8Array(readFileSync(path.join(project.dir, 'logs', 'dbt.log')))
			});
			environment[`${backend}_setup`] = {
				deploy: { nodes: d.nodes, column_edges: d.column_edges },
				producer_lineage_edges: lineageEdges,
				recorded_run: { progress_rows: recorded.progress_rows, status: recorded.status, own_snapshot: recorded.graph_snapshot }
			};

			phase('deployed; reading');
			const graphUrl = `/api/w/${WS}/assets/graph?folder=${FOLDER}`;
			// The ETag a revalidating client holds (read before the loop; the graph does not change during it).
			let etag = '';
			const cases: { id: string; label: string; url: string; headers?: () => Record<string, string>; status?: number }[] = [
				{ id: 'graph_folder', label: `assets/graph?folder=${FOLDER}, full fields (${n} models + ${PRODUCERS} producers)`, url: graphUrl },
				{ id: 'graph_shape', label: `assets/graph?folder=${FOLDER}&fields=shape`, url: `${graphUrl}&fields=shape` },
				{ id: 'graph_304', label: 'assets/graph?folder= with If-None-Match: its ETag (304)', url: graphUrl, headers: () => ({ 'if-none-match': etag }), status: 304 },
				{ id: 'dbt_graph_preview', label: "jobs/dbt_graph/{preview}: the preview's own graph", url: `/api/w/${WS}/jobs/dbt_graph/${preview.job_id}` },
				{ id: 'dbt_graph_run', label: "jobs/dbt_graph/{run}: a recorded run (its version's graph)", url: `/api/w/${WS}/jobs/dbt_graph/${recorded.job_id}` },
				{ id: 'run_progress', label: `jobs/run_progress/{run} (${recorded.progress_rows} rows)`, url: `/api/w/${WS}/jobs/run_progress/${recorded.job_id}` },
				{ id: 'run_page', label: "the run page's data (/w/…/run/{run}/__data.json: job, progress, test statuses, the canvas's ETag; the canvas itself is jobs/run_canvas)", url: `/w/${WS}/run/${recorded.job_id}/__data.json` },
				{ id: 'pipeline_page', label: "the pipeline page's data (/w/…/pipeline/{folder}/__data.json: shape graph, canvas, layout)", url: `/w/${WS}/pipeline/${FOLDER}/__data.json` }
			];
			const ms = new Map<string, number[]>(cases.map((x) => [x.id, []]));
			const cold = new Map<string, number>();
			const info = new Map<string, string>();
			const cpu0 = cpuSeconds(app.pid);
			let requests = 0;
			// Round -1 is cold: the first call of each read after the deploys (empty graph cache),
			// in the listed order, so the folder graph's first call is the first request of all.
			for (let i = -1; i < RUNS; i++) {
				for (const x of i % 2 !== 0 ? cases : [...cases].reverse()) {
					const r = await timedGet(c, x.url, x.headers?.() ?? {});
					if (x.id === 'graph_folder' && !etag) {
						etag = r.etag ?? '';
						if (!etag) throw new Error('assets/graph answered without an ETag');
					}
					requests++;
					if (r.status !== (x.status ?? 200)) throw new Error(`GET ${x.url}: ${r.status}, expected ${x.status ?? 200}`);
					if (i < 0) {
						cold.set(x.id, r.ms);
						info.set(x.id, r.status === 304 ? '304, no body' : `${(r.bytes / 1e6).toFixed(2)} MB`);
						continue;
					}
					ms.get(x.id)!.push(r.ms);
				}
			}
			const cpu = cpuSeconds(app.pid) - cpu0;
			environment[`${backend}_server`] = { cpu_seconds_per_request: cpu / requests, rss_mb: Math.round(rssMb(app.pid)) };
			// What one answer is made of, from a warm read.
			const sample = await c.ok<Graph>(graphUrl);
			environment[`${backend}_graph_payload`] = payloadShares(sample.body, sample.bytes);
			info.set('graph_folder', `${sample.body.assets.length} assets, ${sample.body.runnables.length} runnables, ${sample.body.edges.length + sample.body.dbt_edges.length} edges, ${info.get('graph_folder')}`);
			for (const x of cases) rows.push({ case: `${backend} · ${x.label}`, cold_ms: Math.round(cold.get(x.id)!), ms: stat(ms.get(x.id)!), answer: info.get(x.id)! });

			const s = (id: string) => stat(ms.get(id)!);
			const g = s('graph_folder');
			const p = s('run_progress');
			ratios.push({ name: `${backend}: assets/graph / run_progress`, value: g.median / p.median, note: 'a whole graph against one progress poll, same loop' });
			ratios.push({ name: `${backend}: assets/graph cold / warm`, value: cold.get('graph_folder')! / g.median, note: 'the first call builds the answer, later ones are served from the graph cache' });
			const note = `${n} models + ${PRODUCERS} producers, ${RUNS} runs after one cold round`;
			metrics.push(metric(`graph_${n}_p50_ms`, g, 'ms', backend, { goal: n === 3000 ? 100 : null, note: `assets/graph?folder= full fields, no If-None-Match; ${note}` }));
			metrics.push(metric(`graph_${n}_cold_ms`, cold.get('graph_folder')!, 'ms', backend, { note: 'the first assets/graph?folder= after the deploys (graph cache empty)' }));
			metrics.push(metric(`graph_${n}_shape_p50_ms`, s('graph_shape'), 'ms', backend, { note: `assets/graph?folder=&fields=shape; ${note}` }));
			metrics.push(metric(`graph_${n}_304_p50_ms`, s('graph_304'), 'ms', backend, { note: 'assets/graph?folder= revalidated with If-None-Match (304)' }));
			metrics.push(metric(`dbt_graph_${n}_p50_ms`, s('dbt_graph_run'), 'ms', backend, { note: `jobs/dbt_graph/{recorded run} (its version's graph), full fields; ${note}` }));
			metrics.push(metric(`dbt_graph_${n}_cold_ms`, cold.get('dbt_graph_run')!, 'ms', backend, { note: 'the first jobs/dbt_graph/{run} (graph cache empty)' }));
			metrics.push(metric(`dbt_graph_preview_${n}_p50_ms`, s('dbt_graph_preview'), 'ms', backend, { note: "jobs/dbt_graph/{preview}: the preview's own graph" }));
			metrics.push(metric(`run_progress_${n}_p50_ms`, p, 'ms', backend, { note: `jobs/run_progress/{run}, ${recorded.progress_rows} rows` }));
			metrics.push(metric(`run_page_data_${n}_p50_ms`, s('run_page'), 'ms', backend, { note: "the run page's __data.json" }));
			metrics.push(metric(`pipeline_page_data_${n}_p50_ms`, s('pipeline_page'), 'ms', backend, { note: "the pipeline page's __data.json" }));
			metrics.push(metric(`pipeline_page_data_${n}_cold_ms`, cold.get('pipeline_page')!, 'ms', backend, { note: "the first pipeline page __data.json (graph and canvas caches empty)" }));

			if (QUICK) continue;
			// Where the folder graph's time goes when it is BUILT (the cache off: what a cold call
			// pays), in one process on the same database, server stopped.
			await app.stop();
			const b = await child<GraphBreakdown>(
				'graph',
				{
					...(backend === 'pglite' ? { 'data-dir': (db.openArgs as { dataDir: string }).dataDir } : { url: db.url }),
					ws: WS,
					folder: FOLDER,
					runs: Number(process.env.BENCH_CHILD_RUNS ?? 5)
				},
				{ TRIBUTARY_GRAPH_CACHE_MB: '0' }
			);
			const sqlMs = stat(b.sql).median;
			const total = stat(b.total).median;
			rows.push({
				case: `${backend} · assets/graph built in-process (cache off): unpinnedAssetGraph + the route's JSON.stringify`,
				ms: stat(b.total.map((t, i) => t + b.replacer[i])),
				answer: `SQL ${sqlMs.toFixed(0)} ms (${b.statements} statements), assembly ${(total - sqlMs).toFixed(0)} ms, stringify ${stat(b.replacer).median.toFixed(0)} ms with jsonSafe's replacer / ${stat(b.plain).median.toFixed(0)} ms plain; ${(b.bytes / 1e6).toFixed(2)} MB`
			});
			rows.push({
				case: `${backend} · assets/graph built in-process after ANALYZE (cache off): unpinnedAssetGraph`,
				ms: stat(b.analyzed.total),
				answer: `SQL ${stat(b.analyzed.sql).median.toFixed(0)} ms, assembly ${(stat(b.analyzed.total).median - stat(b.analyzed.sql).median).toFixed(0)} ms`
			});
		} finally {
			await app.stop();
			await db.drop();
		}
	}
	return {
		name: 'graph',
		description: `the graph reads of the built app, median [min–max] ms of ${RUNS} interleaved runs after one cold round (cold_ms)`,
		rows,
		ratios,
		environment,
		metrics
	};
}
