// One relation's details for the canvas pages' details pane, read on selection. The folder's
// asset graph carries every relation's SQL and columns (13 MB at 3000 models); the canvas is
// drawn from a compact summary and the pane asks for the one relation it shows. Same reads and
// the same gates as the asset graph (lineage-api.ts): the versions the caller may see describe
// the relation, the one redaction predicate decides the authored fields per project.
import { mergeDescriptions, type DescribedGraph } from '$lib/lineage/asset-graph';
import { assetPathGate, authoredShownOf, shapePathFilter, type PinnedAccess, type Principal } from '$lib/server/access';
import type { Database } from '$lib/server/db';
import { describeAssets, type VersionRef } from '$lib/server/repo/lineage';
import { jobAssetGraph } from '$lib/server/lineage-api';
import type { DbtProvenance } from '$lib/types/asset-graph';
import { hashToHex } from '$lib/types/script-hash';

/**
 * The unpinned description of a dbt relation (optionally with one version named), or null.
 * `named` must have passed access.ts's readableVersion (relationReadAccess).
 */
export async function describeRelation(h: Database, p: Principal, path: string, named: VersionRef | null = null): Promise<DbtProvenance | null> {
	if (!assetPathGate(p)(path)) return null;
	const loaded = await describeAssets(h, p.workspace, [path], shapePathFilter(p), named);
	const graphs: DescribedGraph[] = loaded.map((g) => ({
		scriptPath: g.key.scriptPath,
		scriptHash: g.key.scriptHash === null ? null : hashToHex(g.key.scriptHash),
		authored: authoredShownOf(p, g.key.scriptPath),
		nodes: g.nodes,
		edges: g.edges
	}));
	return mergeDescriptions(graphs).get(path) ?? null;
}

/** A relation as a job's pinned graph describes it (run pages, share links included). */
export async function describePinnedRelation(h: Database, gate: PinnedAccess, path: string): Promise<DbtProvenance | null> {
	const g = await jobAssetGraph(h, gate, { folder: null, assetKinds: new Set(['dbt']), scriptHash: null });
	return g.assets.find((a) => a.kind === 'dbt' && a.path === path)?.dbt ?? null;
}
