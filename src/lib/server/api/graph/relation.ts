// One relation's details for the canvas pages' details pane, read on selection. The folder's
// asset graph carries every relation's SQL and columns (megabytes in a big folder); the canvas is
// drawn from a compact summary and the pane asks for the one relation it shows. Same reads and
// the same grant questions as the asset graph (graph/reads.ts): the versions the caller may see describe
// the relation, the one redaction predicate decides the authored fields per project.
import { mergeDescriptions, type DescribedGraph } from '$lib/lineage/asset-graph';
import type { Grant, PinnedAccess } from '$lib/server/access';
import type { Database } from '$lib/server/db';
import type { GraphKey } from '$lib/server/repo/graph';
import { graphLineageState, nodeOutcomes } from '$lib/server/repo/inference';
import { describeAssets, pinnedGraphOf, type VersionRef } from '$lib/server/repo/lineage';
import { jobAssetGraph } from '$lib/server/api/graph/reads';
import { ZERO_UUID } from '$lib/server/schema';
import type { DbtProvenance, ModelColumnLineage } from '$lib/types/asset-graph';
import { hashToHex, hexToHash } from '$lib/types/script-hash';

/**
 * How the relation's column lineage came about in graph `key`: the engine's index, a lineage
 * job (its state while it runs, why when it failed), the model's own outcome once it ended.
 */
export async function columnLineageOf(database: Database, key: GraphKey, uniqueId: string): Promise<ModelColumnLineage | null> {
	const state = await graphLineageState(database, key);
	if (!state) return null;
	const none = { outcome: null, message: null, line: null, column: null, untraced: [] };
	if (!state.job) return { source: state.columnEdges === null ? null : 'engine', job: null, ...none };
	const j = state.job;
	const job = { id: j.id, status: j.status, done: j.done, total: j.total };
	if (j.status === 'failure' || j.status === 'canceled') {
		return { source: 'inferred', job, ...none, message: j.error ?? `the lineage job ended ${j.status === 'canceled' ? 'canceled' : 'failed'}` };
	}
	if (j.status !== 'success') return { source: 'inferred', job, ...none };
	const o = (await nodeOutcomes(database, key, [uniqueId])).get(uniqueId);
	return o
		? { source: 'inferred', job, outcome: o.outcome, message: o.message, line: o.line, column: o.column, untraced: o.untraced ?? [] }
		: { source: 'inferred', job, ...none };
}

/** The description with its column lineage state, for a caller shown its authored fields (never mutating a cached answer). */
async function withColumnLineage(database: Database, d: DbtProvenance | null, key: GraphKey | null): Promise<DbtProvenance | null> {
	if (!d || !d.authored || !key) return d;
	return { ...d, column_lineage: await columnLineageOf(database, key, d.unique_id) };
}

/**
 * The unpinned description of a dbt relation (optionally with one version named), or null.
 * `named` must have passed the grant's readableVersion.
 */
export async function describeRelation(grant: Grant, database: Database, path: string, named: VersionRef | null = null): Promise<DbtProvenance | null> {
	if (!grant.assetGate()(path)) return null;
	const loaded = await describeAssets(database, grant.workspace, [path], grant.shapeFilter(), named);
	const graphs: DescribedGraph[] = loaded.map((g) => ({
		scriptPath: g.key.scriptPath,
		scriptHash: g.key.scriptHash === null ? null : hashToHex(g.key.scriptHash),
		authored: grant.showsAuthored(g.key.scriptPath),
		nodes: g.nodes,
		edges: g.edges
	}));
	const d = mergeDescriptions(graphs).get(path) ?? null;
	const key = d && d.script_hash !== null ? { workspace: grant.workspace, scriptPath: d.script_path, scriptHash: hexToHash(d.script_hash)!, jobId: ZERO_UUID } : null;
	return withColumnLineage(database, d, key);
}

/** A relation as a job's pinned graph describes it (run pages, share links included). */
export async function describePinnedRelation(gate: PinnedAccess, database: Database, path: string): Promise<DbtProvenance | null> {
	const g = await jobAssetGraph(gate, database, { folder: null, assetKinds: new Set(['dbt']), scriptHash: null });
	const d = g.assets.find((a) => a.kind === 'dbt' && a.path === path)?.dbt ?? null;
	if (!d) return null;
	const pinned = gate.kind === 'no_job' ? null : await pinnedGraphOf(database, gate.run.job);
	const key = pinned
		? pinned.key
		: d.script_hash !== null
			? { workspace: gate.kind === 'no_job' ? gate.grant.workspace : gate.run.job.workspace, scriptPath: d.script_path, scriptHash: hexToHash(d.script_hash)!, jobId: ZERO_UUID }
			: null;
	return withColumnLineage(database, d, key);
}
