// The receiver's steady state in batches (docs/openlineage.md, "Throughput"): run events of jobs
// that exist already, whose lineage they leave as it is, are stored together. Events that arrive
// while a batch is being written wait for the next one, so an idle receiver answers the first
// event at once, and a busy one writes many events with the statements of one: the jobs locked
// and read, the events, the runs' states, their progress, the datasets, the jobs' facets and
// lineage marks, in ONE transaction. Each event is still answered on its own (its own 403, its
// own `duplicate`), only after its batch committed: a read after the 201 sees the event, its run
// and the run's colours. Everything else (a new job, a lineage that changes, dbt-ol, job and
// dataset events) takes receiveEvent's path, one transaction per event, as before; so does every
// event of a batch whose transaction failed, so one bad event cannot fail the others.
import {
	jobLineageOf,
	type JobLineage,
	datasetResolverCache
} from '../../lineage/openlineage-in';
import { hashToHex } from '../../types/script-hash';
import { unmappedNamespace, type Grant } from '../access';
import { pipelinedTransaction, type Database, type Tx } from '../db';
import { openLineageLimits } from '../limits';
import { folderOf } from '../paths';
import {
	batchContext,
	insertEvents,
	jobKey,
	mergeJobsFacets,
	runsEventSummaries,
	touchJobLineages,
	upsertExternalDatasetsAt,
	upsertRuns,
	upsertRunsProgress,
	type ExternalDatasetRow,
	type RunProgressRow,
	type RunRow,
	type StoredJob
} from '../repo/openlineage-in';
import { dbtOlJobOf } from './dbt-ol';
import type { ReceivedEvent } from './event';
import {
	externalRows,
	lineageApplies,
	lineageDigest,
	maybePrune,
	ownJobNamespace,
	PROGRESS_OF,
	receiveEvent,
	runJobId,
	runResult,
	runStateOf,
	type ReceiveAnswer
} from './receive';

/** Events per batch at most (its statements' arrays; the bodies are bounded by the body cap). */
const MAX_BATCH = 200;
/** Batches written at once per database handle (each one connection of the pool). */
const CONCURRENT_BATCHES = 2;

interface Item {
	grant: Grant;
	ev: ReceivedEvent;
	resolve: (a: ReceiveAnswer) => void;
	reject: (e: unknown) => void;
}

/** Whether an event can go into a batch at all (else receiveEvent alone). */
function batchable(ws: string, ev: ReceivedEvent): boolean {
	if (ev.kind !== 'run' || !ev.job || !ev.runId) return false;
	if (ev.job.namespace === ownJobNamespace(ws)) return false;
	return dbtOlJobOf(ev.job.facets, ev.runFacets) === null;
}

/** Batches written by this process, the largest, and those whose transaction failed (their events then went one by one). */
const stats = { batches: 0, events: 0, largest: 0, failed: 0 };
export function openLineageBatchStats(): Readonly<typeof stats> {
	return { ...stats };
}

class Batcher {
	private pending: Item[] = [];
	private running = 0;
	constructor(private readonly database: Database) {}

	submit(grant: Grant, ev: ReceivedEvent): Promise<ReceiveAnswer> {
		return new Promise<ReceiveAnswer>((resolve, reject) => {
			this.pending.push({ grant, ev, resolve, reject });
			if (this.running < CONCURRENT_BATCHES) void this.loop();
		});
	}

	/** Writes batches while events wait. */
	private async loop(): Promise<void> {
		this.running++;
		try {
			while (this.pending.length) {
				// One workspace per batch (its statements are per workspace): the first waiting
				// event's, and every waiting event of it up to the batch size.
				const ws = this.pending[0].grant.workspace;
				const items: Item[] = [];
				const rest: Item[] = [];
				for (const it of this.pending) (it.grant.workspace === ws && items.length < MAX_BATCH ? items : rest).push(it);
				this.pending = rest;
				await this.write(ws, items);
			}
		} finally {
			this.running--;
		}
	}

	private async write(ws: string, items: Item[]): Promise<void> {
		let slow: Item[] = [];
		try {
			const done = await pipelinedTransaction(this.database, (tx) => writeBatch(this.database, tx, ws, items));
			stats.batches++;
			stats.events += items.length - done.slow.length;
			stats.largest = Math.max(stats.largest, items.length - done.slow.length);
			for (const [it, out] of done.answers) it.resolve(out);
			for (const [it, e] of done.refused) it.reject(e);
			slow = done.slow;
		} catch {
			stats.failed++;
			// Nothing of the batch was stored: each event again on its own, with its own answer.
			slow = items;
		}
		for (const it of slow) {
			try {
				it.resolve(await receiveEvent(this.database, it.grant, it.ev));
			} catch (e) {
				it.reject(e);
			}
		}
		await maybePrune(this.database, ws).catch(() => {});
	}
}

interface BatchOutcome {
	answers: [Item, ReceiveAnswer][];
	refused: [Item, unknown][];
	/** For receiveEvent, after the batch committed (not stored by it). */
	slow: Item[];
}

/**
 * The batch's statements in three steps (each one round trip): the jobs locked and read; the
 * events inserted and the runs' events read; then every write, sent with the COMMIT (left in
 * flight in `last`: the answers wait for the commit, and a failed write rolls everything back).
 */
async function writeBatch(database: Database, tx: Tx, ws: string, items: readonly Item[]): Promise<{ result: BatchOutcome; last: Promise<unknown> }> {
	const out: BatchOutcome = { answers: [], refused: [], slow: [] };
	const ctx = await batchContext(database, tx, ws, items.map((it) => it.ev.job!));
	const at = datasetResolverCache({ workspace: ws, warehouses: ctx.warehouses });
	const { edges: maxEdges } = openLineageLimits();

	// Pass 1: the gate, and which jobs need receiveEvent (none stored yet, or a lineage that changes).
	const slowJobs = new Set<string>();
	const lineages = new Map<Item, { lineage: JobLineage; digest: string }>();
	const fast: Item[] = [];
	for (const it of items) {
		const job = it.ev.job!;
		const key = jobKey(job.namespace, job.name);
		const stored = ctx.jobs.get(key);
		const folder = stored ? folderOf(stored.scriptPath) : (ctx.folders.get(job.namespace) ?? ctx.folders.get('*') ?? null);
		try {
			if (folder === null) throw unmappedNamespace(job.namespace);
			// A new job's path is only known once created; the gate for it is receiveEvent's.
			if (stored) it.grant.requireLineageWrite(job.namespace, folder, stored.scriptPath);
		} catch (e) {
			out.refused.push([it, e]);
			continue;
		}
		if (!stored || stored.scriptHash === null) slowJobs.add(key);
		else if (it.ev.inputs.length + it.ev.outputs.length > 0) {
			const lineage = jobLineageOf(it.ev.inputs, it.ev.outputs, at, maxEdges);
			const digest = lineageDigest(lineage);
			lineages.set(it, { lineage, digest });
			// Conservative: a different shape that could become the job's lineage is receiveEvent's.
			const couldApply = it.ev.eventType === 'COMPLETE' || !stored.lineageFromComplete;
			if (digest !== stored.lineageDigest && couldApply) slowJobs.add(key);
		}
		fast.push(it);
	}
	const kept: Item[] = [];
	for (const it of fast) (slowJobs.has(jobKey(it.ev.job!.namespace, it.ev.job!.name)) ? out.slow : kept).push(it);

	// The events (the first of equal ones in the batch; the others are its duplicates).
	const firstOfKey = new Map<string, Item>();
	for (const it of kept) if (!firstOfKey.has(it.ev.key)) firstOfKey.set(it.ev.key, it);
	// Issued together, the statements of a step go out in one write and run in order: the runs'
	// events are read after this batch's are in (round trips, not statements, are what an event
	// costs here).
	const [inserted, summaries] = await Promise.all([
		insertEvents(
			database,
			tx,
			ws,
			[...firstOfKey.values()].map(({ grant, ev }) => ({ key: ev.key, eventType: ev.eventType, runId: ev.runId, jobNamespace: ev.job!.namespace, jobName: ev.job!.name, eventTime: ev.eventTime, sentBy: grant.username, body: ev.body }))
		),
		runsEventSummaries(database, tx, ws, [...new Set(kept.map((it) => it.ev.runId!))])
	]);
	const stored: Item[] = [];
	for (const it of kept) {
		if (firstOfKey.get(it.ev.key) === it && inserted.has(it.ev.key)) stored.push(it);
		else out.answers.push([it, { status: 'duplicate', warnings: [] }]);
	}

	// Pass 2: what the stored events change, per job in the batch's order.
	const jobState = new Map<string, StoredJob>();
	const touches = new Map<string, { namespace: string; name: string; eventTime: Date; fromComplete: boolean; digest: string; warnings: string[] }>();
	const facetRounds: { namespace: string; name: string; facets: Record<string, unknown>; eventTime: Date }[][] = [];
	const facetCount = new Map<string, number>();
	const datasets = new Map<string, ExternalDatasetRow & { eventTime: Date }>();
	const warningsOf = new Map<Item, string[]>();
	for (const it of stored) {
		const { ev } = it;
		const job = ev.job!;
		const key = jobKey(job.namespace, job.name);
		const state = jobState.get(key) ?? { ...ctx.jobs.get(key)! };
		jobState.set(key, state);
		const l = lineages.get(it);
		if (l && lineageApplies(ev, state)) {
			const warnings =
				l.lineage.droppedEdges > 0
					? [
							`columnLineage: ${(l.lineage.rows.length + l.lineage.droppedEdges).toLocaleString('en-US')} column edges is over the limit of ${maxEdges.toLocaleString('en-US')} per event (TRIBUTARY_OPENLINEAGE_MAX_EDGES); the first ${maxEdges.toLocaleString('en-US')} were stored`
						]
					: [];
			warningsOf.set(it, warnings);
			state.lineageEventTime = ev.eventTime;
			state.lineageFromComplete = ev.eventType === 'COMPLETE';
			touches.set(key, { namespace: job.namespace, name: job.name, eventTime: ev.eventTime, fromComplete: state.lineageFromComplete, digest: l.digest, warnings });
		}
		if (Object.keys(job.facets).length > 0) {
			const n = facetCount.get(key) ?? 0;
			facetCount.set(key, n + 1);
			(facetRounds[n] ??= []).push({ namespace: job.namespace, name: job.name, facets: job.facets, eventTime: ev.eventTime });
		}
		for (const d of externalRows([...ev.inputs, ...ev.outputs], at)) {
			const prev = datasets.get(d.assetPath);
			// The newest schema wins, as when the events are stored one by one.
			if (!prev || (d.fields && (!prev.fields || prev.eventTime.getTime() <= ev.eventTime.getTime()))) datasets.set(d.assetPath, { ...d, eventTime: ev.eventTime });
		}
	}
	const byKey = <T>(m: Map<string, T>) => [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
	const writes: Promise<void>[] = [touchJobLineages(database, tx, ws, byKey(touches))];
	for (const round of facetRounds) writes.push(mergeJobsFacets(database, tx, ws, round));
	writes.push(upsertExternalDatasetsAt(database, tx, ws, byKey(datasets)));

	// The runs: each state from all of its stored events, this batch's included.
	const runs = new Map<string, RunRow>();
	const states = new Map<string, ReturnType<typeof runStateOf>>();
	for (const it of stored) {
		const runId = it.ev.runId!;
		if (runs.has(runId)) continue;
		const job = it.ev.job!;
		const s = runStateOf(summaries.get(runId) ?? []);
		states.set(runId, s);
		const st = jobState.get(jobKey(job.namespace, job.name))!;
		runs.set(runId, {
			id: runJobId(ws, runId),
			workspace: ws,
			scriptPath: st.scriptPath,
			scriptHash: st.scriptHash,
			createdBy: s.createdBy,
			parentJob: s.parentRunId ? runJobId(ws, s.parentRunId) : null,
			status: s.status,
			args: { openlineage: { namespace: job.namespace, name: job.name, run_id: runId } },
			result: runResult(runId, s),
			createdAt: s.createdAt,
			startedAt: s.startedAt,
			completedAt: s.completedAt
		});
	}
	writes.push(upsertRuns(database, tx, byKey(runs)));
	const progress = new Map<string, RunProgressRow>();
	for (const it of stored) {
		const s = states.get(it.ev.runId!)!;
		const id = runJobId(ws, it.ev.runId!);
		for (const d of it.ev.outputs) {
			const a = at(d);
			progress.set(`${id}\u0000${a.kind}\u0000${a.path}`, { jobId: id, assetKind: a.kind, assetPath: a.path, status: PROGRESS_OF[s.status], error: s.status === 'failure' ? (s.error?.message ?? null) : null });
		}
	}
	writes.push(upsertRunsProgress(database, tx, ws, byKey(progress)));

	for (const it of stored) {
		const st = jobState.get(jobKey(it.ev.job!.namespace, it.ev.job!.name))!;
		out.answers.push([it, { status: 'stored', job: st.scriptPath, version: hashToHex(st.scriptHash!), warnings: warningsOf.get(it) ?? [], run: `/w/${ws}/run/${runJobId(ws, it.ev.runId!)}` }]);
	}
	return { result: out, last: Promise.all(writes) };
}

const batchers = new WeakMap<Database, Batcher>();

/**
 * Receives one checked event (receiveEvent's answer and refusals): a run event of a known job in
 * a batch, anything else on its own.
 */
export function receive(database: Database, grant: Grant, ev: ReceivedEvent): Promise<ReceiveAnswer> {
	if (!batchable(grant.workspace, ev)) return receiveEvent(database, grant, ev);
	let b = batchers.get(database);
	if (!b) batchers.set(database, (b = new Batcher(database)));
	return b.submit(grant, ev);
}
