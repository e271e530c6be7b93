// Storage of dbt graphs (DESIGN.md §4): replace one graph atomically, publish asset usage, and
// the retention sweeps. A graph is addressed by its key (workspace, path, hash, job); a NULL
// hash (a preview) never equals anything, so every statement branches on it explicitly.
import { createHash, type Hash } from 'node:crypto';
import { and, eq, isNull, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { GraphNodeInput } from '$lib/lineage/asset-graph';
import { directComponents } from '$lib/lineage/components';
import type { Database, Tx } from '../db';
import { copyChunks, copyField, copyJson, copyRows, copyTextArray, toNumber, type CopyOptions } from '../db';
import { mark, type IngestProfile } from '../profile';
import { dbtColumnEdge, dbtEdge, dbtGraphColumn, dbtGraphSnapshot, dbtNode, ZERO_UUID } from '../schema';
import type { GraphKey, StoredModelOutcome } from './graph-key';
import type { Consumer } from '$lib/types/consumers';
import { deleteEndedPlans, pruneInferCache } from './inference';

export type { GraphKey, StoredModelOutcome } from './graph-key';

/** A dbt_node row to store: the node as the asset graph reads it, plus the incremental key. */
export type NodeRow = GraphNodeInput & { uniqueKey: string | null };

export interface EdgeRow {
	parent: string;
	child: string;
}

export interface ColumnEdgeRow {
	parentUniqueId: string;
	parentColumn: string;
	childUniqueId: string;
	childColumn: string;
	lineageKind: string;
	component: number | null;
	/** Absent: 'engine' (the uploaded index). */
	provenance?: ColumnEdgeProvenance;
}

export type ColumnEdgeProvenance = 'engine' | 'inferred';

export interface GraphContent {
	nodes: NodeRow[];
	edges: EdgeRow[];
	/** null when the graph has no column lineage at all (not the same as zero edges). */
	columnEdges: ColumnEdgeRow[] | null;
	/** Exposures, semantic models, metrics, saved queries; null or absent when the manifest has none. */
	consumers?: Consumer[] | null;
}

export interface MarkerInfo {
	digest: string;
	permissionedAs: string;
	relationRoot?: string | null;
	stats?: Record<string, unknown>;
	/** The lineage job that will infer this graph's column lineage from its compiled SQL. */
	lineageJobId?: string | null;
}

/** Where a key's rows are: the partial unique indexes make these the two exact predicates. */
type KeyedTable = typeof dbtNode | typeof dbtEdge | typeof dbtGraphSnapshot;

function keyWhere(t: KeyedTable, key: GraphKey): SQL {
	return key.scriptHash === null
		? and(eq(t.workspace, key.workspace), eq(t.jobId, key.jobId), isNull(t.scriptHash))!
		: and(
				eq(t.workspace, key.workspace),
				eq(t.scriptPath, key.scriptPath),
				eq(t.scriptHash, key.scriptHash),
				eq(t.jobId, key.jobId)
			)!;
}

const stable = (v: unknown): string => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x));

/**
 * SHA-256 over a stable serialization: nodes by unique_id, then edges, then column edges only
 * when the graph has them (so adding an index changes the digest, and an absent index does not
 * look like an empty one). Callers pass rows already sorted by the ingest.
 */
export function graphDigest(g: GraphContent): string {
	return hashGraph(g, null);
}

/** The graph's digest and each node's own (dbt_node.digest), each node serialized once for both. */
export interface GraphDigests {
	digest: string;
	/** Valid for these node objects as they are now: hand it to replaceGraph before changing any. */
	nodeDigests: ReadonlyMap<NodeRow, string>;
}

/** What a caller that stores the graph asks for: the nodes' digests come from the same pass. */
export function digestGraph(g: GraphContent): GraphDigests {
	const nodeDigests = new Map<NodeRow, string>();
	const steps = hashSteps(g, nodeDigests);
	let r = steps.next();
	while (!r.done) r = steps.next();
	return { digest: r.value, nodeDigests };
}

/**
 * digestGraph, letting the event loop in between slices of rows: a 30,000-node graph's digest
 * held a request thread for over a second, and every other request waited.
 */
export async function digestGraphInTurns(g: GraphContent): Promise<GraphDigests> {
	const nodeDigests = new Map<NodeRow, string>();
	const steps = hashSteps(g, nodeDigests);
	let r = steps.next();
	while (!r.done) {
		await nextTurn();
		r = steps.next();
	}
	return { digest: r.value, nodeDigests };
}

/** Lets pending I/O (other requests) run before the caller goes on. */
export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Rows hashed between two yields of hashSteps, and the node bytes, whichever comes first. */
const HASH_SLICE_ROWS = 2000;
const HASH_SLICE_BYTES = 512 * 1024;

function hashGraph(g: GraphContent, nodeDigests: Map<NodeRow, string> | null): string {
	const steps = hashSteps(g, nodeDigests);
	let r = steps.next();
	while (!r.done) r = steps.next();
	return r.value;
}

/** The digest, yielding after every HASH_SLICE_ROWS rows (nodes, edges, column edges alike). */
function* hashSteps(g: GraphContent, nodeDigests: Map<NodeRow, string> | null): Generator<void, string> {
	const sink = new HashSink(createHash('sha256'));
	const nodes = [...g.nodes].sort((a, b) => (a.uniqueId < b.uniqueId ? -1 : a.uniqueId > b.uniqueId ? 1 : 0));
	let rows = 0;
	let sliceBytes = 0;
	sink.write('nodes\n');
	for (const n of nodes) {
		const bytes = sink.writeAndGet(stable(n));
		nodeDigests?.set(n, createHash('sha256').update(bytes).digest('hex'));
		sink.write('\n');
		// A node carries its SQL and docs: a slice of big ones is cut by their bytes.
		sliceBytes += bytes.length;
		if (++rows % HASH_SLICE_ROWS === 0 || sliceBytes >= HASH_SLICE_BYTES) {
			sliceBytes = 0;
			yield;
		}
	}
	sink.write('edges\n');
	for (const e of g.edges) {
		sink.write(`${e.parent}\u0000${e.child}\n`);
		if (++rows % (HASH_SLICE_ROWS * 10) === 0) yield;
	}
	if (g.columnEdges) {
		sink.write('column_edges\n');
		for (const c of g.columnEdges) {
			sink.write(`${c.parentUniqueId}\u0000${c.parentColumn}\u0000${c.childUniqueId}\u0000${c.childColumn}\u0000${c.lineageKind}\n`);
			if (++rows % (HASH_SLICE_ROWS * 10) === 0) yield;
		}
	}
	// Only when present, so a graph without consumers keeps the digest it always had.
	if (g.consumers?.length) {
		sink.write('consumers\n');
		sink.write(stable(g.consumers));
	}
	return sink.digest();
}

/** Bytes of the buffer a HashSink encodes into before hashing them. */
const HASH_SINK_BYTES = 1 << 16;

/**
 * The UTF-8 of many strings hashed a buffer at a time: each string is encoded once, straight into
 * one reused buffer, instead of being concatenated into a bigger string that is then encoded again
 * (the same bytes in the same order, so the same digest as ever; the garbage of a 200,000-edge
 * graph's digest is what set the deploy's peak RSS: bench/README.md, "ingest").
 */
class HashSink {
	private readonly buffer = Buffer.allocUnsafe(HASH_SINK_BYTES);
	private used = 0;
	constructor(private readonly hash: Hash) {}

	/** Hashes `text`'s UTF-8. */
	write(text: string): void {
		this.put(text, false);
	}

	/** Hashes `text`'s UTF-8 and hands it back (valid until the next write). */
	writeAndGet(text: string): Uint8Array {
		return this.put(text, true)!;
	}

	// No view of the buffer is made unless asked for: one per edge line was most of the digest's
	// garbage.
	private put(text: string, keep: boolean): Uint8Array | null {
		// A UTF-16 unit is at most 3 bytes of UTF-8.
		if (text.length * 3 > HASH_SINK_BYTES - this.used) {
			this.flush();
			if (text.length * 3 > HASH_SINK_BYTES) {
				const bytes = Buffer.from(text, 'utf8');
				this.hash.update(bytes);
				return bytes;
			}
		}
		const start = this.used;
		this.used += this.buffer.write(text, start, 'utf8');
		return keep ? this.buffer.subarray(start, this.used) : null;
	}

	digest(): string {
		this.flush();
		return this.hash.digest('hex');
	}

	private flush(): void {
		if (this.used === 0) return;
		this.hash.update(this.buffer.subarray(0, this.used));
		this.used = 0;
	}
}

const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

/** Deletes exactly one graph's rows and marker (the marker's trigger takes its column edges and dictionary). */
export async function deleteGraph(tx: Tx, key: GraphKey): Promise<void> {
	await tx.delete(dbtEdge).where(keyWhere(dbtEdge, key));
	await tx.delete(dbtNode).where(keyWhere(dbtNode, key));
	await tx.delete(dbtGraphSnapshot).where(keyWhere(dbtGraphSnapshot, key));
}

// COPY column lists: the key first, then the row's own columns (the surrogate id and
// ingested_at take their defaults).
const KEY_COLUMNS = ['workspace', 'script_path', 'script_hash', 'job_id'] as const;
const NODE_COPY_COLUMNS = [
	...KEY_COLUMNS,
	'unique_id',
	'resource_type',
	'name',
	'asset_path',
	'materialized',
	'materialize_strategy',
	'unique_key',
	'tags',
	'description',
	'test_kind',
	'test_column',
	'test_args',
	'severity',
	'attached_node',
	'columns',
	'column_schema',
	'freshness',
	'raw_code',
	'original_file_path',
	'digest'
];
const EDGE_COPY_COLUMNS = [...KEY_COLUMNS, 'parent_unique_id', 'child_unique_id'];
const GRAPH_COLUMN_COPY_COLUMNS = ['graph_id', 'column_id', 'unique_id', 'column_name'];
const COLUMN_EDGE_COPY_COLUMNS = ['graph_id', 'parent_col', 'child_col', 'lineage_kind', 'component', 'provenance'];

const UNNEST_BATCH = 20_000;

const f = copyField;

function nodeLine(n: NodeRow, digests: ReadonlyMap<NodeRow, string> | undefined): string {
	return (
		`${f(n.uniqueId)}\t${f(n.resourceType)}\t${f(n.name)}\t${f(n.assetPath)}\t${f(n.materialized)}\t` +
		`${f(n.materializeStrategy)}\t${f(n.uniqueKey)}\t${copyTextArray(n.tags ?? [])}\t${f(n.description)}\t` +
		`${f(n.testKind)}\t${f(n.testColumn)}\t${copyJson(n.testArgs)}\t${f(n.severity)}\t${f(n.attachedNode)}\t` +
		`${copyJson(n.columns)}\t${copyJson(n.columnSchema)}\t${copyJson(n.freshness)}\t${f(n.rawCode)}\t` +
		`${f(n.originalFilePath)}\t${digests?.get(n) ?? nodeDigest(n)}\n`
	);
}

/** One node's digest (dbt_node.digest): what the lineage diff compares to find changed nodes. */
export function nodeDigest(n: NodeRow): string {
	return sha256Hex(stable(n));
}

export interface ReplaceOptions {
	/** Records each table's load as a phase (the ingest benchmark's breakdown). */
	profile?: IngestProfile;
	/** The nodes' digests from digestGraph (else each is computed as its row is written). */
	nodeDigests?: ReadonlyMap<NodeRow, string>;
}

/**
 * Replaces one graph inside the caller's transaction: delete exactly this key's rows, write the
 * marker, then bulk-load the rows (DESIGN.md §5), so a failure anywhere rolls back to the previous
 * graph with the transaction. The rows go through COPY (text format, produced a chunk at a
 * time) on both databases. The new marker has a new id, so the new column edges never meet the
 * old ones in the unique index (what made replacing a graph of text rows slow).
 */
export async function replaceGraph(
	database: Database,
	tx: Tx,
	key: GraphKey,
	g: GraphContent,
	marker: MarkerInfo,
	opts: ReplaceOptions = {}
): Promise<void> {
	await deleteGraph(tx, key);
	await writeGraph(database, tx, key, g, marker, opts);
}

/**
 * Writes a NEW graph outside any transaction: the marker, then its rows a COPY statement at a
 * time, each committed on its own, with a turn of the event loop between them. Embedded PGlite has
 * one connection and a transaction holds it: storing a 30,000-node graph in the deploy's one
 * transaction made every other request's query wait for all of it. Only for a key no reader can
 * reach yet (a version still pending, which no live read, listing or job names): the caller makes
 * it visible in one short transaction afterwards, and drops the version (its rows go with it, by
 * cascade) when anything fails. Returns the marker's id.
 */
export async function stageGraph(database: Database, key: GraphKey, g: GraphContent, marker: MarkerInfo, opts: ReplaceOptions = {}): Promise<number> {
	return writeGraph(database, database.db, key, g, marker, { ...opts, statementBytes: STAGED_STATEMENT_BYTES });
}

/** Data per COPY statement while staging: each holds the embedded database for its length only. */
const STAGED_STATEMENT_BYTES = 64 * 1024;

async function writeGraph(
	database: Database,
	tx: Tx,
	key: GraphKey,
	g: GraphContent,
	marker: MarkerInfo,
	opts: ReplaceOptions & { statementBytes?: number }
): Promise<number> {
	const p = opts.profile;
	const copy = { statementBytes: opts.statementBytes };
	const [{ graphId }] = await tx
		.insert(dbtGraphSnapshot)
		.values({
			...key,
			digest: marker.digest,
			permissionedAs: marker.permissionedAs,
			relationRootAtLastIngest: marker.relationRoot ?? null,
			stats: marker.stats ?? {},
			lineageJobId: marker.lineageJobId ?? null,
			consumers: g.consumers?.length ? g.consumers : null
		})
		.returning({ graphId: dbtGraphSnapshot.id });
	mark(p, 'store: delete previous + marker');
	const prefix = `${f(key.workspace)}\t${f(key.scriptPath)}\t${f(key.scriptHash)}\t${f(key.jobId)}\t`;
	if (g.nodes.length) await copyRows(database, tx, 'dbt_node', NODE_COPY_COLUMNS, copyChunks(g.nodes, (n) => prefix + nodeLine(n, opts.nodeDigests)), copy);
	mark(p, 'store: dbt_node');
	if (g.edges.length) {
		await copyRows(database, tx, 'dbt_edge', EDGE_COPY_COLUMNS, copyChunks(g.edges, (e) => `${prefix}${f(e.parent)}\t${f(e.child)}\n`), copy);
	}
	mark(p, 'store: dbt_edge');
	await insertColumnEdges(database, tx, graphId, g.columnEdges ?? [], copy);
	mark(p, 'store: dbt_column_edge');
	return graphId;
}

/** The lineage job of a staged graph's marker, named once that job exists. */
export async function setMarkerLineageJob(tx: Tx, graphId: number, lineageJobId: string | null): Promise<void> {
	if (lineageJobId === null) return;
	await tx.update(dbtGraphSnapshot).set({ lineageJobId }).where(eq(dbtGraphSnapshot.id, graphId));
}

/**
 * The graph's column dictionary, then its edges in ids. Ids are dense from 0 in (unique_id,
 * column) order, the order the edges arrive sorted in, so one node's columns are one id range.
 */
async function insertColumnEdges(database: Database, tx: Tx, graphId: number, edges: readonly ColumnEdgeRow[], copy: CopyOptions = {}): Promise<void> {
	if (edges.length === 0) return;
	// Column → id per node: no key string is built per edge end (400,000 of them for 200,000 edges).
	const idOf = new Map<string, Map<string, number>>();
	const add = (u: string, c: string) => {
		let columns = idOf.get(u);
		if (!columns) idOf.set(u, (columns = new Map()));
		if (!columns.has(c)) columns.set(c, -1);
	};
	for (const e of edges) {
		add(e.parentUniqueId, e.parentColumn);
		add(e.childUniqueId, e.childColumn);
	}
	const ends: [string, string][] = [];
	for (const u of [...idOf.keys()].sort(cmpText)) {
		const columns = idOf.get(u)!;
		for (const c of [...columns.keys()].sort(cmpText)) {
			columns.set(c, ends.length);
			ends.push([u, c]);
		}
	}
	const g = `${graphId}\t`;
	await copyRows(database, tx, 'dbt_graph_column', GRAPH_COLUMN_COPY_COLUMNS, copyChunks(ends, ([u, c]) => `${g}${idOf.get(u)!.get(c)}\t${f(u)}\t${f(c)}\n`), copy);
	await copyRows(
		database,
		tx,
		'dbt_column_edge',
		COLUMN_EDGE_COPY_COLUMNS,
		copyChunks(
			edges,
			(e) =>
				`${g}${idOf.get(e.parentUniqueId)!.get(e.parentColumn)}\t${idOf.get(e.childUniqueId)!.get(e.childColumn)}\t` +
				`${f(e.lineageKind ?? '')}\t${f(e.component)}\t${f(e.provenance ?? 'engine')}\n`
		),
		copy
	);
}

/** Numbers the direct components of `rows` in place: the one computation for engine and inferred edges. */
export function assignComponents(rows: ColumnEdgeRow[]): ColumnEdgeRow[] {
	const comps = directComponents(rows);
	for (let i = 0; i < rows.length; i++) rows[i].component = comps[i];
	return rows;
}

/**
 * A lineage job's end, inside the caller's transaction: the graph's column edges become the
 * inferred ones (components numbered as at ingest), each model's outcome is stored on its node,
 * and the marker gets a new time, so every cache keyed on the marker moves. Its digest stays the
 * digest of what the deploy uploaded: a run whose manifest gives the same graph still reads the
 * version's (inferred lineage included) instead of storing a snapshot without it.
 * False when the graph is gone (pruned or replaced by a later deploy meanwhile): nothing is written.
 */
export async function replaceInferredLineage(
	database: Database,
	tx: Tx,
	key: GraphKey,
	lineageJobId: string,
	edges: ColumnEdgeRow[],
	outcomes: Map<string, StoredModelOutcome>
): Promise<boolean> {
	const [marker] = await tx
		.select({ id: dbtGraphSnapshot.id, lineageJobId: dbtGraphSnapshot.lineageJobId })
		.from(dbtGraphSnapshot)
		.where(keyWhere(dbtGraphSnapshot, key))
		.for('update');
	if (!marker || marker.lineageJobId !== lineageJobId) return false;
	const sorted = [...edges].sort(compareColumnEdges);
	for (const e of sorted) e.provenance = 'inferred';
	assignComponents(sorted);
	await database.rows(sql`delete from dbt_column_edge where graph_id = ${marker.id}`, tx);
	await database.rows(sql`delete from dbt_graph_column where graph_id = ${marker.id}`, tx);
	await insertColumnEdges(database, tx, marker.id, sorted);
	const ids = [...outcomes.keys()];
	for (let i = 0; i < ids.length; i += UNNEST_BATCH) {
		const part = ids.slice(i, i + UNNEST_BATCH);
		await database.rows(
			sql`update dbt_node n set column_lineage = u.o::jsonb
				  from unnest(${sql.param(part)}::text[], ${sql.param(part.map((id) => JSON.stringify(outcomes.get(id))))}::text[]) as u(id, o)
				 where ${keyOfNode(key)} and n.unique_id = u.id`,
			tx
		);
	}
	await tx
		.update(dbtGraphSnapshot)
		.set({ ingestedAt: sql`clock_timestamp()`, stats: sql`${dbtGraphSnapshot.stats} || ${JSON.stringify({ column_edges: sorted.length })}::jsonb` })
		.where(eq(dbtGraphSnapshot.id, marker.id));
	// The job that stored the graph (a deploy for a version, else the preview itself) says how many
	// column edges it has, as the project page's versions list shows.
	await database.rows(
		sql`update job set result = coalesce(result, '{}'::jsonb) || ${JSON.stringify({ column_edges: sorted.length })}::jsonb
		     where workspace = ${key.workspace} and ${
					key.scriptHash === null ? sql`id = ${key.jobId}::uuid` : sql`kind = 'deploy' and script_path = ${key.scriptPath} and script_hash = ${key.scriptHash}`
				}`,
		tx
	);
	return true;
}

const cmpText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function compareColumnEdges(a: ColumnEdgeRow, b: ColumnEdgeRow): number {
	return (
		cmpText(a.parentUniqueId, b.parentUniqueId) ||
		cmpText(a.parentColumn, b.parentColumn) ||
		cmpText(a.childUniqueId, b.childUniqueId) ||
		cmpText(a.childColumn, b.childColumn) ||
		cmpText(a.lineageKind, b.lineageKind)
	);
}

function keyOfNode(key: GraphKey): SQL {
	return key.scriptHash === null
		? sql`n.workspace = ${key.workspace} and n.job_id = ${key.jobId}::uuid and n.script_hash is null`
		: sql`n.workspace = ${key.workspace} and n.script_path = ${key.scriptPath}
		      and n.script_hash = ${key.scriptHash.toString()}::bigint and n.job_id = ${key.jobId}::uuid`;
}

export interface StoredMarker {
	digest: string;
	ingestedAt: Date;
	permissionedAs: string;
	stats: Record<string, unknown>;
}

export async function readMarker(tx: Tx, key: GraphKey): Promise<StoredMarker | null> {
	const rows = await tx
		.select({
			digest: dbtGraphSnapshot.digest,
			ingestedAt: dbtGraphSnapshot.ingestedAt,
			permissionedAs: dbtGraphSnapshot.permissionedAs,
			stats: dbtGraphSnapshot.stats
		})
		.from(dbtGraphSnapshot)
		.where(keyWhere(dbtGraphSnapshot, key))
		.limit(1);
	const r = rows[0];
	return r ? { ...r, stats: (r.stats ?? {}) as Record<string, unknown> } : null;
}

/** Counts of one stored graph (tests and the deploy answer use it). */
export async function graphCounts(tx: Tx, key: GraphKey): Promise<{ nodes: number; edges: number; columnEdges: number }> {
	const [n] = await tx.select({ c: sql<number>`count(*)::int` }).from(dbtNode).where(keyWhere(dbtNode, key));
	const [e] = await tx.select({ c: sql<number>`count(*)::int` }).from(dbtEdge).where(keyWhere(dbtEdge, key));
	const [c] = await tx
		.select({ c: sql<number>`count(*)::int` })
		.from(dbtGraphSnapshot)
		.innerJoin(dbtColumnEdge, eq(dbtColumnEdge.graphId, dbtGraphSnapshot.id))
		.where(keyWhere(dbtGraphSnapshot, key));
	return { nodes: toNumber(n.c), edges: toNumber(e.c), columnEdges: toNumber(c.c) };
}

/** All rows of one graph in a stable order: what tests compare "row for row". */
export async function dumpGraph(tx: Tx, key: GraphKey) {
	const nodes = await tx.select().from(dbtNode).where(keyWhere(dbtNode, key)).orderBy(dbtNode.uniqueId);
	const edges = await tx
		.select({ p: dbtEdge.parentUniqueId, c: dbtEdge.childUniqueId })
		.from(dbtEdge)
		.where(keyWhere(dbtEdge, key))
		.orderBy(dbtEdge.parentUniqueId, dbtEdge.childUniqueId);
	const parent = alias(dbtGraphColumn, 'parent');
	const child = alias(dbtGraphColumn, 'child');
	const columnEdges = await tx
		.select({
			pu: parent.uniqueId,
			pc: parent.columnName,
			cu: child.uniqueId,
			cc: child.columnName,
			k: dbtColumnEdge.lineageKind,
			comp: dbtColumnEdge.component
		})
		.from(dbtGraphSnapshot)
		.innerJoin(dbtColumnEdge, eq(dbtColumnEdge.graphId, dbtGraphSnapshot.id))
		.innerJoin(parent, and(eq(parent.graphId, dbtColumnEdge.graphId), eq(parent.columnId, dbtColumnEdge.parentCol)))
		.innerJoin(child, and(eq(child.graphId, dbtColumnEdge.graphId), eq(child.columnId, dbtColumnEdge.childCol)))
		.where(keyWhere(dbtGraphSnapshot, key))
		.orderBy(parent.uniqueId, parent.columnName, child.uniqueId, child.columnName, dbtColumnEdge.lineageKind);
	const marker = await readMarker(tx, key);
	// Surrogate ids and ingest times differ between two stores of the same graph; the node
	// digest is derived from the fields shown.
	return {
		marker: marker && { digest: marker.digest, permissionedAs: marker.permissionedAs },
		nodes: nodes.map(({ id: _id, ingestedAt: _t, columnLineage: _o, digest: _d, ...rest }) => rest),
		edges,
		columnEdges,
		// What a lineage job stored per model (none for a graph as the ingest writes it).
		outcomes: Object.fromEntries(nodes.filter((n) => n.columnLineage !== null).map((n) => [n.uniqueId, n.columnLineage]))
	};
}

export const versionKey = (workspace: string, scriptPath: string, scriptHash: bigint): GraphKey => ({
	workspace,
	scriptPath,
	scriptHash,
	jobId: ZERO_UUID
});

// ─── Retention (DESIGN.md §4) ─────────────────────────────────────────────────────────────

export const RETENTION = { runDays: 30, versionsPerPath: 50, previewsPerPathAndPrincipal: 5 };

/** A pending version no job names is a deploy that died while staging its graph once it is this old. */
const STAGED_ORPHAN_MS = 3_600_000;

async function deleteKeys(database: Database, tx: Tx, keys: GraphKey[]): Promise<void> {
	for (const k of keys) await deleteGraph(tx, k);
}

interface MarkerKeyRow {
	workspace: string;
	script_path: string;
	script_hash: unknown;
	job_id: string;
}

const toKey = (r: MarkerKeyRow): GraphKey => ({
	workspace: r.workspace,
	scriptPath: r.script_path,
	scriptHash: r.script_hash === null ? null : BigInt(String(r.script_hash)),
	jobId: r.job_id
});

/**
 * The three sweeps, for one path, each run in the caller's transaction together with its marker
 * deletes: run snapshots and progress rows older than 30 days (workspace-wide), version graphs
 * beyond the newest 50 deploys of the path, previews beyond the newest 5 per path and principal;
 * and, workspace-wide, inference cache entries unused for INFER_CACHE_DAYS and the plans of
 * lineage jobs that ended without removing theirs (reaped).
 */
export async function pruneGraphs(
	database: Database,
	tx: Tx,
	workspace: string,
	scriptPath: string,
	now: Date = new Date()
): Promise<{ runs: number; versions: number; previews: number; progress: number; inferCache: number }> {
	const cutoff = new Date(now.getTime() - RETENTION.runDays * 86_400_000).toISOString();
	const oldRuns = (
		await database.rows<MarkerKeyRow>(
			sql`select workspace, script_path, script_hash::text as script_hash, job_id::text as job_id from dbt_graph_snapshot
				where workspace = ${workspace} and script_hash is not null and job_id <> ${ZERO_UUID}::uuid
				and ingested_at < ${cutoff}::timestamptz`,
			tx
		)
	).map(toKey);
	await deleteKeys(database, tx, oldRuns);
	const progress = await database.rows<{ n: unknown }>(
		sql`with d as (delete from dbt_run_progress where workspace = ${workspace} and updated_at < ${cutoff}::timestamptz returning 1)
			select count(*)::int as n from d`,
		tx
	);
	const oldVersions = (
		await database.rows<MarkerKeyRow>(
			sql`select g.workspace, g.script_path, g.script_hash::text as script_hash, g.job_id::text as job_id
				from dbt_graph_snapshot g
				join script s on s.workspace = g.workspace and s.hash = g.script_hash
				where g.workspace = ${workspace} and g.script_path = ${scriptPath} and g.job_id = ${ZERO_UUID}::uuid
				and s.hash not in (
					select hash from script where workspace = ${workspace} and path = ${scriptPath}
					order by created_at desc, hash desc limit ${RETENTION.versionsPerPath}
				)`,
			tx
		)
	).map(toKey);
	await deleteKeys(database, tx, oldVersions);
	const oldPreviews = (
		await database.rows<MarkerKeyRow>(
			sql`select workspace, script_path, null as script_hash, job_id::text as job_id from (
					select *, row_number() over (partition by permissioned_as order by ingested_at desc, id desc) as rn
					from dbt_graph_snapshot
					where workspace = ${workspace} and script_path = ${scriptPath} and script_hash is null
				) p where rn > ${RETENTION.previewsPerPathAndPrincipal}`,
			tx
		)
	).map(toKey);
	await deleteKeys(database, tx, oldPreviews);
	// A deploy that died while its graph was being staged (stageGraph) left a pending version no
	// job names, or a preview graph whose job was never inserted; an hour on, they go.
	const stagedBefore = new Date(now.getTime() - STAGED_ORPHAN_MS).toISOString();
	await database.rows(
		sql`delete from script s
		     where s.workspace = ${workspace} and s.path = ${scriptPath} and s.pending and s.created_at < ${stagedBefore}::timestamptz
		       and not exists (select 1 from job j where j.workspace = s.workspace and j.script_hash = s.hash)`,
		tx
	);
	const jobless = (
		await database.rows<MarkerKeyRow>(
			sql`select g.workspace, g.script_path, null as script_hash, g.job_id::text as job_id from dbt_graph_snapshot g
				where g.workspace = ${workspace} and g.script_path = ${scriptPath} and g.script_hash is null
				and g.ingested_at < ${stagedBefore}::timestamptz and not exists (select 1 from job j where j.id = g.job_id)`,
			tx
		)
	).map(toKey);
	await deleteKeys(database, tx, jobless);
	const inferCache = await pruneInferCache(database, tx, workspace, now);
	await deleteEndedPlans(database, workspace, tx);
	return {
		runs: oldRuns.length,
		versions: oldVersions.length,
		previews: oldPreviews.length,
		progress: toNumber(progress[0]?.n),
		inferCache
	};
}

/**
 * Stores a run's own graph under its job, unless it is the same graph as its version's (equal
 * digest): then the run reads its version's graph and nothing is written. Returns whether a
 * snapshot was stored.
 */
export async function storeRunSnapshot(
	database: Database,
	tx: Tx,
	key: GraphKey & { scriptHash: bigint },
	g: GraphContent,
	permissionedAs: string,
	stats: Record<string, unknown> = {}
): Promise<boolean> {
	const { digest, nodeDigests } = digestGraph(g);
	const version = await readMarker(tx, { ...key, jobId: ZERO_UUID });
	if (version?.digest === digest) {
		await deleteGraph(tx, key);
		return false;
	}
	await replaceGraph(database, tx, key, g, { digest, permissionedAs, stats }, { nodeDigests });
	return true;
}

/**
 * The dbt_node columns any statement filters or joins on. The others (SQL, docs, column JSON)
 * are never in a predicate, and sampling their TOASTed text was most of the table's analyze
 * (bench/README.md, "ingest").
 */
const ANALYZED_NODE_COLUMNS = ['workspace', 'script_path', 'script_hash', 'job_id', 'unique_id', 'resource_type', 'name', 'asset_path', 'attached_node', 'test_kind', 'digest'];

/** Refreshes the planner's statistics of the graph tables after a bulk load. */
export async function analyzeGraphTables(database: Database): Promise<void> {
	await database.rows(sql.raw(`analyze dbt_column_edge, dbt_graph_column, dbt_edge, dbt_node (${ANALYZED_NODE_COLUMNS.join(', ')})`));
}
