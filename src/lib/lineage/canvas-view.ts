// From a cut of the disclosure tree to what layout needs (one level per open group) and back to
// absolute card positions. Pure and shared: the server lays out, the page composes.
import { cutOf, isGroupId, ROOT, type GroupTree } from './canvas-groups';
import { CARD, FRAME, frameSize, GROUP_CARD, type LevelInput, type LevelLayout } from './canvas-sizes';

/** The layout input of a cut: every visible open group with its children and their edges. */
export function levelsOf(tree: GroupTree, open: ReadonlySet<string>): LevelInput[] {
	return cutOf(tree, open).openGroups.map((gid) => {
		const g = tree.groups.get(gid)!;
		const index = new Map(g.children.map((c, i) => [c, i]));
		const children = g.children.map((c) => {
			if (isGroupId(c) && open.has(c)) return { id: c, level: c };
			return isGroupId(c) ? { id: c, ...GROUP_CARD } : { id: c, ...CARD };
		});
		const edges: [number, number][] = [];
		for (const e of tree.levelEdges.get(gid)?.values() ?? []) edges.push([index.get(e.source)!, index.get(e.target)!]);
		edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
		return { id: gid, children, edges };
	});
}

export interface Placed {
	id: string;
	x: number;
	y: number;
	w: number;
	h: number;
}

export interface ComposedCut {
	/** Nodes and closed groups. */
	cards: Placed[];
	/** Open groups other than the root, outermost first (so inner frames draw on top). */
	frames: Placed[];
	width: number;
	height: number;
}

/** Absolute positions of a cut from its levels' layouts; null when a level is missing. */
export function composeCut(tree: GroupTree, open: ReadonlySet<string>, layouts: Record<string, LevelLayout>): ComposedCut | null {
	const cards: Placed[] = [];
	const frames: Placed[] = [];
	const place = (gid: string, ox: number, oy: number): boolean => {
		const l = layouts[gid];
		if (!l) return false;
		for (const c of tree.groups.get(gid)!.children) {
			const p = l.pos[c];
			if (!p) return false;
			const x = ox + p[0];
			const y = oy + p[1];
			if (isGroupId(c) && open.has(c)) {
				const inner = layouts[c];
				if (!inner) return false;
				frames.push({ id: c, x, y, ...frameSize(inner) });
				if (!place(c, x + FRAME.pad, y + FRAME.header)) return false;
			} else {
				cards.push({ id: c, x, y, ...(isGroupId(c) ? GROUP_CARD : CARD) });
			}
		}
		return true;
	};
	if (!place(ROOT, 0, 0)) return null;
	const root = layouts[ROOT];
	return { cards, frames, width: root.w, height: root.h };
}

/** The digest of a cut's layout input: what the page caches answers under. */
export function levelKey(l: LevelInput): string {
	return JSON.stringify([l.id, l.children.map((c) => ('level' in c ? [c.id, c.level] : [c.id, c.w, c.h])), l.edges]);
}

export interface ChooseOpenOptions {
	/** Most cards in the first cut (CANVAS.md §7: about 100). */
	budget?: number;
	/** The smallest zoom at which the fitted first cut must still be readable. */
	minZoom?: number;
	/** The screen area the first cut is fitted into. */
	viewport?: { width: number; height: number };
	/** Lays out a cut (the server's cached layout). */
	layout: (levels: LevelInput[]) => Record<string, LevelLayout>;
}

/**
 * The first cut: groups opened smallest first while the cut stays within the card budget AND
 * its fitted view stays readable. A card budget alone can open a hundred cards spread so wide
 * that the fitted view shows them at a fifth of their size; this opens only what fits.
 */
export function chooseOpen(tree: GroupTree, o: ChooseOpenOptions): Set<string> {
	const budget = o.budget ?? 100;
	const minZoom = o.minZoom ?? 0.45;
	const vp = o.viewport ?? { width: 1280, height: 720 };
	const open = new Set<string>();
	const rejected = new Set<string>();
	const zoomOf = (cut: ReadonlySet<string>) => {
		const l = o.layout(levelsOf(tree, cut))[ROOT];
		return l.w === 0 ? Infinity : Math.min(vp.width / l.w, vp.height / l.h);
	};
	let cards = tree.groups.get(ROOT)!.children.length;
	for (;;) {
		const candidates = cutOf(tree, open)
			.units.filter((id) => isGroupId(id) && !rejected.has(id))
			.map((id) => tree.groups.get(id)!)
			.filter((g) => cards - 1 + g.children.length <= budget)
			.sort((a, b) => a.children.length - b.children.length || (a.id < b.id ? -1 : 1));
		const next = candidates[0];
		if (!next) return open;
		const tried = new Set(open).add(next.id);
		if (zoomOf(tried) >= minZoom) {
			open.add(next.id);
			cards += next.children.length - 1;
		} else {
			rejected.add(next.id);
		}
	}
}
