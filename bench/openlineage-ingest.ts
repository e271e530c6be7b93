// OpenLineage ingest under load, against the BUILT app: 8 concurrent senders (each its own token,
// as separate tools would be) post RunEvents over HTTP as fast as they are answered, each event
// a START or COMPLETE of a run of one of 200 jobs, reading one relation of the generated
// 3000-model project (named by the warehouse's declared OpenLineage namespace) and writing a
// file, with a columnLineage facet of 20 column edges. Meanwhile one reader re-reads the
// canvas's two reads, assets/graph?folder= and assets/column_lineage for a relation of the
// project, one at a time; the same reads measured idle just before give the ratio.
// Named metrics: openlineage_ingest_events_per_s (goal ≥ 2,000 on Postgres),
// openlineage_ingest_p99_ms (goal ≤ 50), reads_under_ol_ingest_ratio (the worse of the two reads'
// p50 under ingest over idle; goal ≤ 1.5). The per-token rate limit is raised for the run
// (TRIBUTARY_OPENLINEAGE_RATE): this measures the receiver, not the limiter.
// BENCH_QUICK: a 200-model project and 5 s windows (a smoke run).
import { randomUUID } from 'node:crypto';
import { backends, Client, cpuSeconds, freshDatabase, percentile, postgresBackendCpu, QUICK, setupWorkspace, startApp, uploadTarget } from './app';
import path from 'node:path';
import { FIXTURES_DIR, metric, type BenchResult, type Metric, type Row } from './lib';
import { benchProject } from './projects';

const SIZE = QUICK ? { models: 200, edges: 5_000 } : { models: 3000, edges: 200_000 };
const SENDERS = Number(process.env.BENCH_OL_SENDERS ?? 8);
const WINDOW_S = Number(process.env.BENCH_OL_S ?? (QUICK ? 5 : 30));
const IDLE_READS = QUICK ? 10 : 40;
const JOBS = 200;
const EDGES = 20;
const WS = 'bench';
const FOLDER = 'bench';
const SCRIPT = 'f/bench/project';
const NAMESPACE = 'postgres://warehouse.bench:5432';
const PRODUCER = 'https://github.com/OpenLineage/OpenLineage/tree/1.54.0/client/python';
const COLUMN_LINEAGE_URL = 'https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet';

/** One event of job `j`: START or COMPLETE of a run, 20 column edges from relation `rel` into the job's file. */
function eventOf(j: number, rel: { namespace: string; name: string }, type: 'START' | 'COMPLETE', runId: string): string {
	const fields: Record<string, unknown> = {};
	for (let i = 0; i < EDGES; i++) {
		fields[`out_${i}`] = { inputFields: [{ namespace: rel.namespace, name: rel.name, field: `col_${i}`, transformations: [{ type: 'DIRECT', subtype: i % 3 ? 'IDENTITY' : 'TRANSFORMATION' }] }] };
	}
	return JSON.stringify({
		eventType: type,
		eventTime: new Date().toISOString(),
		producer: PRODUCER,
		schemaURL: 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent',
		run: { runId },
		job: { namespace: 'airflow://bench', name: `dag_${j % 20}.task_${j}` },
		inputs: [rel],
		outputs: [{ namespace: 's3://bench-exports', name: `job_${j}/out.parquet`, facets: { columnLineage: { _producer: PRODUCER, _schemaURL: COLUMN_LINEAGE_URL, fields } } }]
	});
}

interface SenderOut {
	latencies: number[];
	errors: string[];
}

/** One sender: a run at a time (START, then COMPLETE), as fast as answered, until `until`. */
async function sender(url: string, token: string, index: number, rels: { namespace: string; name: string }[], until: number): Promise<SenderOut> {
	const out: SenderOut = { latencies: [], errors: [] };
	let n = 0;
	while (performance.now() < until) {
		const j = (index + SENDERS * n++) % JOBS;
		const runId = randomUUID();
		for (const type of ['START', 'COMPLETE'] as const) {
			const body = eventOf(j, rels[j % rels.length], type, runId);
			const t0 = performance.now();
			const r = await fetch(`${url}/api/w/${WS}/openlineage/api/v1/lineage`, {
				method: 'POST',
				headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
				body
			});
			const text = await r.text();
			out.latencies.push(performance.now() - t0);
			if (r.status !== 201 && out.errors.length < 20) out.errors.push(`${r.status} ${text.slice(0, 200)}`);
			else if (r.status !== 201) out.errors.push('');
		}
	}
	return out;
}

/** The two canvas reads, one at a time, until `until` (or `count` of each); their latencies. */
async function reader(c: Client, graphUrl: string, lineageUrl: string, opts: { until?: number; count?: number }): Promise<{ graph: number[]; lineage: number[] }> {
	const out = { graph: [] as number[], lineage: [] as number[] };
	for (let i = 0; ; i++) {
		if (opts.until !== undefined && performance.now() >= opts.until) break;
		if (opts.count !== undefined && i >= opts.count) break;
		out.graph.push((await c.ok(graphUrl)).ms);
		out.lineage.push((await c.ok(lineageUrl)).ms);
	}
	return out;
}

export async function run(): Promise<BenchResult> {
	const project = await benchProject(SIZE.models, SIZE.edges);
	const rows: Row[] = [];
	const metrics: Metric[] = [];
	const ratios: BenchResult['ratios'] = [];
	const environment: Record<string, unknown> = { project: `${SIZE.models} models, ${SIZE.edges} column edges (seed 1)`, senders: SENDERS, window_s: WINDOW_S, jobs: JOBS, edges_per_event: EDGES };
	for (const backend of backends()) {
		const db = await freshDatabase(backend, 'ol_ingest');
		const app = await startApp(db, { TRIBUTARY_OPENLINEAGE_RATE: '1000000', TRIBUTARY_OPENLINEAGE_SCHEMAS: process.env.TRIBUTARY_OPENLINEAGE_SCHEMAS ?? path.join(FIXTURES_DIR, '..', 'reference', 'openlineage') });
		try {
			const c = await Client.login(app.url);
			await setupWorkspace(c, WS, FOLDER, project.meta.database, { openlineage_namespace: NAMESPACE });
			await uploadTarget(c, WS, 'deploy', SCRIPT, project.target);
			await c.post(`/api/w/${WS}/openlineage/namespaces`, { namespace: 'airflow://bench', folder: FOLDER });
			const tokens: string[] = [];
			for (let i = 0; i < SENDERS; i++) tokens.push((await c.post<{ token: string }>(`/api/w/${WS}/tokens`, { label: `sender ${i}`, scopes: ['lineage:write'] })).token);
			const graph = await c.ok<{ assets: { kind: string; path: string }[] }>(`/api/w/${WS}/assets/graph?folder=${FOLDER}&fields=shape`);
			const relations = graph.body.assets.filter((a) => a.kind === 'dbt').map((a) => a.path);
			// main/<schema>/<name> → <database>.<schema>.<name>, as the warehouse's integration names it.
			const rels = relations.slice(0, JOBS).map((p) => {
				const [, schema, name] = p.split('/');
				return { namespace: NAMESPACE, name: `${project.meta.database}.${schema}.${name}` };
			});
			const pick = [...project.meta.components].sort((a, b) => a.target - b.target)[1] ?? project.meta.components[0];
			const graphUrl = `/api/w/${WS}/assets/graph?folder=${FOLDER}&fields=shape`;
			const lineageUrl = `/api/w/${WS}/assets/column_lineage?asset_path=${encodeURIComponent(pick.assetPath)}`;
			// Every job once (their versions and usage exist), then the idle reads.
			// Every job once before anything is measured: a job's first event stores its version and
			// usage (what moves the graph's cache key); the window measures the steady state after.
			await Promise.all(
				tokens.map(async (t, i) => {
					for (let j = i; j < JOBS; j += SENDERS) {
						const r = await fetch(`${app.url}/api/w/${WS}/openlineage/api/v1/lineage`, {
							method: 'POST',
							headers: { authorization: `Bearer ${t}`, 'content-type': 'application/json' },
							body: eventOf(j, rels[j % rels.length], 'COMPLETE', randomUUID())
						});
						if (r.status !== 201) throw new Error(`warming job ${j}: ${r.status} ${await r.text()}`);
					}
				})
			);
			await reader(c, graphUrl, lineageUrl, { count: 3 });
			const idle = await reader(c, graphUrl, lineageUrl, { count: IDLE_READS });
			const pgCpu0 = db.url ? await postgresBackendCpu(db.url) : new Map<number, number>();
			const cpu0 = cpuSeconds(app.pid);
			const t0 = performance.now();
			const until = t0 + WINDOW_S * 1000;
			// BENCH_OL_READER=0: senders alone (what one event costs the server, without the reads).
			const readerOn = process.env.BENCH_OL_READER !== '0';
			const [busy, ...sent] = await Promise.all([
				readerOn ? reader(c, graphUrl, lineageUrl, { until }) : Promise.resolve({ graph: [NaN], lineage: [NaN] }),
				...tokens.map((t, i) => sender(app.url, t, i, rels, until))
			]);
			const elapsed = (performance.now() - t0) / 1000;
			const appCpu = cpuSeconds(app.pid) - cpu0;
			let pgCpu = 0;
			if (db.url) for (const [pid, t] of await postgresBackendCpu(db.url)) pgCpu += t - (pgCpu0.get(pid) ?? 0);
			const latencies = sent.flatMap((s) => s.latencies);
			const errors = sent.flatMap((s) => s.errors);
			const perS = latencies.length / elapsed;
			const p99 = percentile(latencies, 99);
			const ratioGraph = percentile(busy.graph, 50) / percentile(idle.graph, 50);
			const ratioLineage = percentile(busy.lineage, 50) / percentile(idle.lineage, 50);
			const ratio = Math.max(ratioGraph, ratioLineage);
			rows.push({
				case: `${backend}: ${SENDERS} senders for ${WINDOW_S} s`,
				events: latencies.length,
				events_per_s: Math.round(perS),
				p50_ms: percentile(latencies, 50).toFixed(1),
				p99_ms: p99.toFixed(1),
				errors: errors.length,
				app_cpu_ms_per_event: ((appCpu * 1000) / latencies.length).toFixed(2),
				pg_cpu_ms_per_event: db.url ? ((pgCpu * 1000) / latencies.length).toFixed(2) : ''
			});
			rows.push({
				case: `${backend}: reads idle → under ingest (p50)`,
				graph_ms: `${percentile(idle.graph, 50).toFixed(1)} → ${percentile(busy.graph, 50).toFixed(1)} (${busy.graph.length} reads)`,
				column_lineage_ms: `${percentile(idle.lineage, 50).toFixed(1)} → ${percentile(busy.lineage, 50).toFixed(1)} (${busy.lineage.length} reads)`
			});
			if (errors.length) {
				environment[`${backend}_errors`] = errors.slice(0, 20);
				process.stderr.write(`openlineage-ingest: ${backend}: ${errors.length} events refused, first: ${errors[0]}\n`);
			}
			ratios.push({ name: `${backend}: assets/graph p50 under ingest / idle`, value: ratioGraph, note: 'same run, same reader' });
			ratios.push({ name: `${backend}: column_lineage p50 under ingest / idle`, value: ratioLineage, note: 'same run, same reader' });
			const goals = backend === 'postgres';
			metrics.push(metric('openlineage_ingest_events_per_s', perS, 'events/s', backend, { goal: goals ? 2000 : null, better: 'higher', note: `${SENDERS} senders, ${EDGES} column edges per event, ${errors.length} errors` }));
			metrics.push(metric('openlineage_ingest_p99_ms', p99, 'ms', backend, { goal: goals ? 50 : null }));
			metrics.push(metric('reads_under_ol_ingest_ratio', ratio, 'x', backend, { goal: goals ? 1.5 : null, note: `assets/graph ${ratioGraph.toFixed(2)}, column_lineage ${ratioLineage.toFixed(2)}` }));
		} finally {
			await app.stop();
			await db.drop();
		}
	}
	return { name: 'openlineage-ingest', description: 'OpenLineage events received over HTTP from 8 senders, and the canvas reads meanwhile', rows, ratios, environment, metrics };
}
