// The canvas state reaches the custom node components through context, not through node data:
// a status or a search hit then re-renders the mounted cards that show it, never the nodes
// array (CANVAS.md §6.4).
import { getContext, setContext } from 'svelte';
import type { CanvasState } from '$lib/state/canvas.svelte';
import type { CanvasColumns } from '$lib/state/canvas-columns.svelte';

const KEY = Symbol('tributary-canvas');

export interface CanvasContext {
	canvas: CanvasState;
	/** Where a project link goes (the project page), or null where there is none (a share link). */
	projectHref: (path: string) => string | null;
	/** Cards expanded into their columns and the trace across them; absent: cards never expand. */
	columns?: CanvasColumns | null;
}

export function setCanvasContext(c: CanvasContext): void {
	setContext(KEY, c);
}

export function canvasContext(): CanvasContext {
	return getContext<CanvasContext>(KEY);
}
