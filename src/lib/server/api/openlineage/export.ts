// The OpenLineage export (docs/openlineage.md, "OpenLineage out") between the routes and the repo: a deployed
// version's graph as one COMPLETE RunEvent per dbt node plus one per producer around it, and a
// run's events (START and COMPLETE/FAIL/ABORT per node, inside the run's own START/end). The
// gates are access/'s; the mapping is src/lib/lineage/openlineage.ts. A version's events are
// produced lazily, a batch of nodes' column edges at a time, so an answer streams.
import { createHash } from 'node:crypto';
import { consumerEvent, JOB_RESOURCE_TYPES, jobNamespace, leanEvent, modelEvent, OPENLINEAGE_PRODUCER, OPENLINEAGE_SCHEMA_URL, producerEvent, type DatasetNaming, type EventFrame, type OlNode } from '../../../lineage/openlineage';
import type { JobStatus } from '../../../types/jobs';
import type { RunEvent, RunEventType } from '../../../types/openlineage';
import type { NodeOutcome, RunNodeResult } from '../../../types/runner';
import { exportableVersion, type Grant, type RunGrant } from '../../access';
import type { Database } from '../../db';
import { ApiError } from '../../http';
import { RETENTION } from '../../repo/graph';
import { receivedRunEvents } from '../../openlineage-in/run-events';
import type { GraphKey } from '../../repo/graph';
import { getJobPayloadWithoutLog, progressOf, type JobView } from '../../repo/jobs';
import { consumersOf, pinnedGraphOf, producerLineage } from '../../repo/lineage';
import { graphConsumers } from '../../../lineage/asset-graph';
import type { GraphConsumer } from '../../../types/consumers';
import { dbtVersionAt, exportGraphRows, graphStoredAt, incomingColumnEdges, producerUsage, warehouseDatabases, type IncomingColumnEdge } from '../../repo/openlineage';
import { ZERO_UUID } from '../../schema';

/** Nodes whose column edges one statement reads: bounded memory per step of the stream. */
const EDGE_BATCH = 250;

// ─── Shared pieces ─────────────────────────────────────────────────────────────────────────

/** A stable uuid (version-5 layout) from its parts: re-exporting the same thing names the same run. */
export function stableRunId(...parts: string[]): string {
	const b = createHash('sha256').update(parts.join('\u0000')).digest();
	b[6] = (b[6] & 0x0f) | 0x50;
	b[8] = (b[8] & 0x3f) | 0x80;
	const x = b.subarray(0, 16).toString('hex');
	return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

/** What the caller may be shown, decided by the gates before any event is built. */
export interface ExportView {
	/** The project's SQL, typed columns and column lineage. */
	authored: boolean;
	/** The token's `assets:read` narrowing over dbt relations and lake tables. */
	assetAllowed: (assetPath: string) => boolean;
	/** Whether a producer appears at all (its path's shape is readable). */
	producerShown: (scriptPath: string) => boolean;
	/** Whether a producer's column lineage is shown (its script is readable). */
	producerAuthored: (scriptPath: string) => boolean;
}

interface LoadedExportGraph {
	key: GraphKey;
	nodes: Map<string, OlNode>;
	parents: Map<string, string[]>;
	jobNodes: OlNode[];
	naming: DatasetNaming;
}

async function loadExportGraph(database: Database, key: GraphKey, authored: boolean): Promise<LoadedExportGraph> {
	const g = await exportGraphRows(database, key, authored);
	const nodes = new Map<string, OlNode>(g.nodes.map((n) => [n.uniqueId, n]));
	const parents = new Map<string, string[]>();
	for (const e of g.edges) {
		const list = parents.get(e.child);
		if (list) list.push(e.parent);
		else parents.set(e.child, [e.parent]);
	}
	const jobNodes = g.nodes.filter((n) => JOB_RESOURCE_TYPES.has(n.resourceType)).sort((a, b) => (a.uniqueId < b.uniqueId ? -1 : 1));
	return { key, nodes, parents, jobNodes, naming: { workspace: key.workspace, defaultDatabase: await warehouseDatabases(database, key.workspace) } };
}

const edgeOrder = (a: IncomingColumnEdge, b: IncomingColumnEdge) =>
	cmp(a.childColumn, b.childColumn) || cmp(a.parentUniqueId, b.parentUniqueId) || cmp(a.parentColumn, b.parentColumn) || cmp(a.lineageKind, b.lineageKind);
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Model events of a loaded graph, a batch of column-edge reads at a time; `frames` gives each node's events. */
async function* modelEvents(
	database: Database,
	g: LoadedExportGraph,
	view: ExportView,
	all: readonly OlNode[],
	frames: (n: OlNode) => EventFrame[]
): AsyncGenerator<RunEvent> {
	const datasetAllowed = (_kind: string, path: string) => view.assetAllowed(path);
	const nodeOf = (id: string) => g.nodes.get(id);
	// A node is the job writing its relation: where the token does not reach the relation, the job is not named either.
	const nodes = all.filter((n) => n.assetPath === null || view.assetAllowed(n.assetPath));
	for (let i = 0; i < nodes.length; i += EDGE_BATCH) {
		const batch = nodes.slice(i, i + EDGE_BATCH);
		const edges = view.authored ? await incomingColumnEdges(database, g.key, batch.map((n) => n.uniqueId)) : [];
		const byChild = new Map<string, typeof edges>();
		for (const e of edges) {
			const list = byChild.get(e.childUniqueId);
			if (list) list.push(e);
			else byChild.set(e.childUniqueId, [e]);
		}
		// Read in no order (a sort of the whole project's edges costs the database more): ordered here, per node.
		for (const list of byChild.values()) list.sort(edgeOrder);
		for (const node of batch) {
			const parents = (g.parents.get(node.uniqueId) ?? []).map(nodeOf).filter((n): n is OlNode => !!n);
			const input = {
				workspace: g.key.workspace,
				scriptPath: g.key.scriptPath,
				node,
				parents,
				columnEdges: byChild.get(node.uniqueId) ?? [],
				nodeOf,
				authored: view.authored,
				naming: g.naming,
				datasetAllowed
			};
			// The last frame (a run's end, a version's only event) carries the facets; earlier ones are lean.
			const fs = frames(node);
			const full = modelEvent(input, fs[fs.length - 1]);
			for (const frame of fs.slice(0, -1)) yield leanEvent(full, frame, g.key.workspace);
			yield full;
		}
	}
}

/**
 * The producers around a project: every visible producer that reads or writes one of its
 * relations, then (to a fixed point) those that read what an included producer writes, so a
 * trace through lake tables stays whole.
 */
async function* producerEvents(database: Database, g: LoadedExportGraph, view: ExportView, frame: (scriptPath: string) => EventFrame): AsyncGenerator<RunEvent> {
	const usage = (await producerUsage(database, g.key.workspace)).filter((u) => view.producerShown(u.scriptPath));
	const byScript = new Map<string, typeof usage>();
	for (const u of usage) {
		const list = byScript.get(u.scriptPath);
		if (list) list.push(u);
		else byScript.set(u.scriptPath, [u]);
	}
	const reached = new Set<string>();
	for (const n of g.nodes.values()) if (n.assetPath) reached.add(`dbt\u0000${n.assetPath}`);
	const taken: string[] = [];
	for (let grew = true; grew; ) {
		grew = false;
		for (const [path, rows] of byScript) {
			if (taken.includes(path) || !rows.some((r) => reached.has(`${r.assetKind}\u0000${r.assetPath}`))) continue;
			taken.push(path);
			grew = true;
			for (const r of rows) if (r.access !== 'r') reached.add(`${r.assetKind}\u0000${r.assetPath}`);
		}
	}
	taken.sort();
	const authored = taken.filter(view.producerAuthored);
	const lineage = await producerLineage(
		database,
		g.key.workspace,
		authored.map((path) => ({ path, hash: byScript.get(path)![0].scriptHash }))
	);
	for (const path of taken) {
		const rows = byScript.get(path)!;
		const asset = (r: (typeof rows)[number]) => ({ kind: r.assetKind, path: r.assetPath });
		yield producerEvent(
			{
				workspace: g.key.workspace,
				scriptPath: path,
				reads: rows.filter((r) => r.access !== 'w').map(asset),
				writes: rows.filter((r) => r.access !== 'r').map(asset),
				lineage: authored.includes(path) ? lineage.filter((l) => l.scriptPath === path) : null,
				naming: g.naming,
				datasetAllowed: (_kind, p) => view.assetAllowed(p)
			},
			frame(path)
		);
	}
}

// ─── A version ─────────────────────────────────────────────────────────────────────────────

/** The stored graph of a version, or null when it has none (never ingested, or pruned). */
export async function versionGraphAt(database: Database, ws: string, path: string, hash: bigint): Promise<{ key: GraphKey; storedAt: Date } | null> {
	const key: GraphKey = { workspace: ws, scriptPath: path, scriptHash: hash, jobId: ZERO_UUID };
	const storedAt = await graphStoredAt(database, key);
	return storedAt ? { key, storedAt } : null;
}

/**
 * A version's lineage: per dbt node one COMPLETE event at the time its graph was stored, with a
 * run id derived from the version and node (exporting twice sends the same runs), then one per
 * producer around the project, at the same time.
 */
export async function* versionEvents(database: Database, version: { key: GraphKey; storedAt: Date }, view: ExportView): AsyncGenerator<RunEvent> {
	const g = await loadExportGraph(database, version.key, view.authored);
	const eventTime = version.storedAt.toISOString();
	const hash = String(version.key.scriptHash);
	const ws = version.key.workspace;
	yield* modelEvents(database, g, view, g.jobNodes, (n) => [
		{ eventType: 'COMPLETE', eventTime, runId: stableRunId(ws, version.key.scriptPath, hash, n.uniqueId) }
	]);
	yield* consumerEvents(database, g, view, (c) => ({ eventType: 'COMPLETE', eventTime, runId: stableRunId(ws, version.key.scriptPath, hash, c.unique_id) }));
	yield* producerEvents(database, g, view, (path) => ({ eventType: 'COMPLETE', eventTime, runId: stableRunId(ws, path, hash, 'producer') }));
}

/**
 * The project's consumers (exposures, semantic models, metrics, saved queries): authored, like
 * its SQL, so none for a caller shown the shape only; one naming a relation the token does not
 * reach is left out, and so is what builds on it (graphConsumers, the canvas's gate).
 */
async function* consumerEvents(database: Database, g: LoadedExportGraph, view: ExportView, frame: (c: GraphConsumer) => EventFrame): AsyncGenerator<RunEvent> {
	if (!view.authored) return;
	const list = await consumersOf(database, g.key);
	if (list.length === 0) return;
	const nodes = [...g.nodes.values()].map((n) => ({ uniqueId: n.uniqueId, assetPath: n.assetPath }));
	const shown = graphConsumers([{ scriptPath: g.key.scriptPath, authored: true, nodes, consumers: list }], view.assetAllowed);
	const ids = new Set(shown.map((c) => c.unique_id));
	for (const c of shown) yield consumerEvent({ workspace: g.key.workspace, scriptPath: g.key.scriptPath, consumer: c, shownConsumers: ids, naming: g.naming }, frame(c));
}

// ─── A run ─────────────────────────────────────────────────────────────────────────────────

/** Where a run stands: the stored row, or (for the push) the end the worker is about to store. */
export interface RunState {
	status: JobStatus;
	result: unknown;
	completedAt: Date | null;
}

const END_OF_OUTCOME: Record<NodeOutcome, RunEventType> = {
	passed: 'COMPLETE',
	warned: 'COMPLETE',
	no_op: 'COMPLETE',
	failed: 'FAIL',
	unknown: 'FAIL',
	skipped: 'ABORT'
};

const END_OF_JOB: Partial<Record<JobStatus, RunEventType>> = { success: 'COMPLETE', failure: 'FAIL', canceled: 'ABORT' };

function resultNodes(result: unknown): RunNodeResult[] | null {
	const nodes = (result as { nodes?: unknown } | null)?.nodes;
	return Array.isArray(nodes) ? (nodes as RunNodeResult[]) : null;
}

/**
 * A run's events. The run itself is a job named by its script path (run id: the job's id),
 * START at its start and COMPLETE/FAIL/ABORT once settled; each dbt node it ran is a child
 * run (ParentRunFacet) with START at the run's start and its end at the run's end (dbt reports
 * per node a duration, not a start): COMPLETE for success, warn and no-op, FAIL for errors,
 * ABORT for skipped; a node's START names its datasets, its end adds their facets. Tests are left out. While the run is going, the live progress says which
 * relations started and settled. A FAIL carries dbt's message only for a caller who may read it.
 */
export async function* runEvents(database: Database, job: JobView, state: RunState, view: ExportView & { messages: boolean }): AsyncGenerator<RunEvent> {
	const ws = job.workspace;
	const started = (job.startedAt ?? job.createdAt).toISOString();
	const ended = state.completedAt ? state.completedAt.toISOString() : null;
	const jobName = job.scriptPath ?? `job/${job.id}`;
	const own = (eventType: RunEventType, eventTime: string): RunEvent => ({
		eventType,
		eventTime,
		producer: OPENLINEAGE_PRODUCER,
		schemaURL: OPENLINEAGE_SCHEMA_URL,
		run: { runId: job.id },
		job: { namespace: jobNamespace(ws), name: jobName },
		inputs: [],
		outputs: []
	});
	yield own('START', started);
	const pinned = await pinnedGraphOf(database, job);
	const g = pinned ? await loadExportGraph(database, pinned.key, view.authored) : null;
	const parent = { runId: job.id, jobName };
	const frame = (n: OlNode, eventType: RunEventType, eventTime: string, message?: string | null): EventFrame => ({
		eventType,
		eventTime,
		runId: stableRunId(job.id, n.uniqueId),
		parent,
		...(eventType === 'FAIL' && view.messages && message ? { errorMessage: message } : {})
	});

	const ends = new Map<string, { type: RunEventType; message?: string | null }>();
	const settledNodes = resultNodes(state.result);
	if (settledNodes) {
		for (const n of settledNodes) ends.set(n.unique_id, { type: END_OF_OUTCOME[n.outcome] ?? 'FAIL', message: n.message });
	} else if (g) {
		const byPath = new Map([...g.jobNodes].filter((n) => n.assetPath).map((n) => [n.assetPath!, n.uniqueId]));
		for (const p of await progressOf(database, ws, job.id)) {
			const id = p.assetKind === 'dbt' ? byPath.get(p.assetPath) : undefined;
			if (!id) continue;
			ends.set(id, { type: p.status === 'running' ? 'RUNNING' : p.status === 'failed' ? 'FAIL' : 'COMPLETE', message: p.error });
		}
	}
	const ran = [...ends.keys()].filter((id) => JOB_RESOURCE_TYPES.has(id.split('.')[0])).sort();
	const nodesOf = (ids: string[]): OlNode[] =>
		ids.map((id) => g?.nodes.get(id) ?? { uniqueId: id, resourceType: id.split('.')[0], assetPath: null });
	const nodeEnd = (n: OlNode) => ends.get(n.uniqueId)!;
	const framesOf = (n: OlNode): EventFrame[] => {
		const end = nodeEnd(n);
		const first = frame(n, 'START', started);
		if (end.type === 'RUNNING') return [first];
		return [first, frame(n, end.type, ended ?? new Date().toISOString(), end.message)];
	};
	const graph: LoadedExportGraph = g ?? {
		key: { workspace: ws, scriptPath: jobName, scriptHash: null, jobId: job.id },
		nodes: new Map(),
		parents: new Map(),
		jobNodes: [],
		naming: { workspace: ws, defaultDatabase: new Map() }
	};
	yield* modelEvents(database, graph, g ? view : { ...view, authored: false }, nodesOf(ran), framesOf);
	const end = END_OF_JOB[state.status];
	if (end && ended) yield own(end, ended);
}

// ─── The answers ───────────────────────────────────────────────────────────────────────────

/** A version that exists but whose graph retention removed (a version's graph is stored at deploy). */
export const PRUNED_VERSION = `the graph of this version was pruned: Tributary keeps the graphs of the newest ${RETENTION.versionsPerPath} deploys of a path`;

/** `dbt/openlineage`: the gates (access/), then the version's events, built as they are sent. */
export async function exportVersion(grant: Grant, database: Database, path: string, ref: bigint | 'latest'): Promise<{ hash: bigint; events: AsyncIterable<RunEvent> }> {
	const { hash, authored } = await exportableVersion(grant, path, () => dbtVersionAt(database, grant.workspace, path, ref));
	const version = await versionGraphAt(database, grant.workspace, path, hash);
	if (!version) throw new ApiError(410, PRUNED_VERSION);
	const view: ExportView = {
		authored,
		assetAllowed: grant.assetGate(),
		// A producer appears where the caller sees its path, with its lineage where it reads it.
		producerShown: (s) => grant.maySee(s),
		producerAuthored: (s) => grant.mayRead(s)
	};
	return { hash, events: versionEvents(database, version, view) };
}

/** `jobs/openlineage/{id}`: a run's events for a caller jobAccess admitted; what its author wrote only for one who may read the project. */
export async function exportRun(run: RunGrant, database: Database): Promise<AsyncIterable<RunEvent> | Iterable<RunEvent>> {
	const a = run.access;
	// A run another tool reported: its events as received (what the caller may see of them).
	if (a.job.kind === 'openlineage') return (await receivedRunEvents(database, a)) as RunEvent[];
	const payload = await getJobPayloadWithoutLog(database, a.job.workspace, a.job.id);
	const view = {
		authored: run.mayReadProject,
		messages: run.mayReadProject,
		assetAllowed: run.assetGate(),
		producerShown: () => false,
		producerAuthored: () => false
	};
	return runEvents(database, a.job, { status: a.job.status, result: payload?.result ?? null, completedAt: a.job.completedAt }, view);
}

const NDJSON_CHUNK = 64 * 1024;

/**
 * Events as NDJSON (one RunEvent per line, `application/x-ndjson`), pulled from the source as
 * the client reads: the first bytes leave before the last event is built. An error after the
 * head was sent can only end the stream early; the client sees a truncated last line.
 */
export function ndjsonResponse(events: AsyncIterable<RunEvent> | Iterable<RunEvent>, headers: Record<string, string> = {}): Response {
	const it = Symbol.asyncIterator in events ? (events as AsyncIterable<RunEvent>)[Symbol.asyncIterator]() : (events as Iterable<RunEvent>)[Symbol.iterator]();
	const encoder = new TextEncoder();
	const body = new ReadableStream<Uint8Array>({
		async pull(controller) {
			let text = '';
			while (text.length < NDJSON_CHUNK) {
				const r = await it.next();
				if (r.done) {
					if (text) controller.enqueue(encoder.encode(text));
					controller.close();
					return;
				}
				text += JSON.stringify(r.value) + '\n';
			}
			controller.enqueue(encoder.encode(text));
		},
		async cancel() {
			await it.return?.();
		}
	});
	return new Response(body, { headers: { 'content-type': 'application/x-ndjson', 'cache-control': 'private, no-store', ...headers } });
}
