// Polling under load: 200 simulated run-page viewers against the BUILT app while a real run job
// builds the generated 3000-model project through the app's own worker (in the server process,
// as `npm start` runs it) with DBT_BIN pointing at tests/support/fake-dbt/dbt.mjs, which replays
// the generator's recorded `dbt build` JSON log (37,883 events for 3000 models) at a speed set so
// the run streams progress for the whole window.
//
// Viewers do what the run page's live half does (src/lib/state/run-live.svelte.ts, see
// bench/child/viewers.ts): one request every 2 s, jobs/get?logs=false&progress_since=<cursor>
// (the job without its log, and only the progress rows changed since the last answer, merged).
// Modes, each in its own window on its own run (BENCH_POLL_MODES, default progress,page; `page`
// goes last because an overloaded server keeps working through abandoned requests after its
// window):
//   progress — pages opened before the window: the polls only, from the progress and cursor read
//              before the window;
//   page     — pages opened during the window (a ramp): the run page's data on opening
//              (GET /w/{ws}/run/{id}/__data.json: job, progress and its cursor, the canvas's
//              ETag; then GET jobs/run_canvas/{id} when it names bytes the viewer lacks), then the polls; the page's graph re-read backoff (settled at
//              once: the run already has progress), and the data read once more if the run ends;
//   backoff  — (opt-in) GET jobs/dbt_graph/{id} re-fetched with backoff 1 s, 2 s, 4 s, … capped
//              at 16 s for the whole window besides the polls: a page that never settles.
// Requests served, errors (must be 0), p50/p99 latency, server CPU (/proc/<pid>/stat; plus the
// Postgres backends' on Postgres). Named metrics: polling_p99_ms (goal ≤ 100), polling_p50_ms,
// polling_requests and polling_cpu_ms_per_request from the `progress` window (viewers with the
// page open: the goal's scenario); polling_errors (goal 0) over every window; and from the
// `page` window run_page_open_p50_ms / _p99_ms and polling_with_page_opens_p99_ms.
// BENCH_QUICK: a 200-model project, 40 viewers, two 5 s windows (a smoke run).
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { tarGz } from '../src/lib/server/demo/tarball';
import { backends, Client, cpuSeconds, freshDatabase, machineCpu, percentile, postgresBackendCpu, QUICK, rssMb, setupWorkspace, startApp, uploadTarget } from './app';
import { child, metric, stat, type BenchResult, type Metric, type Row } from './lib';
import { benchProject, type BenchProject } from './projects';

const SIZE = QUICK ? { models: 200, edges: 5_000 } : { models: 3000, edges: 200_000 };
const VIEWERS = Number(process.env.BENCH_VIEWERS ?? (QUICK ? 40 : 200));
const WINDOW_S = Number(process.env.BENCH_POLL_S ?? (QUICK ? 5 : 60));
const RAMP_S = Number(process.env.BENCH_RAMP_S ?? (QUICK ? 1 : 5));
const CAP_S = 16;
const MODES = (process.env.BENCH_POLL_MODES ?? 'progress,page').split(',') as ('page' | 'progress' | 'backoff')[];
const FAKE_DBT = path.resolve('tests/support/fake-dbt/dbt.mjs');
const WS = 'bench';
const SCRIPT = 'f/bench/project';
const MAX_GAP_MS = 250;

/** The project files a deploy uploads (no target/, logs/ or bench files), plus the stand-in's scenario. */
function projectArchive(p: BenchProject, scenario: unknown): Uint8Array {
	const files = new Map<string, string | Uint8Array>();
	const skip = new Set(['target', 'logs', 'bench-meta.json']);
	const walk = (rel: string) => {
		for (const e of readdirSync(path.join(p.dir, rel), { withFileTypes: true })) {
			const r = rel ? `${rel}/${e.name}` : e.name;
			if (!rel && (skip.has(e.name) || e.name.startsWith('subset-'))) continue;
			if (e.isDirectory()) walk(r);
			else files.set(r, new Uint8Array(readFileSync(path.join(p.dir, r))));
		}
	};
	walk('');
	files.set('fake-dbt.json', JSON.stringify(scenario));
	return tarGz(new Map([...files].sort(([a], [b]) => (a < b ? -1 : 1))));
}

/** The replay speed at which the stand-in's log lasts `targetMs` (gaps divided by speed, each capped). */
function replaySpeed(log: string, targetMs: number): { speed: number; events: number; recordedS: number } {
	const ts: number[] = [];
	for (const line of readFileSync(log, 'utf8').split('\n')) {
		const m = /"ts":"([^"]+)"/.exec(line);
		if (m) ts.push(Date.parse(m[1]));
	}
	const gaps: number[] = [];
	for (let i = 1; i < ts.length; i++) if (ts[i] > ts[i - 1]) gaps.push(ts[i] - ts[i - 1]);
	const duration = (speed: number) => gaps.reduce((s, g) => s + Math.min(MAX_GAP_MS, g / speed), 0);
	let lo = 0.01;
	let hi = 100_000;
	for (let i = 0; i < 60; i++) {
		const mid = Math.sqrt(lo * hi);
		if (duration(mid) > targetMs) lo = mid;
		else hi = mid;
	}
	return { speed: hi, events: ts.length, recordedS: (ts[ts.length - 1] - ts[0]) / 1000 };
}

interface ViewersOut {
	elapsed_ms: number;
	latencies: Record<Kind, number[]>;
	/** Whole page reads (data, then the canvas when it moved): what run_page_open_* measure. */
	opens: number[];
	bytes: Record<Kind, number>;
	errors: { kind: string; at_ms: number; what: string }[];
	error_count: number;
	max_progress_rows: number;
	full_progress_reads: number;
	max_in_flight: number;
	saw_run_end: boolean;
	client_cpu_s: number;
}

type Kind = 'poll' | 'graph' | 'page' | 'canvas';
const KINDS: Kind[] = ['poll', 'page', 'canvas', 'graph'];
const servedCount = (v: ViewersOut) => KINDS.reduce((n, k) => n + v.latencies[k].length, 0);
const kindLine = (xs: number[]) => (xs.length ? `${xs.length} req, p50 ${percentile(xs, 50).toFixed(0)} / p99 ${percentile(xs, 99).toFixed(0)} ms` : '—');

interface JobView {
	status: string;
}

async function waitFor<T>(what: string, timeoutMs: number, fn: () => Promise<T | null>): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const v = await fn();
		if (v !== null) return v;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 250));
	}
}

const OPEN_PROBE = QUICK ? 5 : 20;

/**
 * What one page open costs the server when nothing else is asked of it: OPEN_PROBE opens one at
 * a time (the data, then the canvas when the data names one, as a viewer without a cached copy),
 * their server CPU minus what the streaming run's own progress writes cost over as long an idle
 * stretch measured just before. CPU, not latency, is what holds on a machine others load.
 */
async function probeOpens(url: string, pid: number, dbUrl: string | undefined, cookie: string, job: string) {
	const cpuNow = async () => {
		let pg = 0;
		if (dbUrl) for (const t of (await postgresBackendCpu(dbUrl)).values()) pg += t;
		return cpuSeconds(pid) + pg;
	};
	const idle0 = await cpuNow();
	const idleStart = performance.now();
	await new Promise((r) => setTimeout(r, 2000));
	const idlePerMs = ((await cpuNow()) - idle0) / (performance.now() - idleStart);
	const ms: number[] = [];
	let bytes = 0;
	const cpu0 = await cpuNow();
	const start = performance.now();
	for (let i = 0; i < OPEN_PROBE; i++) {
		const t0 = performance.now();
		const data = await fetch(`${url}/w/${WS}/run/${job}/__data.json`, { headers: { cookie } });
		const text = await data.text();
		if (data.status !== 200) throw new Error(`run page data: HTTP ${data.status}`);
		bytes += Buffer.byteLength(text);
		if (text.includes('canvasEtag')) {
			const canvas = await fetch(`${url}/api/w/${WS}/jobs/run_canvas/${job}?direction=LR`, { headers: { cookie } });
			const b = await canvas.arrayBuffer();
			if (canvas.status !== 200) throw new Error(`run canvas: HTTP ${canvas.status}`);
			bytes += b.byteLength;
		}
		ms.push(performance.now() - t0);
	}
	const wall = performance.now() - start;
	const cpu = (await cpuNow()) - cpu0 - idlePerMs * wall;
	return { opens: OPEN_PROBE, p50_ms: +percentile(ms, 50).toFixed(1), kb_per_open: Math.round(bytes / OPEN_PROBE / 1000), cpu_ms_per_open: +((cpu * 1000) / OPEN_PROBE).toFixed(1) };
}

export async function run(): Promise<BenchResult> {
	const project = await benchProject(SIZE.models, SIZE.edges);
	const log = path.join(project.dir, 'logs', 'dbt.log');
	const manifest = path.join(project.target, 'manifest.json');
	// The run must still be streaming when the last viewer's window closes.
	const replay = replaySpeed(log, (RAMP_S + WINDOW_S + 15) * 1000);
	const step = { log, manifest };
	const scenario = { speed: replay.speed, maxGapMs: MAX_GAP_MS, commands: { build: step, run: step, parse: { manifest } } };
	const archive = projectArchive(project, scenario);
	const rows: Row[] = [];
	const ratios: BenchResult['ratios'] = [];
	const metrics: Metric[] = [];
	const environment: Record<string, unknown> = {
		project: `${SIZE.models} models, ${SIZE.edges} column edges (seed 1)`,
		viewers: VIEWERS,
		window_s: WINDOW_S,
		ramp_s: RAMP_S,
		graph_backoff_cap_s: CAP_S,
		stand_in: `tests/support/fake-dbt/dbt.mjs replaying ${replay.events} events (${replay.recordedS.toFixed(0)} s recorded) at speed ${replay.speed.toFixed(2)}, gaps capped at ${MAX_GAP_MS} ms`,
		archive_mb: +(archive.byteLength / 1e6).toFixed(2)
	};

	const started = performance.now();
	const say = (line: string) => process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}\n`);
	const perPollCpu = new Map<string, number>();
	for (const backend of backends()) {
		say(`polling: ${backend}: starting the app and deploying …`);
		const db = await freshDatabase(backend, 'polling');
		const jobsDir = mkdtempSync(path.join(tmpdir(), 'tributary-bench-jobs-'));
		// dbt runs sandboxed, as by default: the stand-in is shown the recorded project it replays, read-only.
		const app = await startApp(db, { TRIBUTARY_WORKER: '1', DBT_BIN: FAKE_DBT, TRIBUTARY_JOBS_DIR: jobsDir, TRIBUTARY_SANDBOX_READ_ONLY: project.dir });
		try {
			const c = await Client.login(app.url);
			await setupWorkspace(c, WS, 'bench', project.meta.database, {
				type: 'postgres',
				host: 'localhost',
				user: 'dbt',
				dbname: 'postgres',
				schema: 'public',
				threads: 8
			});
			await uploadTarget(c, WS, 'deploy', SCRIPT, project.target, { project: archive });
			say('  deployed');

			const windows = new Map<string, { served: number; p50: number; p99: number; pollP50: number; pollP99: number; polls: number; page: number[]; errors: number; cpuPerRequest: number }>();
			for (const mode of MODES) {
				const queued = await c.post<{ job_id: string }>(`/api/w/${WS}/jobs/run/p/${SCRIPT}`, { command: 'build' });
				const job = queued.job_id;
				say(`  ${mode}: run ${job} queued; waiting for its first progress …`);
				// Viewers open the page once the run is building (progress rows exist).
				await waitFor('the run to report progress', 180_000, async () => {
					const j = await c.ok<JobView>(`/api/w/${WS}/jobs/get/${job}`);
					if (!['queued', 'running'].includes(j.body.status)) throw new Error(`the run ended (${j.body.status}) before the viewers came: ${JSON.stringify(j.body).slice(0, 2000)}`);
					const p = await c.ok<unknown[]>(`/api/w/${WS}/jobs/run_progress/${job}`);
					return p.body.length > 0 ? true : null;
				});
				const cookie = c.cookieHeader;
				// Pages opened before the window hold the progress and the cursor it was read at.
				const heldFile = path.join(jobsDir, `held-${job}.json`);
				const before = await c.ok<{ progress: { cursor: string; rows: unknown[] } }>(`/api/w/${WS}/jobs/get/${job}?logs=false&progress_since=0`);
				writeFileSync(heldFile, JSON.stringify({ cursor: before.body.progress.cursor, rows: before.body.progress.rows }));
				if (mode === 'page') {
					const probe = await probeOpens(app.url, app.pid, backend === 'postgres' ? db.url : undefined, cookie, job);
					environment[`${backend}_open_probe`] = probe;
					say(`  page: ${probe.opens} opens one at a time: p50 ${probe.p50_ms} ms, ${probe.kb_per_open} kB, server CPU ${probe.cpu_ms_per_open} ms per open (the run's own writes over the same time subtracted)`);
				}
				say(`  ${mode}: ${VIEWERS} viewers for ${WINDOW_S} s …`);
				const load0 = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);
				const pg0 = backend === 'postgres' ? await postgresBackendCpu(db.url!) : new Map<number, number>();
				const m0 = machineCpu();
				const cpu0 = cpuSeconds(app.pid);
				const wall0 = performance.now();
				const v = await child<ViewersOut>('viewers', {
					url: app.url,
					cookie,
					ws: WS,
					job,
					viewers: VIEWERS,
					'window-s': WINDOW_S,
					'ramp-s': RAMP_S,
					mode,
					'cap-s': CAP_S,
					'timeout-s': 30,
					held: mode === 'progress' ? heldFile : undefined
				});
				const wallS = (performance.now() - wall0) / 1000;
				const cpuS = cpuSeconds(app.pid) - cpu0;
				const m1 = machineCpu();
				const pg1 = backend === 'postgres' ? await postgresBackendCpu(db.url!) : new Map<number, number>();
				let pgS = 0;
				for (const [pid, t] of pg1) pgS += t - (pg0.get(pid) ?? 0);
				const machineBusyS = m1.busy - m0.busy;
				const load1 = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);
				const rss = rssMb(app.pid);
				// An overloaded server is still working through abandoned requests: ask briefly.
				const late = async <T>(p: string) => c.ok<T>(p, 15_000).then((r) => r.body).catch(() => null);
				const progressRows = (await late<unknown[]>(`/api/w/${WS}/jobs/run_progress/${job}`))?.length ?? null;
				const status = (await late<JobView>(`/api/w/${WS}/jobs/get/${job}`))?.status ?? 'unknown (the server did not answer within 15 s)';
				say(`  ${mode}: ${servedCount(v)} requests, ${v.error_count} errors; run ${status}`);
				// The next window starts on a fresh run; this one is stopped if it still streams.
				if (mode !== MODES[MODES.length - 1] && status !== 'success' && status !== 'failure' && status !== 'canceled') {
					await c.post(`/api/w/${WS}/jobs/cancel/${job}`, {});
					await waitFor('the run to stop', 300_000, async () => {
						const j = await c.ok<JobView>(`/api/w/${WS}/jobs/get/${job}`);
						return ['queued', 'running'].includes(j.body.status) ? null : true;
					});
				}
				const all = KINDS.flatMap((k) => v.latencies[k]);
				const served = all.length;
				const p50 = percentile(all, 50);
				const p99 = percentile(all, 99);
				rows.push({
					case: `${backend} · ${mode} · ${VIEWERS} viewers × ${WINDOW_S} s`,
					requests: served,
					errors: v.error_count,
					p50_ms: +p50.toFixed(1),
					p99_ms: +p99.toFixed(1),
					polls: kindLine(v.latencies.poll),
					[mode === 'backoff' ? 'dbt_graph' : 'page_data']: kindLine(mode === 'backoff' ? v.latencies.graph : v.latencies.page),
					...(mode === 'page' ? { canvas: kindLine(v.latencies.canvas), opens: kindLine(v.opens) } : {}),
					server_cpu: `${cpuS.toFixed(1)} s app${backend === 'postgres' ? ` + ${pgS.toFixed(1)} s postgres` : ''} over ${wallS.toFixed(0)} s (${(((cpuS + pgS) / wallS) * 100).toFixed(0)}% of one core)`,
					machine: `${((machineBusyS / wallS) * 100).toFixed(0)}% busy of 200%; others ${(((machineBusyS - cpuS - pgS - v.client_cpu_s) / wallS) * 100).toFixed(0)}%`,
					cpu_ms_per_request: +(((cpuS + pgS) * 1000) / Math.max(1, served)).toFixed(1),
					progress_rows: `${v.max_progress_rows} held, ${progressRows ?? '?'} at the end, ${v.full_progress_reads} full reads; run ${status}`
				});
				environment[`${backend}_${mode}`] = {
					wall_s: +wallS.toFixed(1),
					server_cpu_s: +cpuS.toFixed(1),
					postgres_backend_cpu_s: backend === 'postgres' ? +pgS.toFixed(1) : undefined,
					machine_busy_cpu_s: +machineBusyS.toFixed(1),
					other_processes_cpu_s: +(machineBusyS - cpuS - pgS - v.client_cpu_s).toFixed(1),
					loadavg_before_after: [load0, load1],
					server_rss_mb: Math.round(rss),
					client_cpu_s: +v.client_cpu_s.toFixed(1),
					max_in_flight: v.max_in_flight,
					mb_served: Object.fromEntries(KINDS.map((k) => [k, +(v.bytes[k] / 1e6).toFixed(2)])),
					bytes_per_poll: Math.round(v.bytes.poll / Math.max(1, v.latencies.poll.length)),
					latency_ms: Object.fromEntries(KINDS.filter((k) => v.latencies[k].length).map((k) => [k, stat(v.latencies[k])])),
					saw_run_end: v.saw_run_end,
					errors: v.errors.slice(0, 10),
					run_status_after_window: status
				};
				const cpuPerRequest = ((cpuS + pgS) * 1000) / Math.max(1, served);
				const pollP99 = percentile(v.latencies.poll, 99);
				if (mode === 'progress') {
					// Independent of the neighbours' load: what one core serves at this cost per poll
					// (a poll is one request: jobs/get?logs=false&progress_since=).
					const perPoll = ((cpuS + pgS) * 1000) / Math.max(1, v.latencies.poll.length);
					ratios.push({
						name: `${backend}: viewers one core can serve (a poll every 2 s)`,
						value: 2000 / perPoll,
						note: `server CPU ${perPoll.toFixed(1)} ms per poll (one jobs/get?logs=false&progress_since=)${backend === 'postgres' ? ', app + its Postgres backends' : ''}, the stand-in run's progress writes included; ${VIEWERS} viewers need ${(VIEWERS / 2).toFixed(0)} polls/s`
					});
					perPollCpu.set(backend, perPoll);
				}
				windows.set(mode, { served, p50, p99, pollP50: percentile(v.latencies.poll, 50), pollP99, polls: v.latencies.poll.length, page: v.opens, errors: v.error_count, cpuPerRequest });
			}
			// The goal's scenario is viewers with the page open (the `progress` window: one poll every
			// 2 s each); a page opened by every viewer within the ramp is reported beside it.
			const steady = windows.get('progress');
			const opening = windows.get('page');
			const quick = QUICK ? '; QUICK (small project, fewer viewers)' : '';
			const pollWindow = steady ?? opening;
			if (pollWindow) {
				const note = steady
					? `${VIEWERS} viewers with the run page open, ${WINDOW_S} s: every request (one poll each 2 s)${quick}`
					: `the polls of the page window (no progress window ran)${quick}`;
				// Issue 18's goals: polls p99 ≤ 100 ms on Postgres, ≤ 250 ms on PGlite (one thread).
				metrics.push(metric('polling_p99_ms', steady ? steady.p99 : pollWindow.pollP99, 'ms', backend, { goal: backend === 'pglite' ? 250 : 100, note }));
				metrics.push(metric('polling_p50_ms', steady ? steady.p50 : pollWindow.pollP50, 'ms', backend, { note }));
				metrics.push(metric('polling_requests', steady ? steady.served : pollWindow.polls, 'count', backend, { better: 'higher', note }));
				const perPoll = perPollCpu.get(backend);
				metrics.push(
					metric('polling_cpu_ms_per_request', perPoll ?? pollWindow.cpuPerRequest, 'ms', backend, {
						note: `server CPU per request${backend === 'postgres' ? ' (app + its Postgres backends)' : ''}${perPoll === undefined ? ', page loads included' : ', polls only'}`
					})
				);
			}
			const errors = [...windows.values()].reduce((n, w) => n + w.errors, 0);
			metrics.push(metric('polling_errors', errors, 'count', backend, { goal: 0, note: `every window (${[...windows.keys()].join(', ')})` }));
			if (opening) {
				const note = `${VIEWERS} viewers each opening the run page (__data.json, then jobs/run_canvas when the data names a canvas the viewer lacks) within a ${RAMP_S} s ramp, then polling${quick}`;
				metrics.push(metric('run_page_open_p50_ms', percentile(opening.page, 50), 'ms', backend, { note }));
				metrics.push(metric('run_page_open_p99_ms', percentile(opening.page, 99), 'ms', backend, { note, ...(backend === 'postgres' ? { goal: 500 } : {}) }));
				metrics.push(metric('polling_with_page_opens_p99_ms', opening.p99, 'ms', backend, { note: `every request of that window, opens and polls${quick}` }));
			}
		} finally {
			await app.stop();
			await db.drop();
			rmSync(jobsDir, { recursive: true, force: true });
		}
	}
	return {
		name: 'polling',
		description: `${VIEWERS} run-page viewers for ${WINDOW_S} s against the built app while a run streams progress; latencies per request, whole response`,
		rows,
		ratios,
		environment,
		metrics
	};
}
