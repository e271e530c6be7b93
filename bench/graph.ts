// The graph reads a page makes, through the real routes of the BUILT app, on a folder holding
// the generated 3000-model project and 20 producer SQL scripts reading its relations:
//   GET assets/graph?folder=         the folder's asset graph (the pipeline canvas)
//   GET jobs/dbt_graph/{id}           a preview's own graph (NULL hash), and a recorded run's
//                                     (no snapshot of its own: its version's graph)
//   GET jobs/run_progress/{id}        a recorded run of the whole project: one row per relation
// All four are timed in one interleaved loop.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { backends, Client, cpuSeconds, freshDatabase, QUICK, rssMb, setupWorkspace, startApp, type Figure } from './app';
import { child, stat, type BenchResult, type Row } from './lib';
import { benchProject, type BenchProject } from './projects';

const SIZE = QUICK ? { models: 1000, edges: 50_000 } : { models: 3000, edges: 200_000 };
const RUNS = Number(process.env.BENCH_RUNS ?? (QUICK ? 3 : 10));
const PRODUCERS = 20;
const WS = 'bench';
const FOLDER = 'bench';
const SCRIPT = `f/${FOLDER}/project`;

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

export async function run(): Promise<BenchResult & { figures: Figure[] }> {
	const project = await benchProject(SIZE.models, SIZE.edges);
	const producers = producerScripts(project);
	const rows: Row[] = [];
	const ratios: BenchResult['ratios'] = [];
	const figures: Figure[] = [];
	const environment: Record<string, unknown> = { project: `${SIZE.models} models, ${SIZE.edges} column edges (seed 1)`, producers: PRODUCERS, runs: RUNS };

	for (const backend of backends()) {
		process.stderr.write(`graph: ${backend}: deploying …\n`);
		const db = await freshDatabase(backend, 'graph');
		const app = await startApp(db);
		try {
			const c = await Client.login(app.url);
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

			const cases = [
				{ id: 'graph_folder', label: `assets/graph?folder=${FOLDER} (${SIZE.models} models + ${PRODUCERS} producers)`, url: `/api/w/${WS}/assets/graph?folder=${FOLDER}` },
				{ id: 'dbt_graph_preview', label: 'jobs/dbt_graph/{preview}: the preview\'s own graph', url: `/api/w/${WS}/jobs/dbt_graph/${preview.job_id}` },
				{ id: 'dbt_graph_run', label: 'jobs/dbt_graph/{run}: a recorded run (its version\'s graph)', url: `/api/w/${WS}/jobs/dbt_graph/${recorded.job_id}` },
				{ id: 'run_progress', label: `jobs/run_progress/{run} (${recorded.progress_rows} rows)`, url: `/api/w/${WS}/jobs/run_progress/${recorded.job_id}` },
				{ id: 'run_page', label: "the run page's data (/w/…/run/{run}/__data.json: job, progress, graph, canvas)", url: `/w/${WS}/run/${recorded.job_id}/__data.json` }
			];
			const ms = new Map<string, number[]>(cases.map((x) => [x.id, []]));
			const info = new Map<string, string>();
			const cpu0 = cpuSeconds(app.pid);
			let requests = 0;
			for (let i = -1; i < RUNS; i++) {
				for (const x of i % 2 === 0 ? cases : [...cases].reverse()) {
					const r = await c.ok<Graph | unknown[]>(x.url);
					requests++;
					if (i < 0) {
						const b = r.body as Graph;
						if (x.id === 'graph_folder') environment.graph_payload = payloadShares(b, r.bytes);
						info.set(
							x.id,
							x.id === 'run_page'
								? `${(r.bytes / 1e6).toFixed(2)} MB`
								: Array.isArray(r.body)
								? `${r.body.length} rows, ${(r.bytes / 1e6).toFixed(2)} MB`
								: `${b.assets.length} assets, ${b.runnables.length} runnables, ${b.edges.length + b.dbt_edges.length} edges, ${(r.bytes / 1e6).toFixed(2)} MB`
						);
						continue;
					}
					ms.get(x.id)!.push(r.ms);
				}
			}
			const cpu = cpuSeconds(app.pid) - cpu0;
			environment[`${backend}_server`] = { cpu_seconds_per_request: cpu / requests, rss_mb: Math.round(rssMb(app.pid)) };
			for (const x of cases) rows.push({ case: `${backend} · ${x.label}`, ms: stat(ms.get(x.id)!), answer: info.get(x.id)! });
			const g = stat(ms.get('graph_folder')!).median;
			const p = stat(ms.get('run_progress')!).median;
			ratios.push({ name: `${backend}: assets/graph / run_progress`, value: g / p, note: 'a whole graph against one progress poll, same loop' });
			figures.push({ name: 'graph_3000_p50_ms', value: g, unit: 'ms', goal: '≤ 100', met: g <= 100, database: backend });
			figures.push({ name: 'dbt_graph_preview_p50_ms', value: stat(ms.get('dbt_graph_preview')!).median, unit: 'ms', goal: '', met: null, database: backend });
			figures.push({ name: 'dbt_graph_run_p50_ms', value: stat(ms.get('dbt_graph_run')!).median, unit: 'ms', goal: '', met: null, database: backend });
			figures.push({ name: 'run_progress_3000_p50_ms', value: p, unit: 'ms', goal: '', met: null, database: backend });
			figures.push({ name: 'run_page_data_p50_ms', value: stat(ms.get('run_page')!).median, unit: 'ms', goal: '', met: null, database: backend });

			// Where the folder graph's time goes: in one process on the same database, server stopped.
			await app.stop();
			const b = await child<GraphBreakdown>('graph', {
				...(backend === 'pglite' ? { 'data-dir': (db.openArgs as { dataDir: string }).dataDir } : { url: db.url }),
				ws: WS,
				folder: FOLDER,
				runs: QUICK ? 3 : 5
			});
			const sqlMs = stat(b.sql).median;
			const total = stat(b.total).median;
			rows.push({
				case: `${backend} · assets/graph in-process: unpinnedAssetGraph + the route's JSON.stringify`,
				ms: stat(b.total.map((t, i) => t + b.replacer[i])),
				answer: `SQL ${sqlMs.toFixed(0)} ms (${b.statements} statements), assembly ${(total - sqlMs).toFixed(0)} ms, stringify ${stat(b.replacer).median.toFixed(0)} ms with jsonSafe's replacer / ${stat(b.plain).median.toFixed(0)} ms plain; ${(b.bytes / 1e6).toFixed(2)} MB`
			});
			rows.push({
				case: `${backend} · assets/graph in-process after ANALYZE: unpinnedAssetGraph`,
				ms: stat(b.analyzed.total),
				answer: `SQL ${stat(b.analyzed.sql).median.toFixed(0)} ms, assembly ${(stat(b.analyzed.total).median - stat(b.analyzed.sql).median).toFixed(0)} ms`
			});
			ratios.push({
				name: `${backend}: assets/graph over HTTP / in-process (read + stringify)`,
				value: g / stat(b.total.map((t, i) => t + b.replacer[i])).median,
				note: 'the rest is adapter-node, the session check and moving 13 MB over loopback'
			});
		} finally {
			await app.stop();
			await db.drop();
		}
	}
	return {
		name: 'graph',
		description: `the graph reads of the built app, median [min–max] ms of ${RUNS} interleaved runs after one warm-up`,
		rows,
		ratios,
		environment,
		figures
	};
}
