// The canvas's behaviour, apart from the component that draws it: which cut of the disclosure
// tree is shown and its layout (asked of the server), the selection and its lineage, the search
// box, live statuses, and the CSS that highlights — generated rather than written onto thousands
// of node objects (CANVAS.md §6.4: rewriting the nodes array costs far more than one style).
import { ancestorsOf, buildGroupTree, collapse, cutOf, isGroupId, reveal, ROOT, unitEdges, unitOf, type GroupTree, type UnitEdge } from '$lib/lineage/canvas-groups';
import { BIG_FOLDER, neighbourhood, stepAlong, type Arrow, type Depth } from '$lib/lineage/canvas-focus';
import { lensEntries, lensKey, type Lens, type LensEntry, type RunState, type TestState } from '$lib/lineage/canvas-lens';
import { type Direction, type LevelInput, type LevelLayout } from '$lib/lineage/canvas-sizes';
import type { CanvasGraph, CanvasNode } from '$lib/lineage/canvas-model';
import { composeCut, levelKey, levelsOf, type ComposedCut, type Placed } from '$lib/lineage/canvas-view';
import { centreIn, fitFrame, freeAreas, type Fit, type Rect } from '$lib/lineage/canvas-fit';
import { evaluateSelector, selectorGraph, type SelectorResult } from '$lib/lineage/selector';
import type { ColumnSearch } from './column-search.svelte';
import type { NodeStatus } from '$lib/types/canvas';

/** What the canvas shows instead of its cut while focused on a column's path. */
export interface FocusCut {
	nodes: ReadonlySet<string>;
	edges: UnitEdge[];
	composed: ComposedCut;
	/** What its first view frames first when it does not read whole (as `priority`). */
	priority: readonly (readonly string[])[];
}

export type LayoutFetcher = (levels: LevelInput[], direction: Direction) => Promise<Record<string, LevelLayout>>;

/** The viewport helpers of the mounted flow (what `useSvelteFlow` gives inside it). */
export interface FlowApi {
	setCenter: (x: number, y: number, options?: { zoom?: number; duration?: number }) => Promise<boolean>;
	fitBounds: (bounds: { x: number; y: number; width: number; height: number }, options?: { padding?: number; duration?: number }) => Promise<boolean>;
	getViewport: () => { x: number; y: number; zoom: number };
	setViewport: (viewport: { x: number; y: number; zoom: number }, options?: { duration?: number }) => Promise<boolean>;
}

export type { NodeStatus } from '$lib/types/canvas';

export interface CanvasInit {
	canvas: CanvasGraph;
	open: readonly string[];
	layouts: Record<string, LevelLayout>;
	/** The way `layouts` run (left to right when absent). */
	direction?: Direction;
}

/** The smallest zoom a card's text is readable at: its smallest text (11 px at zoom 1) renders at 11 px or more. */
export const READABLE_ZOOM = 1;
/** The closest a small cut is fitted at. */
export const FIT_MAX_ZOOM = 1.2;

export interface Viewport {
	x: number;
	y: number;
	zoom: number;
	width: number;
	height: number;
}

/**
 * `[data-id="…"]` for any id: a quote or backslash must not end the string, a control character
 * must not break the rule, and `<` `>` `&` are written as escapes so the style element's text
 * is the same whether the server rendered it (HTML-escaped) or the browser did.
 */
export const attrId = (id: string) =>
	`[data-id="${id.replace(/["\\]/g, '\\$&').replace(/[\u0000-\u001f\u007f<>&]/g, (c) => `\\${c.charCodeAt(0).toString(16)} `)}"]`;

const cutSignature = (levels: LevelInput[], direction: Direction) => `${direction}\n${levels.map(levelKey).join('\n')}`;

export class CanvasState {
	canvas = $state.raw<CanvasGraph>({ nodes: [], edges: [], projects: [], hidden: 0, digest: '' });
	tree: GroupTree = $derived(buildGroupTree(this.canvas.nodes, this.canvas.edges));
	nodeById: Map<string, CanvasNode> = $derived(new Map(this.canvas.nodes.map((n) => [n.id, n])));
	open = $state.raw<ReadonlySet<string>>(new Set());
	layouts = $state.raw<Record<string, LevelLayout>>({});
	/** A cut asked of the server whose answer has not come yet. */
	layoutPending = $state(false);
	layoutError = $state<string | null>(null);
	/**
	 * A traced column's path laid out on its own (the focus toggle, state/column-focus): while
	 * set, the canvas shows these cards and edges instead of the cut, which stays as it was.
	 */
	focusCut = $state.raw<FocusCut | null>(null);
	composed: ComposedCut | null = $derived(this.focusCut ? this.focusCut.composed : composeCut(this.tree, this.open, this.layouts));
	edges: UnitEdge[] = $derived(this.focusCut ? this.focusCut.edges : unitEdges(this.tree, this.open, this.canvas.edges));

	/** The way the layers run; a change lays the cut out again (server-side, cached). */
	direction = $state<Direction>('LR');
	/** Hops of the selection's lineage lit upstream and downstream. */
	depthUp = $state<Depth>('all');
	depthDown = $state<Depth>('all');
	/** What colours the cards, and the worst test result per node when a run says. */
	lens = $state<Lens>('none');
	testStatus = $state.raw<ReadonlyMap<string, TestState>>(new Map());
	/** What the latest runs left each node in, for the run lens where no live run is on screen. */
	latestRun = $state.raw<ReadonlyMap<string, RunState>>(new Map());

	/** The selected node (never a group: a group click opens it). */
	selected = $state<string | null>(null);
	query = $state('');
	/** Where column selectors (`orders.amount`) read columns from; none: no column selectors. */
	columnSearch: ColumnSearch | null = null;
	#selGraph = $derived(selectorGraph(this.canvas.nodes, this.canvas.edges));
	// An empty box never builds the selector's graph: nothing on the first paint needs it.
	search: SelectorResult = $derived(
		this.query.trim() ? evaluateSelector(this.query, this.#selGraph, this.columnSearch?.universe ?? null) : { kind: 'empty' }
	);
	/** Live run statuses by node id. */
	status = $state.raw<ReadonlyMap<string, NodeStatus>>(new Map());
	viewport = $state.raw<Viewport | null>(null);
	/** What covers the canvas (its panels), in screen units relative to it: set by the component. */
	obstacles = $state.raw<Rect[]>([]);
	/**
	 * Node ids that matter most when the cut is too big to read whole, in tiers (a run's failed
	 * and running nodes, then their neighbours; a preview's changes): set by the page.
	 */
	priority = $state.raw<readonly (readonly string[])[]>([]);

	/** The cards a first view frames first: a focused path's own, else the selection and its lineage, else the page's priority. */
	framePriority: string[][] = $derived.by(() => {
		const units = (ids: Iterable<string>) => [...new Set([...ids].map((id) => this.unitOf(id)))];
		if (this.focusCut) return this.focusCut.priority.map((t) => [...t]);
		if (this.selected && this.nodeById.has(this.selected)) {
			const self = this.unitOf(this.selected);
			return [[self], units(this.lineage).filter((u) => u !== self)];
		}
		return this.priority.map((t) => units(t));
	});

	#fetchLayout: LayoutFetcher;
	#cache = new Map<string, Record<string, LevelLayout>>();
	/** The cut a load brought, not yet entered in #cache. */
	#initial: { open: ReadonlySet<string>; direction: Direction; layouts: Record<string, LevelLayout> } | null = null;

	#seedCache(): void {
		const i = this.#initial;
		if (!i) return;
		this.#initial = null;
		this.#cache.set(cutSignature(levelsOf(this.tree, i.open), i.direction), i.layouts);
	}
	#generation = 0;

	constructor(fetchLayout: LayoutFetcher) {
		this.#fetchLayout = fetchLayout;
	}

	/** A new graph (a page load, or a re-fetched run graph): its first cut comes laid out. */
	load(init: CanvasInit): void {
		this.#generation++;
		const fresh = init.canvas.digest !== this.canvas.digest;
		if (fresh) this.#cache.clear();
		this.canvas = init.canvas;
		this.direction = init.direction ?? 'LR';
		if (fresh) {
			// A big folder's whole lineage of one model is most of the folder: start at one hop.
			const d: Depth = init.canvas.nodes.length > BIG_FOLDER ? 1 : 'all';
			this.depthUp = d;
			this.depthDown = d;
		}
		const open = new Set(init.open);
		// The cut's cache entry is made when another cut is first asked for, not here: its key
		// needs the group tree, which the server's render of the page never needs otherwise.
		if (!fresh) this.#seedCache();
		this.#initial = { open, direction: this.direction, layouts: init.layouts };
		this.open = open;
		this.layouts = init.layouts;
		this.layoutPending = false;
		this.layoutError = null;
		if (this.selected && !this.nodeById.has(this.selected)) this.selected = null;
	}

	/** Show another cut; resolves once it is laid out and drawn (or superseded by a newer one). */
	async setOpen(next: ReadonlySet<string>, direction: Direction = this.direction): Promise<void> {
		const generation = ++this.#generation;
		this.#seedCache();
		const levels = levelsOf(this.tree, next);
		const sig = cutSignature(levels, direction);
		const hit = this.#cache.get(sig);
		if (hit) {
			this.open = next;
			this.direction = direction;
			this.layouts = hit;
			this.layoutPending = false;
			return;
		}
		this.layoutPending = true;
		try {
			const layouts = await this.#fetchLayout(levels, direction);
			// A later click asked for another cut while this one was on its way: its answer wins.
			if (generation !== this.#generation) return;
			this.#cache.set(sig, layouts);
			this.open = next;
			this.direction = direction;
			this.layouts = layouts;
			this.layoutError = null;
		} catch (e) {
			if (generation !== this.#generation) return;
			this.layoutError = e instanceof Error ? e.message : String(e);
		} finally {
			if (generation === this.#generation) this.layoutPending = false;
		}
	}

	/** The same cut laid out the other way; resolves once drawn. */
	setDirection(direction: Direction): Promise<void> {
		if (direction === this.direction) return Promise.resolve();
		return this.setOpen(this.open, direction);
	}

	expand(groupId: string) {
		return this.setOpen(new Set(this.open).add(groupId));
	}

	collapse(groupId: string) {
		return this.setOpen(collapse(this.tree, this.open, groupId));
	}

	/** Open what hides `id` (a no-op when it is already a card). */
	reveal(id: string) {
		if (unitOf(this.tree, this.open, id) === id) return Promise.resolve();
		return this.setOpen(reveal(this.tree, this.open, id));
	}

	/** The card standing for a node in the current cut (in focus, a node of the path is its own card). */
	unitOf(id: string): string {
		if (this.focusCut?.nodes.has(id)) return id;
		return unitOf(this.tree, this.open, id);
	}

	placed: Map<string, Placed> = $derived(new Map((this.composed?.cards ?? []).map((c) => [c.id, c])));

	/** Upstream and downstream of the selection to the chosen depths, node level: what stays lit. */
	lineage: Set<string> = $derived.by(() => {
		const sel = this.selected;
		if (!sel) return new Set<string>();
		return neighbourhood(this.#selGraph, sel, this.depthUp, this.depthDown);
	});

	/** The search box's set (selector or name matches), as node ids. */
	matches: string[] = $derived(this.search.kind === 'selection' ? [...this.search.ids] : this.search.kind === 'names' ? this.search.ids : []);

	/** Cards lit by the current focus (selection lineage, else search matches); null = no focus. */
	focusUnits: Set<string> | null = $derived.by(() => {
		// In focus every card shown is on the path: none is dimmed.
		if (this.focusCut) return null;
		// A search that matches nothing leaves the canvas as it was, rather than dimming it all.
		const ids = this.selected ? this.lineage : this.matches.length ? new Set(this.matches) : null;
		if (!ids) return null;
		const units = new Set<string>();
		for (const id of ids) units.add(this.unitOf(id));
		return units;
	});

	/** Edges of the selection's lineage, which are drawn wherever they are (CANVAS.md §7). */
	lineageEdges: Set<string> = $derived.by(() => {
		const focus = this.focusUnits;
		if (!focus || !this.selected) return new Set<string>();
		return new Set(this.edges.filter((e) => focus.has(e.source) && focus.has(e.target)).map((e) => e.id));
	});

	/**
	 * Edges to hand to xyflow: both ends near the viewport (padded by half a screen), plus the
	 * selection's lineage. With all edges, xyflow mounts both ends of every edge crossing the
	 * screen — 1224 of 3000 cards instead of 66 (CANVAS.md §6.3).
	 */
	visibleEdges: UnitEdge[] = $derived.by(() => {
		const vp = this.viewport;
		const placed = this.placed;
		const lineage = this.lineageEdges;
		if (!vp) return this.#same(this.edges.filter((e) => lineage.has(e.id)));
		const padX = vp.width / 2;
		const padY = vp.height / 2;
		const x0 = (-vp.x - padX) / vp.zoom;
		const y0 = (-vp.y - padY) / vp.zoom;
		const x1 = (-vp.x + vp.width + padX) / vp.zoom;
		const y1 = (-vp.y + vp.height + padY) / vp.zoom;
		const near = (id: string) => {
			const p = placed.get(id);
			return !!p && p.x + p.w >= x0 && p.x <= x1 && p.y + p.h >= y0 && p.y <= y1;
		};
		return this.#same(this.edges.filter((e) => lineage.has(e.id) || (near(e.source) && near(e.target))));
	});
	#lastVisible: UnitEdge[] = [];
	/**
	 * The previous array when the set is the same: a pan that ends where the same edges are
	 * near (and xyflow's own move-end right after mount) then hands xyflow nothing new — a new
	 * edges array re-renders every mounted edge.
	 */
	#same(next: UnitEdge[]): UnitEdge[] {
		const prev = this.#lastVisible;
		if (next.length === prev.length && next.every((e, i) => e === prev[i])) return prev;
		this.#lastVisible = next;
		return next;
	}

	/** The highlight as CSS over `[data-id]`: cheap to swap, and xyflow's state is never touched. */
	highlightCss: string = $derived.by(() => {
		const rules: string[] = [];
		const focus = this.focusUnits;
		if (focus) {
			rules.push('.tributary-canvas .svelte-flow__node:not(.svelte-flow__node-frame){opacity:.22}', '.tributary-canvas .svelte-flow__edge{opacity:.12}');
			if (focus.size) {
				rules.push(`${[...focus].map((u) => `.tributary-canvas .svelte-flow__node${attrId(u)}`).join(',')}{opacity:1}`);
			}
			const lit = this.lineageEdges;
			if (lit.size) rules.push(`${[...lit].map((e) => `.tributary-canvas .svelte-flow__edge${attrId(e)}`).join(',')}{opacity:1}`);
			if (!this.selected) {
				const hits = new Set(this.matches.map((m) => this.unitOf(m)));
				if (hits.size) rules.push(`${[...hits].map((u) => `.tributary-canvas .svelte-flow__node${attrId(u)} .card`).join(',')}{box-shadow:0 0 0 3px var(--color-highlight)}`);
			}
		}
		if (this.selected) {
			const u = this.unitOf(this.selected);
			rules.push(`.tributary-canvas .svelte-flow__node${attrId(u)} .card{box-shadow:0 0 0 3px var(--color-accent)}`);
		}
		return rules.join('\n');
	});

	/** A card's legend entry under the current lens (null: no lens, or not a node). */
	lensOf(id: string): string | null {
		const n = this.nodeById.get(id);
		return n ? lensKey(this.lens, n, this.status.get(id)?.status ?? this.latestRun.get(id), this.testStatus.get(id)) : null;
	}

	/** The lens's legend: its entries with how many cards of the cut fall in each (empty ones left out). */
	legend: (LensEntry & { count: number })[] = $derived.by(() => {
		if (this.lens === 'none') return [];
		const counts = new Map<string, number>();
		for (const c of this.composed?.cards ?? []) {
			const k = this.lensOf(c.id);
			if (k) counts.set(k, (counts.get(k) ?? 0) + 1);
		}
		return lensEntries(this.lens)
			.map((e) => ({ ...e, count: counts.get(e.key) ?? 0 }))
			.filter((e) => e.count > 0);
	});

	/** Groups that hold a match of the search, with how many: shown on the group cards. */
	matchCounts: Map<string, number> = $derived.by(() => {
		const out = new Map<string, number>();
		for (const id of this.matches) {
			const u = this.unitOf(id);
			if (isGroupId(u)) out.set(u, (out.get(u) ?? 0) + 1);
		}
		return out;
	});

	/** Run statuses summed per closed group: a collapsed family still shows a failure in it. */
	groupStatus: Map<string, { failed: number; running: number; done: number }> = $derived.by(() => {
		const out = new Map<string, { failed: number; running: number; done: number }>();
		for (const [id, s] of this.status) {
			const u = this.unitOf(id);
			if (!isGroupId(u)) continue;
			const c = out.get(u) ?? { failed: 0, running: 0, done: 0 };
			if (s.status === 'failed') c.failed++;
			else if (s.status === 'running') c.running++;
			else c.done++;
			out.set(u, c);
		}
		return out;
	});

	/** Labels of the groups above a node, outermost first: where a search hit lives. */
	breadcrumb(id: string): string[] {
		return ancestorsOf(this.tree, id)
			.filter((g) => g !== ROOT)
			.reverse()
			.map((g) => this.tree.groups.get(g)!.label);
	}

	/** Set by the canvas component once the flow is mounted. */
	flow: FlowApi | null = null;

	/** Select a node, open what hides it and centre it. */
	async focusNode(id: string): Promise<void> {
		this.selected = id;
		await this.reveal(id);
		const p = this.placed.get(this.unitOf(id));
		const vp = this.viewport;
		if (p && this.flow && vp) await this.flow.setViewport(centreIn(p, this.freeArea(vp.width, vp.height), Math.max(this.flow.getViewport().zoom, READABLE_ZOOM)), { duration: 300 });
	}

	/** The largest part of a `width`×`height` canvas its panels leave free. */
	freeArea(width: number, height: number): Rect {
		return freeAreas(width, height, this.obstacles)[0] ?? { x: 0, y: 0, w: width, h: height };
	}

	/** Pan (keeping the zoom) so the card of `id` is in the free area, if it is not. */
	async ensureVisible(id: string): Promise<void> {
		const p = this.placed.get(this.unitOf(id));
		const vp = this.viewport;
		if (!p || !vp || !this.flow) return;
		const areas = freeAreas(vp.width, vp.height, this.obstacles);
		const sx = p.x * vp.zoom + vp.x;
		const sy = p.y * vp.zoom + vp.y;
		const inside = (a: Rect) => sx >= a.x && sy >= a.y && sx + p.w * vp.zoom <= a.x + a.w && sy + p.h * vp.zoom <= a.y + a.h;
		if (areas.some(inside)) return;
		await this.flow.setViewport(centreIn(p, areas[0] ?? { x: 0, y: 0, w: vp.width, h: vp.height }, vp.zoom), { duration: 200 });
	}

	/**
	 * Focus the canvas on the selection's neighbourhood at the chosen depths: open what hides
	 * its nodes (when that stays a readable number of cards) and frame their cards.
	 */
	async focusNeighbourhood(): Promise<void> {
		const sel = this.selected;
		if (!sel) return;
		const ids = [...this.lineage];
		let open = this.open;
		if (ids.length <= 60) for (const id of ids) if (this.tree.parentOf.has(id)) open = reveal(this.tree, open, id);
		if (open !== this.open) await this.setOpen(open);
		await this.fitNodes(ids);
	}

	/** Set the depths and focus on what they light. */
	async setDepth(up: Depth, down: Depth): Promise<void> {
		this.depthUp = up;
		this.depthDown = down;
		await this.focusNeighbourhood();
	}

	#steppedFrom: string | null = null;

	/** Move the selection one card along an edge (the arrow keys); false when there is none. */
	step(key: Arrow): boolean {
		const sel = this.selected;
		if (!sel) return false;
		const next = stepAlong(this.unitOf(sel), key, this.direction, this.edges, this.placed, (id) => !isGroupId(id), this.#steppedFrom);
		if (!next) return false;
		this.#steppedFrom = sel;
		this.selected = next;
		void this.ensureVisible(next);
		return true;
	}

	/**
	 * The first view of the cut on a `width`×`height` canvas, in the area its panels leave free:
	 * the whole cut when readable that way, else what matters (lineage/canvas-fit).
	 */
	firstView(width: number, height: number, o: { whole?: boolean } = {}): Fit {
		const c = this.composed;
		return fitFrame({
			cards: c?.cards ?? [],
			bounds: { x: 0, y: 0, w: c?.width ?? 0, h: c?.height ?? 0 },
			width,
			height,
			obstacles: this.obstacles,
			priority: this.framePriority,
			// Whole: any zoom is "readable", so the whole cut is what fits.
			readableZoom: o.whole ? 0 : READABLE_ZOOM,
			maxZoom: FIT_MAX_ZOOM,
			weight: (id) => (isGroupId(id) ? 0.25 : 1)
		});
	}

	/** Fit the cards standing for these nodes (a selector's set). */
	async fitNodes(ids: Iterable<string>): Promise<void> {
		let x0 = Infinity;
		let y0 = Infinity;
		let x1 = -Infinity;
		let y1 = -Infinity;
		for (const id of ids) {
			const p = this.placed.get(this.unitOf(id));
			if (!p) continue;
			x0 = Math.min(x0, p.x);
			y0 = Math.min(y0, p.y);
			x1 = Math.max(x1, p.x + p.w);
			y1 = Math.max(y1, p.y + p.h);
		}
		if (x0 < Infinity) await this.fitRect({ x: x0, y: y0, w: x1 - x0, h: y1 - y0 });
	}

	/** Bring a rectangle into view, never closer than a card's natural size (zoom 1.2). */
	async fitRect(r: { x: number; y: number; w: number; h: number }, padding = 0.1): Promise<void> {
		if (!this.flow || !this.viewport) return;
		const area = this.freeArea(this.viewport.width, this.viewport.height);
		const zoom = Math.max(0.05, Math.min(FIT_MAX_ZOOM, Math.min(area.w / r.w, area.h / r.h) * (1 - 2 * padding)));
		await this.flow.setViewport(centreIn(r, area, zoom), { duration: 300 });
	}

	/** Open a group and bring its frame into view. */
	async openGroup(groupId: string): Promise<void> {
		await this.expand(groupId);
		const f = this.composed?.frames.find((x) => x.id === groupId);
		if (f) await this.fitRect(f, 0.04);
	}

	/** How many cards and open groups the cut shows. */
	get counts() {
		const cut = cutOf(this.tree, this.open);
		return { cards: cut.units.length, groups: cut.openGroups.length - 1, nodes: this.canvas.nodes.length };
	}
}

/**
 * The layout endpoint, from the browser. A share link lays out the levels of its run only, so
 * a share-link holder's requests name the run on screen (`jobId`).
 */
export function httpLayoutFetcher(workspace: string, viewToken?: string | null, jobId?: () => string): LayoutFetcher {
	return async (levels, direction) => {
		const headers: Record<string, string> = { 'content-type': 'application/json' };
		if (viewToken) headers['x-view-token'] = viewToken;
		const job = jobId?.();
		const query = job ? `?job=${encodeURIComponent(job)}` : '';
		const r = await fetch(`/w/${encodeURIComponent(workspace)}/layout${query}`, { method: 'POST', headers, body: JSON.stringify({ levels, direction }) });
		if (!r.ok) throw new Error(`layout failed (${r.status})`);
		return ((await r.json()) as { layouts: Record<string, LevelLayout> }).layouts;
	};
}
