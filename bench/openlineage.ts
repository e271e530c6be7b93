// The OpenLineage export through the BUILT app, on the generated 3000-model project (200,000
// column edges) and 20 producer scripts reading its relations:
//   GET dbt/openlineage?path=        the version's events, streamed as NDJSON: time to the first
//                                    byte and to the last, events and bytes
//   GET jobs/openlineage/{id}        a recorded run of the whole project (START + end per node)
//   GET assets/graph?folder=         the folder's asset graph, full fields, in the same loop (the
//                                    ratio says what the export costs against the read a page makes)
// Named metrics: openlineage_export_<n>_seconds (goal ≤ 3 at 3000), openlineage_export_<n>_cpu_seconds
// (the app's CPU, with its Postgres backends', for one export), openlineage_export_<n>_first_byte_ms,
// openlineage_run_<n>_seconds, one per database.
// BENCH_QUICK: 300 models / 10,000 column edges, 2 runs (a few seconds once the app is up).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { backends, Client, cpuSeconds, freshDatabase, postgresBackendCpu, QUICK, setupWorkspace, startApp } from './app';
import { producerScripts } from './graph';
import { metric, stat, type BenchResult, type Metric, type Row } from './lib';
import { benchProject } from './projects';

const SIZE = QUICK ? { models: 300, edges: 10_000 } : { models: 3000, edges: 200_000 };
const RUNS = Number(process.env.BENCH_RUNS ?? (QUICK ? 2 : 5));
const PRODUCERS = QUICK ? 5 : 20;
const WS = 'bench';
const FOLDER = 'bench';
const SCRIPT = `f/${FOLDER}/project`;

interface Streamed {
	firstByteMs: number;
	ms: number;
	bytes: number;
	lines: number;
	status: number;
}

/** GET read as a stream: when the first body byte arrived, when the last did, how many lines. */
async function streamedGet(c: Client, pathAndQuery: string): Promise<Streamed> {
	const t0 = performance.now();
	const r = await fetch(`${c.url}${pathAndQuery}`, { headers: { cookie: c.cookieHeader } });
	const reader = r.body!.getReader();
	let firstByteMs = NaN;
	let bytes = 0;
	let lines = 0;
	for (;;) {
		const { done, value } = await reader.read();
		if (done) break;
		if (Number.isNaN(firstByteMs)) firstByteMs = performance.now() - t0;
		bytes += value.byteLength;
		for (let i = 0; i < value.length; i++) if (value[i] === 10) lines++;
	}
	return { firstByteMs, ms: performance.now() - t0, bytes, lines, status: r.status };
}

export async function run(): Promise<BenchResult> {
	const project = await benchProject(SIZE.models, SIZE.edges);
	const producers = producerScripts(project, PRODUCERS);
	const rows: Row[] = [];
	const ratios: BenchResult['ratios'] = [];
	const metrics: Metric[] = [];
	const n = SIZE.models;
	const environment: Record<string, unknown> = { project: `${SIZE.models} models, ${SIZE.edges} column edges (seed 1)`, producers: PRODUCERS, runs: RUNS };

	for (const backend of backends()) {
		const db = await freshDatabase(backend, 'openlineage');
		const app = await startApp(db);
		try {
			const c = await Client.login(app.url);
			await setupWorkspace(c, WS, FOLDER, project.meta.database);
			const read = (f: string) => new Uint8Array(readFileSync(path.join(project.target, f)));
			const d = await c.postForm<{ hash: string; nodes: number; column_edges: number }>(`/api/w/${WS}/scripts/dbt/deploy`, {
				path: SCRIPT,
				manifest: read('manifest.json'),
				column_lineage: read('index/dbt.column_lineage.parquet'),
				node_columns: read('index/dbt.node_columns.parquet')
			});
			for (const p of producers) await c.post(`/api/w/${WS}/scripts/sql/deploy`, p);
			const recorded = await c.postForm<{ job_id: string }>(`/api/w/${WS}/jobs/record`, {
				path: SCRIPT,
				run_results: new Uint8Array(readFileSync(path.join(project.target, 'run_results.json')))
			});
			const exportUrl = `/api/w/${WS}/dbt/openlineage?path=${encodeURIComponent(SCRIPT)}`;
			const runUrl = `/api/w/${WS}/jobs/openlineage/${recorded.job_id}`;
			const graphUrl = `/api/w/${WS}/assets/graph?folder=${FOLDER}`;

			const exports: Streamed[] = [];
			const runs: Streamed[] = [];
			const graphs: number[] = [];
			const cpus: number[] = [];
			// CPU seconds one export costs the app and (Postgres) its backends: the work itself,
			// whatever else the machine is doing (wall times here move with the load average).
			const pgCpu = async () => (backend === 'postgres' ? [...(await postgresBackendCpu(db.url!)).values()].reduce((a, b) => a + b, 0) : 0);
			for (let i = 0; i < RUNS; i++) {
				const cpu0 = cpuSeconds(app.pid) + (await pgCpu());
				const e = await streamedGet(c, exportUrl);
				cpus.push(cpuSeconds(app.pid) + (await pgCpu()) - cpu0);
				const r = await streamedGet(c, runUrl);
				const g = await c.ok(graphUrl);
				if (e.status !== 200 || r.status !== 200) throw new Error(`openlineage reads answered ${e.status} / ${r.status}`);
				exports.push(e);
				runs.push(r);
				graphs.push(g.ms);
			}
			const total = stat(exports.map((e) => e.ms / 1000));
			const first = stat(exports.map((e) => e.firstByteMs));
			const runS = stat(runs.map((r) => r.ms / 1000));
			const graph = stat(graphs);
			const cpu = stat(cpus);
			const load = (await import('node:os')).loadavg()[0];
			const events = exports[0].lines;
			environment[`${backend}_setup`] = { nodes: d.nodes, column_edges: d.column_edges, events, export_mb: +(exports[0].bytes / 1e6).toFixed(1), run_events: runs[0].lines };
			rows.push({ case: `${backend}: dbt/openlineage (${events} events, ${(exports[0].bytes / 1e6).toFixed(1)} MB)`, value: `${total.median.toFixed(2)} s [${total.min.toFixed(2)}–${total.max.toFixed(2)}]` });
			rows.push({ case: `${backend}: dbt/openlineage CPU of the app${backend === 'postgres' ? ' and its backends' : ''}`, value: `${cpu.median.toFixed(2)} s [${cpu.min.toFixed(2)}–${cpu.max.toFixed(2)}] (load average ${load.toFixed(1)})` });
			rows.push({ case: `${backend}: dbt/openlineage first byte`, value: `${first.median.toFixed(0)} ms [${first.min.toFixed(0)}–${first.max.toFixed(0)}]` });
			rows.push({ case: `${backend}: jobs/openlineage (${runs[0].lines} events)`, value: `${runS.median.toFixed(2)} s [${runS.min.toFixed(2)}–${runS.max.toFixed(2)}]` });
			rows.push({ case: `${backend}: assets/graph?folder= (same loop)`, value: `${graph.median.toFixed(0)} ms` });
			ratios.push({ name: `${backend}: dbt/openlineage / assets/graph`, value: (total.median * 1000) / graph.median, note: 'the whole export against the full-fields folder graph, same loop' });
			ratios.push({ name: `${backend}: first byte / last byte`, value: first.median / (total.median * 1000), note: 'how early the stream starts' });
			metrics.push(metric(`openlineage_export_${n}_seconds`, total, 's', backend, { goal: n === 3000 ? 3 : null, note: `dbt/openlineage streamed to the last byte: ${events} events, ${(exports[0].bytes / 1e6).toFixed(1)} MB` }));
			metrics.push(metric(`openlineage_export_${n}_cpu_seconds`, cpu, 's', backend, { note: `CPU of the app process${backend === 'postgres' ? ' and its Postgres backends' : ' (PGlite runs inside it)'} for one export; load average ${load.toFixed(1)} during the run` }));
			metrics.push(metric(`openlineage_export_${n}_first_byte_ms`, first, 'ms', backend, { note: 'dbt/openlineage: the first body byte' }));
			metrics.push(metric(`openlineage_run_${n}_seconds`, runS, 's', backend, { note: `jobs/openlineage of a recorded run of the whole project: ${runs[0].lines} events` }));
		} finally {
			await app.stop();
			await db.drop();
		}
	}
	return {
		name: 'openlineage',
		description: `The OpenLineage export of a ${SIZE.models}-model version over HTTP, streamed`,
		rows,
		ratios,
		environment,
		metrics
	};
}
