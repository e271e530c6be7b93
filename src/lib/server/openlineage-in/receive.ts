// The OpenLineage receiver's service (docs/openlineage.md): where an event lands (its job's
// folder, else its namespace's), the gate, and the store, all of one event in ONE transaction
// so a refused or failed event leaves nothing behind. Storing is idempotent (an event's key is
// its canonical digest) and order-free: a run's state is recomputed from all of its stored
// events, and a job's lineage is replaced only by a newer event of at least the same standing
// (a COMPLETE outranks a START naming datasets).
import { createHash } from 'node:crypto';
import {
	jobLineageOf,
	jobScriptPath,
	OPENLINEAGE_LANGUAGE,
	resolveDataset,
	schemaFieldsOf,
	type DatasetResolver,
	type JobLineage,
	type OpenLineageJobContent,
	type ResolvedAsset,
	datasetResolverCache
} from '../../lineage/openlineage-in';
import { jobNamespace } from '../../lineage/openlineage';
import { isJobId } from '../../types/jobs';
import { hashToHex } from '../../types/script-hash';
import { unmappedNamespace, type Grant } from '../access';
import type { Database, Tx } from '../db';
import { openLineageLimits } from '../limits';
import { folderOf } from '../paths';
import { RETENTION } from '../repo/graph';
import { upsertProgress, type ProgressUpdate } from '../repo/jobs';
import {
	dbtNodeOwners,
	ingestContext,
	insertEvent,
	openLineageRunRow,
	insertJobRow,
	lockJob,
	mergeJobFacets,
	pathTaken,
	pruneEvents,
	pruneJobVersions,
	pruneRunProgress,
	runEventSummaries,
	setJobLineage,
	upsertExternalDatasets,
	upsertRun,
	warehouseNamings,
	type ExternalDatasetRow,
	type RunEventSummary,
	type StoredJob
} from '../repo/openlineage-in';
import { insertProducerLineage } from '../repo/producers';
import { insertScriptVersion, newScriptHash, pruneAssetUsage, publishAssetUsage } from '../repo/scripts';
import { dbtOlJobOf, type DbtOlJob } from './dbt-ol';
import type { ReceivedDataset, ReceivedEvent } from './event';

export interface ReceiveAnswer {
	/** `duplicate`: the same event was stored before; nothing changed. */
	status: 'stored' | 'duplicate';
	/** The producer script the job is drawn as (absent for a dataset event). */
	job?: string;
	/** The run's page, for a run event: `/w/{ws}/run/{id}`. */
	run?: string;
	/** The job's version after this event (16 hex digits). */
	version?: string;
	warnings: string[];
}

// ─── Identities ────────────────────────────────────────────────────────────────────────────

const RUN_ID_NAMESPACE = Buffer.from('6f1b3c3e9d2a4b5e8c7f0a1b2c3d4e5f', 'hex');

/**
 * The Tributary job id of an OpenLineage run: a name-based (version 5) uuid of the workspace and
 * the run id, so the same run sent to two workspaces is two jobs and a resent event finds its run.
 */
export function runJobId(ws: string, runId: string): string {
	const h = createHash('sha1').update(RUN_ID_NAMESPACE).update(`${ws}\u0000${runId}`).digest();
	h[6] = (h[6] & 0x0f) | 0x50;
	h[8] = (h[8] & 0x3f) | 0x80;
	const x = h.subarray(0, 16).toString('hex');
	return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

export const ownJobNamespace = jobNamespace;
const OWN_JOB_WARNING = "the job namespace is Tributary's own (its export): the event is kept, and its job, already drawn, is not drawn a second time";

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

// ─── Runs ──────────────────────────────────────────────────────────────────────────────────

const TERMINAL: Record<string, 'success' | 'failure' | 'canceled'> = { COMPLETE: 'success', FAIL: 'failure', ABORT: 'canceled' };

export interface RunState {
	status: 'running' | 'success' | 'failure' | 'canceled';
	createdAt: Date;
	startedAt: Date | null;
	completedAt: Date | null;
	createdBy: string;
	parentRunId: string | null;
	parentJob: { namespace: string; name: string } | null;
	error: { message: string; programmingLanguage: string | null; stackTrace: string | null } | null;
	events: { type: string | null; time: string }[];
}

/**
 * A run's state from all of its events, whatever order they came in: the latest terminal event
 * (COMPLETE, FAIL, ABORT) by event time ends it, else it is running; it started at its first
 * START (else its first event); the error is the latest FAIL's errorMessage facet.
 */
export function runStateOf(events: readonly RunEventSummary[]): RunState {
	const sorted = [...events].sort((a, b) => a.eventTime.getTime() - b.eventTime.getTime());
	const terminal = sorted.filter((e) => e.eventType !== null && e.eventType in TERMINAL).at(-1) ?? null;
	const start = sorted.find((e) => e.eventType === 'START') ?? sorted[0];
	const firstSent = [...events].sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime())[0];
	let parentRunId: string | null = null;
	let parentJob: RunState['parentJob'] = null;
	for (const e of sorted) {
		const p = e.parent;
		if (!isObject(p) || !isObject(p.run) || typeof p.run.runId !== 'string') continue;
		const id = p.run.runId.toLowerCase().replace(/^urn:uuid:/, '');
		if (!isJobId(id)) continue;
		parentRunId = id;
		parentJob = isObject(p.job) && typeof p.job.namespace === 'string' && typeof p.job.name === 'string' ? { namespace: p.job.namespace, name: p.job.name } : null;
	}
	const fail = [...sorted].reverse().find((e) => e.eventType === 'FAIL' && isObject(e.errorMessage));
	const err = fail?.errorMessage as Record<string, unknown> | undefined;
	return {
		status: terminal ? TERMINAL[terminal.eventType!] : 'running',
		createdAt: sorted[0].eventTime,
		startedAt: start?.eventTime ?? null,
		completedAt: terminal?.eventTime ?? null,
		createdBy: firstSent.sentBy,
		parentRunId,
		parentJob,
		error: err
			? {
					message: String(err.message ?? ''),
					programmingLanguage: typeof err.programmingLanguage === 'string' ? err.programmingLanguage : null,
					stackTrace: typeof err.stackTrace === 'string' ? err.stackTrace : null
				}
			: null,
		events: sorted.slice(-100).map((e) => ({ type: e.eventType, time: e.eventTime.toISOString() }))
	};
}

/** The run's job result: its events, and its error (the message and stack trace are authored: the jobs family's wire form withholds them). */
export function runResult(runId: string, s: RunState): Record<string, unknown> {
	const out: Record<string, unknown> = { openlineage: { run_id: runId, events: s.events } };
	if (s.parentRunId) (out.openlineage as Record<string, unknown>).parent = { run_id: s.parentRunId, job: s.parentJob };
	if (s.error) {
		out.error = s.error.message;
		out.error_detail = { message: s.error.message, programming_language: s.error.programmingLanguage, stack_trace: s.error.stackTrace };
	} else if (s.status === 'failure') out.error = 'the run failed';
	return out;
}

export const PROGRESS_OF: Record<RunState['status'], ProgressUpdate['status']> = { running: 'running', success: 'materialized', failure: 'failed', canceled: 'failed' };

// ─── Lineage ───────────────────────────────────────────────────────────────────────────────

/** An order-free digest of a job's lineage: equal digests, nothing to store. */
export function lineageDigest(l: JobLineage): string {
	const uses = l.uses.map((u) => `${u.assetKind}\u0000${u.assetPath}\u0000${u.access}`).sort();
	const rows = l.rows.map((r) => [r.outputAssetKind, r.outputAssetPath, r.outputColumn, r.inputAssetKind, r.inputAssetPath, r.inputColumn, r.lineageKind ?? ''].join('\u0000')).sort();
	return createHash('sha256').update(uses.join('\n')).update('\u0001').update(rows.join('\n')).digest('hex');
}

/**
 * Whether this event's datasets become the job's lineage: a COMPLETE (or a job event, which
 * describes the job itself) newer than the lineage's event, or its first; before any COMPLETE,
 * the newest event naming datasets. An event naming none says nothing about them.
 */
export function lineageApplies(ev: ReceivedEvent, job: StoredJob): boolean {
	if (ev.inputs.length + ev.outputs.length === 0) return false;
	const complete = ev.eventType === 'COMPLETE' || ev.kind === 'job';
	const newer = job.lineageEventTime === null || job.lineageEventTime.getTime() <= ev.eventTime.getTime();
	if (complete) return !job.lineageFromComplete || newer;
	return !job.lineageFromComplete && newer;
}

// ─── Storing ───────────────────────────────────────────────────────────────────────────────

const lastPrune = new Map<string, number>();
const PRUNE_EVERY_MS = 3_600_000;

/** Retention, at most hourly per workspace and process: events older than a run snapshot lives. */
export async function maybePrune(database: Database, ws: string): Promise<void> {
	const now = Date.now();
	if (now - (lastPrune.get(ws) ?? 0) < PRUNE_EVERY_MS) return;
	lastPrune.set(ws, now);
	const cutoff = new Date(now - RETENTION.runDays * 86_400_000);
	await pruneEvents(database, ws, cutoff);
	await pruneRunProgress(database, ws, cutoff);
}

/** The path a new job takes: its slug, or the slug with a few digits of its identity when that is taken. */
async function freePath(database: Database, tx: Tx, ws: string, folder: string, job: { namespace: string; name: string }): Promise<string> {
	const digest = createHash('sha256').update(`${job.namespace}\u0000${job.name}`).digest('hex');
	for (const suffix of [undefined, digest.slice(0, 6), digest.slice(0, 12), digest]) {
		const p = jobScriptPath(folder, job, suffix);
		if (!(await pathTaken(database, tx, ws, p))) return p;
	}
	throw new Error(`no free script path for the OpenLineage job ${job.namespace} ${job.name}`);
}

async function storeVersion(database: Database, tx: Tx, ws: string, path: string, job: { namespace: string; name: string }, by: string, l: JobLineage | null): Promise<bigint> {
	const hash = newScriptHash();
	// The version keeps its own reads and writes: asset_usage holds only the newest version's,
	// and an older run's page draws what that run reported.
	const content: OpenLineageJobContent = { namespace: job.namespace, name: job.name, uses: (l?.uses ?? []).map((u) => ({ kind: u.assetKind, path: u.assetPath, access: u.access })) };
	await insertScriptVersion(tx, { workspace: ws, hash, path, language: OPENLINEAGE_LANGUAGE, content: JSON.stringify(content), createdBy: by });
	if (l) {
		await insertProducerLineage(
			tx,
			ws,
			path,
			hash,
			l.rows.map((r) => ({ ...r, source: 'annotation' as const }))
		);
	}
	await publishAssetUsage(database, tx, ws, path, hash, l?.uses ?? []);
	await pruneAssetUsage(database, ws, path, tx);
	await pruneJobVersions(database, tx, ws, path, RETENTION.versionsPerPath);
	return hash;
}

export function externalRows(datasets: readonly ReceivedDataset[], at: (d: ReceivedDataset) => ResolvedAsset): ExternalDatasetRow[] {
	const out = new Map<string, ExternalDatasetRow>();
	for (const d of datasets) {
		const a = at(d);
		if (a.kind !== 'openlineage') continue;
		const fields = schemaFieldsOf(d);
		const prev = out.get(a.path);
		if (!prev || (fields && !prev.fields)) out.set(a.path, { assetPath: a.path, namespace: d.namespace, name: d.name, fields });
	}
	return [...out.values()];
}

/** Receives one checked event for the caller: 403 when its namespace is unmapped or its folder not the caller's to write. */
export async function receiveEvent(database: Database, grant: Grant, ev: ReceivedEvent): Promise<ReceiveAnswer> {
	const ws = grant.workspace;
	if (ev.kind === 'dataset') return receiveDatasetEvent(database, grant, ev);
	const job = ev.job!;
	if (ev.kind === 'run') {
		const dbtOl = dbtOlJobOf(job.facets, ev.runFacets);
		if (dbtOl?.kind === 'invocation') return receiveDbtInvocation(database, grant, ev);
		if (dbtOl?.kind === 'node') {
			const attached = await receiveDbtNode(database, grant, ev, dbtOl);
			if (attached) return attached;
		}
	}
	const ctx = await ingestContext(database, ws, job.namespace, job.name);
	const folder = ctx.job ? folderOf(ctx.job.scriptPath) : ctx.mappedFolder;
	if (folder === null) throw unmappedNamespace(job.namespace);
	grant.requireLineageWrite(job.namespace, folder, ctx.job?.scriptPath ?? jobScriptPath(folder, job));
	const at = datasetResolverCache({ workspace: ws, warehouses: ctx.warehouses });
	const { edges: maxEdges } = openLineageLimits();
	const answer = await database.db.transaction(async (tx): Promise<ReceiveAnswer> => {
		const stored = await insertEvent(database, tx, ws, {
			key: ev.key,
			eventType: ev.eventType,
			runId: ev.runId,
			jobNamespace: job.namespace,
			jobName: job.name,
			eventTime: ev.eventTime,
			sentBy: grant.username,
			body: ev.body
		});
		if (!stored) return { status: 'duplicate', warnings: [] };
		// Tributary's own export sent back: its jobs are the dbt models and producers already drawn.
		if (job.namespace === ownJobNamespace(ws)) return { status: 'stored', warnings: [OWN_JOB_WARNING] };
		let state = await lockJob(database, tx, ws, job.namespace, job.name);
		if (!state) {
			const path = await freePath(database, tx, ws, folder, job);
			// Another event may have created the job meanwhile: then its row (and path) stands.
			await insertJobRow(database, tx, ws, { namespace: job.namespace, name: job.name, scriptPath: path, createdBy: grant.username });
			state = (await lockJob(database, tx, ws, job.namespace, job.name))!;
		}
		const warnings: string[] = [];
		let hash = state.scriptHash;
		if (lineageApplies(ev, state)) {
			const lineage = jobLineageOf(ev.inputs, ev.outputs, at, maxEdges);
			if (lineage.droppedEdges > 0) {
				warnings.push(
					`columnLineage: ${(lineage.rows.length + lineage.droppedEdges).toLocaleString('en-US')} column edges is over the limit of ${maxEdges.toLocaleString('en-US')} per event (TRIBUTARY_OPENLINEAGE_MAX_EDGES); the first ${maxEdges.toLocaleString('en-US')} were stored`
				);
			}
			const digest = lineageDigest(lineage);
			if (digest !== state.lineageDigest || hash === null) hash = await storeVersion(database, tx, ws, state.scriptPath, job, grant.username, lineage);
			await setJobLineage(database, tx, ws, job, { eventTime: ev.eventTime, fromComplete: ev.eventType === 'COMPLETE' || ev.kind === 'job', digest, warnings });
		} else if (hash === null) {
			hash = await storeVersion(database, tx, ws, state.scriptPath, job, grant.username, null);
		}
		if (Object.keys(job.facets).length > 0) await mergeJobFacets(database, tx, ws, job, job.facets, ev.eventTime);
		await upsertExternalDatasets(database, tx, ws, externalRows([...ev.inputs, ...ev.outputs], at), ev.eventTime);
		const out: ReceiveAnswer = { status: 'stored', job: state.scriptPath, version: hashToHex(hash), warnings };
		if (ev.kind === 'run') {
			const runId = ev.runId!;
			const id = runJobId(ws, runId);
			const s = runStateOf(await runEventSummaries(database, tx, ws, runId));
			await upsertRun(database, tx, {
				id,
				workspace: ws,
				scriptPath: state.scriptPath,
				scriptHash: hash,
				createdBy: s.createdBy,
				parentJob: s.parentRunId ? runJobId(ws, s.parentRunId) : null,
				status: s.status,
				args: { openlineage: { namespace: job.namespace, name: job.name, run_id: runId } },
				result: runResult(runId, s),
				createdAt: s.createdAt,
				startedAt: s.startedAt,
				completedAt: s.completedAt
			});
			const updates: ProgressUpdate[] = ev.outputs.map((d) => {
				const a = at(d);
				return { assetKind: a.kind, assetPath: a.path, status: PROGRESS_OF[s.status], error: s.status === 'failure' ? (s.error?.message ?? null) : null };
			});
			if (updates.length) await upsertProgress(database, ws, id, updates, tx);
			out.run = `/w/${ws}/run/${id}`;
		}
		return out;
	});
	await maybePrune(database, ws);
	return answer;
}

/** A dataset event: the dataset's identity and schema, in the folder its namespace maps to. */
async function receiveDatasetEvent(database: Database, grant: Grant, ev: ReceivedEvent): Promise<ReceiveAnswer> {
	const ws = grant.workspace;
	const d = ev.dataset!;
	const ctx = await ingestContext(database, ws, d.namespace, null);
	if (ctx.mappedFolder === null) throw unmappedNamespace(d.namespace);
	grant.requireLineageWrite(d.namespace, ctx.mappedFolder, jobScriptPath(ctx.mappedFolder, d));
	const resolver: DatasetResolver = { workspace: ws, warehouses: ctx.warehouses };
	const answer = await database.db.transaction(async (tx): Promise<ReceiveAnswer> => {
		const stored = await insertEvent(database, tx, ws, { key: ev.key, eventType: null, runId: null, jobNamespace: null, jobName: null, eventTime: ev.eventTime, sentBy: grant.username, body: ev.body });
		if (!stored) return { status: 'duplicate', warnings: [] };
		await upsertExternalDatasets(database, tx, ws, externalRows([d], (x) => resolveDataset(x, resolver)), ev.eventTime);
		return { status: 'stored', warnings: [] };
	});
	await maybePrune(database, ws);
	return answer;
}

// ─── dbt-ol ────────────────────────────────────────────────────────────────────────────────

function runRowOf(ws: string, runId: string, at: { scriptPath: string; scriptHash: bigint | null }, job: { namespace: string; name: string }, s: RunState) {
	return {
		id: runJobId(ws, runId),
		workspace: ws,
		scriptPath: at.scriptPath,
		scriptHash: at.scriptHash,
		createdBy: s.createdBy,
		parentJob: s.parentRunId ? runJobId(ws, s.parentRunId) : null,
		status: s.status,
		args: { openlineage: { namespace: job.namespace, name: job.name, run_id: runId, dbt: true } },
		result: runResult(runId, s),
		createdAt: s.createdAt,
		startedAt: s.startedAt,
		completedAt: s.completedAt
	};
}

/**
 * A dbt-ol node event: attached to the one deployed project holding that node (at the relation
 * its output names, when it names one), its run the invocation's (its parent). Null when no
 * readable project holds it, or several do: it is then an ordinary job.
 */
async function receiveDbtNode(database: Database, grant: Grant, ev: ReceivedEvent, dbt: Extract<DbtOlJob, { kind: 'node' }>): Promise<ReceiveAnswer | null> {
	const ws = grant.workspace;
	const resolver: DatasetResolver = { workspace: ws, warehouses: await warehouseNamings(database, ws) };
	const output = ev.outputs[0] ? resolveDataset(ev.outputs[0], resolver) : null;
	const owners = await dbtNodeOwners(database, ws, dbt.uniqueId, output?.kind === 'dbt' ? output.path : null);
	if (owners.length !== 1 || !grant.maySee(owners[0].scriptPath)) return null;
	const project = owners[0];
	grant.requireProjectRunWrite(project.scriptPath);
	const runId = dbt.parentRunId ?? ev.runId!;
	const id = runJobId(ws, runId);
	return database.db.transaction(async (tx): Promise<ReceiveAnswer> => {
		const job = ev.job!;
		const stored = await insertEvent(database, tx, ws, { key: ev.key, eventType: ev.eventType, runId: ev.runId, jobNamespace: job.namespace, jobName: job.name, eventTime: ev.eventTime, sentBy: grant.username, body: ev.body });
		if (!stored) return { status: 'duplicate', warnings: [] };
		const node = runStateOf(await runEventSummaries(database, tx, ws, ev.runId!));
		const invocationEvents = runId === ev.runId ? [] : await runEventSummaries(database, tx, ws, runId);
		// Until the invocation's own events come, the run is running since its first node's.
		const run = invocationEvents.length ? runStateOf(invocationEvents) : { ...node, status: runId === ev.runId ? node.status : ('running' as const), completedAt: runId === ev.runId ? node.completedAt : null, parentRunId: null, parentJob: null };
		const parentJob = isObject(ev.runFacets.parent) && isObject(ev.runFacets.parent.job) ? (ev.runFacets.parent.job as { namespace: string; name: string }) : job;
		await upsertRun(database, tx, runRowOf(ws, runId, { scriptPath: project.scriptPath, scriptHash: project.hash }, parentJob, run));
		await upsertProgress(database, ws, id, [{ assetKind: 'dbt', assetPath: project.assetPath, status: PROGRESS_OF[node.status], error: node.status === 'failure' ? (node.error?.message ?? 'failed') : null }], tx);
		return { status: 'stored', job: project.scriptPath, run: `/w/${ws}/run/${id}`, warnings: [] };
	});
}

/** The dbt-ol invocation's own event: the run's state, once a node event attached it to its project. */
async function receiveDbtInvocation(database: Database, grant: Grant, ev: ReceivedEvent): Promise<ReceiveAnswer> {
	const ws = grant.workspace;
	const id = runJobId(ws, ev.runId!);
	const attached = await database.db.transaction((tx) => openLineageRunRow(database, tx, ws, id));
	if (attached) grant.requireProjectRunWrite(attached.scriptPath);
	return database.db.transaction(async (tx): Promise<ReceiveAnswer> => {
		const job = ev.job!;
		const stored = await insertEvent(database, tx, ws, { key: ev.key, eventType: ev.eventType, runId: ev.runId, jobNamespace: job.namespace, jobName: job.name, eventTime: ev.eventTime, sentBy: grant.username, body: ev.body });
		if (!stored) return { status: 'duplicate', warnings: [] };
		const row = await openLineageRunRow(database, tx, ws, id);
		if (!row) return { status: 'stored', warnings: ["a dbt-ol invocation: its run joins its project when its models' events arrive"] };
		await upsertRun(database, tx, runRowOf(ws, ev.runId!, row, job, runStateOf(await runEventSummaries(database, tx, ws, ev.runId!))));
		return { status: 'stored', job: row.scriptPath, run: `/w/${ws}/run/${id}`, warnings: [] };
	});
}
