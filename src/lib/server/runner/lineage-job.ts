// A `lineage` job: infers a stored graph's column lineage from its manifest's compiled
// SQL, queued by the deploy or preview that stored the graph. It reads the plan the deploy saved,
// runs the inference on worker threads with the workspace's cache, and at the end replaces the
// graph's column edges and stores each model's outcome in ONE transaction: a job that fails, times
// out or dies midway leaves the graph exactly as the deploy stored it. The inference itself has a
// time budget in proportion to the job's models, inside the job's deadline: when it runs out the
// models not yet inferred are failed and the rest is stored, so one project's absurd SQL holds a
// lineage slot for a bounded time and still ends with the lineage of its other models.
import type { JobStatus } from '$lib/types/jobs';
import type { InferencePlan } from '$lib/lineage/infer/manifest';
import { DEFAULT_BUDGET_MS } from '$lib/lineage/infer/types';
import type { Database } from '../db';
import { MAX_STORED_COLUMN_EDGES } from '../dbt-files/column-index';
import { inferProject, type InferCache, type ModelLineage } from '../inference/pool';
import { replaceInferredLineage, type ColumnEdgeRow, type GraphKey, type StoredModelOutcome } from '../repo/graph';
import { cacheGet, cachePut, deleteLineagePlan, graphNodeIds, readLineagePlan, setLineageProgress } from '../repo/inference';
import type { ClaimedJob } from '../repo/queue';
import { ZERO_UUID } from '../schema';
import type { StopReason } from './execute';
import type { JobLog } from './job-log';

export interface LineageJobContext {
	database: Database;
	job: ClaimedJob;
	workerId: string;
	signal: AbortSignal;
	deadline: number;
	log: JobLog;
	/** Threads of the inference pool (default: the pool's own choice). */
	threads?: number;
}

export interface LineageJobEnd {
	status: Extract<JobStatus, 'success' | 'failure' | 'canceled'>;
	result: Record<string, unknown>;
}

/** TRIBUTARY_LINEAGE_MODEL_BUDGET_MS: one model's time budget (else the pool's default), after which it is `failed`. */
export function modelBudgetMs(env: NodeJS.ProcessEnv = process.env): number | undefined {
	const v = Number(env.TRIBUTARY_LINEAGE_MODEL_BUDGET_MS);
	return env.TRIBUTARY_LINEAGE_MODEL_BUDGET_MS && Number.isFinite(v) && v > 0 ? v : undefined;
}

/** A job's inference budget before its per-model part: the threads' start, and room for one slow model's two attempts. */
const JOB_BUDGET_BASE_MS = 10_000;
/** The budget's part per model: a real model takes a few ms on a busy machine, so this is far more than any needs. */
const JOB_BUDGET_PER_MODEL_MS = 100;
/** Of the time left before the job's deadline, the share the inference may take: the rest is for storing its edges. */
const INFERENCE_SHARE_OF_DEADLINE = 0.8;

/**
 * How long a job of `models` models may infer: in proportion to its size, and never past 80% of
 * the time its deadline (TRIBUTARY_LINEAGE_TIMEOUT_S) leaves, so what was inferred is still stored.
 */
export function jobBudgetMs(models: number, timeLeftMs: number, modelBudget: number = DEFAULT_BUDGET_MS): number {
	const proportional = JOB_BUDGET_BASE_MS + 2 * modelBudget + models * JOB_BUDGET_PER_MODEL_MS;
	return Math.max(0, Math.min(proportional, Math.floor(timeLeftMs * INFERENCE_SHARE_OF_DEADLINE)));
}

/** How often a running job's progress is written (each write is one UPDATE of the job row). */
const PROGRESS_EVERY_MS = 500;

/** The graph a lineage job infers: its deploy's version graph, or the preview's own. */
export function lineageGraphKey(job: ClaimedJob): GraphKey {
	const graphJob = typeof job.args.graph_job_id === 'string' ? job.args.graph_job_id : ZERO_UUID;
	return { workspace: job.workspace, scriptPath: job.scriptPath ?? '', scriptHash: job.scriptHash, jobId: graphJob };
}

function dbCache(database: Database, workspace: string): InferCache {
	return {
		get: (keys) => cacheGet<ModelLineage>(database, workspace, keys),
		put: (entries) => cachePut(database, workspace, entries.filter((e) => e.cacheKey !== null).map((e) => ({ key: e.cacheKey!, value: e })))
	};
}

const position = (m: ModelLineage) => (m.line === null ? '' : ` (line ${m.line}${m.column === null ? '' : `, column ${m.column}`})`);

function stopMessage(reason: unknown, timeoutS: number): { status: LineageJobEnd['status']; message: string } {
	switch (reason as StopReason | 'deadline' | undefined) {
		case 'canceled':
			return { status: 'canceled', message: 'the lineage job was canceled; the graph keeps the lineage it had' };
		case 'deadline':
			return { status: 'failure', message: `the lineage job ran out of time: its ${timeoutS} s deadline passed (TRIBUTARY_LINEAGE_TIMEOUT_S)` };
		default:
			return { status: 'failure', message: 'the worker running this lineage job stopped' };
	}
}

const DIRECT = new Set(['copy', 'mod']);

/** The ingest's cap on one graph's column edges, applied the same way: direct edges first, then the others. */
function capEdges(edges: ColumnEdgeRow[]): { edges: ColumnEdgeRow[]; dropped: number } {
	if (edges.length <= MAX_STORED_COLUMN_EDGES) return { edges, dropped: 0 };
	const direct = edges.filter((e) => DIRECT.has(e.lineageKind));
	const other = edges.filter((e) => !DIRECT.has(e.lineageKind));
	const kept = [...direct, ...other].slice(0, MAX_STORED_COLUMN_EDGES);
	return { edges: kept, dropped: edges.length - kept.length };
}

export async function executeLineageJob(ctx: LineageJobContext): Promise<LineageJobEnd> {
	const { database, job, log } = ctx;
	const timeoutS = job.timeoutS ?? Math.round((ctx.deadline - job.startedAt.getTime()) / 1000);
	const plan = await readLineagePlan<InferencePlan>(database, job.id);
	if (!plan) {
		const message = 'the inference plan of this job is gone (the job ended before, or its graph was removed)';
		log.say(message);
		return { status: 'failure', result: { error: message } };
	}
	const key = lineageGraphKey(job);
	const total = plan.models.filter((m) => m.sql !== null && m.skip === null).length;
	const budgetMs = jobBudgetMs(total, ctx.deadline - Date.now(), modelBudgetMs());
	const budgetS = Math.round(budgetMs / 100) / 10;
	log.say(`inferring column lineage of ${total} models (${plan.dialect}) for ${job.scriptPath} within ${budgetS} s`);

	// One signal for the worker's stop reasons and the job's own deadline.
	const stop = new AbortController();
	const onAbort = () => stop.abort(ctx.signal.reason);
	ctx.signal.addEventListener('abort', onAbort, { once: true });
	// Stopped while the plan was read: an abort before the listener never reaches it.
	if (ctx.signal.aborted) onAbort();
	const timer = setTimeout(() => stop.abort('deadline'), Math.max(0, ctx.deadline - Date.now()));
	let lastWrite = 0;
	let pending: Promise<void> = Promise.resolve();
	let progress = { done: 0, total };
	const onProgress = (p: { done: number; total: number }) => {
		progress = p;
		const now = Date.now();
		if (now - lastWrite < PROGRESS_EVERY_MS && p.done < p.total) return;
		lastWrite = now;
		pending = pending.then(() => setLineageProgress(database, job.id, ctx.workerId, p)).catch(() => {});
	};
	try {
		const started = Date.now();
		const run = inferProject(plan, { threads: ctx.threads, budgetMs: modelBudgetMs(), jobBudgetMs: budgetMs, cache: dbCache(database, job.workspace), onProgress, signal: stop.signal });
		// The pool answers an abort by rejecting; the race also ends a pool that did not notice.
		const aborted = new Promise<never>((_, reject) => {
			if (stop.signal.aborted) reject(stop.signal.reason);
			stop.signal.addEventListener('abort', () => reject(stop.signal.reason), { once: true });
		});
		// A stop after the inference ended (while storing) must not become an unhandled rejection:
		// the store then runs to its end in its one transaction.
		aborted.catch(() => {});
		let answer: Awaited<typeof run>;
		try {
			answer = await Promise.race([run, aborted]);
		} catch (e) {
			if (!stop.signal.aborted) throw e;
			run.catch(() => {});
			const s = stopMessage(stop.signal.reason, timeoutS);
			log.say(s.message);
			await pending;
			// A stopping worker hands the job back with its plan, or deletes the plan itself.
			if (stop.signal.reason !== ('worker-stopped' satisfies StopReason)) await deleteLineagePlan(database, job.id);
			return { status: s.status, result: { error: s.message, progress } };
		}
		await pending;
		const seconds = (Date.now() - started) / 1000;

		const inGraph = await graphNodeIds(database, key);
		const counts = { analyzed: 0, partial: 0, failed: 0, skipped: 0, too_complex: 0, pending: 0 };
		const outcomes = new Map<string, StoredModelOutcome>();
		const edges = new Map<string, ColumnEdgeRow>();
		for (const m of answer.models) {
			if (!inGraph.has(m.node)) continue;
			counts[m.outcome]++;
			outcomes.set(m.node, { outcome: m.outcome, message: m.message, line: m.line, column: m.column, untraced: m.untraced ?? [] });
			if (m.outcome === 'failed') log.say(`failed: ${m.node}: ${m.message ?? 'no message'}${position(m)}`);
			else if (m.outcome === 'too_complex') log.say(`too complex: ${m.node}: ${m.message ?? 'no message'}`);
			else if (m.outcome === 'partial') {
				log.say(`partial: ${m.node}: ${(m.untraced ?? []).map((u) => `${u.column} (${u.reason})`).join('; ')}`);
			}
			for (const e of m.edges) {
				if (!inGraph.has(e.fromNode)) continue;
				const row: ColumnEdgeRow = {
					parentUniqueId: e.fromNode,
					parentColumn: e.fromColumn,
					childUniqueId: m.node,
					childColumn: e.toColumn,
					lineageKind: e.kind,
					component: null,
					provenance: 'inferred'
				};
				edges.set([row.parentUniqueId, row.parentColumn, row.childUniqueId, row.childColumn, row.lineageKind].join('\u0000'), row);
			}
		}
		for (const w of answer.warnings) log.say(`warning: ${w}`);
		if (answer.overBudget) log.say(`the time budget of ${budgetS} s ran out: ${answer.overBudget} models were not analysed (the next deploy tries them again); storing the rest`);
		const kept = capEdges([...edges.values()]);
		if (kept.dropped) log.say(`warning: ${kept.dropped} inferred edges over the ${MAX_STORED_COLUMN_EDGES}-edge cap were dropped (non-direct kinds first)`);
		const storeStarted = Date.now();
		// Storing a big project's edges takes a while too (PGlite: tens of seconds at 200,000): say so.
		await setLineageProgress(database, job.id, ctx.workerId, { done: total, total, storing: true });
		log.say(`storing ${kept.edges.length} column edges`);
		const stored = await database.db.transaction(async (tx) => {
			const ok = await replaceInferredLineage(database, tx, key, job.id, kept.edges, outcomes);
			await deleteLineagePlan(database, job.id, tx);
			return ok;
		});
		const result = {
			models: counts,
			column_edges: kept.edges.length,
			column_edges_over_cap: kept.dropped,
			cache_hits: answer.cacheHits,
			inferred: total - answer.cacheHits,
			seconds: Math.round(seconds * 1000) / 1000,
			budget_seconds: budgetS,
			over_budget: answer.overBudget,
			store_seconds: (Date.now() - storeStarted) / 1000,
			dialect: plan.dialect,
			// The warnings name columns (authored): they are in the log, which readers of the project alone get.
			warnings: answer.warnings.length,
			progress: { done: total, total },
			stored
		};
		log.say(
			stored
				? `stored ${kept.edges.length} inferred column edges in ${result.store_seconds} s: ${counts.analyzed} analyzed, ${counts.partial} partial, ${counts.failed} failed, ${counts.too_complex} too complex, ${counts.skipped} skipped ` +
						`(${answer.cacheHits} from the cache) in ${result.seconds} s`
				: 'the graph was replaced or removed while the job ran: nothing stored'
		);
		return { status: 'success', result };
	} catch (e) {
		// The graph keeps what the deploy stored; the job says why it has no inferred lineage.
		const message = `column lineage could not be inferred: ${(e as Error).message}`;
		log.say(message);
		await deleteLineagePlan(database, job.id).catch(() => {});
		return { status: 'failure', result: { error: message, progress } };
	} finally {
		clearTimeout(timer);
		ctx.signal.removeEventListener('abort', onAbort);
	}
}
