// A run's own graph (a per-run parse, a recorded run's manifest) is stored under its job only
// when it is not its version's graph. A candidate without column lineage is compared by SHAPE
// (nodes and edges, not the index's annotations): a version deployed with its index would
// otherwise differ from every parse of the same project, and the run page would lose the
// column lineage its version has.
import { createHash } from 'node:crypto';
import type { Database, Tx } from '../db';
import { deleteGraph, dumpGraph, storeRunSnapshot, versionKey, type EdgeRow, type GraphContent, type GraphKey, type NodeRow } from '../repo/graph';

const NODE_FIELDS = [
	'uniqueId',
	'resourceType',
	'name',
	'assetPath',
	'materialized',
	'materializeStrategy',
	'uniqueKey',
	'tags',
	'description',
	'testKind',
	'testColumn',
	'testArgs',
	'severity',
	'attachedNode',
	'columns',
	'freshness',
	'rawCode',
	'originalFilePath'
] as const satisfies readonly (keyof NodeRow)[];

/** JSON with object keys sorted: jsonb gives stored objects back in its own key order. */
function canonical(v: unknown): string {
	if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
	if (v && typeof v === 'object') {
		const o = v as Record<string, unknown>;
		return `{${Object.keys(o)
			.filter((k) => o[k] !== undefined)
			.sort()
			.map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
			.join(',')}}`;
	}
	return JSON.stringify(v ?? null);
}

/** Digest of the nodes (without typed columns) and edges. */
export function shapeDigest(nodes: readonly Partial<Record<(typeof NODE_FIELDS)[number], unknown>>[], edges: readonly EdgeRow[]): string {
	const h = createHash('sha256');
	const rows = nodes.map((n) => canonical(Object.fromEntries(NODE_FIELDS.map((f) => [f, n[f] ?? null])))).sort();
	for (const r of rows) h.update(r).update('\n');
	h.update('edges\n');
	for (const e of edges.map((x) => `${x.parent}\u0000${x.child}`).sort()) h.update(e).update('\n');
	return h.digest('hex');
}

/** Stores `content` under `key` (a run's job) unless it is its version's graph; answers whether it did. */
export async function storeOwnGraph(
	database: Database,
	tx: Tx,
	key: GraphKey & { scriptHash: bigint },
	content: GraphContent,
	permissionedAs: string,
	stats: Record<string, unknown>
): Promise<boolean> {
	if (content.columnEdges === null) {
		const version = await dumpGraph(tx, versionKey(key.workspace, key.scriptPath, key.scriptHash));
		if (version.marker) {
			const same = shapeDigest(version.nodes, version.edges.map((e) => ({ parent: e.p, child: e.c }))) === shapeDigest(content.nodes, content.edges);
			if (same) {
				await deleteGraph(tx, key);
				return false;
			}
		}
	}
	return storeRunSnapshot(database, tx, key, content, permissionedAs, stats);
}
