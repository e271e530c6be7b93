// Simulated run-page viewers (a process of its own, so the server's CPU is the server's alone),
// modelled on the run page's live half (src/lib/state/run-live.svelte.ts):
//   - every 2 s, GET jobs/get/{id} and GET jobs/run_progress/{id} together (a viewer never has
//     two polls of its own in flight: a late answer is followed at once by the next poll);
//   - `--mode page`: on joining, the run page's data (GET /w/{ws}/run/{id}/__data.json: the job,
//     its progress, its pinned graph and the canvas payload), then the polls from 2 s after it
//     arrived; the run already has progress when viewers join, so the page's graph re-read
//     backoff is settled at once; when a poll sees the run end, the page data is read once more
//     and polling stops; a page whose data failed to load polls nothing;
//   - `--mode progress`: pages opened before the window: polls only;
//   - `--mode backoff`: GET jobs/dbt_graph/{id} on joining and again after 1 s, 2 s, 4 s, …
//     (capped at --cap-s) for the whole window, besides the polls.
// Each viewer joins at a random moment of the ramp. No request is issued after the window ends;
// those in flight are awaited (and time out at --timeout-s, counted as errors). Traffic goes to
// the given 127.0.0.1 URL only. Prints JSON.
import { parseArgs } from 'node:util';

const { values } = parseArgs({
	options: {
		url: { type: 'string' },
		cookie: { type: 'string' },
		ws: { type: 'string' },
		job: { type: 'string' },
		viewers: { type: 'string' },
		'window-s': { type: 'string' },
		'ramp-s': { type: 'string' },
		mode: { type: 'string' },
		'cap-s': { type: 'string' },
		'timeout-s': { type: 'string' },
		seed: { type: 'string' }
	}
});
const url = values.url!;
if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(url)) throw new Error(`viewers only talk to 127.0.0.1, got ${url}`);
const cookie = values.cookie!;
const viewers = Number(values.viewers ?? 200);
const windowMs = Number(values['window-s'] ?? 60) * 1000;
const rampMs = Number(values['ramp-s'] ?? 5) * 1000;
const mode = values.mode ?? 'page';
const capMs = Number(values['cap-s'] ?? 16) * 1000;
const timeoutMs = Number(values['timeout-s'] ?? 30) * 1000;
const api = `${url}/api/w/${values.ws}/jobs`;
const urls = {
	get: `${api}/get/${values.job}`,
	progress: `${api}/run_progress/${values.job}`,
	graph: `${api}/dbt_graph/${values.job}`,
	page: `${url}/w/${values.ws}/run/${values.job}/__data.json`
};
type Kind = keyof typeof urls;

let seed = Number(values.seed ?? 7) >>> 0;
const rand = () => {
	seed = (seed + 0x6d2b79f5) >>> 0;
	let t = seed;
	t = Math.imul(t ^ (t >>> 15), t | 1);
	t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
	return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

const latencies: Record<Kind, number[]> = { get: [], progress: [], graph: [], page: [] };
const bytes: Record<Kind, number> = { get: 0, progress: 0, graph: 0, page: 0 };
const errors: { kind: Kind; at_ms: number; what: string }[] = [];
let maxProgressRows = 0;
let inFlight = 0;
let maxInFlight = 0;
let sawEnd = false;

const t0 = performance.now();
const now = () => performance.now() - t0;
const open = () => now() < windowMs;

async function get(kind: Kind): Promise<Buffer | null> {
	const started = now();
	inFlight++;
	maxInFlight = Math.max(maxInFlight, inFlight);
	try {
		const r = await fetch(urls[kind], { headers: { cookie }, signal: AbortSignal.timeout(timeoutMs) });
		const body = Buffer.from(await r.arrayBuffer());
		const ms = now() - started;
		if (r.status !== 200) {
			errors.push({ kind, at_ms: Math.round(started), what: `HTTP ${r.status}: ${body.toString('utf8', 0, 200)}` });
			return null;
		}
		latencies[kind].push(ms);
		bytes[kind] += body.byteLength;
		return body;
	} catch (e) {
		const err = e as Error & { cause?: Error & { code?: string } };
		const cause = err.cause ? ` (${err.cause.code ?? ''} ${err.cause.message})` : '';
		errors.push({ kind, at_ms: Math.round(started), what: `${err.message}${cause} after ${Math.round(now() - started)} ms` });
		return null;
	} finally {
		inFlight--;
	}
}

const ACTIVE = /"status":"(queued|running)"/;

async function viewer(): Promise<void> {
	await sleep(rand() * rampMs);
	if (!open()) return;
	let lastCount = -Infinity;
	let ended = false;
	// The page polls once its data is in (run-live's start()); a page whose data never came
	// shows an error and polls nothing.
	if (mode === 'page') {
		if (!(await get('page'))) return;
		await sleep(2000);
	}
	const polls = async () => {
		while (open() && !ended) {
			const started = now();
			const [job, progress] = await Promise.all([get('get'), get('progress')]);
			// Counting rows means parsing: every 10 s per viewer is enough for the figure.
			if (progress && now() - lastCount > 10_000) {
				lastCount = now();
				maxProgressRows = Math.max(maxProgressRows, (JSON.parse(progress.toString('utf8')) as unknown[]).length);
			}
			if (job && !ACTIVE.test(job.toString('utf8', 0, Math.min(job.byteLength, 4096)))) {
				ended = true;
				sawEnd = true;
				// The run ended: the page reads its data once more and polls no further.
				if (mode === 'page' && open()) await get('page');
				return;
			}
			await sleep(started + 2000 - now());
		}
	};
	const graph = async () => {
		if (mode !== 'backoff') return;
		let delay = 1000;
		while (open() && !ended) {
			await get('graph');
			await sleep(Math.min(delay, windowMs - now()));
			delay = Math.min(delay * 2, capMs);
		}
	};
	await Promise.all([graph(), polls()]);
}

const cpu0 = process.cpuUsage();
await Promise.all(Array.from({ length: viewers }, () => viewer()));
const cpu = process.cpuUsage(cpu0);
process.stdout.write(
	`${JSON.stringify({
		elapsed_ms: now(),
		latencies,
		bytes,
		errors: errors.slice(0, 50),
		error_count: errors.length,
		max_progress_rows: maxProgressRows,
		max_in_flight: maxInFlight,
		saw_run_end: sawEnd,
		client_cpu_s: (cpu.user + cpu.system) / 1e6
	})}\n`
);
