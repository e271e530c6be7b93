// The fixed sizes and the layout's input and output shapes, apart from the layout itself: the
// page composes cuts with these, and must not pull the layout library into the browser.
import type { Direction, LevelLayout } from '../types/canvas';

/** Card sizes: the page gives xyflow these as width/height/measured so it never measures. */
export const CARD = { w: 220, h: 58 } as const;
export const GROUP_CARD = { w: 240, h: 66 } as const;
/** Space a frame (an open group) adds around its children: sides, and the header on top. */
export const FRAME = { pad: 16, header: 34 } as const;

export type { Direction, LevelLayout } from '../types/canvas';
export const DIRECTIONS: readonly Direction[] = ['LR', 'TB'];
export const isDirection = (v: unknown): v is Direction => v === 'LR' || v === 'TB';
/** The cookie the page remembers the reader's direction in (read by the server for the first paint). */
export const DIRECTION_COOKIE = 'tributary_canvas_direction';

export type LevelChild = { id: string; w: number; h: number } | { id: string; level: string };

/** One open group to lay out: its children (cards, or open groups laid out as levels of their own) and the edges among them. */
export interface LevelInput {
	id: string;
	children: LevelChild[];
	/** Indexes into `children`, upstream first. */
	edges: [number, number][];
}

/** The outer size of an open group drawn as a frame around a level of this size. */
export function frameSize(l: { w: number; h: number }): { w: number; h: number } {
	return { w: Math.max(l.w + 2 * FRAME.pad, GROUP_CARD.w), h: l.h + FRAME.pad + FRAME.header };
}
