// Real dbt-core through Tributary against the same dbt run directly, side by side in one run:
//   - provisioning: an engine built cold into an empty engine directory (its own uv cache, so
//     the wheels come from the index), and a cache hit (a pinned lock found installed);
//   - overhead: `dbt build` of the demo project and of a generated 300-model DuckDB project,
//     through the BUILT app (its worker: sandbox, log tailing, progress rows, settlement) and
//     directly (the same engine, the same profile, a fresh DuckDB file each), interleaved; the
//     catalog pass (`dbt docs generate` after the build) is timed apart and left out of the ratio;
//     The app is polled as the run page polls it (every 2 s);
//   - event to API: from dbt writing a node's NodeFinished event (its JSON log, kept with the job
//     directory) to jobs/run_progress showing the node's relation settled, polled every 50 ms in
//     a round of its own.
// Records real_dbt_overhead_ratio_300, real_dbt_catalog_pass_seconds_300,
// engine_provision_cold_seconds, engine_provision_hit_ms, real_dbt_event_latency_p95_ms.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generateProject } from '../src/lib/server/demo/generator';
import { tarGz } from '../src/lib/server/demo/tarball';
import { relationNameAssetPath } from '../src/lib/lineage/relation-path';
import { childEnv } from '../src/lib/server/runner/profiles';
import { EngineCache, engineSettingsFromEnv, type Provisioned } from '../src/lib/server/runner/engine/provision';
import { backends, Client, freshDatabase, percentile, QUICK, startApp } from './app';
import { metric, stat, type BenchResult, type Metric, type Row } from './lib';

const WS = 'bench';
const ENGINE_DIR = path.resolve(process.env.TRIBUTARY_ENGINE_DIR ?? '.cache/engines');
const say = (s: string) => process.stderr.write(`${s}\n`);
const never = new AbortController().signal;

/** A DuckDB project of `n` models in layers over one seed: views, with every third model a table. */
function layeredProject(n: number): Map<string, string> {
	const files = new Map<string, string>();
	files.set('dbt_project.yml', 'name: layered\nversion: "1.0.0"\nconfig-version: 2\nprofile: layered\nmodel-paths: [models]\nseed-paths: [seeds]\n');
	files.set('seeds/base.csv', ['id,amount,category', ...Array.from({ length: 2000 }, (_, i) => `${i + 1},${(i * 37) % 1000},c${i % 7}`)].join('\n') + '\n');
	const width = 30;
	for (let i = 0; i < n; i++) {
		const layer = Math.floor(i / width);
		const mat = i % 3 === 0 ? 'table' : 'view';
		let sql: string;
		if (layer === 0) sql = `select id, amount + ${i} as amount, category from {{ ref('base') }}`;
		else {
			const a = `m${(layer - 1) * width + (i % width)}`;
			const b = `m${(layer - 1) * width + ((i * 7 + 3) % width)}`;
			sql = `select a.id, a.amount + b.amount as amount, a.category\nfrom {{ ref('${a}') }} a\njoin {{ ref('${b}') }} b on a.id = b.id`;
		}
		files.set(`models/m${i}.sql`, `{{ config(materialized='${mat}') }}\n${sql}\n`);
	}
	return files;
}

function writeFiles(dir: string, files: Map<string, string | Uint8Array>): void {
	for (const [rel, text] of files) {
		mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
		writeFileSync(path.join(dir, rel), text);
	}
}

/** Where a build's wall time went: before dbt's first log line, dbt's own span, after its last line. */
interface Phases {
	before: number;
	dbt: number;
	after: number;
}

/** The span of a dbt JSON log, epoch ms. */
function logSpan(lines: string[]): { first: number; last: number } {
	const ts = (l: string) => Date.parse((JSON.parse(l) as { info: { ts: string } }).info.ts);
	return { first: ts(lines[0]), last: ts(lines[lines.length - 1]) };
}

/**
 * `dbt build` straight from the engine, in a fresh project directory (as a job's is) on a DuckDB file that
 * persists across the rounds (as the app's embedded warehouse does): the baseline. Asynchronous, so the
 * app's HTTP connections idle meanwhile are seen closing (a blocked event loop reuses a dead one).
 */
async function directBuild(engine: Provisioned, files: Map<string, string | Uint8Array>, profile: string, warehouseFile: string, schema: string): Promise<{ seconds: number; phases: Phases }> {
	const dir = mkdtempSync(path.join(tmpdir(), 'tributary-bench-dbt-'));
	try {
		writeFiles(dir, files);
		writeFileSync(path.join(dir, 'profiles.yml'), `${profile}:\n  target: bench\n  outputs:\n    bench:\n      type: duckdb\n      path: ${warehouseFile}\n      schema: ${schema}\n      threads: 4\n`);
		const t0 = performance.now();
		const startedAt = Date.now();
		const child = spawn(engine.dbtBin, ['build', '--project-dir', dir, '--profiles-dir', dir, '--log-format-file', 'json'], {
			// The environment the runner gives dbt, so the two sides differ only by what the app does.
			env: childEnv({ home: dir, warehouseEnv: {} }),
			stdio: ['ignore', 'pipe', 'pipe']
		});
		let out = '';
		child.stdout.on('data', (d) => (out = (out + d).slice(-4000)));
		child.stderr.on('data', (d) => (out = (out + d).slice(-4000)));
		const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
		const s = (performance.now() - t0) / 1000;
		// The demo fails one test by design (exit code 1); anything else is a broken baseline.
		if (code !== 0 && code !== 1) throw new Error(`direct dbt build exited ${code}: ${out}`);
		const span = logSpan(readFileSync(path.join(dir, 'logs', 'dbt.log'), 'utf8').split('\n').filter(Boolean));
		return { seconds: s, phases: { before: (span.first - startedAt) / 1000, dbt: (span.last - span.first) / 1000, after: s - (span.last - startedAt) / 1000 } };
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

interface ThroughApp {
	seconds: number;
	phases: Phases;
	catalogSeconds: number | null;
	latencies: number[];
}

/**
 * A build through the app, its progress polled every `pollMs` (the run page polls every 2 s; the
 * latency round polls every 50 ms, which costs the app CPU that dbt would otherwise have, so its
 * wall time is not used for the ratio); what the job took without its catalog pass.
 */
async function buildThroughApp(c: Client, jobsDir: string, scriptPath: string, warehouse: { name: string; defaultDatabase: string }, pollMs: number): Promise<ThroughApp> {
	const queued = await c.post<{ job_id: string }>(`/api/w/${WS}/jobs/run/p/${scriptPath}`, { command: 'build' });
	const id = queued.job_id;
	const seen = new Map<string, number>();
	for (;;) {
		const rows = (await c.ok<{ asset_path: string; status: string }[]>(`/api/w/${WS}/jobs/run_progress/${id}`)).body;
		// When the answer arrived: the latency counted includes the poll's own round trip.
		const now = Date.now();
		for (const r of rows) if (r.status !== 'running' && !seen.has(r.asset_path)) seen.set(r.asset_path, now);
		const job = (await c.ok<{ status: string; started_at: string; completed_at: string; result: { catalog_pass?: { seconds: number } } }>(`/api/w/${WS}/jobs/get/${id}?logs=false`)).body;
		if (job.status !== 'queued' && job.status !== 'running') {
			const total = (Date.parse(job.completed_at) - Date.parse(job.started_at)) / 1000;
			const catalog = job.result.catalog_pass?.seconds ?? null;
			const log = readFileSync(path.join(jobsDir, id, 'logs', 'build', 'dbt.log'), 'utf8').split('\n').filter(Boolean);
			const latencies: number[] = [];
			for (const line of log) {
				const ev = JSON.parse(line) as { info: { name: string; ts: string }; data: { node_info?: { node_relation?: { relation_name?: string } } } };
				if (ev.info.name !== 'NodeFinished') continue;
				const relationName = ev.data.node_info?.node_relation?.relation_name;
				// The same mapping the runner uses, so the key is the progress row's asset path.
				const assetPath = relationName ? relationNameAssetPath(relationName, warehouse) : null;
				const at = assetPath ? seen.get(assetPath) : undefined;
				if (at !== undefined) latencies.push(at - Date.parse(ev.info.ts));
			}
			if (pollMs <= 100 && !latencies.length) throw new Error(`no NodeFinished event matched a progress row: progress showed ${[...seen.keys()].slice(0, 3).join(', ') || 'nothing'}; the log named ${log.length} lines`);
			const span = logSpan(log);
			const started = Date.parse(job.started_at);
			const seconds = total - (catalog ?? 0);
			return { seconds, catalogSeconds: catalog, latencies, phases: { before: (span.first - started) / 1000, dbt: (span.last - span.first) / 1000, after: seconds - (span.last - started) / 1000 } };
		}
		await new Promise((r) => setTimeout(r, pollMs));
	}
}

export async function run(): Promise<BenchResult> {
	const rows: Row[] = [];
	const metrics: Metric[] = [];
	const ratios: BenchResult['ratios'] = [];

	// Provisioning: cold into an empty directory, then the hit a pinned run makes.
	const coldDir = mkdtempSync(path.join(tmpdir(), 'tributary-bench-engines-'));
	say('real-dbt: provisioning dbt-core 1.12 + duckdb cold …');
	const cold = new EngineCache({ ...engineSettingsFromEnv({ ...process.env, TRIBUTARY_ENGINE_DIR: coldDir }), keep: 2 });
	const t0 = performance.now();
	const built = await cold.ensure({ core: '==1.12.*', adapterType: 'duckdb', adapterSpec: null }, { log: () => {}, signal: never, deadline: Date.now() + 3_600_000 });
	const coldS = (performance.now() - t0) / 1000;
	const hits: number[] = [];
	for (let i = 0; i < 20; i++) {
		const h0 = performance.now();
		await cold.ensure({ core: `==${built.coreVersion}`, adapterType: 'duckdb', adapterSpec: `==${built.adapterVersion}` }, { log: () => {}, signal: never, deadline: Date.now() + 60_000 });
		hits.push(performance.now() - h0);
	}
	rmSync(coldDir, { recursive: true, force: true });
	const hit = stat(hits);
	rows.push({ case: 'provision dbt-core + dbt-duckdb, cold (empty engine dir and uv cache)', seconds: coldS.toFixed(1) });
	rows.push({ case: 'provision, cache hit (a pinned lock found installed)', ms: `${hit.median.toFixed(2)} [${hit.min.toFixed(2)}–${hit.max.toFixed(2)}]` });
	const database = 'pglite' as const;
	metrics.push(metric('engine_provision_cold_seconds', coldS, 's', database, { note: `dbt-core ${built.coreVersion} + dbt-duckdb ${built.adapterVersion}, from the package index` }));
	metrics.push(metric('engine_provision_hit_ms', hit, 'ms', database, { goal: 50 }));

	const shared = new EngineCache(engineSettingsFromEnv({ ...process.env, TRIBUTARY_ENGINE_DIR: ENGINE_DIR }));
	const engine = await shared.ensure({ core: `==${built.coreVersion}`, adapterType: 'duckdb', adapterSpec: `==${built.adapterVersion}` }, { log: say, signal: never, deadline: Date.now() + 3_600_000 });

	const demo = await generateProject();
	const projects = [
		{ label: 'demo', path: 'f/bench/shop', files: demo.projectFiles as Map<string, string | Uint8Array>, profile: 'coffee_shop', database: 'demo', schema: 'analytics' },
		...(QUICK ? [] : [{ label: '300', path: 'f/bench/layered', files: layeredProject(300) as Map<string, string | Uint8Array>, profile: 'layered', database: 'bench', schema: 'analytics' }])
	];
	const rounds = QUICK ? 1 : Number(process.env.BENCH_REAL_DBT_ROUNDS ?? 3);
	for (const backend of backends().slice(0, 1)) {
		const db = await freshDatabase(backend, 'realdbt');
		const jobsDir = mkdtempSync(path.join(tmpdir(), 'tributary-bench-jobs-'));
		const directWarehouses = mkdtempSync(path.join(tmpdir(), 'tributary-bench-direct-'));
		const app = await startApp(db, { TRIBUTARY_WORKER: '1', TRIBUTARY_ENGINE_DIR: ENGINE_DIR, TRIBUTARY_JOBS_DIR: jobsDir, TRIBUTARY_KEEP_JOB_DIRS: '1', TRIBUTARY_JOB_TIMEOUT_S: '3600' });
		try {
			const c = await Client.login(app.url);
			await c.post('/api/workspaces', { id: WS, name: WS });
			await c.post(`/api/w/${WS}/folders`, { name: 'bench', readers: [], writers: [] });
			for (const p of projects) {
				await c.post(`/api/w/${WS}/warehouses`, { name: `wh_${p.label}`, default_database: p.database, settings: { type: 'duckdb', schema: p.schema, threads: 4 } });
				const descriptor = `profile: {warehouse: wh_${p.label}}\nengine: {version: "${engine.coreVersion}", adapter_version: "${engine.adapterVersion}"}\n`;
				const d = await c.postForm<{ job_id: string }>(`/api/w/${WS}/scripts/dbt/deploy`, { path: p.path, descriptor, project: tarGz(p.files) });
				for (;;) {
					const j = (await c.ok<{ status: string; result: { error?: string } }>(`/api/w/${WS}/jobs/get/${d.job_id}?logs=false`)).body;
					if (j.status === 'success') break;
					if (j.status !== 'queued' && j.status !== 'running') throw new Error(`deploy of ${p.label} ended ${j.status}: ${j.result.error}`);
					await new Promise((r) => setTimeout(r, 500));
				}
				const direct: number[] = [];
				const through: number[] = [];
				const catalog: number[] = [];
				const latencies: number[] = [];
				const directPhases: Phases[] = [];
				const throughPhases: Phases[] = [];
				for (let r = 0; r < rounds; r++) {
					say(`real-dbt: ${p.label}: round ${r + 1}: direct …`);
					const d = await directBuild(engine, p.files, p.profile, path.join(directWarehouses, `${p.database}.duckdb`), p.schema);
					direct.push(d.seconds);
					directPhases.push(d.phases);
					say(`real-dbt: ${p.label}: round ${r + 1}: through the app …`);
					const t = await buildThroughApp(c, jobsDir, p.path, { name: `wh_${p.label}`, defaultDatabase: p.database }, 2000);
					through.push(t.seconds);
					throughPhases.push(t.phases);
					if (t.catalogSeconds !== null) catalog.push(t.catalogSeconds);
				}
				say(`real-dbt: ${p.label}: event latency round (progress polled every 50 ms) …`);
				latencies.push(...(await buildThroughApp(c, jobsDir, p.path, { name: `wh_${p.label}`, defaultDatabase: p.database }, 50)).latencies);
				const d0 = stat(direct);
				const t1 = stat(through);
				const ratio = t1.median / d0.median;
				rows.push({ case: `${p.label}: dbt build directly (same engine, its own DuckDB file kept across rounds)`, seconds: `${d0.median.toFixed(1)} [${d0.min.toFixed(1)}–${d0.max.toFixed(1)}]` });
				rows.push({ case: `${p.label}: dbt build through Tributary, without the catalog pass`, seconds: `${t1.median.toFixed(1)} [${t1.min.toFixed(1)}–${t1.max.toFixed(1)}]`, ratio: ratio.toFixed(2) });
				const phase = (ps: Phases[]) => (['before', 'dbt', 'after'] as const).map((k) => `${k} ${stat(ps.map((x) => x[k])).median.toFixed(1)}`).join(', ');
				rows.push({ case: `${p.label}: where the time went, directly (s: before dbt's first log line, dbt's span, after)`, seconds: phase(directPhases) });
				rows.push({ case: `${p.label}: where the time went, through Tributary (from the job's start)`, seconds: phase(throughPhases) });
				if (catalog.length) rows.push({ case: `${p.label}: the catalog pass (dbt docs generate + store)`, seconds: stat(catalog).median.toFixed(1) });
				rows.push({ case: `${p.label}: NodeFinished written → jobs/run_progress shows it`, ms: `p50 ${percentile(latencies, 50).toFixed(0)}, p95 ${percentile(latencies, 95).toFixed(0)} (${latencies.length} events)` });
				ratios.push({ name: `real_dbt_overhead_ratio_${p.label}`, value: ratio, note: 'through Tributary / directly, catalog pass apart' });
				if (p.label === '300' || (QUICK && p.label === 'demo')) {
					const suffix = p.label === '300' ? '300' : 'demo';
					metrics.push(metric(`real_dbt_overhead_ratio_${suffix}`, ratio, 'ratio', database, { goal: 1.15, note: `median of ${rounds} interleaved rounds` }));
					if (catalog.length) metrics.push(metric(`real_dbt_catalog_pass_seconds_${suffix}`, stat(catalog), 's', database));
				}
				metrics.push(metric(p.label === 'demo' ? 'real_dbt_event_latency_p95_ms_demo' : 'real_dbt_event_latency_p95_ms', percentile(latencies, 95), 'ms', database, { goal: 500 }));
			}
		} catch (e) {
			say(`the app said, last:\n${app.output().slice(-4000)}`);
			throw e;
		} finally {
			await app.stop();
			await db.drop();
			if (process.env.BENCH_KEEP_JOBS) say(`real-dbt: job directories kept in ${jobsDir}`);
			else rmSync(jobsDir, { recursive: true, force: true });
			rmSync(directWarehouses, { recursive: true, force: true });
		}
	}
	return {
		name: 'real-dbt',
		description: 'real dbt-core through Tributary against the same dbt directly; provisioning cold and on a hit; event to API latency',
		rows,
		ratios,
		environment: { engine: engine.key },
		metrics
	};
}
