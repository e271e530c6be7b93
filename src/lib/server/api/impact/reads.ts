// The column impact read between the routes and the repo: the grant's questions (exactly column
// lineage's, since an impact list is column lineage walked one way) and the walk across dbt's
// lineage and the producers' lineage.
import { assetColumns, columnId } from '../../../lineage/column-trace';
import { bridgeRelationless, buildImpactGraph, COLUMN_IMPACT_LIMIT, impactRelations, walkColumnImpact, type ImpactDirection, type ProducerLineageOf } from '../../../lineage/column-impact';
import type { ColumnLineageEdge } from '../../../types/asset-graph';
import type { ColumnImpactAnswer, ColumnImpactConsumer, ColumnImpactTest } from '../../../types/column-impact';
import { graphConsumers } from '../../../lineage/asset-graph';
import { consumerIndex, consumersReached } from '../../../lineage/consumer-trace';
import type { Grant, PinnedAccess, RunGrant } from '../../access';
import type { Database } from '../../db';
import { badRequest } from '../../http';
import { groupProducerLineage } from '../graph/reads';
import { cachedComponentRead } from '../lineage/reads';
import { digestKey, graphCacheOf, type ByteLru } from '../../graph-cache';
import type { Consumer } from '../../../types/consumers';
import { assetPathsOf, columnComponents, consumersOf, edgesOfComponents, EVERY_PATH, graphMarkerVersion, lineageInputsStamp, pinnedGraphOf, relationOwnersEvery, type ProducerLineageRow, readableProducerLineage, relationHasColumn, relationsInGraph, relationsInOwners, relationTests, relationTestsInOwners, type PinnedGraph, type RelationTestRow, type RelationInGraph, type StoredColumnEdge } from '../../repo/lineage';
import type { GraphKey } from '../../repo/graph';
import type { ImpactQuery } from './parse';

// ─── The walk ──────────────────────────────────────────────────────────────────────────────

export interface ImpactOptions {
	/** The bound on listed columns (COLUMN_IMPACT_LIMIT; smaller only in tests). */
	limit?: number;
	/** The lineage stamp already read with the caller's principal (access/ principalWithLineageStamp). */
	stamp?: string | null;
}

/** Reads more of dbt's lineage at most this many times: each round follows the walk one step across projects or producers. */
const MAX_ROUNDS = 16;

const noImpact = (): ColumnImpactAnswer => ({ columns: [], truncated: false, withheld: 0, tests: {} });

const unknownColumn = (q: ImpactQuery) => badRequest(`column: ${q.kind}://${q.assetPath} has no column ${JSON.stringify(q.column.slice(0, 80))}`);

const keyId = (k: GraphKey) => `${k.scriptPath}\u0000${k.scriptHash ?? ''}\u0000${k.jobId}`;
const colKey = (a: string, b: string) => `${a}\u0000${b}`;

interface HeldGraph {
	key: GraphKey;
	components: Set<number>;
	edges: StoredColumnEdge[];
	pathOf: Map<string, string | null>;
	/** `unique_id NUL column` of every edge end held: its whole component is in hand. */
	ends: Set<string>;
}

/**
 * dbt's lineage as an impact walk reads it: per graph, the components of the columns the walk
 * has reached, each fetched once through the component index. A relation several projects
 * describe is looked up in all of them (each under the caller's gate, in SQL), so a walk crosses
 * from one project into another where they share a relation, as it crosses producers.
 */
class DbtLineageReader {
	readonly graphs = new Map<string, HeldGraph>();
	/** The graphs describing each looked-up relation. */
	readonly ownersOf = new Map<string, GraphKey[]>();
	/** The marker version each graph was looked up with, where the owners lookup gives one. */
	readonly versionOf = new Map<string, string>();
	#looked = new Set<string>();

	/**
	 * `owners` rows carrying a marker version are read through the graph cache by relation, as
	 * column lineage reads them (cachedComponentRead); the others by column component, uncached.
	 */
	constructor(
		private database: Database,
		private owners: (assetPaths: string[]) => Promise<(RelationInGraph & { version?: string | null })[]>
	) {}

	/** How many of these columns were never looked up. */
	unlooked(columns: readonly { path: string; column: string }[]): number {
		return columns.filter((c) => !this.#looked.has(colKey(c.path, c.column))).length;
	}

	/** Fetches the components of these columns not yet in hand; true when edges arrived. */
	async add(columns: readonly { path: string; column: string }[]): Promise<boolean> {
		const byPath = new Map<string, string[]>();
		for (const c of columns) {
			const k = colKey(c.path, c.column);
			if (this.#looked.has(k)) continue;
			this.#looked.add(k);
			const list = byPath.get(c.path);
			if (list) list.push(c.column);
			else byPath.set(c.path, [c.column]);
		}
		if (byPath.size === 0) return false;
		const wanted = new Map<string, { key: GraphKey; version: string | null; pairs: { uniqueId: string; column: string }[] }>();
		for (const r of await this.owners([...byPath.keys()])) {
			const id = keyId(r.key);
			if (r.version) this.versionOf.set(id, r.version);
			const owners = this.ownersOf.get(r.assetPath) ?? [];
			if (!owners.some((k) => keyId(k) === id)) this.ownersOf.set(r.assetPath, [...owners, r.key]);
			const held = this.graphs.get(id);
			for (const column of byPath.get(r.assetPath) ?? []) {
				if (held?.ends.has(colKey(r.uniqueId, column))) continue;
				let w = wanted.get(id);
				if (!w) wanted.set(id, (w = { key: r.key, version: r.version ?? null, pairs: [] }));
				w.pairs.push({ uniqueId: r.uniqueId, column });
			}
		}
		let grew = false;
		for (const [id, w] of wanted) {
			if (w.version) {
				const read = await cachedComponentRead(this.database, w.key, w.version, [...new Set(w.pairs.map((p) => p.uniqueId))].sort());
				grew = this.#hold(w.key, read, w.pairs) || grew;
				continue;
			}
			let g = this.graphs.get(id);
			const fresh = (await columnComponents(this.database, w.key, w.pairs)).filter((c) => !g?.components.has(c));
			if (fresh.length === 0) continue;
			if (!g) this.graphs.set(id, (g = { key: w.key, components: new Set(), edges: [], pathOf: new Map(), ends: new Set() }));
			const got = await edgesOfComponents(this.database, w.key, fresh);
			for (const c of fresh) g.components.add(c);
			for (const e of got.edges) {
				g.edges.push(e);
				g.ends.add(colKey(e.parentUniqueId, e.parentColumn));
				g.ends.add(colKey(e.childUniqueId, e.childColumn));
			}
			for (const [u, p] of got.assetPathOf) g.pathOf.set(u, p);
			grew = true;
		}
		return grew;
	}

	/**
	 * Holds, from a read of whole relations, the components these columns sit in (the rest of the
	 * relations' columns are not the walk's), each once; true when any was new.
	 */
	#hold(key: GraphKey, got: { edges: StoredColumnEdge[]; assetPathOf: Map<string, string | null> }, pairs: readonly { uniqueId: string; column: string }[]): boolean {
		const id = keyId(key);
		let g = this.graphs.get(id);
		if (!g) this.graphs.set(id, (g = { key, components: new Set(), edges: [], pathOf: new Map(), ends: new Set() }));
		const asked = new Set(pairs.map((p) => colKey(p.uniqueId, p.column)));
		const fresh = new Set<number>();
		for (const e of got.edges) {
			if (e.component === undefined || g.components.has(e.component)) continue;
			if (asked.has(colKey(e.parentUniqueId, e.parentColumn)) || asked.has(colKey(e.childUniqueId, e.childColumn))) fresh.add(e.component);
		}
		if (fresh.size === 0) return false;
		for (const e of got.edges) {
			if (!fresh.has(e.component!)) continue;
			g.edges.push(e);
			g.ends.add(colKey(e.parentUniqueId, e.parentColumn));
			g.ends.add(colKey(e.childUniqueId, e.childColumn));
			const p = got.assetPathOf.get(e.parentUniqueId);
			const c = got.assetPathOf.get(e.childUniqueId);
			if (p !== undefined) g.pathOf.set(e.parentUniqueId, p);
			if (c !== undefined) g.pathOf.set(e.childUniqueId, c);
		}
		for (const c of fresh) g.components.add(c);
		return true;
	}

	/** The held edges in asset terms, ephemeral models bridged (they have no place to list). */
	wireEdges(): ColumnLineageEdge[] {
		const out: ColumnLineageEdge[] = [];
		for (const g of this.graphs.values()) {
			// One graph's edges share one provenance: an index was uploaded, or they were inferred.
			const provenance = g.edges[0]?.provenance ?? 'engine';
			for (const e of bridgeRelationless(g.edges, (u) => !!g.pathOf.get(u))) {
				out.push({
					from_asset_path: g.pathOf.get(e.parentUniqueId)!,
					from_column: e.parentColumn,
					to_asset_path: g.pathOf.get(e.childUniqueId)!,
					to_column: e.childColumn,
					kind: e.lineageKind,
					provenance
				});
			}
		}
		return out;
	}
}

type TestsOf = (assetPaths: string[]) => Promise<RelationTestRow[]>;

/**
 * Walks from the start over the held dbt lineage and the producers' lineage, each direction
 * asked; where the walks reach dbt columns whose components are not yet held (in any project
 * describing them), fetches those (for every direction in one lookup) and walks again, until
 * nothing new arrives. The tests of the listed relations are read beside each round's lookup;
 * the last round's are the answer's.
 */
async function walkAcross(
	q: ImpactQuery,
	directions: readonly ImpactDirection[],
	reader: DbtLineageReader,
	producers: readonly ProducerLineageOf[],
	visible: (path: string) => boolean,
	testsOf: TestsOf,
	opts: ImpactOptions
): Promise<{ answers: ColumnImpactAnswer[]; startKnown: boolean }> {
	const start = { kind: q.kind, path: q.assetPath, column: q.column };
	if (q.kind === 'dbt') await reader.add([{ path: q.assetPath, column: q.column }]);
	for (let round = 1; ; round++) {
		const ig = buildImpactGraph(reader.wireEdges(), producers);
		const walks = directions.map((d) => walkColumnImpact(ig, start, d, { limit: opts.limit ?? COLUMN_IMPACT_LIMIT, visible: (n) => visible(n.path) }));
		const reached = walks.flatMap((w) => w.columns.filter((c) => c.kind === 'dbt').map((c) => ({ path: c.asset_path, column: c.column })));
		const last = round >= MAX_ROUNDS;
		const [grew, tests] = await Promise.all([last ? false : reader.add(reached), testsOf(impactRelations(walks.flatMap((w) => w.columns)))]);
		if (!grew) {
			const cut = last && reader.unlooked(reached) > 0;
			return {
				answers: walks.map((walk) => ({ ...walk, truncated: walk.truncated || cut, tests: testsByRelation(tests) })),
				startKnown: ig.graph.nodes.has(columnId(start.kind, start.path, start.column))
			};
		}
	}
}

function testsByRelation(rows: readonly RelationTestRow[]): Record<string, ColumnImpactTest[]> {
	const out: Record<string, ColumnImpactTest[]> = {};
	for (const r of rows) (out[r.assetPath] ??= []).push({ kind: r.kind, column: r.column, severity: r.severity });
	return out;
}

/**
 * Unpinned impact: column lineage's gate (the projects the caller may read authored parts of,
 * in SQL; a named version it may not read answers nothing), the producers the caller may read
 * the script of, and the token's `assets:read` narrowing per listed column (withheld, counted).
 * An asked relation no readable project describes answers an empty list — the same answer as
 * one that does not exist, so relations cannot be probed; a readable one without the column is
 * a 400.
 */
export async function unpinnedColumnImpact(grant: Grant, database: Database, q: ImpactQuery, opts: ImpactOptions = {}): Promise<ColumnImpactAnswer> {
	const walk = await unpinnedWalk(grant, database, q, opts.stamp ?? null);
	if (!walk) return noImpact();
	return answer(database, q, walk.reader, walk.producers, grant.assetGate(), walk.testsOf, opts);
}

/**
 * The walk of one column both ways (an MCP trace): both directions walked round by round over
 * ONE reader, each round's lookup shared. No tests are read (a trace does not list them).
 */
export async function unpinnedColumnTrace(grant: Grant, database: Database, q: ImpactQuery, directions: readonly ImpactDirection[], opts: ImpactOptions = {}): Promise<ColumnImpactAnswer[]> {
	const walk = await unpinnedWalk(grant, database, q, opts.stamp ?? null);
	if (!walk) return directions.map(noImpact);
	return answers(database, q, directions, walk.reader, walk.producers, grant.assetGate(), async () => [], opts);
}

/** The cache entry of a read keyed by the lineage stamp, stored only when the stamp did not move during it. */
function cachedByStamp<V>(database: Database, ws: string, stamp: string, key: string, build: () => Promise<V>, sizeOf: (v: V) => number): Promise<V> {
	return (graphCacheOf(database) as ByteLru<V>).getOrBuild(key, build, sizeOf, async () => (await lineageInputsStamp(database, ws)) === stamp);
}

/** relationOwnersEvery under the stamp: which live graphs describe these relations, ungated. */
function cachedRelationOwners(database: Database, ws: string, stamp: string, paths: string[]) {
	const sorted = [...new Set(paths)].sort();
	return cachedByStamp(database, ws, stamp, `ro:${digestKey([ws, stamp, sorted])}`, () => relationOwnersEvery(database, ws, sorted), (r) => JSON.stringify(r, jsonBig).length * 2);
}

/** Every live producer's column lineage under the stamp, ungated. */
function cachedProducerLineage(database: Database, ws: string, stamp: string): Promise<ProducerLineageRow[]> {
	return cachedByStamp(database, ws, stamp, `pl:${digestKey([ws, stamp])}`, () => readableProducerLineage(database, ws, EVERY_PATH), (r) => JSON.stringify(r).length * 2);
}

const jsonBig = (_k: string, v: unknown) => (typeof v === 'bigint' ? v.toString() : v);

/** The gate and the first reads of an unpinned walk; null when the caller may read nothing of it. */
async function unpinnedWalk(grant: Grant, database: Database, q: ImpactQuery, knownStamp: string | null): Promise<{ reader: DbtLineageReader; producers: ProducerLineageOf[]; testsOf: TestsOf } | null> {
	const named = await grant.readableVersion(database, q.scriptHash);
	if (named && grant.redact(named.path) === 'shape') return null;
	const filter = grant.authoredFilter();
	let reader: DbtLineageReader;
	let rows: ProducerLineageRow[];
	if (named === null) {
		// The live versions: every lookup through the graph cache under one stamp read here, and
		// gated in process by the predicate the SQL filter applies (as column lineage's candidates).
		const stamp = knownStamp ?? (await lineageInputsStamp(database, grant.workspace));
		const readable = (path: string) => grant.mayRead(path);
		reader = new DbtLineageReader(database, async (paths) => (await cachedRelationOwners(database, grant.workspace, stamp, paths)).filter((r) => readable(r.key.scriptPath)));
		[rows] = await Promise.all([
			cachedProducerLineage(database, grant.workspace, stamp).then((all) => all.filter((r) => readable(r.scriptPath))),
			q.kind === 'dbt' ? reader.add([{ path: q.assetPath, column: q.column }]) : false
		]);
	} else {
		reader = new DbtLineageReader(database, (paths) => relationsInOwners(database, grant.workspace, paths, filter, named));
		// The producers' rows and the start column's dbt lineage do not depend on each other.
		[rows] = await Promise.all([readableProducerLineage(database, grant.workspace, filter), q.kind === 'dbt' ? reader.add([{ path: q.assetPath, column: q.column }]) : false]);
	}
	const producers = [...groupProducerLineage(rows)].map(([path, column_lineage]) => ({ path, column_lineage }));
	if (q.kind !== 'dbt') {
		const pg = buildImpactGraph([], producers).graph;
		if (assetColumns(pg, q.kind, q.assetPath).length === 0) return null;
		if (!pg.nodes.has(columnId(q.kind, q.assetPath, q.column))) throw unknownColumn(q);
	}
	return { reader, producers, testsOf: (paths) => relationTestsInOwners(database, grant.workspace, paths, filter, named) };
}

async function answer(
	database: Database,
	q: ImpactQuery,
	reader: DbtLineageReader,
	producers: readonly ProducerLineageOf[],
	visible: (path: string) => boolean,
	testsOf: TestsOf,
	opts: ImpactOptions
): Promise<ColumnImpactAnswer> {
	return (await answers(database, q, [q.direction], reader, producers, visible, testsOf, opts))[0];
}

/** answer() for several directions, walked round by round together (one lookup per round for all). */
async function answers(
	database: Database,
	q: ImpactQuery,
	directions: readonly ImpactDirection[],
	reader: DbtLineageReader,
	producers: readonly ProducerLineageOf[],
	visible: (path: string) => boolean,
	testsOf: TestsOf,
	opts: ImpactOptions
): Promise<ColumnImpactAnswer[]> {
	const walked = await walkAcross(q, directions, reader, producers, visible, testsOf, opts);
	if (q.kind === 'dbt') {
		const owners = reader.ownersOf.get(q.assetPath) ?? [];
		if (owners.length === 0) return directions.map(noImpact);
		if (!walked.startKnown && !(await relationHasColumn(database, owners, q.assetPath, q.column))) throw unknownColumn(q);
	}
	return Promise.all(
		walked.answers.map(async (a, i) => {
			if (directions[i] !== 'downstream') return a;
			const consumers = await consumersReachedBy(database, reader, q, a, visible);
			return consumers.length ? { ...a, consumers } : a;
		})
	);
}

/**
 * The consumers of the graphs the walk read (each already under the caller's gate) that the
 * asked column or a listed one reaches; one reading a relation the caller may not see is not named.
 */
async function consumersReachedBy(
	database: Database,
	reader: DbtLineageReader,
	q: ImpactQuery,
	a: ColumnImpactAnswer,
	visible: (path: string) => boolean
): Promise<ColumnImpactConsumer[]> {
	const cols = [...(q.kind === 'dbt' ? [{ asset_path: q.assetPath, column: q.column }] : []), ...a.columns.filter((c) => c.kind === 'dbt')];
	const keys = new Map<string, GraphKey>();
	for (const c of cols) for (const k of reader.ownersOf.get(c.asset_path) ?? []) keys.set(keyId(k), k);
	const out: ColumnImpactConsumer[] = [];
	for (const key of keys.values()) {
		const version = reader.versionOf.get(keyId(key));
		const { list, pathOf } = version ? await cachedConsumers(database, key, version) : await graphConsumersRead(database, key);
		if (list.length === 0) continue;
		const nodes = [...pathOf].map(([uniqueId, assetPath]) => ({ uniqueId, assetPath }));
		const served = graphConsumers([{ scriptPath: key.scriptPath, authored: true, nodes, consumers: list }], visible);
		for (const hit of consumersReached(consumerIndex(served), cols)) {
			const c = hit.consumer;
			out.push({ type: c.type, name: c.name, label: c.label, unique_id: c.unique_id, script_path: c.script_path, via: hit.via });
		}
	}
	return out;
}

/** One graph's consumers and the asset path of every node they name. */
async function graphConsumersRead(database: Database, key: GraphKey): Promise<{ list: Consumer[]; pathOf: Map<string, string | null> }> {
	const list = await consumersOf(database, key);
	if (list.length === 0) return { list, pathOf: new Map() };
	const ids = new Set<string>();
	for (const c of list) {
		for (const d of c.depends_on) ids.add(d);
		if (c.model) ids.add(c.model);
		for (const col of c.columns ?? []) ids.add(col.node);
	}
	return { list, pathOf: await assetPathsOf(database, key, [...ids]) };
}

/** graphConsumersRead through the graph cache: the consumers live on the marker, so its version keys them. */
function cachedConsumers(database: Database, key: GraphKey, version: string) {
	return (graphCacheOf(database) as ByteLru<Awaited<ReturnType<typeof graphConsumersRead>>>).getOrBuild(
		`co:${digestKey([key.workspace, key.scriptPath, String(key.scriptHash), key.jobId, version])}`,
		() => graphConsumersRead(database, key),
		(r) => JSON.stringify(r.list).length * 2 + JSON.stringify([...r.pathOf]).length * 2,
		async () => (await graphMarkerVersion(database, key)) === version
	);
}

/** Impact in a job's pinned graph: dbt's lineage only (a pinned graph holds no producers); nothing for a caller who may not read the project. */
export async function pinnedColumnImpact(run: RunGrant, database: Database, pinned: PinnedGraph, q: ImpactQuery, opts: ImpactOptions = {}): Promise<ColumnImpactAnswer> {
	if (run.redact(pinned) === 'shape' || q.kind !== 'dbt') return noImpact();
	const reader = new DbtLineageReader(database, (paths) => relationsInGraph(database, pinned.key, paths));
	return answer(database, q, reader, [], run.assetGate(), (paths) => relationTests(database, [pinned.key], paths), opts);
}

/** `jobs/dbt_column_impact/{id}`: pinned like jobColumnLineage, with the same fallbacks; the query never names the version. */
export async function jobColumnImpact(gate: PinnedAccess, database: Database, q: ImpactQuery, opts: ImpactOptions = {}): Promise<ColumnImpactAnswer> {
	const unpinned = { ...q, scriptHash: null };
	if (gate.kind === 'no_job') return unpinnedColumnImpact(gate.grant, database, unpinned, opts);
	const pinned = await pinnedGraphOf(database, gate.run.job);
	if (pinned) return pinnedColumnImpact(gate.run, database, pinned, q, opts);
	const member = gate.run.member;
	return member ? unpinnedColumnImpact(member, database, unpinned, opts) : noImpact();
}
