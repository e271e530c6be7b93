// Simulated run-page viewers (a process of its own, so the server's CPU is the server's alone),
// doing what the run page's live half does (src/lib/state/run-live.svelte.ts):
//   - every 2 s ONE request, GET jobs/get/{id}?logs=false&progress_since=<cursor> (the log panel
//     is closed, so no log; the progress rows changed since the last answer's cursor, merged by
//     relation; progress_since=0, every row, when no cursor is held or the merged count disagrees
//     with the answer's `total`). A viewer never has two polls of its own in flight: a late
//     answer is followed at once by the next poll;
//   - `--mode page`: on joining, the run page's data (GET /w/{ws}/run/{id}/__data.json: the job,
//     its progress and the cursor they were read at, its pinned graph and the canvas payload),
//     then the polls from 2 s after it arrived. The graph is re-read as the page does: while the
//     run has neither its own snapshot nor progress, the page data again after 1, 2, 4, 8, 15,
//     30 s, and once more when the first progress arrives (the run already has progress when
//     viewers join, so this settles at once); when a poll sees the run end, the page data is read
//     once more and polling stops; a page whose data failed to load polls nothing;
//   - `--mode progress`: pages opened before the window: polls only, from the progress and
//     cursor they hold (--held, a file read before the window);
//   - `--mode backoff`: GET jobs/dbt_graph/{id} on joining and again after 1 s, 2 s, 4 s, …
//     (capped at --cap-s) for the whole window, besides the polls (a page that never settles).
// Each viewer joins at a random moment of the ramp. No request is issued after the window ends;
// those in flight are awaited (and time out at --timeout-s, counted as errors). Traffic goes to
// the given 127.0.0.1 URL only. Prints JSON.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { unflatten } from 'devalue';

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
		held: { type: 'string' },
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
	poll: `${api}/get/${values.job}`,
	graph: `${api}/dbt_graph/${values.job}`,
	page: `${url}/w/${values.ws}/run/${values.job}/__data.json`,
	canvas: `${api}/run_canvas/${values.job}?direction=LR`
};
type Kind = keyof typeof urls;
const GRAPH_BACKOFF_MS = [1000, 2000, 4000, 8000, 15000, 30000];

let seed = Number(values.seed ?? 7) >>> 0;
const rand = () => {
	seed = (seed + 0x6d2b79f5) >>> 0;
	let t = seed;
	t = Math.imul(t ^ (t >>> 15), t | 1);
	t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
	return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

const latencies: Record<Kind, number[]> = { poll: [], graph: [], page: [], canvas: [] };
const bytes: Record<Kind, number> = { poll: 0, graph: 0, page: 0, canvas: 0 };
/** Whole page reads: the data, then the canvas when the data names bytes the viewer lacks. */
const opens: number[] = [];
const errors: { kind: Kind; at_ms: number; what: string }[] = [];
let maxProgressRows = 0;
let inFlight = 0;
let maxInFlight = 0;
let sawEnd = false;

const t0 = performance.now();
const now = () => performance.now() - t0;
const open = () => now() < windowMs;

let fullReads = 0;

async function get(kind: Kind, query = '', headers: Record<string, string> = {}): Promise<Buffer | null> {
	const started = now();
	inFlight++;
	maxInFlight = Math.max(maxInFlight, inFlight);
	try {
		const r = await fetch(`${urls[kind]}${query}`, { headers: { ...headers, cookie }, signal: AbortSignal.timeout(timeoutMs) });
		const body = Buffer.from(await r.arrayBuffer());
		const ms = now() - started;
		if (r.status !== 200 && r.status !== 304) {
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

const ACTIVE = new Set(['queued', 'running']);

interface Item {
	asset_kind: string;
	asset_path: string;
	status: string;
}
interface Poll {
	status: string;
	progress: { cursor: string; total: number; rows: Item[] };
}
interface PageData {
	job: { status: string };
	/** Builds before the progress went as JSON text carry the rows themselves. */
	progress?: Item[];
	/** The rows as JSON text, parsed as the page parses them. */
	progressJson?: string;
	progressCursor: string | null;
	ownSnapshot: boolean;
	/** The canvas's ETag (jobs/run_canvas), where the page reads the canvas apart from its data. */
	canvasEtag?: string;
}

/** The run page's own data from __data.json (devalue-encoded; the page's node is the last). */
function pageData(body: Buffer): PageData | null {
	const doc = JSON.parse(body.toString('utf8')) as { nodes?: ({ type: string; data?: unknown[] } | null)[] };
	const node = doc.nodes?.[doc.nodes.length - 1];
	return node?.type === 'data' && node.data ? (unflatten(node.data) as PageData) : null;
}

/** `--mode progress`: what the pages opened before the window hold (progress and its cursor). */
const initial: { cursor: string | null; rows: Item[] } = values.held ? JSON.parse(readFileSync(values.held, 'utf8')) : { cursor: null, rows: [] };

const key = (p: Item) => `${p.asset_kind}\u0000${p.asset_path}`;

async function viewer(): Promise<void> {
	await sleep(rand() * rampMs);
	if (!open()) return;
	let ended = false;
	// What the page holds: progress by relation and the cursor to continue from.
	let held = new Map<string, Item>(initial.rows.map((p) => [key(p), p]));
	let cursor: string | null = initial.cursor;
	let settled = true;
	let graphAttempt = 0;
	let canvasEtag: string | null = null;
	// What the page does on a read of its data: the canvas follows when the data names other
	// bytes than the viewer holds (revalidated by ETag, as the browser's cache does).
	const load = async (): Promise<boolean> => {
		const started = now();
		const body = await get('page');
		if (!body) return false;
		const d = pageData(body);
		if (!d) return false;
		if (d.canvasEtag !== undefined && d.canvasEtag !== canvasEtag) {
			if (!(await get('canvas', '', canvasEtag ? { 'if-none-match': canvasEtag } : {}))) return false;
			canvasEtag = d.canvasEtag;
		}
		opens.push(now() - started);
		const progress: Item[] = d.progressJson !== undefined ? JSON.parse(d.progressJson) : (d.progress ?? []);
		held = new Map(progress.map((p) => [key(p), p]));
		cursor = d.progressCursor;
		settled = d.ownSnapshot || progress.length > 0;
		if (!ACTIVE.has(d.job.status)) ended = true;
		return true;
	};
	// The page polls once its data is in (run-live's start()); a page whose data never came
	// shows an error and polls nothing.
	if (mode === 'page') {
		if (!(await load())) return;
		await sleep(2000);
	}
	const polls = async () => {
		while (open() && !ended) {
			const started = now();
			if (cursor === null) fullReads++;
			const body = await get('poll', `?logs=false&progress_since=${cursor ?? '0'}`);
			if (body) {
				const a = JSON.parse(body.toString('utf8')) as Poll;
				if (cursor === null) held = new Map();
				for (const r of a.progress.rows) held.set(key(r), r);
				cursor = held.size === a.progress.total ? a.progress.cursor : null;
				maxProgressRows = Math.max(maxProgressRows, held.size);
				if (!settled && held.size > 0) {
					// The first progress: the page re-reads its data (the graph the run uses).
					settled = true;
					if (mode === 'page') await load();
				}
				if (!ACTIVE.has(a.status)) {
					ended = true;
					sawEnd = true;
					// The run ended: the page reads its data once more and polls no further.
					if (mode === 'page' && open()) await load();
					return;
				}
			}
			await sleep(started + 2000 - now());
		}
	};
	const graph = async () => {
		if (mode === 'page') {
			// The page's backoff while the run has neither snapshot nor progress.
			while (open() && !ended && !settled) {
				await sleep(Math.min(GRAPH_BACKOFF_MS[Math.min(graphAttempt++, GRAPH_BACKOFF_MS.length - 1)], windowMs - now()));
				if (open() && !ended && !settled) await load();
			}
			return;
		}
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
		opens,
		bytes,
		errors: errors.slice(0, 50),
		error_count: errors.length,
		max_progress_rows: maxProgressRows,
		full_progress_reads: fullReads,
		max_in_flight: maxInFlight,
		saw_run_end: sawEnd,
		client_cpu_s: (cpu.user + cpu.system) / 1e6
	})}\n`
);
