// The asset graph reads (DESIGN.md §6: GET assets/graph, jobs/dbt_graph, the run canvas, the
// pages' canvases): the grant asked per project, and the assembly of the answers, cached. The
// pinned and unpinned forms share everything but WHICH graph they read.
import { assembleAssetGraph, modelCount, usageOfGraph, type DescribedGraph, type UsageInput } from '../../../lineage/asset-graph';
import { isAssetKind, isProducerLanguage, type AssetGraph, type AssetKind, type GraphRunnable, type ProducerColumnLineage, type UsageAccess } from '../../../types/asset-graph';
import { hashToHex, hexToHash } from '../../../types/script-hash';
import { createHash } from 'node:crypto';
import type { Grant, PinnedAccess, RunGrant } from '../../access';
import type { Database } from '../../db';
import { ZERO_UUID } from '../../schema';
import { describeAssets, hiddenDescriberCount, hiddenUsageCount, loadGraph, pinnedGraphOf, producerLineage, visibleUsage, type LoadedGraph, type NodeFields, type PinnedGraph, type ProducerLineageRow, type VersionRef } from '../../repo/lineage';
import { graphInputsStamp } from '../../repo/graph-read';
import { getVersion } from '../../repo/scripts';
import { OPENLINEAGE_LANGUAGE, parseJobContent } from '../../../lineage/openlineage-in';
import { buildCanvasPayload } from './canvas';
import type { Direction } from '../../../lineage/canvas-sizes';
import { codeVersion, digestKey, graphCacheOf, persisted, principalKey, serialize, type ByteLru, type GraphBody } from '../../graph-cache';
import type { GraphQuery } from './parse';

const hexOf = (h: bigint | null) => (h === null ? null : hashToHex(h));

const toDescribed = (g: LoadedGraph, authored: boolean, ownsAssets = false): DescribedGraph => ({
	scriptPath: g.key.scriptPath,
	scriptHash: hexOf(g.key.scriptHash),
	authored,
	nodes: g.nodes,
	edges: g.edges,
	consumers: g.consumers,
	ownsAssets
});

// ─── Asset graph ───────────────────────────────────────────────────────────────────────────

export const emptyGraph = (): AssetGraph => ({ assets: [], runnables: [], edges: [], dbt_edges: [], hidden: 0 });

export function groupProducerLineage(rows: readonly ProducerLineageRow[]): Map<string, ProducerColumnLineage[]> {
	const byScript = new Map<string, Map<string, ProducerColumnLineage>>();
	for (const r of rows) {
		let outs = byScript.get(r.scriptPath);
		if (!outs) byScript.set(r.scriptPath, (outs = new Map()));
		const k = `${r.outputAssetKind}\u0000${r.outputAssetPath}\u0000${r.outputColumn}`;
		let entry = outs.get(k);
		if (!entry) {
			entry = { asset_kind: r.outputAssetKind, asset_path: r.outputAssetPath, column: r.outputColumn, inputs: [] };
			outs.set(k, entry);
		}
		entry.inputs.push({
			from_kind: r.inputAssetKind,
			from_path: r.inputAssetPath,
			from_column: r.inputColumn,
			source: r.source === 'annotation' ? 'annotation' : 'inferred',
			kind: r.lineageKind === 'copy' || r.lineageKind === 'mod' ? r.lineageKind : null
		});
	}
	return new Map([...byScript].map(([path, outs]) => [path, [...outs.values()]]));
}

export interface GraphReadOptions {
	/**
	 * `full` (the default): every field the caller may read. `shape`: what a canvas draws — the
	 * shape, plus tags and file path where the caller may read them; SQL, descriptions, columns,
	 * typed columns, freshness and test arguments are neither read from the database nor served.
	 */
	fields?: NodeFields;
}

/** A shape answer carries no heavy authored key at all (absent, like a redacted one), whatever SQL returned. */
function dropHeavyFields(g: AssetGraph): AssetGraph {
	for (const a of g.assets) {
		const d = a.dbt;
		if (!d) continue;
		delete d.description;
		delete d.columns;
		delete d.column_schema;
		delete d.freshness;
		delete d.raw_code;
		for (const t of d.data_tests) delete t.args;
	}
	return g;
}

/** The unpinned read once its gates passed: the folder (or null), the named version (or null). */
async function buildUnpinned(
	grant: Grant,
	database: Database,
	q: GraphQuery,
	folderPrefix: string | null,
	named: VersionRef | null,
	fields: NodeFields
): Promise<AssetGraph> {
	const ws = grant.workspace;
	const filter = grant.shapeFilter();
	const usageRows = await visibleUsage(database, ws, folderPrefix, filter);
	const hidden = await hiddenUsageCount(database, ws, folderPrefix, filter, q.assetKinds === null ? null : [...q.assetKinds]);
	const usage: UsageInput[] = usageRows
		.filter((u) => isAssetKind(u.assetKind))
		.map((u) => ({ scriptPath: u.scriptPath, assetKind: u.assetKind as AssetKind, assetPath: u.assetPath, access: u.access as UsageAccess }));

	const dbtPaths = [...new Set(usage.filter((u) => u.assetKind === 'dbt').map((u) => u.assetPath))];
	// Authored columns are read only for projects the caller may read them from (the grant's authoredFilter
	// is its mayRead as SQL); the redaction below still decides per project.
	let loaded = await describeAssets(database, ws, dbtPaths, filter, named, { fields, authored: grant.authoredFilter() });
	const drawnDbt = q.assetKinds === null || q.assetKinds.has('dbt') ? dbtPaths : [];
	const hiddenDescribers = folderPrefix === null ? 0 : await hiddenDescriberCount(database, ws, folderPrefix, drawnDbt, filter);
	const authoredOf = (path: string) => grant.showsAuthored(path);
	const graphs: DescribedGraph[] = [];
	if (named) {
		// A named version draws its whole project, not only what today's usage rows name.
		loaded = loaded.filter((g) => g.key.scriptPath !== named.path);
		const authored = authoredOf(named.path);
		const whole = await loadGraph(database, { workspace: ws, scriptPath: named.path, scriptHash: named.hash, jobId: ZERO_UUID }, { fields, authored });
		graphs.push(toDescribed(whole, authored, true));
	}
	for (const g of loaded) graphs.push(toDescribed(g, authoredOf(g.key.scriptPath)));

	const runnables = new Map<string, GraphRunnable>();
	for (const u of usageRows) {
		if (runnables.has(u.scriptPath)) continue;
		runnables.set(u.scriptPath, { path: u.scriptPath, language: u.language, script_hash: hashToHex(u.scriptHash) });
	}
	if (named) runnables.set(named.path, { path: named.path, language: 'dbt', script_hash: hashToHex(named.hash) });
	const producers = [...runnables.values()].filter((r) => isProducerLanguage(r.language) && grant.mayRead(r.path));
	const lineage = groupProducerLineage(
		await producerLineage(database, ws, producers.map((r) => ({ path: r.path, hash: hexToHash(r.script_hash!)! })))
	);
	const namedUsage = named ? usageOfGraph(graphs[0]) : [];
	for (const r of runnables.values()) {
		if (r.language === 'dbt') r.dbt = { model_count: modelCount(named && r.path === named.path ? namedUsage : usage, r.path) };
		if (isProducerLanguage(r.language) && grant.mayRead(r.path)) r.column_lineage = lineage.get(r.path) ?? [];
	}
	const graph = assembleAssetGraph({
		usage: named ? [...usage.filter((u) => u.scriptPath !== named.path), ...namedUsage] : usage,
		runnables: [...runnables.values()],
		graphs,
		assetKinds: q.assetKinds,
		assetAllowed: grant.assetGate(),
		hidden: hidden + hiddenDescribers
	});
	return fields === 'shape' ? dropHeavyFields(graph) : graph;
}

/** How one answer is built, and the cache key naming everything it depends on (graph-cache.ts). */
interface GraphPlan {
	key: string;
	build: () => Promise<AssetGraph>;
	/** Re-reads what the key was computed from: false when it moved (the build is then not stored). */
	stillValid: () => Promise<boolean>;
	/** The workspace whose database rows also keep the object across restarts (graph-cache.ts `persisted`). */
	persistIn?: string;
}

const kindsKey = (k: Set<AssetKind> | null) => (k === null ? null : [...k].sort());

/** The unpinned read's gates (one 404 for a folder that is missing or not yours), then its plan. */
async function unpinnedPlan(grant: Grant, database: Database, q: GraphQuery, opts: GraphReadOptions): Promise<GraphPlan> {
	const ws = grant.workspace;
	const fields = opts.fields ?? 'full';
	let folderPrefix: string | null = null;
	if (q.folder !== null) {
		folderPrefix = await grant.readableFolderPrefix(database, q.folder);
	}
	const named = await grant.readableVersion(database, q.scriptHash);
	const userPrefix = `u/${grant.username}/`;
	const { stamp, userHasScripts } = await graphInputsStamp(database, ws, folderPrefix, userPrefix);
	const who = principalKey(grant.principal, { ownPaths: userHasScripts });
	return {
		key: digestKey(['unpinned', ws, q.folder, kindsKey(q.assetKinds), named ? [named.path, named.hash.toString()] : null, fields, who, stamp]),
		build: () => buildUnpinned(grant, database, q, folderPrefix, named, fields),
		stillValid: async () => (await graphInputsStamp(database, ws, folderPrefix, userPrefix)).stamp === stamp,
		// What the canvas pages read (a shape is small); a full answer is rebuilt after a restart.
		persistIn: fields === 'shape' ? ws : undefined
	};
}

/** The asset graph as a job saw it: that one project's graph, from the job row's path and hash. */
export async function pinnedAssetGraph(run: RunGrant, database: Database, pinned: PinnedGraph, q: GraphQuery, opts: GraphReadOptions = {}): Promise<AssetGraph> {
	const fields = opts.fields ?? 'full';
	const authored = run.redact(pinned) === 'authored';
	const g = toDescribed(await loadGraph(database, pinned.key, { fields, authored }), authored, true);
	const usage = usageOfGraph(g);
	const graph = assembleAssetGraph({
		usage,
		runnables: [{ path: g.scriptPath, language: 'dbt', script_hash: g.scriptHash, dbt: { model_count: modelCount(usage, g.scriptPath) } }],
		graphs: [g],
		assetKinds: q.assetKinds,
		assetAllowed: run.assetGate(),
		hidden: 0
	});
	if (pinned.own) graph.dbt_snapshot_job = run.job.id;
	graph.dbt_graph_ingested_at = pinned.ingestedAt.toISOString();
	return fields === 'shape' ? dropHeavyFields(graph) : graph;
}

/**
 * A pinned graph's rows never change while its marker stays (a finished run's snapshot never
 * does): the key is the marker plus the two things the redaction looks at — whether the
 * caller may read the project, and its `assets:read` scope. Callers alike share one entry.
 */
function pinnedPlan(run: RunGrant, database: Database, pinned: PinnedGraph, q: GraphQuery, opts: GraphReadOptions): GraphPlan {
	const fields = opts.fields ?? 'full';
	const k = pinned.key;
	return {
		key: digestKey([
			'pinned',
			k.workspace,
			k.scriptPath,
			k.scriptHash === null ? null : k.scriptHash.toString(),
			k.jobId,
			pinned.version,
			pinned.own ? run.job.id : null,
			run.redact(pinned) === 'authored',
			run.assetScope(),
			kindsKey(q.assetKinds),
			fields
		]),
		build: () => pinnedAssetGraph(run, database, pinned, q, opts),
		stillValid: async () => {
			const now = await pinnedGraphOf(database, run.job);
			return now !== null && now.version === pinned.version && now.own === pinned.own;
		}
	};
}

const EMPTY_PLAN: GraphPlan = { key: 'empty', build: async () => emptyGraph(), stillValid: async () => true };

/** `jobs/dbt_graph/{id}`: the job's own graph, else its version's, else the unpinned graph. */
async function jobPlan(gate: PinnedAccess, database: Database, q: GraphQuery, opts: GraphReadOptions): Promise<GraphPlan> {
	// Which version is read comes from the job row alone: a hash in the query is never used here.
	const unpinned = { ...q, scriptHash: null };
	if (gate.kind === 'no_job') return unpinnedPlan(gate.grant, database, unpinned, opts);
	const { run } = gate;
	const pinned = await pinnedGraphOf(database, run.job);
	if (pinned) return pinnedPlan(run, database, pinned, q, opts);
	if (run.job.kind === 'openlineage' && run.job.scriptHash !== null) return openLineageRunPlan(run, database, q, opts);
	const member = run.member;
	return member ? unpinnedPlan(member, database, unpinned, opts) : EMPTY_PLAN;
}

/**
 * An OpenLineage run's graph: its job at the version the run reported (what it read and wrote
 * then, and for a reader of the job its column lineage), nothing else of the workspace, so a
 * share link shows that one job. A version never changes: the key is the version and redaction.
 */
function openLineageRunPlan(run: RunGrant, database: Database, q: GraphQuery, opts: GraphReadOptions): GraphPlan {
	const job = run.job;
	const hash = job.scriptHash!;
	const path = job.scriptPath!;
	const fields = opts.fields ?? 'full';
	return {
		key: digestKey(['openlineage-run', job.workspace, path, hash.toString(), run.mayReadProject, run.assetScope(), kindsKey(q.assetKinds), fields]),
		build: async () => {
			const version = await getVersion(database.db, job.workspace, hash);
			const content = version ? parseJobContent(version.content) : null;
			const runnable: GraphRunnable = { path, language: OPENLINEAGE_LANGUAGE, script_hash: hashToHex(hash) };
			if (run.mayReadProject) runnable.column_lineage = groupProducerLineage(await producerLineage(database, job.workspace, [{ path, hash }])).get(path) ?? [];
			return assembleAssetGraph({
				usage: (content?.uses ?? []).map((u) => ({ scriptPath: path, assetKind: u.kind, assetPath: u.path, access: u.access })),
				runnables: [runnable],
				graphs: [],
				assetKinds: q.assetKinds,
				assetAllowed: run.assetGate(),
				hidden: 0
			});
		},
		stillValid: async () => true
	};
}

// ─── Cached answers ────────────────────────────────────────────────────────────────────────
// Objects (for the pages) and serialized bytes (for the API) are separate entries of one cache:
// a page never pays for a large string, the API never keeps a large answer as objects. A cached
// object is shared by every caller of its key: never mutate an answer.

/** Heap bytes of an object answer, roughly: its JSON length twice (UTF-16 strings, object overhead). */
const objectBytes = (g: AssetGraph) => JSON.stringify(g).length * 2;

function cachedObject(database: Database, plan: GraphPlan): Promise<AssetGraph> {
	const cache = graphCacheOf(database) as ByteLru<AssetGraph>;
	const key = `o:${plan.key}`;
	const ws = plan.persistIn;
	const build = ws === undefined ? plan.build : () => persisted(database, ws, `${codeVersion(import.meta.url)}:${key}`, plan.build, plan.stillValid);
	return cache.getOrBuild(key, build, objectBytes, plan.stillValid);
}

/** An answer kept as the bytes the API sends, with their ETag, under `key` of the graph cache. */
function cachedBytes(database: Database, key: string, build: () => Promise<unknown>, stillValid: GraphPlan['stillValid']): Promise<GraphBody> {
	const cache = graphCacheOf(database) as ByteLru<GraphBody>;
	return cache.getOrBuild(
		key,
		async () => {
			const bytes = serialize(await build());
			// The ETag names the bytes, not the key: it changes only when this caller's answer does
			// (a deploy elsewhere in the workspace moves the key's stamp, never a reader's ETag).
			return { bytes, etag: `"${createHash('sha256').update(bytes).digest('base64url')}"` };
		},
		(b) => b.bytes.byteLength,
		stillValid
	);
}

function cachedBody(database: Database, plan: GraphPlan): Promise<GraphBody> {
	return cachedBytes(database, `b:${plan.key}`, plan.build, plan.stillValid);
}

/**
 * The unpinned asset graph of a folder (or of every path the caller reads): usage rows of the
 * scripts there, each dbt relation described by the version graphs the caller can see (whatever
 * folder the project lives in), authored fields per project by the one predicate. Cached.
 */
export async function unpinnedAssetGraph(grant: Grant, database: Database, q: GraphQuery, opts: GraphReadOptions = {}): Promise<AssetGraph> {
	return cachedObject(database, await unpinnedPlan(grant, database, q, opts));
}

/** The same answer as the bytes `GET assets/graph` sends, with its ETag. */
export async function unpinnedAssetGraphBody(grant: Grant, database: Database, q: GraphQuery, opts: GraphReadOptions = {}): Promise<GraphBody> {
	return cachedBody(database, await unpinnedPlan(grant, database, q, opts));
}

/** `jobs/dbt_graph/{id}`: the job's own graph, else its version's, else the unpinned graph. Cached. */
export async function jobAssetGraph(gate: PinnedAccess, database: Database, q: GraphQuery, opts: GraphReadOptions = {}): Promise<AssetGraph> {
	return cachedObject(database, await jobPlan(gate, database, q, opts));
}

/** The same answer as the bytes `GET jobs/dbt_graph/{id}` sends, with its ETag. */
export async function jobAssetGraphBody(gate: PinnedAccess, database: Database, q: GraphQuery, opts: GraphReadOptions = {}): Promise<GraphBody> {
	return cachedBody(database, await jobPlan(gate, database, q, opts));
}

/** The run page's graph: the pinned shape (for the page's own derivations) and its canvas bytes. */
export interface RunCanvas {
	graph: AssetGraph;
	/** The canvas payload as `GET jobs/run_canvas/{id}` sends it, and its ETag. */
	canvas: GraphBody;
}

/**
 * The run page's canvas, serialized once per pinned graph, redaction and direction (one graph
 * cache entry beside the graph's own), so 200 viewers opening one run are sent the same bytes
 * and a viewer who already holds them gets a 304, instead of each open serializing the canvas.
 */
export async function jobRunCanvas(gate: PinnedAccess, database: Database, direction: Direction): Promise<RunCanvas> {
	const plan = await jobPlan(gate, database, { folder: null, assetKinds: null, scriptHash: null }, { fields: 'shape' });
	const graph = await cachedObject(database, plan);
	const canvas = await cachedBytes(database, `c:${direction}:${plan.key}`, async () => buildCanvasPayload(graph, { direction }), plan.stillValid);
	return { graph, canvas };
}
