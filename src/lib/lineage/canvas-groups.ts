// Progressive disclosure for big canvases (CANVAS.md §7: about 100 cards on screen at first
// paint). Cards are grouped in a fixed tree — category (sources, seeds, snapshots, a model
// schema, lake tables, scripts), then dbt's naming convention (`int_billing__charges` →
// `int` → `int_billing`), packed into alphabetical ranges where a level would be too wide — and
// the canvas draws a cut through it: open groups as frames around their children, closed ones
// as one card. The tree depends on the graph alone, so every cut of it is laid out from the same
// per-group pieces (canvas-layout.ts) and an expansion only re-lays the groups it touches.
import type { CanvasEdge, CanvasNode } from './canvas-model';

export const ROOT = 'g:';
export const isGroupId = (id: string) => id.startsWith('g:');

export interface GroupDef {
	id: string;
	label: string;
	/** The category it belongs to (its top-level ancestor's label), for the card's subtitle. */
	category: string;
	parent: string | null;
	/** Child group ids and node ids, in display order. */
	children: string[];
	/** Nodes below it, at any depth. */
	leafCount: number;
}

export interface GroupTree {
	groups: Map<string, GroupDef>;
	/** Every node's and group's parent group. */
	parentOf: Map<string, string>;
	/** Per group, the edges between two of its children, with how many node edges each stands for. */
	levelEdges: Map<string, Map<string, { source: string; target: string; count: number }>>;
}

export interface GroupOptions {
	/** Up to this many nodes the canvas is one flat level: grouping a small graph only hides it. */
	flatMax?: number;
	/** A group of at most this many nodes lists them directly. */
	leafMax?: number;
	/** A group shows at most about this many child groups; wider levels are packed into ranges. */
	childMax?: number;
}

interface Member {
	id: string;
	sortKey: string;
	tokens: string[];
	/** keyAt per depth, computed once: every level of the tree asks again. */
	keys: string[];
}

interface Category {
	key: string;
	label: string;
}

function categoryOf(n: CanvasNode): Category {
	if (n.type === 'runnable') return { key: `scripts:${n.schema}`, label: `scripts · ${n.schema}` };
	if (n.type === 'consumer') return { key: `consumers:${n.schema}`, label: `metrics & exposures · ${n.schema.slice(n.schema.lastIndexOf('/') + 1)}` };
	if (n.kind !== 'dbt') return { key: `${n.kind}:${n.schema}`, label: `${n.kind === 'ducklake' ? 'lake' : n.kind === 'openlineage' ? 'datasets' : n.kind} · ${n.schema}` };
	switch (n.resourceType) {
		case 'source':
			return { key: 'sources', label: 'sources' };
		case 'seed':
			return { key: 'seeds', label: 'seeds' };
		case 'snapshot':
			return { key: 'snapshots', label: 'snapshots' };
		default: {
			const schema = n.schema.slice(n.schema.indexOf('/') + 1);
			return { key: `schema:${n.schema}`, label: schema };
		}
	}
}

// Sources are named within their source schema (`raw_stripe.charges` and
// `raw_stripe_eu.charges` both exist), so they sort and split by schema first.
function memberOf(n: CanvasNode): Member {
	const schemaName = n.schema.slice(n.schema.lastIndexOf('/') + 1);
	const sortKey = n.type === 'asset' && n.resourceType === 'source' ? `${schemaName}.${n.name}` : n.name;
	return { id: n.id, sortKey, tokens: sortKey.split(/__|[._]/).filter(Boolean), keys: [] };
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function keyAt(m: Member, depth: number): string {
	return (m.keys[depth] ??= m.tokens.slice(0, depth + 1).join('_'));
}

/** Contiguous runs of sorted parts, balanced by member count, at most `max` runs. */
function packRuns<T extends { size: number }>(parts: T[], max: number): T[][] {
	const total = parts.reduce((s, p) => s + p.size, 0);
	let target = Math.ceil(total / max);
	for (;;) {
		const runs: T[][] = [];
		let cur: T[] = [];
		let sum = 0;
		for (const p of parts) {
			if (cur.length && sum + p.size > target) {
				runs.push(cur);
				cur = [];
				sum = 0;
			}
			cur.push(p);
			sum += p.size;
		}
		if (cur.length) runs.push(cur);
		if (runs.length <= max) return runs;
		target = Math.ceil(target * 1.25);
	}
}

export function buildGroupTree(nodes: readonly CanvasNode[], edges: readonly CanvasEdge[], opts: GroupOptions = {}): GroupTree {
	const flatMax = opts.flatMax ?? 150;
	const leafMax = opts.leafMax ?? 40;
	const childMax = opts.childMax ?? 24;
	const groups = new Map<string, GroupDef>();
	const parentOf = new Map<string, string>();

	const addGroup = (id: string, label: string, category: string, parent: string | null): GroupDef => {
		const g: GroupDef = { id, label, category, parent, children: [], leafCount: 0 };
		groups.set(id, g);
		if (parent !== null) {
			groups.get(parent)!.children.push(id);
			parentOf.set(id, parent);
		}
		return g;
	};
	const addLeaf = (parent: GroupDef, id: string) => {
		parent.children.push(id);
		parentOf.set(id, parent.id);
	};

	const fill = (g: GroupDef, members: Member[], depth: number): void => {
		g.leafCount = members.length;
		members.sort((a, b) => cmp(a.sortKey, b.sortKey) || cmp(a.id, b.id));
		if (members.length <= leafMax) {
			for (const m of members) addLeaf(g, m.id);
			return;
		}
		// The first depth at which the names actually differ.
		let d = depth;
		let parts: Map<string, Member[]> | null = null;
		for (;;) {
			const byKey = new Map<string, Member[]>();
			for (const m of members) {
				const k = keyAt(m, d);
				const list = byKey.get(k);
				if (list) list.push(m);
				else byKey.set(k, [m]);
			}
			if (byKey.size > 1) {
				parts = byKey;
				break;
			}
			if (members.every((m) => m.tokens.length <= d + 1)) break;
			d++;
		}
		const sorted = parts
			? [...parts.entries()].sort((a, b) => cmp(a[0], b[0])).map(([key, ms]) => ({ key, ms, size: ms.length }))
			: // Names that cannot be told apart by their words: plain runs of the sorted list.
				Array.from({ length: Math.ceil(members.length / leafMax) }, (_, i) => {
					const ms = members.slice(i * leafMax, (i + 1) * leafMax);
					return { key: `${ms[0].sortKey}…`, ms, size: ms.length };
				});
		for (const run of packRuns(sorted, childMax)) {
			const ms = run.flatMap((p) => p.ms);
			if (ms.length === 1) {
				addLeaf(g, ms[0].id);
				continue;
			}
			const single = run.length === 1;
			const key = single ? run[0].key : `${run[0].key}~${run[run.length - 1].key}`;
			const label = single ? run[0].key : `${run[0].key} … ${run[run.length - 1].key}`;
			const child = addGroup(`${g.id}/${key}`, label, g.category, g.id);
			// A single part goes one word deeper; a run of parts splits again at this depth, into
			// those same parts (fewer of them now).
			fill(child, ms, single && parts ? d + 1 : d);
		}
	};

	const root = addGroup(ROOT, 'all', 'all', null);
	root.leafCount = nodes.length;
	if (nodes.length <= flatMax) {
		for (const n of [...nodes].sort((a, b) => cmp(a.id, b.id))) addLeaf(root, n.id);
	} else {
		const byCat = new Map<string, { cat: Category; members: Member[] }>();
		for (const n of nodes) {
			const cat = categoryOf(n);
			const e = byCat.get(cat.key);
			if (e) e.members.push(memberOf(n));
			else byCat.set(cat.key, { cat, members: [memberOf(n)] });
		}
		const cats = [...byCat.values()].sort((a, b) => cmp(a.cat.key, b.cat.key));
		if (cats.length === 1) {
			fill(root, cats[0].members, 0);
		} else {
			for (const { cat, members } of cats) {
				if (members.length === 1) {
					addLeaf(root, members[0].id);
					continue;
				}
				fill(addGroup(`${ROOT}${cat.key}`, cat.label, cat.label, ROOT), members, 0);
			}
		}
	}

	// Each node edge belongs to exactly one level: the lowest group holding both ends, between
	// the two children of it that do.
	const levelEdges = new Map<string, Map<string, { source: string; target: string; count: number }>>();
	// Depth below the root, memoised: the two ends climb to the same depth, then together until
	// they share a parent — no per-edge ancestor lists (5000 edges on every page load).
	const depths = new Map<string, number>();
	const depthOf = (id: string): number => {
		let d = depths.get(id);
		if (d === undefined) {
			const p = parentOf.get(id);
			d = p === undefined ? 0 : depthOf(p) + 1;
			depths.set(id, d);
		}
		return d;
	};
	for (const e of edges) {
		if (!parentOf.has(e.source) || !parentOf.has(e.target)) continue;
		let cs = e.source;
		let ct = e.target;
		let ds = depthOf(cs);
		let dt = depthOf(ct);
		while (ds > dt) {
			cs = parentOf.get(cs)!;
			ds--;
		}
		while (dt > ds) {
			ct = parentOf.get(ct)!;
			dt--;
		}
		// One end at or above the other: no edge between two children of one group.
		if (cs === ct) continue;
		let ps = parentOf.get(cs)!;
		let pt = parentOf.get(ct)!;
		while (ps !== pt) {
			cs = ps;
			ct = pt;
			ps = parentOf.get(cs)!;
			pt = parentOf.get(ct)!;
		}
		const lca = ps;
		let m = levelEdges.get(lca);
		if (!m) levelEdges.set(lca, (m = new Map()));
		const k = `${cs}\u0000${ct}`;
		const prev = m.get(k);
		if (prev) prev.count++;
		else m.set(k, { source: cs, target: ct, count: 1 });
	}
	return { groups, parentOf, levelEdges };
}

/** The groups above a node or group, nearest first, the root last. */
export function ancestorsOf(tree: GroupTree, id: string): string[] {
	const out: string[] = [];
	for (let p = tree.parentOf.get(id); p !== undefined; p = tree.parentOf.get(p)) out.push(p);
	return out;
}

/** What stands for a node in this cut: itself, or its outermost closed group. */
export function unitOf(tree: GroupTree, open: ReadonlySet<string>, id: string): string {
	let unit = id;
	for (const g of ancestorsOf(tree, id)) if (g !== ROOT && !open.has(g)) unit = g;
	return unit;
}

export interface Cut {
	/** Cards: nodes and closed groups. */
	units: string[];
	/** Open groups that are themselves visible (the root first), drawn as frames. */
	openGroups: string[];
}

export function cutOf(tree: GroupTree, open: ReadonlySet<string>): Cut {
	const units: string[] = [];
	const openGroups: string[] = [];
	const walk = (g: string) => {
		openGroups.push(g);
		for (const c of tree.groups.get(g)!.children) {
			if (isGroupId(c) && open.has(c)) walk(c);
			else units.push(c);
		}
	};
	walk(ROOT);
	return { units, openGroups };
}

/**
 * The first cut: open groups smallest first while the cards stay within `budget`. Always the
 * whole graph when it is small, never a cut that hides everything behind one card.
 */
export function initialOpen(tree: GroupTree, budget = 100): Set<string> {
	const open = new Set<string>();
	let cards = tree.groups.get(ROOT)!.children.length;
	for (;;) {
		let best: GroupDef | undefined;
		for (const id of cutOf(tree, open).units) {
			if (!isGroupId(id)) continue;
			const g = tree.groups.get(id)!;
			if (cards - 1 + g.children.length > budget) continue;
			if (!best || g.children.length < best.children.length || (g.children.length === best.children.length && g.id < best.id)) best = g;
		}
		if (!best) return open;
		open.add(best.id);
		cards += best.children.length - 1;
	}
}

/** A cut with `id` visible: every group above it open. */
export function reveal(tree: GroupTree, open: ReadonlySet<string>, id: string): Set<string> {
	const out = new Set(open);
	for (const g of ancestorsOf(tree, id)) if (g !== ROOT) out.add(g);
	return out;
}

/** Close a group and everything opened inside it. */
export function collapse(tree: GroupTree, open: ReadonlySet<string>, id: string): Set<string> {
	const out = new Set<string>();
	for (const g of open) if (g !== id && !ancestorsOf(tree, g).includes(id)) out.add(g);
	return out;
}

export interface UnitEdge {
	id: string;
	source: string;
	target: string;
	/** Node edges it stands for. */
	count: number;
}

/** The node edges as drawn in a cut: between cards, merged, without edges inside one card. */
export function unitEdges(tree: GroupTree, open: ReadonlySet<string>, edges: readonly CanvasEdge[]): UnitEdge[] {
	const memo = new Map<string, string>();
	const u = (id: string) => {
		let x = memo.get(id);
		if (x === undefined) memo.set(id, (x = unitOf(tree, open, id)));
		return x;
	};
	const out = new Map<string, UnitEdge>();
	for (const e of edges) {
		const s = u(e.source);
		const t = u(e.target);
		if (s === t) continue;
		const id = `${s}\u0000${t}`;
		const prev = out.get(id);
		if (prev) prev.count++;
		else out.set(id, { id, source: s, target: t, count: 1 });
	}
	return [...out.values()];
}
