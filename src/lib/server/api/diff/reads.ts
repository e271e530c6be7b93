// The lineage diff between two refs of one project (GET dbt/diff), once both refs passed their
// gates (access/ diffRefAccess): reads only what differs (repo/graph-diff.ts), walks the
// impact of removed and retyped columns over the `from` graph and the workspace's producers
// (lineage/column-impact.ts) over only the changed columns' downstream edges, and leaves the authored parts out unless both refs show them.
import { buildImpactGraph, walkColumnImpact, type ImpactGraph } from '../../../lineage/column-impact';
import { diffGraphs, emptyDiff, redactDiff, type ChangedNode, type DiffInput } from '../../../lineage/graph-diff';
import { graphConsumers } from '../../../lineage/asset-graph';
import { consumerIndex, consumersReached } from '../../../lineage/consumer-trace';
import type { ColumnLineageEdge } from '../../../types/asset-graph';
import type { GraphDiff, ImpactEntry, RefEdgeChange } from '../../../types/graph-diff';
import type { DiffRefGrant, Grant } from '../../access';
import type { Database } from '../../db';
import { groupProducerLineage } from '../graph/reads';
import type { GraphKey } from '../../repo/graph';
import { changedNodes, columnEdgesTouching, diffNodesOf, downstreamColumnEdges, graphState, liveProducerVersions, refEdgeChanges } from '../../repo/graph-diff';
import { assetPathsOf, consumersOf, producerLineage } from '../../repo/lineage';

const TEST_TYPES = new Set(['test', 'unit_test']);

const sameKey = (a: GraphKey, b: GraphKey) =>
	a.workspace === b.workspace && a.scriptPath === b.scriptPath && a.scriptHash === b.scriptHash && a.jobId === b.jobId;

/**
 * What the impact walk runs on: the `from` graph's direct column edges downstream of the changed
 * columns (read level by level, never their whole components), plus every producer the caller
 * may read.
 */
async function impactGraphOf(database: Database, key: GraphKey, starts: { uniqueId: string; column: string }[], member: Grant | null): Promise<ImpactGraph> {
	const edges = await downstreamColumnEdges(database, key, starts);
	const assetPathOf = await assetPathsOf(database, key, [...new Set(edges.flatMap((e) => [e.parentUniqueId, e.childUniqueId]))]);
	const dbtEdges: ColumnLineageEdge[] = [];
	// The impact walk reads kinds, not provenance; the graph's one provenance is not looked up for it.
	for (const e of edges) {
		const from = assetPathOf.get(e.parentUniqueId);
		const to = assetPathOf.get(e.childUniqueId);
		if (from && to) dbtEdges.push({ from_asset_path: from, from_column: e.parentColumn, to_asset_path: to, to_column: e.childColumn, kind: e.lineageKind, provenance: 'engine' });
	}
	const producers = member === null ? [] : (await liveProducerVersions(database, key.workspace)).filter((v) => member.mayRead(v.path));
	const lineage = groupProducerLineage(await producerLineage(database, key.workspace, producers));
	return buildImpactGraph(dbtEdges, [...lineage].map(([path, column_lineage]) => ({ path, column_lineage })));
}

/** The `from` graph's consumers as the diff asks for them: by the relation columns a change reaches. */
async function consumerReader(database: Database, key: GraphKey, visible: (path: string) => boolean): Promise<DiffInput['consumersOf']> {
	const list = await consumersOf(database, key);
	if (list.length === 0) return undefined;
	const ids = new Set<string>();
	for (const c of list) {
		for (const d of c.depends_on) ids.add(d);
		if (c.model) ids.add(c.model);
		for (const col of c.columns ?? []) ids.add(col.node);
	}
	const nodes = [...(await assetPathsOf(database, key, [...ids]))].map(([uniqueId, assetPath]) => ({ uniqueId, assetPath }));
	const index = consumerIndex(graphConsumers([{ scriptPath: key.scriptPath, authored: true, nodes, consumers: list }], visible));
	return (cols) =>
		consumersReached(index, cols).map(({ consumer: c, via }) => ({ type: c.type, name: c.name, label: c.label, unique_id: c.unique_id, script_path: c.script_path, via }));
}

export async function lineageDiff(from: DiffRefGrant, to: DiffRefGrant, database: Database): Promise<GraphDiff> {
	const sides = { from: { hash: from.hash, job_id: from.jobId }, to: { hash: to.hash, job_id: to.jobId } };
	const authored = from.authored && to.authored;
	if (sameKey(from.key, to.key)) return authored ? emptyDiff(sides) : redactDiff(emptyDiff(sides));

	const rows = await changedNodes(database, from.key, to.key);
	const tests = rows.filter((r) => TEST_TYPES.has(r.resourceType) && r.attachedNode !== null);
	const nodes = rows.filter((r) => !tests.includes(r));
	const fromNodes = await diffNodesOf(database, from.key, nodes.filter((r) => r.inFrom).map((r) => r.uniqueId));
	const toNodes = await diffNodesOf(database, to.key, nodes.filter((r) => r.inTo).map((r) => r.uniqueId));
	const changed: ChangedNode[] = nodes.map((r) => ({ uniqueId: r.uniqueId, from: fromNodes.get(r.uniqueId) ?? null, to: toNodes.get(r.uniqueId) ?? null }));

	const edges = await refEdgeChanges(database, from.key, to.key);
	const ends = (added: boolean) => [...new Set(edges.filter((e) => e.added === added).flatMap((e) => [e.parent, e.child]))];
	const testModels = [...new Set(tests.map((t) => t.attachedNode!))];
	const toPaths = await assetPathsOf(database, to.key, [...ends(true), ...testModels]);
	const fromPaths = await assetPathsOf(database, from.key, [...ends(false), ...testModels]);
	const refEdge = (e: { parent: string; child: string }, paths: Map<string, string | null>): RefEdgeChange => ({
		from_unique_id: e.parent,
		to_unique_id: e.child,
		from_asset_path: paths.get(e.parent) ?? null,
		to_asset_path: paths.get(e.child) ?? null
	});

	const fromState = await graphState(database, from.key);
	const toState = await graphState(database, to.key);
	const ids = nodes.map((r) => r.uniqueId);
	const lineage = fromState.columnLineage && toState.columnLineage;
	const columnEdges = lineage
		? { from: await columnEdgesTouching(database, from.key, ids), to: await columnEdgesTouching(database, to.key, ids) }
		: { from: [], to: [] };
	const member = to.member ?? from.member;
	const input = {
		changed,
		testsChangedOf: testModels.map((uid) => ({ uniqueId: uid, assetPath: toPaths.get(uid) ?? fromPaths.get(uid) ?? null })),
		refEdges: { added: edges.filter((e) => e.added).map((e) => refEdge(e, toPaths)), removed: edges.filter((e) => !e.added).map((e) => refEdge(e, fromPaths)) },
		columnEdges,
		hasColumnLineage: { from: fromState.columnLineage, to: toState.columnLineage }
	};
	// A first pass names the columns whose impact the diff asks for; only their downstream is read.
	const asked = new Map<string, { uniqueId: string; column: string }>();
	const uidOfPath = new Map([...fromNodes.values()].filter((n) => n.assetPath).map((n) => [n.assetPath!, n.uniqueId]));
	diffGraphs(
		{
			...input,
			impactOf: (path, column) => {
				const uid = uidOfPath.get(path);
				if (uid) asked.set(`${uid}\u0000${column}`, { uniqueId: uid, column });
				return [];
			}
		},
		sides
	);
	const ig = fromState.columnLineage && asked.size > 0 ? await impactGraphOf(database, from.key, [...asked.values()], member) : null;
	// A share link without a session is narrowed by no token.
	const visible = member ? member.assetGate() : () => true;
	const impactOf = (path: string, column: string): ImpactEntry[] =>
		ig === null
			? []
			: walkColumnImpact(ig, { kind: 'dbt', path, column }, 'downstream', { visible: (n) => visible(n.path) }).columns.map((c) => ({
					kind: c.kind,
					asset_path: c.asset_path,
					column: c.column,
					depth: c.depth,
					kinds: c.kinds,
					via: c.via
				}));
	const diff = diffGraphs({ ...input, impactOf, consumersOf: await consumerReader(database, from.key, visible) }, sides);
	return authored ? diff : redactDiff(diff);
}
