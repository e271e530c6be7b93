// Assembling the asset graph (DESIGN.md §6) from plain rows: one node per relation however many
// projects describe it, tests folded onto what they test, `ref()` edges resolved to relations,
// and THE redaction of authored fields. Pure, so the rules are tested without a database.
import type { Consumer, GraphConsumer } from '$lib/types/consumers';
import type {
	AssetGraph,
	AssetKind,
	DbtDataTest,
	DbtProvenance,
	DbtRefEdge,
	GraphAsset,
	GraphRunnable,
	GraphUsageEdge,
	UsageAccess
} from '../types/asset-graph';

/** One stored dbt node, as the repository reads it. */
export interface GraphNodeInput {
	uniqueId: string;
	resourceType: string;
	name: string;
	assetPath: string | null;
	materialized: string | null;
	materializeStrategy: string | null;
	tags: string[];
	description: string | null;
	testKind: string | null;
	testColumn: string | null;
	testArgs: unknown;
	severity: string | null;
	attachedNode: string | null;
	columns: Record<string, string> | null;
	columnSchema: { name: string; type?: string }[] | null;
	freshness: unknown;
	rawCode: string | null;
	originalFilePath: string | null;
}

/** One stored graph of one project version, with the caller's right to its authored fields decided. */
export interface DescribedGraph {
	scriptPath: string;
	/** 16 hex digits, or null for a preview. */
	scriptHash: string | null;
	authored: boolean;
	nodes: GraphNodeInput[];
	edges: { parent: string; child: string }[];
	/** Every relation of this graph is an asset of the answer (a pinned or named version). */
	ownsAssets?: boolean;
	/** Exposures, semantic models, metrics, saved queries stored with the graph. */
	consumers?: Consumer[];
}

/** The facts the one redaction predicate is decided on. */
export interface AuthoredFacts {
	/** The graph is a preview's (NULL hash): it has no version row, and is reachable only through its own job, so it counts as a visible version. */
	preview: boolean;
	/** The caller can see this script version (a live or named version of a path it reads; a job's version once job access is granted). */
	versionVisible: boolean;
	/** The caller may read the script itself: owner access to its path AND a token scope covering `scripts:read` on it. */
	mayReadScript: boolean;
}

/** THE predicate for every authored field, column lineage included. */
export function mayShowAuthored(f: AuthoredFacts): boolean {
	return (f.preview || f.versionVisible) && f.mayReadScript;
}

/**
 * THE redaction: everything an author wrote is removed unless `authored`. The shape (ids,
 * resource type, materialization, test kind and severity) survives, because a run's result
 * already names every node and relation to whoever may read the run. A test's column is a
 * column name, authored like the column list, so it goes with it.
 */
export function redactProvenance(full: DbtProvenance, authored: boolean): DbtProvenance {
	const shape: DbtProvenance = {
		script_path: full.script_path,
		script_hash: full.script_hash,
		unique_id: full.unique_id,
		resource_type: full.resource_type,
		materialized: full.materialized,
		materialize_strategy: full.materialize_strategy,
		data_tests: full.data_tests.map((t) => (authored ? { ...t } : { kind: t.kind, severity: t.severity })),
		authored
	};
	if (!authored) return shape;
	return {
		...shape,
		tags: full.tags,
		description: full.description,
		columns: full.columns,
		column_schema: full.column_schema,
		freshness: full.freshness,
		raw_code: full.raw_code,
		original_file_path: full.original_file_path
	};
}

const testOf = (t: GraphNodeInput): DbtDataTest => ({
	kind: t.testKind,
	column: t.testColumn,
	severity: t.severity === null ? null : t.severity.toLowerCase(),
	args: t.testArgs ?? null
});

function provenanceOf(g: DescribedGraph, n: GraphNodeInput, tests: DbtDataTest[]): DbtProvenance {
	return redactProvenance(
		{
			script_path: g.scriptPath,
			script_hash: g.scriptHash,
			unique_id: n.uniqueId,
			resource_type: n.resourceType,
			materialized: n.materialized,
			materialize_strategy: n.materializeStrategy,
			data_tests: tests,
			authored: true,
			tags: n.tags,
			description: n.description,
			columns: n.columns,
			column_schema: n.columnSchema,
			freshness: n.freshness ?? null,
			raw_code: n.rawCode,
			original_file_path: n.originalFilePath
		},
		g.authored
	);
}

const isTest = (n: GraphNodeInput) => n.resourceType === 'test' || n.resourceType === 'unit_test';

const stable = (v: unknown) => JSON.stringify(v);

/**
 * One provenance per relation. A model/seed/snapshot description beats a source one (the
 * project that builds a relation knows it best); otherwise the smaller (unique_id, script path)
 * wins so the answer does not depend on row order. Tests of every description fold in, each
 * already redacted by its own project's gate; a freshness policy is kept from whichever
 * description has one (it is declared on sources, which usually lose).
 */
export function mergeDescriptions(graphs: readonly DescribedGraph[]): Map<string, DbtProvenance> {
	// Each description with, per test, the key it folds by: what is shown, except that a redacted
	// test keeps its column in the key, so two redacted tests on different columns stay two (the
	// tests badge counts them) while the same test described twice folds once. Not its args: a
	// redacted graph may be read without them.
	const candidates = new Map<string, { p: DbtProvenance; testKeys: string[] }[]>();
	for (const g of graphs) {
		const testsOf = new Map<string, DbtDataTest[]>();
		for (const n of g.nodes) {
			if (!isTest(n) || n.attachedNode === null) continue;
			const list = testsOf.get(n.attachedNode);
			if (list) list.push(testOf(n));
			else testsOf.set(n.attachedNode, [testOf(n)]);
		}
		for (const n of g.nodes) {
			if (isTest(n) || n.assetPath === null) continue;
			const tests = testsOf.get(n.uniqueId) ?? [];
			const p = provenanceOf(g, n, tests);
			const entry = { p, testKeys: p.authored ? p.data_tests.map(stable) : tests.map((t) => stable({ kind: t.kind, column: t.column, severity: t.severity })) };
			const list = candidates.get(n.assetPath);
			if (list) list.push(entry);
			else candidates.set(n.assetPath, [entry]);
		}
	}
	const out = new Map<string, DbtProvenance>();
	for (const [path, entries] of candidates) {
		entries.sort(
			(a, b) =>
				Number(a.p.resource_type === 'source') - Number(b.p.resource_type === 'source') ||
				cmp(a.p.unique_id, b.p.unique_id) ||
				cmp(a.p.script_path, b.p.script_path)
		);
		const list = entries.map((e) => e.p);
		const winner = { ...list[0] };
		const tests = new Map<string, DbtDataTest>();
		for (const e of entries) e.p.data_tests.forEach((t, i) => tests.set(`${e.p.authored}\u0000${e.testKeys[i]}`, t));
		// Sorted by what is sent (then by the key, which only orders tests that look alike): the
		// order says nothing about a withheld column.
		winner.data_tests = [...tests.entries()]
			.map(([k, t]) => ({ k, t, shown: stable(t) }))
			.sort((a, b) => cmp(a.shown, b.shown) || cmp(a.k, b.k))
			.map(({ t }) => t);
		if (winner.authored && (winner.freshness === null || winner.freshness === undefined)) {
			const other = list.find((p) => p.authored && p.freshness !== null && p.freshness !== undefined);
			if (other) winner.freshness = other.freshness;
		}
		out.set(path, winner);
	}
	return out;
}

/** `ref()` edges between relations: both ends must be relations, the child not a test, no self-edges. */
export function dbtRefEdges(graphs: readonly DescribedGraph[]): DbtRefEdge[] {
	const out = new Map<string, DbtRefEdge>();
	for (const g of graphs) {
		const byId = new Map(g.nodes.map((n) => [n.uniqueId, n]));
		for (const e of g.edges) {
			const p = byId.get(e.parent);
			const c = byId.get(e.child);
			if (!p || !c || isTest(c) || isTest(p) || p.assetPath === null || c.assetPath === null) continue;
			if (p.assetPath === c.assetPath) continue;
			out.set(`${p.assetPath}\u0000${c.assetPath}`, { from_asset_path: p.assetPath, to_asset_path: c.assetPath });
		}
	}
	return [...out.entries()].sort((a, b) => cmp(a[0], b[0])).map(([, e]) => e);
}

export interface UsageInput {
	scriptPath: string;
	assetKind: AssetKind;
	assetPath: string;
	access: UsageAccess;
}

export interface AssembleInput {
	usage: readonly UsageInput[];
	runnables: readonly GraphRunnable[];
	graphs: readonly DescribedGraph[];
	/** Only these kinds are drawn; null = all. */
	assetKinds: ReadonlySet<AssetKind> | null;
	/** The token's `assets:read` narrowing; an asset it refuses is withheld and counted. */
	assetAllowed: (path: string) => boolean;
	/** Scripts and assets already withheld upstream (counted, never named). */
	hidden: number;
}

/**
 * The asset graph: assets from usage rows (and from the relations of graphs that own their
 * assets), each dbt asset with its merged provenance; usage edges; `ref()` edges whose both ends
 * are drawn. Everything sorted so equal inputs give byte-equal answers.
 */
export function assembleAssetGraph(input: AssembleInput): AssetGraph {
	let hidden = input.hidden;
	const kindOk = (k: AssetKind) => input.assetKinds === null || input.assetKinds.has(k);
	const assets = new Map<string, GraphAsset>();
	const withheld = new Set<string>();
	const add = (kind: AssetKind, path: string): boolean => {
		const k = `${kind}\u0000${path}`;
		if (assets.has(k)) return true;
		if (!kindOk(kind) || withheld.has(k)) return false;
		if (!input.assetAllowed(path)) {
			withheld.add(k);
			hidden++;
			return false;
		}
		assets.set(k, { kind, path });
		return true;
	};
	const edges = new Map<string, GraphUsageEdge>();
	for (const u of input.usage) {
		if (!add(u.assetKind, u.assetPath)) continue;
		const k = `${u.scriptPath}\u0000${u.assetKind}\u0000${u.assetPath}`;
		const prev = edges.get(k);
		const access: UsageAccess = prev && prev.access !== u.access ? 'rw' : u.access;
		edges.set(k, { runnable_path: u.scriptPath, asset_kind: u.assetKind, asset_path: u.assetPath, access });
	}
	for (const g of input.graphs) {
		if (!g.ownsAssets) continue;
		for (const n of g.nodes) if (!isTest(n) && n.assetPath !== null) add('dbt', n.assetPath);
	}
	const provenance = mergeDescriptions(input.graphs);
	for (const a of assets.values()) {
		const p = a.kind === 'dbt' ? provenance.get(a.path) : undefined;
		if (p) a.dbt = p;
	}
	const drawn = (path: string) => assets.has(`dbt\u0000${path}`);
	const consumers = graphConsumers(input.graphs, drawn);
	return {
		...(consumers.length ? { consumers } : {}),
		assets: [...assets.entries()].sort((a, b) => cmp(a[0], b[0])).map(([, a]) => a),
		runnables: [...input.runnables].sort((a, b) => cmp(a.path, b.path)),
		edges: [...edges.entries()].sort((a, b) => cmp(a[0], b[0])).map(([, e]) => e),
		dbt_edges: dbtRefEdges(input.graphs).filter((e) => drawn(e.from_asset_path) && drawn(e.to_asset_path)),
		hidden
	};
}

/**
 * Usage edges a stored graph implies for its own project (a pinned graph cannot use
 * `asset_usage`, which describes only the newest deploy): sources are read, everything else
 * with a relation is written.
 */
export function usageOfGraph(g: DescribedGraph): UsageInput[] {
	const out: UsageInput[] = [];
	for (const n of g.nodes) {
		if (isTest(n) || n.assetPath === null) continue;
		out.push({ scriptPath: g.scriptPath, assetKind: 'dbt', assetPath: n.assetPath, access: n.resourceType === 'source' ? 'r' : 'w' });
	}
	return out;
}

/** Relations a dbt project builds (not the ones it only reads): the runnable's `model_count`. */
export function modelCount(usage: readonly UsageInput[], scriptPath: string): number {
	const built = new Set<string>();
	for (const u of usage) if (u.scriptPath === scriptPath && u.assetKind === 'dbt' && u.access !== 'r') built.add(u.assetPath);
	return built.size;
}

function cmp(a: string, b: string): number {
	return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The consumers of the graphs whose authored fields the caller may read, with relation ends as
 * asset paths. One that reads a relation not drawn (withheld, or outside the answer), or a
 * consumer so hidden, is hidden too (not counted: `hidden` counts scripts and assets): its name
 * and edges would tell what it reads.
 */
export interface ConsumerGraph {
	scriptPath: string;
	authored: boolean;
	/** At least the relations the consumers name (unique_id → asset path). */
	nodes: readonly { uniqueId: string; assetPath: string | null }[];
	consumers?: Consumer[];
}

export function graphConsumers(graphs: readonly ConsumerGraph[], drawn: (path: string) => boolean): GraphConsumer[] {
	const out: GraphConsumer[] = [];
	for (const g of graphs) {
		const list = g.consumers ?? [];
		if (list.length === 0) continue;
		// Authored content, like a model's SQL: redacted (not counted as hidden) where authored fields are.
		if (!g.authored) continue;
		const pathOf = new Map<string, string | null>();
		for (const n of g.nodes) pathOf.set(n.uniqueId, n.assetPath);
		const ids = new Set(list.map((c) => c.unique_id));
		const shown = new Map<string, GraphConsumer>();
		const hide = new Set<string>();
		// Dependencies first: semantic models, then metrics (over metrics), saved queries, exposures.
		const pending = [...list];
		for (let round = 0; pending.length && round <= list.length; round++) {
			for (let i = 0; i < pending.length; ) {
				const c = pending[i];
				const consumerDeps = c.depends_on.filter((d) => ids.has(d));
				if (consumerDeps.some((d) => !shown.has(d) && !hide.has(d))) {
					i++;
					continue;
				}
				pending.splice(i, 1);
				const relationDeps = c.depends_on.filter((d) => !ids.has(d));
				const relationCols = [...(c.columns ?? []).map((x) => x.node), ...(c.model ? [c.model] : [])];
				const paths = [...relationDeps, ...relationCols].map((d) => pathOf.get(d) ?? null);
				if (consumerDeps.some((d) => hide.has(d)) || paths.some((p) => p === null || !drawn(p))) {
					hide.add(c.unique_id);
					continue;
				}
				const { columns, ...rest } = c;
				const gc: GraphConsumer = {
					...rest,
					script_path: g.scriptPath,
					depends_on_assets: [...new Set(relationDeps.map((d) => pathOf.get(d)!))].sort()
				};
				if (c.model) gc.model_asset = pathOf.get(c.model) ?? null;
				if (columns) gc.columns = columns.map((x) => ({ asset_path: pathOf.get(x.node)!, column: x.column }));
				shown.set(c.unique_id, gc);
			}
		}
		out.push(...shown.values());
	}
	out.sort((a, b) => cmp(a.script_path, b.script_path) || cmp(a.unique_id, b.unique_id));
	return out;
}
