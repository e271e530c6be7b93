// The lineage read API (DESIGN.md §6) between the routes and the repo: query parsing (400s
// naming the parameter), the gates applied per project, and the assembly of the answers. The
// pinned and unpinned forms share everything but WHICH graph they read.
import { assembleAssetGraph, modelCount, usageOfGraph, type DescribedGraph, type UsageInput } from '../lineage/asset-graph';
import { keepNearest, reachComponent, type Ranked } from '../lineage/column-walk';
import {
	ASSET_KINDS,
	isAssetKind,
	isProducerLanguage,
	type AssetGraph,
	type AssetKind,
	type ColumnLineageAnswer,
	type ColumnLineageEdge,
	type GraphRunnable,
	type ProducerColumnLineage,
	type UsageAccess
} from '../types/asset-graph';
import { hashToHex, hexToHash } from '../types/script-hash';
import { createHash } from 'node:crypto';
import type { Grant, PinnedAccess, RunGrant } from './access';
import type { Database } from './db';
import { badRequest } from './http';
import { isSegment } from './paths';
import { ZERO_UUID } from './schema';
import {
	componentEdges,
	describeAssets,
	graphMarkerVersion,
	hiddenDescriberCount,
	hiddenUsageCount,
	lineageOwners,
	loadGraph,
	pinnedGraphOf,
	producerLineage,
	relationsIn,
	scanEdgesOf,
	visibleUsage,
	type LineageOwner,
	type LoadedGraph,
	type NodeFields,
	type PinnedGraph,
	type ProducerLineageRow,
	type StoredColumnEdge,
	type VersionRef
} from './repo/lineage';
import { graphInputsStamp } from './repo/graph-read';
import { getVersion } from './repo/scripts';
import { OPENLINEAGE_LANGUAGE, parseJobContent } from '../lineage/openlineage-in';
import { SCAN_EDGE_LIMIT } from './limits';
import { buildCanvasPayload } from './pages/canvas';
import type { Direction } from '../lineage/canvas-sizes';
import { codeVersion, digestKey, graphCacheOf, persisted, principalKey, serialize, type ByteLru, type GraphBody } from './graph-cache';

export const MAX_ASSET_PATHS = 1000;

// ─── Query parsing ─────────────────────────────────────────────────────────────────────────

function single(q: URLSearchParams, name: string): string | undefined {
	const all = q.getAll(name);
	if (all.length > 1) throw badRequest(`${name} may be given once`);
	return all[0];
}

/** `dbt_script_hash`: a version as the API writes it, 16 hex digits. */
export function parseScriptHash(q: URLSearchParams): bigint | null {
	const raw = single(q, 'dbt_script_hash');
	if (raw === undefined) return null;
	const h = hexToHash(raw);
	if (h === null) throw badRequest('dbt_script_hash must be a script version: 16 hex digits');
	return h;
}

export interface GraphQuery {
	folder: string | null;
	assetKinds: Set<AssetKind> | null;
	scriptHash: bigint | null;
}

/** `folder=` (optional), `asset_kinds=` (comma list, repeatable), `dbt_script_hash=`. */
export function parseGraphQuery(q: URLSearchParams): GraphQuery {
	const folder = single(q, 'folder');
	if (folder !== undefined && !isSegment(folder)) {
		throw badRequest('folder must be a folder name (letters, digits, _ and -)');
	}
	let assetKinds: Set<AssetKind> | null = null;
	const kindParams = q.getAll('asset_kinds');
	if (kindParams.length > 0) {
		assetKinds = new Set();
		for (const k of kindParams.flatMap((v) => v.split(','))) {
			const kind = k.trim();
			if (!isAssetKind(kind)) {
				throw badRequest(`asset_kinds: unknown asset kind ${JSON.stringify(kind.slice(0, 40))}; known kinds are ${ASSET_KINDS.join(', ')}`);
			}
			assetKinds.add(kind);
		}
	}
	return { folder: folder ?? null, assetKinds, scriptHash: parseScriptHash(q) };
}

// A relation's path as the ingest writes it: warehouse name, schema (optionally `db.schema`),
// name. Runs of letters, digits, `_` and `$` joined by single `.` or `-`, which keeps out
// quotes, comment markers, `..`, control characters and anything outside ASCII.
const WORD = '[A-Za-z0-9_$]+';
const ASSET_PATH = new RegExp(`^${WORD}(?:-${WORD})*(?:/${WORD}(?:[.-]${WORD})*){2}$`);
const MAX_ASSET_PATH = 255;

/**
 * `asset_path=` repeated 1 to 1000 times; each `dbt://<warehouse>/<schema>/<name>` or the bare
 * path. De-duplicated; order does not matter.
 */
export function parseAssetPaths(q: URLSearchParams): string[] {
	const raw = q.getAll('asset_path');
	if (raw.length === 0) throw badRequest('asset_path is required: one to 1000 dbt relations, dbt://<warehouse>/<schema>/<name>');
	if (raw.length > MAX_ASSET_PATHS) throw badRequest(`asset_path may be given at most ${MAX_ASSET_PATHS} times (got ${raw.length})`);
	const out = new Set<string>();
	for (const r of raw) {
		const path = r.startsWith('dbt://') ? r.slice('dbt://'.length) : r;
		if (path.length === 0 || path.length > MAX_ASSET_PATH || !ASSET_PATH.test(path)) {
			throw badRequest('each asset_path must be a dbt relation: dbt://<warehouse>/<schema>/<name> or <warehouse>/<schema>/<name>');
		}
		out.add(path);
	}
	return [...out].sort();
}

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

/** `fields=shape|full` (default full). */
export function parseGraphFields(q: URLSearchParams): NodeFields {
	const raw = single(q, 'fields');
	if (raw === undefined || raw === 'full') return 'full';
	if (raw === 'shape') return 'shape';
	throw badRequest('fields must be shape or full');
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

// ─── Column lineage ────────────────────────────────────────────────────────────────────────

export interface LineageOptions {
	/** The bound on served edges (5000; smaller only in tests). */
	limit?: number;
	/** `include=scan`: also the scan edges touching the asked relations, in their own list. */
	scan?: boolean;
	/** The bound on served scan edges (SCAN_EDGE_LIMIT; smaller only in tests). */
	scanLimit?: number;
}

/** `include=` (comma list, repeatable): `scan` is the only word; default nothing. */
export function parseLineageInclude(q: URLSearchParams): { scan: boolean } {
	let scan = false;
	for (const w of q.getAll('include').flatMap((v) => v.split(','))) {
		const word = w.trim();
		if (word === 'scan') scan = true;
		else throw badRequest(`include: unknown word ${JSON.stringify(word.slice(0, 40))}; the only one is scan`);
	}
	return { scan };
}

type GraphRef = LoadedGraph['key'];

/**
 * rankedEdges of an owner read with its graph's marker version, through the graph cache: the
 * same rows while the marker stays (a replace or an inference run moves it), so the entry is
 * keyed by the version the request read from the database, and a build during which the marker
 * moved is not stored. Per graph and relations, not per caller: the gate chose the owner first.
 */
function cachedRankedEdges(database: Database, owner: LineageOwner): Promise<Ranked<ColumnLineageEdge>[]> {
	const { key, uniqueIds, version } = owner;
	if (!version) return rankedEdges(database, key, uniqueIds);
	const cache = graphCacheOf(database) as ByteLru<Ranked<ColumnLineageEdge>[]>;
	return cache.getOrBuild(
		`cl:${digestKey([key.workspace, key.scriptPath, String(key.scriptHash), key.jobId, version, uniqueIds])}`,
		async () => rankComponent(await cachedComponentRead(database, key, version, uniqueIds), uniqueIds),
		(r) => JSON.stringify(r).length * 2,
		async () => (await graphMarkerVersion(database, key)) === version
	);
}

type ComponentRead = Awaited<ReturnType<typeof componentEdges>>;

/**
 * componentEdges of one graph's relations read with the graph's marker version, through the
 * graph cache: the stored read column lineage ranks and a column walk (impact-api.ts) follows,
 * so either warms it for the other. Keyed by the relations' unique_ids as given (sorted by callers).
 */
export function cachedComponentRead(database: Database, key: GraphRef, version: string, uniqueIds: readonly string[]): Promise<ComponentRead> {
	const cache = graphCacheOf(database) as ByteLru<ComponentRead>;
	return cache.getOrBuild(
		`ce:${digestKey([key.workspace, key.scriptPath, String(key.scriptHash), key.jobId, version, uniqueIds])}`,
		() => componentEdges(database, key, uniqueIds),
		(r) => JSON.stringify(r.edges).length * 2 + JSON.stringify([...r.assetPathOf]).length * 2,
		async () => (await graphMarkerVersion(database, key)) === version
	);
}

/** One graph's served edges, ranked by distance from the selection, in asset terms. */
async function rankedEdges(database: Database, key: GraphRef, uniqueIds: string[]): Promise<Ranked<ColumnLineageEdge>[]> {
	return rankComponent(await componentEdges(database, key, uniqueIds), uniqueIds);
}

function rankComponent({ edges, assetPathOf }: ComponentRead, uniqueIds: string[]): Ranked<ColumnLineageEdge>[] {
	const out: Ranked<ColumnLineageEdge>[] = [];
	for (const { edge, depth } of reachComponent(edges, uniqueIds)) {
		const value = toWireEdge(edge, assetPathOf);
		if (value) out.push({ key: wireKey(value), depth, value });
	}
	return out;
}

const wireKey = (e: ColumnLineageEdge) => [e.from_asset_path, e.from_column, e.to_asset_path, e.to_column, e.kind].join('\u0000');

function toWireEdge(edge: StoredColumnEdge, assetPathOf: Map<string, string | null>): ColumnLineageEdge | null {
	const from = assetPathOf.get(edge.parentUniqueId);
	const to = assetPathOf.get(edge.childUniqueId);
	// A relation-less node (an ephemeral model) has no place on the canvas.
	if (!from || !to) return null;
	return { from_asset_path: from, from_column: edge.parentColumn, to_asset_path: to, to_column: edge.childColumn, kind: edge.lineageKind, provenance: edge.provenance };
}

/** The scan edges of these graphs' asked relations, merged, de-duplicated, sorted and capped. */
async function scanAnswer(database: Database, graphs: readonly { key: GraphRef; uniqueIds: string[] }[], limit: number): Promise<Pick<ColumnLineageAnswer, 'scan_edges' | 'scan_truncated'>> {
	const byKey = new Map<string, ColumnLineageEdge>();
	for (const g of graphs) {
		// One more than the cap per graph: enough to know whether the merged list was cut.
		const { edges, assetPathOf } = await scanEdgesOf(database, g.key, g.uniqueIds, limit + 1);
		for (const e of edges) {
			const w = toWireEdge(e, assetPathOf);
			if (w) byKey.set(wireKey(w), w);
		}
	}
	const sorted = [...byKey.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, e]) => e);
	return { scan_edges: sorted.slice(0, limit), scan_truncated: sorted.length > limit };
}

const noLineage = (opts: LineageOptions = {}): ColumnLineageAnswer =>
	opts.scan ? { edges: [], truncated: false, scan_edges: [], scan_truncated: false } : { edges: [], truncated: false };

/**
 * Unpinned column lineage: every project version the caller may read (path access AND
 * `scripts:read` scope, applied in SQL) that owns an asked relation answers with its own
 * component; the answers are merged, de-duplicated and bounded together. `candidates`: the
 * owners columnLineageAccess read beside the principal (unnamed reads only), still to be gated.
 */
export async function unpinnedColumnLineage(
	grant: Grant,
	database: Database,
	assetPaths: string[],
	scriptHash: bigint | null,
	opts: LineageOptions = {},
	candidates: readonly LineageOwner[] | null = null
): Promise<ColumnLineageAnswer> {
	const named = await grant.readableVersion(database, scriptHash);
	// Column lineage is authored: a named version it may not read authored parts of answers none.
	if (named && grant.redact(named.path) === 'shape') return noLineage(opts);
	// The candidates (columnLineageAccess) are every project's owners of these relations: the
	// same gate as the filter lineageOwners applies in SQL, applied here.
	const owners =
		named === null && candidates !== null ? grant.readableOwners(candidates) : await lineageOwners(database, grant.workspace, assetPaths, grant.authoredFilter(), named);
	const items: Ranked<ColumnLineageEdge>[] = [];
	for (const o of owners) items.push(...(await cachedRankedEdges(database, o)));
	const { values, truncated } = keepNearest(items, opts.limit);
	const answer: ColumnLineageAnswer = { edges: values, truncated };
	return opts.scan ? { ...answer, ...(await scanAnswer(database, owners, opts.scanLimit ?? SCAN_EDGE_LIMIT)) } : answer;
}

/** Column lineage of the job's pinned graph; empty for a caller who may not read the project. */
export async function pinnedColumnLineage(
	run: RunGrant,
	database: Database,
	pinned: PinnedGraph,
	assetPaths: string[],
	opts: LineageOptions = {}
): Promise<ColumnLineageAnswer> {
	if (run.redact(pinned) === 'shape') return noLineage(opts);
	const uids = await relationsIn(database, pinned.key, assetPaths);
	const { values, truncated } = keepNearest(await rankedEdges(database, pinned.key, uids), opts.limit);
	const answer: ColumnLineageAnswer = { edges: values, truncated };
	return opts.scan ? { ...answer, ...(await scanAnswer(database, [{ key: pinned.key, uniqueIds: uids }], opts.scanLimit ?? SCAN_EDGE_LIMIT)) } : answer;
}

/** `jobs/dbt_column_lineage/{id}`: pinned like jobAssetGraph, with the same fallbacks. */
export async function jobColumnLineage(gate: PinnedAccess, database: Database, assetPaths: string[], opts: LineageOptions = {}): Promise<ColumnLineageAnswer> {
	if (gate.kind === 'no_job') return unpinnedColumnLineage(gate.grant, database, assetPaths, null, opts);
	const pinned = await pinnedGraphOf(database, gate.run.job);
	if (pinned) return pinnedColumnLineage(gate.run, database, pinned, assetPaths, opts);
	const member = gate.run.member;
	return member ? unpinnedColumnLineage(member, database, assetPaths, null, opts) : noLineage(opts);
}
