// Server side of the canvas pages: the compact canvas of an asset graph and the layout of its
// first cut, computed here (never in the browser, never per request when cached) with the
// per-component layouts cached by digest. The cache only saves work: a miss recomputes from
// the graph in hand, and the graph always comes from the database.
import { createHash } from 'node:crypto';
import { buildGroupTree, reveal, type GroupTree } from '$lib/lineage/canvas-groups';
import { LayoutCache, layoutLevels, LayoutStopped, type ComponentLayout, type Direction, type LevelInput, type LevelLayout } from '$lib/lineage/canvas-layout';
import { DIRECTION_COOKIE, isDirection } from '$lib/lineage/canvas-sizes';
import type { GraphConsumer } from '$lib/types/consumers';
import { assetNodeId, canvasFromAssetGraph, scriptNodeId, toWire, type CanvasGraph } from '$lib/lineage/canvas-model';
import { chooseOpen, composeCut, levelKey, levelsOf } from '$lib/lineage/canvas-view';
import type { AssetGraph } from '$lib/types/asset-graph';
import type { CanvasPayload } from '$lib/types/canvas';

export type { CanvasPayload };
import type { Database } from '../../db';
import { codeVersion, persisted, persistedKeyOf } from '../../graph-cache';
import { LAYOUT_LIMITS, layoutDeadline, layoutTimeout, requireLayoutWork } from '../../limits';

const componentCache = new LayoutCache<ComponentLayout>(20_000);

/** The per-component layout cache of this process, for the instance stats. */
export const layoutCacheStats = () => ({ entries: componentCache.size, max_entries: componentCache.max });

/**
 * How far "fit all" may zoom out on a first cut. The page opens framed on a readable region
 * (LineageCanvas), not fitted, so the overview may be wider than a screen: this lets a big
 * folder's first cut open the groups that hold relations within its card budget, left to right
 * as top-down.
 */
const FIRST_CUT_MIN_ZOOM = 0.2;


// Payloads per graph OBJECT and focus: the graph cache hands out one object per cache key (its
// inputs, query and the caller's redaction), so a payload derived from it is exactly as fresh
// and as private as the graph, and goes with it when the graph is evicted or replaced.
const payloadCache = new WeakMap<AssetGraph, Map<string, CanvasPayload>>();
const MAX_FOCUSES = 16;

/**
 * The canvas of `graph` with its first cut laid out: the groups a small budget opens, plus
 * those above `focus` (a node the URL asks to show, e.g. `?select=`).
 */
export function canvasPayload(
	graph: AssetGraph,
	opts: { focus?: string | null; projectFilter?: (p: string) => boolean; direction?: Direction } = {}
): CanvasPayload {
	const direction = opts.direction ?? 'LR';
	// A filter is a function: no key for it, so those payloads are built every time.
	if (opts.projectFilter) return buildCanvasPayload(graph, { ...opts, direction });
	const focus = focusIn(graph, opts.focus);
	const key = `${direction} ${focus}`;
	const hit = payloadCache.get(graph)?.get(key);
	if (hit) return { ...hit, timing: { layoutMs: 0, levels: hit.timing.levels } };
	const payload = buildCanvasPayload(graph, { focus, direction });
	remember(graph, key, payload);
	return payload;
}

/** The reader's direction from its cookie (the page's toggle writes it); left to right otherwise. */
export function directionFromCookies(cookies: { get(name: string): string | undefined }): Direction {
	const v = cookies.get(DIRECTION_COOKIE);
	return isDirection(v) ? v : 'LR';
}

/**
 * The focus as the payload depends on it: a node of this graph, else none. A `?select=` naming
 * anything else (a typo, a hidden relation, junk) then shares the plain payload instead of
 * taking a cache entry of its own and pushing out the entries real links use.
 */
function focusIn(graph: AssetGraph, focus: string | null | undefined): string {
	if (!focus) return '';
	const known = graph.assets.some((a) => assetNodeId(a.kind, a.path) === focus) || graph.runnables.some((r) => scriptNodeId(r.path) === focus);
	return known ? focus : '';
}

/**
 * canvasPayload without its per-graph object cache: for a caller that keeps the payload's bytes
 * (jobs/run_canvas, in the graph cache, under its bound) and would only hold a second copy.
 */
export function buildCanvasPayload(graph: AssetGraph, opts: { focus?: string | null; projectFilter?: (p: string) => boolean; direction: Direction }): CanvasPayload {
	const canvas = canvasFromAssetGraph(graph, { projectFilter: opts.projectFilter });
	const tree = buildGroupTree(canvas.nodes, canvas.edges);
	const t0 = performance.now();
	return payloadOf(graph, canvas, firstCut(tree, opts.direction, opts.focus ?? ''), opts, t0);
}

/** The groups a first cut opens and their levels laid out. */
interface FirstCut {
	open: string[];
	layouts: Record<string, LevelLayout>;
}

/** Chooses and lays out the first cut of `tree` (dagre per component, through the component cache). */
function firstCut(tree: GroupTree, direction: Direction, focus: string): FirstCut {
	let open = chooseOpen(tree, { layout: (levels) => layoutLevels(levels, componentCache, { direction }), minZoom: FIRST_CUT_MIN_ZOOM });
	if (focus && tree.parentOf.has(focus)) open = reveal(tree, open, focus);
	return { open: [...open].sort(), layouts: layoutLevels(levelsOf(tree, open), componentCache, { direction }) };
}

function payloadOf(
	graph: AssetGraph,
	canvas: CanvasGraph,
	cut: FirstCut,
	opts: { projectFilter?: (p: string) => boolean; direction: Direction },
	t0: number
): CanvasPayload {
	const timing = { layoutMs: Math.round(performance.now() - t0), levels: Object.keys(cut.layouts).length };
	return {
		wire: toWire(canvas),
		open: cut.open,
		direction: opts.direction,
		layouts: cut.layouts,
		producerLineage: graph.runnables.filter((r) => r.column_lineage?.length).map((r) => ({ path: r.path, column_lineage: r.column_lineage! })),
		...consumersOf(graph, opts.projectFilter),
		timing
	};
}

/** A canvas page's payload as the JSON text the page parses (CanvasPayload without `timing`). */
export interface CanvasText {
	canvas: string;
	timing: CanvasPayload['timing'];
}

// Payload texts per graph OBJECT, direction and focus, as payloadCache.
const textCache = new WeakMap<AssetGraph, Map<string, { canvas: string; levels: number }>>();

/**
 * canvasPayload for a page that opens after a restart about as fast as before it, as JSON text
 * (parsed natively by the page, and serialized once rather than per request). Two database rows
 * back it (graph-cache.ts `persisted`): the whole text under the key the graph object was kept
 * under (so it is exactly as fresh and as private as the graph), and the first cut alone (which
 * groups open, their layouts) under a digest of what it is computed from (the canvas's
 * structure, direction, focus), which outlives a deploy elsewhere that moves the graph's key
 * but not this canvas. A stored cut is used only when it lays out exactly the cut it names.
 */
export async function storedCanvasPayload(
	database: Database,
	workspace: string,
	graph: AssetGraph,
	opts: { focus?: string | null; direction?: Direction } = {}
): Promise<CanvasText> {
	const t0 = performance.now();
	const direction = opts.direction ?? 'LR';
	const focus = focusIn(graph, opts.focus);
	const key = `${direction} ${focus}`;
	const hit = textCache.get(graph)?.get(key);
	if (hit) return { canvas: hit.canvas, timing: { layoutMs: 0, levels: hit.levels } };
	const build = async () => {
		const p = await storedCutPayload(database, workspace, graph, direction, focus);
		const { timing, ...rest } = p;
		return { canvas: JSON.stringify(rest), levels: timing.levels };
	};
	const graphKey = persistedKeyOf(graph);
	const text = graphKey ? await persisted(database, workspace, `${codeVersion(import.meta.url)}:cp:${direction}:${focus}:${graphKey}`, build, async () => true) : await build();
	let byFocus = textCache.get(graph);
	if (!byFocus) textCache.set(graph, (byFocus = new Map()));
	if (byFocus.size >= MAX_FOCUSES) byFocus.delete(byFocus.keys().next().value as string);
	byFocus.set(key, text);
	return { canvas: text.canvas, timing: { layoutMs: Math.round(performance.now() - t0), levels: text.levels } };
}

/** The payload with its first cut read from (or stored in) the database, by the canvas's structure. */
async function storedCutPayload(database: Database, workspace: string, graph: AssetGraph, direction: Direction, focus: string): Promise<CanvasPayload> {
	const canvas = canvasFromAssetGraph(graph);
	const tree = buildGroupTree(canvas.nodes, canvas.edges);
	const t0 = performance.now();
	const structure = JSON.stringify([
		workspace,
		direction,
		focus,
		canvas.nodes.map((n) => [n.id, n.type, n.kind, n.schema, n.resourceType ?? '']),
		canvas.edges.map((e) => [e.source, e.target])
	]);
	const storeKey = `${codeVersion(import.meta.url)}:fc:${createHash('sha256').update(structure).digest('base64url')}`;
	let cut = await persisted(database, workspace, storeKey, async () => firstCut(tree, direction, focus), async () => true);
	if (!composeCut(tree, new Set(cut.open), cut.layouts)) cut = firstCut(tree, direction, focus);
	return payloadOf(graph, canvas, cut, { direction }, t0);
}

function remember(graph: AssetGraph, key: string, payload: CanvasPayload): void {
	let byFocus = payloadCache.get(graph);
	if (!byFocus) payloadCache.set(graph, (byFocus = new Map()));
	if (byFocus.size >= MAX_FOCUSES) byFocus.delete(byFocus.keys().next().value as string);
	byFocus.set(key, payload);
}

function consumersOf(graph: AssetGraph, keep?: (p: string) => boolean): { consumers?: GraphConsumer[] } {
	const list = (graph.consumers ?? []).filter((c) => !keep || keep(c.script_path));
	return list.length ? { consumers: list } : {};
}

/** A layout request's direction: absent means left to right; anything but LR or TB is refused. */
export function parseDirection(body: unknown): Direction | string {
	const d = (body as { direction?: unknown })?.direction;
	if (d === undefined) return 'LR';
	return isDirection(d) ? d : 'direction: "LR" or "TB"';
}

/** Checks a layout request from a page; a malformed one is refused rather than half laid out. */
export function parseLevels(body: unknown): LevelInput[] | string {
	const levels = (body as { levels?: unknown })?.levels;
	if (!Array.isArray(levels)) return 'levels: an array is required';
	if (levels.length > LAYOUT_LIMITS.levels) return `levels: at most ${LAYOUT_LIMITS.levels}`;
	let children = 0;
	let edges = 0;
	const out: LevelInput[] = [];
	const dim = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v > 0 && v <= 100_000;
	for (const l of levels) {
		if (!l || typeof l.id !== 'string' || !Array.isArray(l.children) || !Array.isArray(l.edges)) return 'each level needs id, children and edges';
		if (l.children.length > LAYOUT_LIMITS.perLevel) return `at most ${LAYOUT_LIMITS.perLevel} children in one level`;
		children += l.children.length;
		edges += l.edges.length;
		if (children > LAYOUT_LIMITS.children) return `at most ${LAYOUT_LIMITS.children} children in one request`;
		if (edges > LAYOUT_LIMITS.edges) return `at most ${LAYOUT_LIMITS.edges} edges in one request`;
		for (const c of l.children) {
			if (!c || typeof c.id !== 'string') return 'each child needs an id';
			if (!(typeof c.level === 'string' || (dim(c.w) && dim(c.h)))) return 'each child needs a level or a positive w and h';
		}
		for (const e of l.edges) {
			if (!Array.isArray(e) || e.length !== 2 || !Number.isInteger(e[0]) || !Number.isInteger(e[1])) return 'each edge is [source index, target index]';
			if (!(e[0] >= 0 && e[0] < l.children.length && e[1] >= 0 && e[1] < l.children.length)) return `level ${l.id}: edge out of range`;
		}
		out.push({ id: l.id, children: l.children, edges: l.edges });
	}
	return out;
}

/**
 * Lays out a page's request within LAYOUT_LIMITS: its work bounded before dagre starts (413),
 * and its time checked between components (413 once the budget is spent).
 */
export function layoutRequest(levels: LevelInput[], direction: Direction = 'LR'): Record<string, LevelLayout> {
	requireLayoutWork(levels);
	try {
		return layoutLevels(levels, componentCache, { shouldStop: layoutDeadline(), direction });
	} catch (e) {
		if (e instanceof LayoutStopped) throw layoutTimeout();
		throw e;
	}
}

// The disclosure tree of a graph, per graph OBJECT (the graph cache's, as for payloads).
const treeCache = new WeakMap<AssetGraph, GroupTree>();

/**
 * Whether `levels` are exactly levels of a cut of `graph`'s canvas (what its page can ask): a
 * share-link holder lays out the run it may see, nothing else.
 */
export function isCutOf(graph: AssetGraph, levels: readonly LevelInput[]): boolean {
	let tree = treeCache.get(graph);
	if (!tree) {
		const canvas = canvasFromAssetGraph(graph);
		treeCache.set(graph, (tree = buildGroupTree(canvas.nodes, canvas.edges)));
	}
	if (levels.some((l) => !tree.groups.has(l.id))) return false;
	const expected = levelsOf(tree, new Set(levels.map((l) => l.id)));
	if (expected.length !== levels.length) return false;
	const keys = new Set(expected.map(levelKey));
	return levels.every((l) => keys.has(levelKey(l)));
}
