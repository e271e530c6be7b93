// A producer script is analysed on a worker thread: the SQL parser (polyglot-sql's WASM, several
// times what the web process rests at) is never loaded by the web process. One thread
// serves the deploys that come while it lives and ends after a while idle, when its memory goes
// back; a thread that crashes or runs over the time bound fails only the analyses it held. The
// thread loads the build's own entry (build/producer-thread.js, analysis-thread-main.ts) when
// there is one, else this module, which answers when loaded with the tag in its workerData.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { AssetRef } from '../../lineage/producer-annotations';
import type { WarehouseTarget } from '../../lineage/relation-path';
import { findBuildEntry } from '../thread-entry';
import type * as Analyze from './analyze';
import type { KnownColumns, ParsedProducer, ProducerAnalysis } from './analyze';

const THREAD_TAG = 'tributary-producer-analysis';
const THREAD_ENTRY = 'producer-thread.js';

/** How long one step of an analysis may take on the thread (its queries are bounded in bytes; this bounds the rest). */
export const ANALYSIS_STEP_MS = 30_000;
/** An idle thread ends after this long: a deploy's burst reuses it, a quiet server gives its memory back. */
const IDLE_MS = 20_000;
/** Each thread's V8 heap bound (the parser's WASM memory is outside it and bounded by its own guards). */
const THREAD_HEAP_MB = 256;

type Request = { id: number; op: 'parse'; sql: string; warehouse: WarehouseTarget } | { id: number; op: 'infer'; catalog: [string, KnownColumns][] } | { id: number; op: 'forget' };
type Answer = { ready: true } | { id: number; ok: true; assets?: AssetRef[]; statements?: number; analysis?: ProducerAnalysis } | { id: number; ok: false; message: string };

// ─── The thread ───────────────────────────────────────────────────────────────────────────

async function runThread(): Promise<void> {
	const analyze: typeof Analyze = await import('./analyze');
	const parsed = new Map<number, ParsedProducer>();
	parentPort!.on('message', (req: Request) => {
		let answer: Answer;
		try {
			if (req.op === 'parse') {
				const p = analyze.parseProducer(req.sql, req.warehouse);
				parsed.set(req.id, p);
				answer = { id: req.id, ok: true, assets: p.assets, statements: p.statements.length };
			} else if (req.op === 'infer') {
				const p = parsed.get(req.id);
				parsed.delete(req.id);
				if (!p) throw new Error('the script was not parsed on this thread');
				const catalog = new Map(req.catalog);
				answer = { id: req.id, ok: true, analysis: analyze.inferProducer(p, (a) => catalog.get(`${a.kind}://${a.path}`) ?? null) };
			} else {
				parsed.delete(req.id);
				return;
			}
		} catch (e) {
			parsed.delete(req.id);
			answer = { id: req.id, ok: false, message: (e as Error).message ?? String(e) };
		}
		parentPort!.postMessage(answer);
	});
	// The WASM's first parse pays for compiling it: not the first deploy's time bound.
	analyze.parseProducer('select 1 as warm_up', { name: 'main', defaultDatabase: null });
	parentPort!.postMessage({ ready: true } satisfies Answer);
}

if (!isMainThread && (workerData as { tag?: string } | undefined)?.tag === THREAD_TAG) void runThread();

// ─── The caller's side ────────────────────────────────────────────────────────────────────

let builtEntry: URL | null | undefined;

// Under vitest this module is TypeScript, which a thread cannot load by itself: it is then loaded
// through tsx (a dev dependency; the built app's module is plain JS and loads directly).
function startWorker(entry?: URL): Worker {
	const opts = { workerData: { tag: THREAD_TAG }, resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB, maxYoungGenerationSizeMb: 32 } };
	if (entry) return new Worker(entry, opts);
	const self = new URL(import.meta.url);
	if (!self.pathname.endsWith('.ts')) {
		if (builtEntry === undefined) builtEntry = findBuildEntry(self, THREAD_ENTRY);
		return new Worker(builtEntry ?? self, opts);
	}
	const load = `import('tsx/esm/api').then(({ tsImport }) => tsImport(${JSON.stringify(self.href)}, ${JSON.stringify(self.href)}))`;
	return new Worker(load, { ...opts, eval: true });
}

interface Pending {
	resolve: (a: Extract<Answer, { id: number; ok: true }>) => void;
	reject: (e: Error) => void;
	timer: ReturnType<typeof setTimeout>;
}

/** The analysis thread failed (crashed, ran over its bound, could not start): nothing was analysed. */
export class AnalysisThreadError extends Error {}

class AnalysisThread {
	private readonly worker: Worker;
	private readonly pending = new Map<number, Pending>();
	private readonly ready: Promise<void>;
	private idle: ReturnType<typeof setTimeout> | null = null;
	private gone = false;

	constructor(
		private readonly onGone: () => void,
		entry?: URL
	) {
		this.worker = startWorker(entry);
		let started: () => void;
		let failed: (e: Error) => void;
		this.ready = new Promise<void>((res, rej) => {
			started = res;
			failed = rej;
		});
		// A caller that gives up on a start that failed must not leave an unhandled rejection.
		this.ready.catch(() => {});
		this.worker.on('message', (a: Answer) => {
			if ('ready' in a) return started();
			const p = this.pending.get(a.id);
			if (!p) return;
			this.settle(a.id);
			if (a.ok) p.resolve(a);
			else p.reject(new AnalysisThreadError(a.message));
		});
		const lost = (why: string) => {
			failed(new AnalysisThreadError(why));
			this.end(why);
		};
		this.worker.on('error', (e: Error & { code?: string }) =>
			lost(e.code === 'ERR_WORKER_OUT_OF_MEMORY' ? `out of memory (the analysis thread's heap is bounded at ${THREAD_HEAP_MB} MB)` : `the analysis thread stopped: ${e.message}`)
		);
		this.worker.on('exit', (code) => lost(`the analysis thread exited with code ${code}`));
	}

	async ask(req: Request, ms: number): Promise<Extract<Answer, { id: number; ok: true }>> {
		if (this.idle) clearTimeout(this.idle);
		this.idle = null;
		this.worker.ref();
		const answer = new Promise<Extract<Answer, { id: number; ok: true }>>((resolve, reject) => {
			// The bound covers the thread's start too: a parse that never ends cannot be interrupted
			// inside the WASM, so the thread is ended, and what it held with it.
			const timer = setTimeout(() => this.end(`over the ${Math.round(ms / 1000)} s bound for analysing a script`), ms);
			this.pending.set(req.id, { resolve, reject, timer });
		});
		this.ready.then(
			() => !this.gone && this.worker.postMessage(req),
			() => {}
		);
		return answer;
	}

	/** Ends the thread now (a thread of its own, once its caller is done). */
	close(): void {
		this.end(null);
	}

	/** The caller gave up between the steps: the thread drops what it parsed. */
	forget(id: number): void {
		if (!this.gone) this.worker.postMessage({ id, op: 'forget' } satisfies Request);
	}

	private settle(id: number): void {
		const p = this.pending.get(id);
		if (p) clearTimeout(p.timer);
		this.pending.delete(id);
		if (this.pending.size === 0 && !this.gone) {
			// Idle: the thread no longer keeps the process alive, and ends unless asked again.
			this.worker.unref();
			this.idle = setTimeout(() => this.end(null), IDLE_MS);
			this.idle.unref();
		}
	}

	private end(why: string | null): void {
		if (this.gone) return;
		this.gone = true;
		if (this.idle) clearTimeout(this.idle);
		for (const [id, p] of this.pending) {
			clearTimeout(p.timer);
			this.pending.delete(id);
			p.reject(new AnalysisThreadError(why ?? 'the analysis thread ended'));
		}
		this.onGone();
		void this.worker.terminate();
	}
}

let thread: AnalysisThread | null = null;
let nextId = 0;

function current(): AnalysisThread {
	if (!thread) {
		const t: AnalysisThread = new AnalysisThread(() => {
			if (thread === t) thread = null;
		});
		thread = t;
	}
	return thread;
}

/**
 * Analyses a producer script on the thread, in its two steps: the parse names the assets the
 * script touches, `loadColumns` loads their column lists (the database, on the caller's side),
 * and the inference runs with them. Rejects with AnalysisThreadError when the thread fails.
 * `ms`: each step's bound; `entry`: a module for a thread of this call's own (tests of the
 * build's entry), ended after it.
 */
export async function analyzeProducerOffThread(
	sql: string,
	warehouse: WarehouseTarget,
	loadColumns: (assets: AssetRef[]) => Promise<Map<string, KnownColumns>>,
	opts: { ms?: number; entry?: URL } = {}
): Promise<{ statements: number; analysis: ProducerAnalysis }> {
	const ms = opts.ms ?? ANALYSIS_STEP_MS;
	const t = opts.entry ? new AnalysisThread(() => {}, opts.entry) : current();
	const id = nextId++;
	try {
		const parsed = await t.ask({ id, op: 'parse', sql, warehouse }, ms);
		let catalog: Map<string, KnownColumns>;
		try {
			catalog = await loadColumns(parsed.assets ?? []);
		} catch (e) {
			t.forget(id);
			throw e;
		}
		const inferred = await t.ask({ id, op: 'infer', catalog: [...catalog] }, ms);
		return { statements: parsed.statements ?? 0, analysis: inferred.analysis! };
	} finally {
		if (opts.entry) t.close();
	}
}
