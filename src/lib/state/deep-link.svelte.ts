// A canvas page's deep link as behaviour: a link opens the page on its relation and, once that
// relation's lineage is in, on its traced column; afterwards the address bar follows the
// selection and the traced column, so the URL in it can be copied and shared. A link naming
// something this viewer's graph does not hold gets one notice, the same whether it never
// existed or is hidden: the graph payload holds no hidden node, so nothing here can tell.
import { columnParam, NO_LINK, resolveColumn, sameDeepLink, type DeepLink } from '$lib/lineage/deep-link';
import type { CanvasState } from './canvas.svelte';
import type { ColumnTraceView } from './details.svelte';

export const NOT_FOUND = {
	relation: 'The linked relation was not found in this graph.',
	column: 'The linked column was not found in this graph.'
} as const;

export class DeepLinkState {
	/** Why the link could not be followed (an aria-live status on the page), or null. */
	notice = $state<string | null>(null);
	/** The column the link asks for, until the selected relation's lineage has come. */
	#pending = $state.raw<{ select: string; column: string } | null>(null);
	/** What the address bar stands for: a change away from it is written there. */
	#shown: DeepLink = NO_LINK;
	#write: ((link: DeepLink) => void) | null = null;
	#canvas: CanvasState;
	#trace: ColumnTraceView;

	/** The link to the page as it is now: the selection and its traced column. */
	current: DeepLink;

	constructor(canvas: CanvasState, trace: ColumnTraceView) {
		this.#canvas = canvas;
		this.#trace = trace;
		this.current = $derived.by(() => {
			const select = this.#canvas.selected;
			if (select === null) return NO_LINK;
			const pending = this.#pending;
			if (pending?.select === select) return { select, column: pending.column };
			// Between a new selection and the trace following it, the traced column is the old one's.
			const node = this.#canvas.nodeById.get(select);
			const t = this.#trace.target;
			const traced = this.#trace.traced;
			const c = traced === null ? undefined : this.#trace.graph.nodes.get(traced);
			if (!node || !t || t.kind !== node.kind || t.path !== node.path || !c) return { select, column: null };
			return { select, column: columnParam(t, c) };
		});
	}

	/**
	 * Follow a link (the page's URL when it opens, or after a navigation): select its node if
	 * this graph holds it. Nothing is written back: a link naming nothing stays as it was typed
	 * until the viewer selects something.
	 */
	open(link: DeepLink): void {
		const found = link.select !== null && this.#canvas.nodeById.has(link.select);
		this.#canvas.selected = found ? link.select : null;
		this.#pending = found && link.column !== null ? { select: link.select!, column: link.column } : null;
		this.notice = link.select !== null && !found ? NOT_FOUND.relation : link.select === null && link.column !== null ? NOT_FOUND.column : null;
		this.#shown = this.current;
	}

	/**
	 * The page followed selection `id`; `settled` resolves when its trace's lineage is in. The
	 * linked column is traced then, or said not found; a viewer who sees no lineage at all (a
	 * share link) is not told anything about columns.
	 */
	followed(id: string | null, settled: Promise<void>): void {
		const pending = this.#pending;
		if (!pending) return;
		if (pending.select !== id) {
			this.#pending = null;
			return;
		}
		void settled.then(() => this.#resolve(pending));
	}

	#resolve(pending: { select: string; column: string }): void {
		// A later selection or request took over: its own settling resolves it, or it moved on.
		if (this.#pending !== pending || this.#canvas.selected !== pending.select || this.#trace.lineage.loading) return;
		const t = this.#trace.target;
		const node = this.#canvas.nodeById.get(pending.select);
		this.#pending = null;
		if (t && !t.authored) {
			this.#shown = this.current;
			return;
		}
		const own = t && node && t.kind === node.kind && t.path === node.path;
		const graph = this.#trace.graph;
		const id = own ? resolveColumn(pending.column, t, [...this.#trace.component].map((c) => [c, graph.nodes.get(c)!] as const)) : null;
		if (id !== null) this.#trace.traceLinked(id);
		// A lineage that failed to load already says so in the pane: "not found" would be a guess.
		else if (!this.#trace.lineage.failed.length) this.notice = NOT_FOUND.column;
		this.#shown = this.current;
	}

	/**
	 * The router is up (SvelteKit's afterNavigate): from now on a change of the link is written
	 * with `write`, and a linked node inside a closed group is opened into view. Writing before
	 * this point is what crashed the page (replaceState before the router exists).
	 */
	start(write: (link: DeepLink) => void): void {
		this.#write = write;
		const selected = this.#canvas.selected;
		if (selected !== null) void this.#canvas.reveal(selected);
		this.sync();
	}

	/** A navigation is under way: nothing is written until the next start. */
	stop(): void {
		this.#write = null;
	}

	/** Write the link when it changed (called from an effect: it reads the selection and the trace). */
	sync(): void {
		const link = this.current;
		if (!this.#write || sameDeepLink(link, this.#shown)) return;
		this.#shown = link;
		this.notice = null;
		this.#write(link);
	}
}
