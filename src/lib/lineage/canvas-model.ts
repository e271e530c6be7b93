// The canvas's own compact graph (DESIGN.md §9), derived from an asset graph: what a card needs
// and nothing an author wrote beyond what the answer already served. A big folder's asset
// graph is megabytes of SQL and columns; this is the small part the canvas is drawn from,
// while a selection's details are read on demand.
import type { AssetGraph, DbtProvenance } from '../types/asset-graph';
import type { CanvasProject, CanvasWire } from '../types/canvas';

export type { CanvasProject, CanvasWire } from '../types/canvas';

export interface CanvasNode {
	/** `dbt:<path>`, `ducklake:<path>` for assets; `script:<path>` for producer scripts. */
	id: string;
	/** consumer: an exposure, semantic model, metric or saved query of a dbt project. */
	type: 'asset' | 'runnable' | 'consumer';
	/** The asset kind, the script's language, or the consumer's type (`metric`, `exposure`, ...). */
	kind: string;
	path: string;
	/** Relation or script name: the last path segment. */
	name: string;
	/** Where it lives: `<warehouse>/<schema>` for an asset, the folder for a script. */
	schema: string;
	resourceType?: string;
	materialized?: string | null;
	uniqueId?: string;
	/** The dbt project describing this relation. */
	project?: string;
	tests?: { error: number; warn: number };
	/** Authored: present only when the answer served it. */
	tags?: string[];
	/** Authored: present only when the answer served it. */
	filePath?: string;
}

/** Upstream → downstream: a `ref()`, a script reading an asset, or a script writing one. */
export interface CanvasEdge {
	source: string;
	target: string;
	kind: 'ref' | 'read' | 'write';
}

export interface CanvasGraph {
	nodes: CanvasNode[];
	edges: CanvasEdge[];
	/** dbt projects of the answer: listed beside the canvas rather than wired to every model. */
	projects: CanvasProject[];
	/** Scripts and assets withheld from this caller (a count, never names). */
	hidden: number;
	/** Identity of the structure above: equal digests draw identical canvases. */
	digest: string;
}

export const assetNodeId = (kind: string, path: string) => `${kind}:${path}`;
export const scriptNodeId = (path: string) => `script:${path}`;
/** A consumer's node: its path is `<project path>/<unique_id>`. */
export const consumerNodeId = (project: string, uniqueId: string) => `consumer:${project}/${uniqueId}`;

function lastSegment(path: string): string {
	return path.slice(path.lastIndexOf('/') + 1);
}

function parentOf(path: string): string {
	const i = path.lastIndexOf('/');
	return i < 0 ? '' : path.slice(0, i);
}

// dbt's default severity is error; a test without one fails the build.
function testCounts(p: DbtProvenance): { error: number; warn: number } {
	let error = 0;
	let warn = 0;
	for (const t of p.data_tests) {
		if (t.severity === 'warn') warn++;
		else error++;
	}
	return { error, warn };
}

/**
 * 53-bit string hash (cyrb53), twice with different seeds: stable across Node and browsers, so
 * the server's layout cache and the page agree on what a digest names. Not cryptographic — it
 * names structures a caller was already given, it guards nothing.
 */
export function digestOf(s: string): string {
	const h = (seed: number) => {
		let h1 = 0xdeadbeef ^ seed;
		let h2 = 0x41c6ce57 ^ seed;
		for (let i = 0; i < s.length; i++) {
			const ch = s.charCodeAt(i);
			h1 = Math.imul(h1 ^ ch, 2654435761);
			h2 = Math.imul(h2 ^ ch, 1597334677);
		}
		h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
		h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
		return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, '0');
	};
	return h(1) + h(2);
}

/**
 * The canvas graph of an asset graph. Producer scripts become runnable nodes wired to what they
 * read and write; dbt projects do not (a project "writes" every model it has, which would draw
 * one hub with thousands of spokes) — their relations carry the project instead.
 */
export function canvasFromAssetGraph(g: AssetGraph, opts: { projectFilter?: (path: string) => boolean } = {}): CanvasGraph {
	const nodes: CanvasNode[] = [];
	const ids = new Set<string>();
	const keep = opts.projectFilter;
	for (const a of g.assets) {
		if (keep && !(a.dbt && keep(a.dbt.script_path))) continue;
		const n: CanvasNode = {
			id: assetNodeId(a.kind, a.path),
			type: 'asset',
			kind: a.kind,
			path: a.path,
			name: lastSegment(a.path),
			schema: parentOf(a.path)
		};
		if (a.dbt) {
			n.resourceType = a.dbt.resource_type;
			n.materialized = a.dbt.materialized;
			n.uniqueId = a.dbt.unique_id;
			n.project = a.dbt.script_path;
			n.tests = testCounts(a.dbt);
			if (a.dbt.authored) {
				if (a.dbt.tags?.length) n.tags = a.dbt.tags;
				if (a.dbt.original_file_path) n.filePath = a.dbt.original_file_path;
			}
		}
		nodes.push(n);
		ids.add(n.id);
	}
	const producers = keep ? [] : g.runnables.filter((r) => r.language !== 'dbt');
	for (const r of producers) {
		const n: CanvasNode = { id: scriptNodeId(r.path), type: 'runnable', kind: r.language, path: r.path, name: lastSegment(r.path), schema: parentOf(r.path) };
		nodes.push(n);
		ids.add(n.id);
	}
	// The consumer layer: downstream of every model it reads, so the layers put it to their right.
	const consumers = (g.consumers ?? []).filter((c) => !keep || keep(c.script_path));
	for (const c of consumers) {
		const n: CanvasNode = {
			id: consumerNodeId(c.script_path, c.unique_id),
			type: 'consumer',
			kind: c.type,
			path: `${c.script_path}/${c.unique_id}`,
			name: c.name,
			schema: c.script_path,
			resourceType: c.type,
			// The card's second chip: a metric's type, an exposure's (dashboard, notebook...).
			materialized: c.metric_type ?? c.exposure_type ?? null,
			uniqueId: c.unique_id,
			project: c.script_path
		};
		nodes.push(n);
		ids.add(n.id);
	}
	const edges: CanvasEdge[] = [];
	const seen = new Set<string>();
	const push = (e: CanvasEdge) => {
		const k = `${e.source}\u0000${e.target}`;
		if (e.source === e.target || seen.has(k) || !ids.has(e.source) || !ids.has(e.target)) return;
		seen.add(k);
		edges.push(e);
	};
	for (const e of g.dbt_edges) push({ source: assetNodeId('dbt', e.from_asset_path), target: assetNodeId('dbt', e.to_asset_path), kind: 'ref' });
	for (const u of g.edges) {
		const script = scriptNodeId(u.runnable_path);
		const asset = assetNodeId(u.asset_kind, u.asset_path);
		// A script that reads and writes one table (an incremental append) is drawn as its
		// writer: the layered layout needs the producer above what it writes.
		if (u.access === 'r') push({ source: asset, target: script, kind: 'read' });
		else push({ source: script, target: asset, kind: 'write' });
	}
	for (const c of consumers) {
		const target = consumerNodeId(c.script_path, c.unique_id);
		for (const a of c.depends_on_assets) push({ source: assetNodeId('dbt', a), target, kind: 'ref' });
		for (const d of c.depends_on) push({ source: consumerNodeId(c.script_path, d), target, kind: 'ref' });
	}
	const projects: CanvasProject[] = g.runnables
		.filter((r) => r.language === 'dbt' && (!keep || keep(r.path)))
		.map((r) => ({ path: r.path, hash: r.script_hash, modelCount: r.dbt?.model_count ?? 0 }));
	const digest = digestOf(
		JSON.stringify([nodes.map((n) => [n.id, n.resourceType ?? '', n.materialized ?? '', n.tests?.error ?? 0, n.tests?.warn ?? 0, n.tags ?? [], n.filePath ?? '']), edges.map((e) => [e.source, e.target, e.kind])])
	);
	return { nodes, edges, projects, hidden: g.hidden, digest };
}

// ─── Wire form ─────────────────────────────────────────────────────────────────────────────
// The canvas rides in the page data, so its size is part of the time to first paint. Repeated words (kinds, materializations, unique-id
// prefixes, file directories, projects) go into one table, a unique id or file name that merely
// repeats the relation's name is not repeated, and edges are index pairs.

const EDGE_KINDS = ['ref', 'read', 'write'] as const;

export function toWire(g: CanvasGraph): CanvasWire {
	const strings: string[] = [];
	const index = new Map<string, number>();
	const s = (v: string | null | undefined): number => {
		if (v === null || v === undefined) return -1;
		let i = index.get(v);
		if (i === undefined) {
			i = strings.length;
			strings.push(v);
			index.set(v, i);
		}
		return i;
	};
	const nodeIndex = new Map(g.nodes.map((n, i) => [n.id, i]));
	const nodes = g.nodes.map((n) => {
		const dot = n.uniqueId ? n.uniqueId.lastIndexOf('.') : -1;
		const uidName = n.uniqueId && dot >= 0 ? n.uniqueId.slice(dot + 1) : null;
		const slash = n.filePath ? n.filePath.lastIndexOf('/') : -1;
		const fileName = n.filePath ? n.filePath.slice(slash + 1) : null;
		return [
			n.type === 'asset' ? 0 : n.type === 'runnable' ? 1 : 2,
			s(n.kind),
			n.path,
			s(n.resourceType),
			s(n.materialized),
			n.uniqueId ? s(dot >= 0 ? n.uniqueId.slice(0, dot) : n.uniqueId) : -1,
			uidName === null || uidName === n.name ? 0 : uidName,
			s(n.project),
			n.tests?.error ?? -1,
			n.tests?.warn ?? -1,
			n.tags?.length ? n.tags.map(s) : 0,
			n.filePath ? s(n.filePath.slice(0, Math.max(slash, 0))) : -1,
			fileName === null || fileName === `${n.name}.sql` ? 0 : fileName
		];
	});
	const edges: number[] = [];
	for (const e of g.edges) edges.push(nodeIndex.get(e.source)!, nodeIndex.get(e.target)!, EDGE_KINDS.indexOf(e.kind));
	return { v: 1, digest: g.digest, hidden: g.hidden, projects: g.projects, strings, nodes, edges };
}

export function fromWire(w: CanvasWire): CanvasGraph {
	const str = (i: unknown) => (typeof i === 'number' && i >= 0 ? w.strings[i] : undefined);
	const nodes: CanvasNode[] = w.nodes.map((t) => {
		const [type, kind, path, rt, mat, uidPrefix, uidName, project, te, tw, tags, dir, file] = t as [number, number, string, number, number, number, number | string, number, number, number, number | number[], number, number | string];
		if (type === 2) {
			const projectPath = str(project)!;
			const uid = path.slice(projectPath.length + 1);
			const c: CanvasNode = {
				id: consumerNodeId(projectPath, uid),
				type: 'consumer',
				kind: str(kind)!,
				path,
				name: uid.slice(uid.lastIndexOf('.') + 1),
				schema: projectPath,
				resourceType: str(rt),
				materialized: mat >= 0 ? str(mat) : null,
				uniqueId: uid,
				project: projectPath
			};
			return c;
		}
		const name = lastSegment(path);
		const n: CanvasNode = {
			id: type === 0 ? assetNodeId(str(kind)!, path) : scriptNodeId(path),
			type: type === 0 ? 'asset' : 'runnable',
			kind: str(kind)!,
			path,
			name,
			schema: parentOf(path)
		};
		if (rt >= 0) n.resourceType = str(rt);
		if (mat >= 0) n.materialized = str(mat);
		else if (type === 0 && uidPrefix >= 0) n.materialized = null;
		if (uidPrefix >= 0) n.uniqueId = `${str(uidPrefix)}.${uidName === 0 ? name : uidName}`;
		if (project >= 0) n.project = str(project);
		if (te >= 0) n.tests = { error: te, warn: tw };
		if (Array.isArray(tags)) n.tags = tags.map((i) => str(i)!);
		if (dir >= 0) {
			const d = str(dir)!;
			const f = file === 0 ? `${name}.sql` : (file as string);
			n.filePath = d ? `${d}/${f}` : f;
		}
		return n;
	});
	const edges: CanvasEdge[] = [];
	for (let i = 0; i + 2 < w.edges.length; i += 3) {
		edges.push({ source: nodes[w.edges[i]].id, target: nodes[w.edges[i + 1]].id, kind: EDGE_KINDS[w.edges[i + 2]] });
	}
	return { nodes, edges, projects: w.projects, hidden: w.hidden, digest: w.digest };
}
