// Column lineage of a whole dbt project, inferred on worker threads: a parse of
// compiled SQL is WASM that cannot be interrupted, so a model over its time budget has its thread
// terminated and replaced (and is failed when it runs over again); a thread that crashes or runs
// out of memory fails only the model it held. Models go in DAG order where it matters: a model reading a relation the
// catalog lacks waits for that relation's model, whose inferred output columns then expand its
// `select *`. The thread runs this same module, loaded with the tag in its workerData (as the
// manifest thread does, src/lib/server/ingest/manifest-thread.ts).
//
// Two bounds keep one project from holding a thread for long: a linear scan of each model's SQL
// on the caller's thread marks an absurd one `too_complex` before any parse, and the whole
// inference may be given a time budget, past which the models not yet inferred are failed and
// the rest is answered.
import { createHash } from 'node:crypto';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type * as Infer from '../../lineage/infer/infer';
import { COMPLEXITY_LIMITS, tooComplex, type ComplexityLimits } from '../../lineage/infer/complexity';
import { resolverOf, type InferencePlan, type PlannedModel, type PlannedRelation } from '../../lineage/infer/manifest';
import { DEFAULT_BUDGET_MS, type InferDialect, type InferredEdge, type InferResult, type RelationLookup, type Untraced } from '../../lineage/infer/types';
import type { ModelOutcomeKind } from '../../types/asset-graph';

const THREAD_TAG = 'tributary-lineage-inference';
/** Changes whenever what inference answers for the same input may change: old cache entries then miss. */
export const ENGINE_VERSION = 'polyglot-0.12.1/infer-3';

export type { ModelOutcomeKind };

export interface ModelLineage {
	node: string;
	outcome: ModelOutcomeKind;
	edges: InferredEdge[];
	untraced: Untraced[];
	/** failed: the parser's (or the budget's) message; skipped, too_complex: the reason (with the figure that tripped). */
	message: string | null;
	/** failed at a parse: the position in the compiled SQL (1-based). */
	line: number | null;
	column: number | null;
	/** What the model's columns were inferred to be (null when not all are known). */
	outputColumns: string[] | null;
	/** Null for a skipped model and a failure that says nothing about the SQL (a timeout, a crash). */
	cacheKey: string | null;
	/** Things that did not stop the columns from being traced (e.g. a filter on an unknown column). */
	warnings: string[];
	/** How long the inference took on its thread, parse included, when it ran (a cache hit keeps the time of the run that computed it). */
	ms: number | null;
}

export interface InferCache {
	get(keys: string[]): Promise<Map<string, ModelLineage>>;
	put(entries: ModelLineage[]): Promise<void>;
}

export interface InferProgress {
	done: number;
	total: number;
}

export interface InferOptions {
	/** Worker threads; default DEFAULT_THREADS. */
	threads?: number;
	/** Per-model wall time, parse included; default DEFAULT_BUDGET_MS. */
	budgetMs?: number;
	/**
	 * Wall time for the whole inference, thread starts included; none by default. When it runs out
	 * the models not yet inferred are failed with the reason (not cached, so a later run tries them
	 * again) and the answer is what was inferred by then.
	 */
	jobBudgetMs?: number;
	/** The scan before parsing (COMPLEXITY_LIMITS by default); null: every model is parsed. */
	complexityLimits?: Readonly<ComplexityLimits> | null;
	/** Each thread's V8 heap bound, in MB (WASM memory is outside it and bounded by the parser's own guards). */
	threadHeapMb?: number;
	cache?: InferCache;
	onProgress?: (p: InferProgress) => void;
	signal?: AbortSignal;
}

export interface InferProjectResult {
	/** One per model of the plan, in the plan's order. */
	models: ModelLineage[];
	warnings: string[];
	cacheHits: number;
	/** Models failed because the job's time budget ran out before they were inferred. */
	overBudget: number;
}

// ─── The thread ───────────────────────────────────────────────────────────────────────────

interface ThreadInput {
	tag: typeof THREAD_TAG;
	relations: PlannedRelation[];
	dialect: InferDialect;
}

interface Task {
	id: number;
	node: string;
	sql: string;
	outputColumns: string[] | null;
	dependsOn: string[];
	/** Inferred columns of parents the catalog lacks; the thread keeps them for later tasks. */
	parents: [string, string[]][];
	budgetMs: number;
	/** 1 on the retry after a first attempt ran over the budget. */
	attempt: number;
}

type ThreadAnswer = { ready: true } | { id: number; lineage: Omit<ModelLineage, 'node' | 'cacheKey'> };

/** The columns a result says the model has, when it knows all of them by name. */
function knownColumns(result: InferResult, untraced: Untraced[]): string[] | null {
	if (result.outcome === 'failed') return null;
	// `*` untraced: the list is not all of them; an unnamed expression: its name is the warehouse's.
	if (untraced.some((u) => u.column === '*' || (u.reason.startsWith('an expression without a name') && /^_col\d+$/.test(u.column)))) return null;
	return result.columns.map((c) => c.name);
}

function lineageOf(infer: typeof Infer, task: Omit<Task, 'id' | 'parents'>, lookup: RelationLookup, dialect: InferDialect): Omit<ModelLineage, 'node' | 'cacheKey'> {
	const started = performance.now();
	const result = infer.inferModel({ sql: task.sql, dialect, resolve: lookup, outputColumns: task.outputColumns, budgetMs: task.budgetMs });
	const ms = performance.now() - started;
	if (result.outcome === 'failed')
		return { outcome: 'failed', edges: [], untraced: [], message: result.message, line: result.line, column: result.column, outputColumns: task.outputColumns, warnings: [], ms };
	const untraced = result.outcome === 'partial' ? result.untraced : [];
	return {
		outcome: result.outcome,
		edges: infer.modelEdges(result),
		untraced,
		message: null,
		line: null,
		column: null,
		outputColumns: knownColumns(result, untraced),
		warnings: result.warnings,
		ms
	};
}

// The parser (WASM, a hundred MB an isolate) is loaded by the threads only, never by the caller's.
async function runThread(input: ThreadInput): Promise<void> {
	const infer = await import('../../lineage/infer/infer');
	const inferred = new Map<string, string[]>();
	const resolver = resolverOf({ relations: input.relations }, inferred);
	parentPort!.on('message', (task: Task) => {
		for (const [node, columns] of task.parents) inferred.set(node, columns);
		const lineage = lineageOf(infer, task, resolver.forModel(task), input.dialect);
		parentPort!.postMessage({ id: task.id, lineage } satisfies ThreadAnswer);
	});
	// The WASM's first parse pays for compiling it: not the first model's budget.
	infer.inferModel({ sql: 'select 1 as warm_up', dialect: input.dialect, resolve: () => null });
	parentPort!.postMessage({ ready: true } satisfies ThreadAnswer);
}

if (!isMainThread && (workerData as ThreadInput | undefined)?.tag === THREAD_TAG) void runThread(workerData as ThreadInput);

// Under vitest and tsx this module is TypeScript, which a thread cannot load by itself: it is then
// loaded through tsx (a dev dependency; the built app's module is plain JS and loads directly).
function startThread(input: ThreadInput, heapMb: number): Worker {
	const self = new URL(import.meta.url);
	const resourceLimits = { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: Math.max(16, Math.round(heapMb / 8)) };
	if (!self.pathname.endsWith('.ts')) return new Worker(self, { workerData: input, resourceLimits });
	const load = `import('tsx/esm/api').then(({ tsImport }) => tsImport(${JSON.stringify(self.href)}, ${JSON.stringify(self.href)}))`;
	return new Worker(load, { eval: true, workerData: input, resourceLimits });
}

// ─── The pool ─────────────────────────────────────────────────────────────────────────────

/**
 * One thread unless asked: a parser thread's WASM memory only grows, one thread already infers
 * a large project in seconds, and the app's own process holds the database too (bench/README.md,
 * "infer", has the figures for one and two threads).
 */
export const DEFAULT_THREADS = 1;

const DEFAULT_THREAD_HEAP_MB = 256;
/** Queued models worth starting one more thread for. */
const MODELS_PER_THREAD = 200;
/** The scans before parsing run at most this long on the caller's thread before it yields to other work. */
const SCAN_SLICE_MS = 10;
/** After a model this long its thread is replaced: the parser's memory grows with the SQL and is never given back. */
const RECYCLE_SQL_CHARS = 256 * 1024;

/** The cache key of a model: its SQL, the dialect, its own catalog columns and its parents' columns as it sees them. */
export function inferCacheKey(parts: { sql: string; dialect: InferDialect; outputColumns: string[] | null; parents: [string, string[] | null, string[] | null][] }): string {
	return createHash('sha256')
		.update(JSON.stringify([ENGINE_VERSION, parts.dialect, parts.sql, parts.outputColumns, parts.parents]))
		.digest('base64url');
}

class AbortedError extends Error {
	constructor(reason: unknown) {
		super(reason instanceof Error ? reason.message : 'column lineage inference was aborted');
		this.name = 'AbortError';
	}
}

interface Slot {
	worker: Worker;
	ready: boolean;
	task: Task | null;
	timer: ReturnType<typeof setTimeout> | null;
	/** Set once this slot's worker is given up (terminated or exited): its late events are ignored. */
	gone: boolean;
}

/**
 * Infers every model of the plan. Never rejects for a model's sake (every model gets an outcome);
 * rejects when aborted, or when no thread can start at all.
 */
export async function inferProject(plan: InferencePlan, opts: InferOptions = {}): Promise<InferProjectResult> {
	const budgetMs = opts.budgetMs ?? DEFAULT_BUDGET_MS;
	const threads = Math.max(1, opts.threads ?? DEFAULT_THREADS);
	const heapMb = opts.threadHeapMb ?? DEFAULT_THREAD_HEAP_MB;
	const limits = opts.complexityLimits === undefined ? COMPLEXITY_LIMITS : opts.complexityLimits;
	const signal = opts.signal;
	if (signal?.aborted) throw new AbortedError(signal.reason);

	const warnings = [plan.dialectWarning, plan.catalogWarning, plan.compiledWarning ?? null].filter((w): w is string => w !== null);
	const total = plan.models.length;
	const results = new Map<string, ModelLineage>();
	const inferred = new Map<string, string[]>();
	const resolver = resolverOf(plan, inferred);
	const byNode = new Map(plan.models.map((m) => [m.node, m]));
	const relationNodes = new Set(plan.relations.map((r) => r.node));
	const lacking = new Set(plan.notInCatalog);
	let done = 0;
	let cacheHits = 0;
	let overBudget = 0;
	let outOfTime = false;
	const fresh: ModelLineage[] = [];

	// An ephemeral parent is inlined: its own parents are the model's.
	const parentsOf = (m: PlannedModel): string[] => {
		const out = new Set<string>();
		const walk = (ids: string[], seen: Set<string>) => {
			for (const d of ids) {
				if (seen.has(d)) continue;
				seen.add(d);
				const pm = byNode.get(d);
				if (pm && !relationNodes.has(d)) walk(pm.dependsOn, seen);
				else out.add(d);
			}
		};
		walk(m.dependsOn, new Set([m.node]));
		return [...out];
	};
	const parents = new Map<string, string[]>();
	for (const m of plan.models) if (m.sql !== null) parents.set(m.node, parentsOf(m));

	const report = () => opts.onProgress?.({ done, total });
	const children = new Map<string, string[]>();
	const waits = new Map<string, number>();
	let ready: PlannedModel[] = [];
	for (const m of plan.models) {
		if (m.sql === null) {
			results.set(m.node, { node: m.node, outcome: 'skipped', edges: [], untraced: [], message: m.skip, line: null, column: null, outputColumns: m.outputColumns, cacheKey: null, warnings: [], ms: null });
			done++;
			continue;
		}
		// Only a parent the catalog lacks, and that is a model with SQL, is worth waiting for.
		const upstream = parents.get(m.node)!.filter((p) => lacking.has(p) && byNode.get(p)?.sql != null);
		waits.set(m.node, upstream.length);
		for (const p of upstream) children.set(p, [...(children.get(p) ?? []), m.node]);
		if (upstream.length === 0) ready.push(m);
	}
	report();

	const tasks: Task[] = [];
	const keys = new Map<string, string>();
	let nextId = 0;
	const slots: Slot[] = [];
	let wake: (() => void) | null = null;
	let failure: Error | null = null;
	const poke = () => {
		const w = wake;
		wake = null;
		w?.();
	};

	const complete = (lineage: ModelLineage) => {
		if (results.has(lineage.node)) return;
		results.set(lineage.node, lineage);
		done++;
		if (lacking.has(lineage.node) && lineage.outputColumns) inferred.set(lineage.node, lineage.outputColumns);
		for (const c of children.get(lineage.node) ?? []) {
			const left = waits.get(c)! - 1;
			waits.set(c, left);
			if (left === 0) ready.push(byNode.get(c)!);
		}
		report();
	};

	const keyOf = (m: PlannedModel): string =>
		inferCacheKey({
			sql: m.sql!,
			dialect: plan.dialect,
			outputColumns: m.outputColumns,
			parents: parents
				.get(m.node)!
				.slice()
				.sort()
				.map((p) => {
					const r = resolver.relation(p);
					return [p, r?.columns ?? null, r?.declared ?? null];
				})
		});

	const taskOf = (m: PlannedModel): Task => ({
		id: nextId++,
		node: m.node,
		sql: m.sql!,
		outputColumns: m.outputColumns,
		dependsOn: parents.get(m.node)!,
		parents: parents
			.get(m.node)!
			.filter((p) => inferred.has(p))
			.map((p) => [p, inferred.get(p)!]),
		budgetMs,
		attempt: 0
	});

	// A timeout or a crash says as much about the machine as about the SQL: not cached.
	const failModel = (task: Task, message: string) =>
		complete({
			node: task.node,
			outcome: 'failed',
			edges: [],
			untraced: [],
			message,
			line: null,
			column: null,
			outputColumns: task.outputColumns,
			cacheKey: null,
			warnings: [],
			ms: null
		});

	const input: ThreadInput = { tag: THREAD_TAG, relations: plan.relations, dialect: plan.dialect };

	const retire = (slot: Slot) => {
		if (slot.gone) return;
		slot.gone = true;
		if (slot.timer) clearTimeout(slot.timer);
		slots.splice(slots.indexOf(slot), 1);
		void slot.worker.terminate();
	};

	const spawn = () => {
		const slot: Slot = { worker: startThread(input, heapMb), ready: false, task: null, timer: null, gone: false };
		slots.push(slot);
		slot.worker.on('message', (answer: ThreadAnswer) => {
			if (slot.gone) return;
			if ('ready' in answer) slot.ready = true;
			else if (slot.task && answer.id === slot.task.id) {
				const task = slot.task;
				slot.task = null;
				if (slot.timer) clearTimeout(slot.timer);
				const lineage: ModelLineage = { node: task.node, ...answer.lineage, cacheKey: keys.get(task.node) ?? null };
				// A budget hit inside the thread depends on the machine's load, not only on the SQL.
				if (lineage.outcome === 'failed' && lineage.message?.includes(' ms budget')) lineage.cacheKey = null;
				if (lineage.cacheKey) fresh.push(lineage);
				complete(lineage);
				if (task.sql.length > RECYCLE_SQL_CHARS) retire(slot);
			}
			dispatch();
			poke();
		});
		const lost = (why: string) => {
			if (slot.gone) return;
			const task = slot.task;
			const wasReady = slot.ready;
			retire(slot);
			if (task) failModel(task, why);
			else if (!wasReady) failure ??= new Error(`the column lineage thread could not start: ${why}`);
			dispatch();
			poke();
		};
		slot.worker.on('error', (e: Error & { code?: string }) =>
			lost(
				e.code === 'ERR_WORKER_OUT_OF_MEMORY'
					? `too complex to analyse: out of memory (the thread's heap is bounded at ${heapMb} MB)`
					: `the inference thread stopped: ${e.message}`
			)
		);
		slot.worker.on('exit', (code) => lost(`the inference thread exited with code ${code}`));
	};

	const dispatch = () => {
		if (failure || signal?.aborted) return;
		for (const slot of slots) {
			if (!slot.ready || slot.task || tasks.length === 0) continue;
			const task = tasks.shift()!;
			slot.task = task;
			slot.timer = setTimeout(() => {
				if (slot.gone || slot.task !== task) return;
				// A WASM parse cannot be interrupted: the thread goes, a fresh one takes its place. On a
				// loaded machine a stall can eat a budget, so a model fails only on its second attempt.
				retire(slot);
				if (task.attempt === 0) tasks.unshift({ ...task, attempt: 1 });
				else failModel(task, `too complex to analyse: over the ${budgetMs} ms budget, twice`);
				dispatch();
				poke();
			}, budgetMs);
			slot.worker.postMessage(task);
		}
		// Threads start as work waits for them, up to the limit: a thread's start (compiling the
		// parser) costs as much as hundreds of models, so a redeploy of a few needs no second one.
		const want = Math.min(threads, Math.ceil((slots.filter((s) => s.task).length + tasks.length) / MODELS_PER_THREAD));
		while (slots.length < want) spawn();
	};

	// Before any parse: a model far past what real SQL reaches is answered from the scan alone.
	const rejectTooComplex = (m: PlannedModel): boolean => {
		if (!limits) return false;
		const started = performance.now();
		const verdict = tooComplex(m.sql!, plan.dialect, limits);
		if (!verdict) return false;
		const ms = performance.now() - started;
		complete({ node: m.node, outcome: 'too_complex', edges: [], untraced: [], message: verdict.message, line: null, column: null, outputColumns: m.outputColumns, cacheKey: null, warnings: [], ms });
		return true;
	};

	// The job's budget ran out: what runs is stopped, and every model without an outcome gets this one.
	const cutShort = () => {
		for (const slot of [...slots]) retire(slot);
		tasks.length = 0;
		ready = [];
		const message = `not analysed: the lineage job's time budget of ${Math.round(opts.jobBudgetMs! / 100) / 10} s ran out first (the next deploy tries it again)`;
		for (const m of plan.models) {
			if (results.has(m.node)) continue;
			results.set(m.node, { node: m.node, outcome: 'failed', edges: [], untraced: [], message, line: null, column: null, outputColumns: m.outputColumns, cacheKey: null, warnings: [], ms: null });
			done++;
			overBudget++;
		}
		report();
	};

	const onAbort = () => poke();
	signal?.addEventListener('abort', onAbort);
	const budgetTimer =
		opts.jobBudgetMs === undefined
			? null
			: setTimeout(() => {
					outOfTime = true;
					poke();
				}, Math.max(0, opts.jobBudgetMs));
	try {
		while (done < total) {
			if (signal?.aborted) throw new AbortedError(signal.reason);
			if (failure) throw failure;
			if (outOfTime) {
				cutShort();
				break;
			}
			if (ready.length) {
				const waiting = ready;
				ready = [];
				const batch: PlannedModel[] = [];
				let slice = performance.now();
				for (const m of waiting) {
					if (!rejectTooComplex(m)) batch.push(m);
					// The scan runs on the caller's thread (the web server's, for the worker of `npm start`): it lets others in between models.
					if (performance.now() - slice > SCAN_SLICE_MS) {
						await new Promise((r) => setImmediate(r));
						slice = performance.now();
					}
				}
				if (batch.length === 0) continue;
				// Shortest SQL first: when a job's budget runs out, as many of its models as could be are analysed.
				batch.sort((x, y) => x.sql!.length - y.sql!.length);
				for (const m of batch) keys.set(m.node, keyOf(m));
				const hits = opts.cache ? await opts.cache.get(batch.map((m) => keys.get(m.node)!)) : new Map<string, ModelLineage>();
				for (const m of batch) {
					const hit = hits.get(keys.get(m.node)!);
					if (hit) {
						cacheHits++;
						complete({ ...hit, node: m.node, cacheKey: keys.get(m.node)! });
					} else tasks.push(taskOf(m));
				}
				dispatch();
				continue;
			}
			if (tasks.length === 0 && slots.every((s) => !s.task)) {
				// Nothing runs and nothing is ready, yet models wait: a cycle in depends_on. Release them.
				for (const [node, left] of waits) if (left > 0 && !results.has(node)) {
					waits.set(node, 0);
					ready.push(byNode.get(node)!);
				}
				if (ready.length) continue;
			}
			await new Promise<void>((r) => (wake = r));
		}
	} finally {
		if (budgetTimer) clearTimeout(budgetTimer);
		signal?.removeEventListener('abort', onAbort);
		for (const slot of [...slots]) retire(slot);
	}
	if (opts.cache && fresh.length) await opts.cache.put(fresh);
	return { models: plan.models.map((m) => results.get(m.node)!), warnings, cacheHits, overBudget };
}
