// Column lineage (GET assets/column_lineage, jobs/dbt_column_lineage): the component of each
// asked relation in every project version the grant may read authored parts of, walked nearest
// first, merged and bounded; the pinned form reads the run's own graph.
import { keepNearest, reachComponent, type Ranked } from '../../../lineage/column-walk';
import { type ColumnLineageAnswer, type ColumnLineageEdge } from '../../../types/asset-graph';
import type { Grant, PinnedAccess, RunGrant } from '../../access';
import type { Database } from '../../db';
import { componentEdges, graphMarkerVersion, lineageOwners, pinnedGraphOf, relationsIn, scanEdgesOf, type LineageOwner, type LoadedGraph, type PinnedGraph, type StoredColumnEdge } from '../../repo/lineage';
import { SCAN_EDGE_LIMIT } from '../../limits';
import { digestKey, graphCacheOf, type ByteLru } from '../../graph-cache';

// ─── Column lineage ────────────────────────────────────────────────────────────────────────

export interface LineageOptions {
	/** The bound on served edges (5000; smaller only in tests). */
	limit?: number;
	/** `include=scan`: also the scan edges touching the asked relations, in their own list. */
	scan?: boolean;
	/** The bound on served scan edges (SCAN_EDGE_LIMIT; smaller only in tests). */
	scanLimit?: number;
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
 * graph cache: the stored read column lineage ranks and a column walk (impact/reads.ts) follows,
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
