// Focus on a column, on the canvas: one toggle shows only the cards and edges the traced
// column's path runs through, laid out anew left to right by the server's layout and fitted;
// toggled back, the canvas is as it was (its cut, viewport and selection). The traced column is
// the canvas's own (a column clicked on a card) or else the details pane's.
import { ROOT } from '$lib/lineage/canvas-groups';
import { withNeighbours } from '$lib/lineage/canvas-fit';
import { composeFocus, focusLevel, pathOnCanvas, type CanvasPath } from '$lib/lineage/column-focus';
import type { ColumnGraph, ColumnId } from '$lib/lineage/column-trace';
import type { CanvasState, LayoutFetcher } from './canvas.svelte';

/** A traced column and what its path is read from. */
export interface FocusSource {
	column: ColumnId;
	/** The column, its upstream and its downstream. */
	columns: ReadonlySet<ColumnId>;
	graph: ColumnGraph;
	/** The producer script carrying a column edge, by `edgeKey`. */
	via: ReadonlyMap<string, string>;
}

const VIEW_MS = 250;

export class ColumnFocus {
	/** The canvas shows the path only. */
	active = $state(false);
	/** The path's layout is on its way. */
	pending = $state(false);
	error = $state<string | null>(null);
	/** The traced column's path on this canvas; null when no column is traced. */
	path: CanvasPath | null;
	/** There is a path to focus on. */
	available: boolean;
	/** The traced column as a reader names it (`orders.amount`). */
	label: string | null;

	#canvas: CanvasState;
	#fetch: LayoutFetcher;
	/** The view focus was entered from, given back when it ends. */
	#before: { viewport: { x: number; y: number; zoom: number } | null; selected: string | null } | null = null;
	/** The key of the path on screen (or being laid out). */
	#shown: string | null = null;
	#generation = 0;

	constructor(canvas: CanvasState, source: () => FocusSource | null, fetchLayout: LayoutFetcher) {
		this.#canvas = canvas;
		this.#fetch = fetchLayout;
		// Derived here: they read the constructor's arguments.
		this.path = $derived.by(() => {
			const s = source();
			if (!s) return null;
			const byId = canvas.nodeById;
			return pathOnCanvas(s.column, s.columns, s.graph, s.via, (id) => byId.has(id));
		});
		this.available = $derived(!!this.path && this.path.nodes.length > 0);
		this.label = $derived.by(() => {
			const s = source();
			const n = s ? s.graph.nodes.get(s.column) : undefined;
			return n ? `${n.path.slice(n.path.lastIndexOf('/') + 1)}.${n.column}` : null;
		});
	}

	toggle(): Promise<void> {
		return this.active ? this.exit() : this.enter();
	}

	/** Show only the traced column's path, laid out left to right and fitted. */
	async enter(): Promise<void> {
		const p = this.path;
		if (this.active || !p || !p.nodes.length) return;
		const flow = this.#canvas.flow;
		this.#before = { viewport: flow ? flow.getViewport() : this.#viewport(), selected: this.#canvas.selected };
		this.active = true;
		await this.#show(p);
	}

	/** The whole canvas again, at the viewport and with the selection it had before focus. */
	async exit(): Promise<void> {
		if (!this.active) return;
		this.#generation++;
		this.active = false;
		this.pending = false;
		this.#shown = null;
		this.#canvas.focusCut = null;
		const before = this.#before;
		this.#before = null;
		if (!before) return;
		this.#canvas.selected = before.selected;
		const flow = this.#canvas.flow;
		const vp = this.#canvas.viewport;
		if (before.viewport && flow && vp) {
			await flow.setViewport(before.viewport, { duration: VIEW_MS });
			this.#canvas.viewport = { ...flow.getViewport(), width: vp.width, height: vp.height };
		}
	}

	/**
	 * The traced path changed while focused (another column traced, more lineage came): the new
	 * path is laid out. A trace cleared (or moved off with the selection) keeps the path shown
	 * until focus is toggled off.
	 */
	follow(p: CanvasPath | null): void {
		if (!this.active || !p || !p.nodes.length || p.key === this.#shown) return;
		void this.#show(p);
	}

	/** A new graph replaced the canvas: its cards are other cards, and the view before is gone with it. */
	drop(): void {
		this.#generation++;
		this.active = false;
		this.pending = false;
		this.#shown = null;
		this.#before = null;
		this.#canvas.focusCut = null;
	}

	async #show(p: CanvasPath): Promise<void> {
		const generation = ++this.#generation;
		this.#shown = p.key;
		this.pending = true;
		this.error = null;
		try {
			const layouts = await this.#fetch([focusLevel(p)], 'LR');
			if (generation !== this.#generation) return;
			const composed = composeFocus(p, layouts[ROOT]);
			if (!composed) throw new Error('the layout left out part of the path');
			this.#canvas.focusCut = {
				nodes: new Set(p.nodes),
				edges: p.edges.map((e) => ({ id: `${e.source}\u0000${e.target}`, source: e.source, target: e.target, count: 1 })),
				composed,
				// A path too long to read whole: the traced column's card and its neighbours on the path.
				priority: p.core ? withNeighbours([p.core], p.edges) : []
			};
			await this.#fit();
		} catch (e) {
			if (generation !== this.#generation) return;
			this.error = e instanceof Error ? e.message : String(e);
			await this.exit();
		} finally {
			if (generation === this.#generation) this.pending = false;
		}
	}

	/** The path framed by the canvas's own rule: whole when readable that way, else around what matters. */
	async #fit(): Promise<void> {
		const flow = this.#canvas.flow;
		const vp = this.#canvas.viewport;
		if (!flow || !vp) return;
		const fit = this.#canvas.firstView(vp.width, vp.height);
		await flow.setViewport(fit.view, { duration: VIEW_MS });
		this.#canvas.viewport = { ...flow.getViewport(), width: vp.width, height: vp.height };
	}

	#viewport() {
		const v = this.#canvas.viewport;
		return v ? { x: v.x, y: v.y, zoom: v.zoom } : null;
	}
}
