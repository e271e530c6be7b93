import { describe, expect, it } from 'vitest';
import { canvasFromAssetGraph } from './canvas-model';
import { syntheticProject } from '../../../tests/support/canvas-fixtures';
import { ancestorsOf, buildGroupTree, collapse, cutOf, initialOpen, isGroupId, reveal, ROOT, unitEdges, unitOf } from './canvas-groups';
import { CARD, LayoutCache, layoutLevels } from './canvas-layout';
import { chooseOpen, composeCut, levelsOf, type Placed } from './canvas-view';
import type { AssetGraph } from '../types/asset-graph';

const overlaps = (a: Placed, b: Placed) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

function noOverlaps(cards: Placed[]) {
	const sorted = [...cards].sort((a, b) => a.x - b.x);
	for (let i = 0; i < sorted.length; i++) {
		for (let j = i + 1; j < sorted.length && sorted[j].x < sorted[i].x + sorted[i].w; j++) {
			expect(overlaps(sorted[i], sorted[j]), `${sorted[i].id} overlaps ${sorted[j].id}`).toBe(false);
		}
	}
}

describe('the disclosure tree', () => {
	it.each([
		{ name: 'a small folder is one flat level', models: 60, grouped: false },
		{ name: 'a 3000-model folder is grouped', models: 3000, grouped: true }
	])('$name', ({ models, grouped }) => {
		const { nodes, edges } = syntheticProject(models);
		const tree = buildGroupTree(nodes, edges);
		// Every node exactly once, under groups whose counts add up.
		const leaves: string[] = [];
		for (const g of tree.groups.values()) for (const c of g.children) if (!isGroupId(c)) leaves.push(c);
		expect(leaves.sort()).toEqual(nodes.map((n) => n.id).sort());
		for (const g of tree.groups.values()) {
			const sum = g.children.reduce((s, c) => s + (isGroupId(c) ? tree.groups.get(c)!.leafCount : 1), 0);
			expect(sum, g.id).toBe(g.leafCount);
			if (g.id !== ROOT || grouped) expect(g.children.length, g.id).toBeLessThanOrEqual(40);
		}
		expect(tree.groups.size > 1).toBe(grouped);
		// Each edge is counted at exactly one level.
		const counted = [...tree.levelEdges.values()].flatMap((m) => [...m.values()]).reduce((s, e) => s + e.count, 0);
		expect(counted).toBe(edges.length);
		const cut = cutOf(tree, initialOpen(tree));
		if (grouped) {
			expect(cut.units.length).toBeLessThanOrEqual(100);
			expect(cut.units.length).toBeGreaterThan(20);
		} else {
			expect(cut.units.length).toBe(models <= 150 ? nodes.length : cut.units.length);
		}
	});

	it('reveals a node by opening every group above it, and collapses a group with what is open inside', () => {
		const { nodes, edges } = syntheticProject(3000);
		const tree = buildGroupTree(nodes, edges);
		const deep = nodes.find((n) => ancestorsOf(tree, n.id).length >= 3)!;
		const open = reveal(tree, new Set(), deep.id);
		expect(cutOf(tree, open).units).toContain(deep.id);
		expect(unitOf(tree, open, deep.id)).toBe(deep.id);
		const top = ancestorsOf(tree, deep.id).at(-2)!;
		const closed = collapse(tree, open, top);
		expect(unitOf(tree, closed, deep.id)).toBe(top);
		expect([...closed].some((g) => ancestorsOf(tree, g).includes(top))).toBe(false);
	});

	it('draws node edges between cards, merged and counted', () => {
		const { nodes, edges } = syntheticProject(3000);
		const tree = buildGroupTree(nodes, edges);
		const ue = unitEdges(tree, new Set(), edges);
		const tops = new Set(tree.groups.get(ROOT)!.children);
		for (const e of ue) {
			expect(tops.has(e.source) && tops.has(e.target)).toBe(true);
			expect(e.source).not.toBe(e.target);
		}
		const inside = edges.filter((e) => unitOf(tree, new Set(), e.source) === unitOf(tree, new Set(), e.target)).length;
		expect(ue.reduce((s, e) => s + e.count, 0)).toBe(edges.length - inside);
	});

	it('keeps sources with the same name in different schemas apart', () => {
		const g: AssetGraph = {
			assets: Array.from({ length: 200 }, (_, i) => ({
				kind: 'dbt' as const,
				path: `main/raw_${i % 2 ? 'eu' : 'us'}/t${i >> 1}`,
				dbt: {
					script_path: 'f/a/p',
					script_hash: null,
					unique_id: `source.p.x.t${i}`,
					resource_type: 'source',
					materialized: null,
					materialize_strategy: null,
					data_tests: [],
					authored: false
				}
			})),
			runnables: [],
			edges: [],
			dbt_edges: [],
			hidden: 0
		};
		const c = canvasFromAssetGraph(g);
		const tree = buildGroupTree(c.nodes, c.edges);
		const top = tree.groups.get(ROOT)!;
		// One category (sources), split by source schema first.
		expect(top.children.sort()).toEqual(['g:/raw_eu', 'g:/raw_us']);
	});
});

describe('laying out a cut', () => {
	it('places every card of a 3000-model first cut without overlaps, frames around their children', () => {
		const { nodes, edges } = syntheticProject(3000);
		const tree = buildGroupTree(nodes, edges);
		const open = initialOpen(tree);
		const layouts = layoutLevels(levelsOf(tree, open), new LayoutCache(100));
		const cut = composeCut(tree, open, layouts)!;
		expect(cut.cards.map((c) => c.id).sort()).toEqual(cutOf(tree, open).units.sort());
		noOverlaps(cut.cards);
		for (const f of cut.frames) {
			const inside = cut.cards.filter((c) => ancestorsOf(tree, c.id).includes(f.id));
			expect(inside.length).toBeGreaterThan(0);
			for (const c of inside) {
				expect(c.x >= f.x && c.y >= f.y && c.x + c.w <= f.x + f.w && c.y + c.h <= f.y + f.h, `${c.id} in ${f.id}`).toBe(true);
			}
		}
	});

	it.each([
		['left to right by default: every edge points right', undefined, 'x', 'w'],
		['top to bottom: every edge points down', 'TB', 'y', 'h'],
		['left to right asked for', 'LR', 'x', 'w']
	] as const)('lays out a small flat folder %s', (_name, direction, axis, size) => {
		const { nodes, edges } = syntheticProject(60);
		const tree = buildGroupTree(nodes, edges);
		const layouts = layoutLevels(levelsOf(tree, new Set()), null, { direction });
		const cut = composeCut(tree, new Set(), layouts)!;
		noOverlaps(cut.cards);
		const at = new Map(cut.cards.map((c) => [c.id, c]));
		for (const e of edges) expect(at.get(e.target)![axis]).toBeGreaterThan(at.get(e.source)![axis] + CARD[size] - 1);
	});

	it('caches each direction on its own: the same levels laid out both ways differ', () => {
		const { nodes, edges } = syntheticProject(60);
		const tree = buildGroupTree(nodes, edges);
		const cache = new LayoutCache<never>(100);
		const lr = layoutLevels(levelsOf(tree, new Set()), cache as never, { direction: 'LR' });
		const cached = cache.size;
		const tb = layoutLevels(levelsOf(tree, new Set()), cache as never, { direction: 'TB' });
		expect(cache.size).toBeGreaterThan(cached);
		expect(layoutLevels(levelsOf(tree, new Set()), cache as never, { direction: 'LR' })).toEqual(lr);
		expect(tb).not.toEqual(lr);
	});

	it('reuses cached components: an expansion only lays out what changed', () => {
		const { nodes, edges } = syntheticProject(3000);
		const tree = buildGroupTree(nodes, edges);
		const cache = new LayoutCache<never>(1000);
		const open = initialOpen(tree);
		layoutLevels(levelsOf(tree, open), cache as never);
		const before = cache.size;
		const closedGroup = cutOf(tree, open).units.find(isGroupId)!;
		const more = new Set(open).add(closedGroup);
		layoutLevels(levelsOf(tree, more), cache as never);
		// The opened group's own level plus the levels above it; every other level was a hit.
		expect(cache.size - before).toBeLessThanOrEqual(ancestorsOf(tree, closedGroup).length + 2 + 40);
		expect(cache.size - before).toBeGreaterThan(0);
	});

	it('refuses a level that contains itself or names a missing level', () => {
		expect(() => layoutLevels([{ id: 'a', children: [{ id: 'a', level: 'a' }], edges: [] }])).toThrow(/contains itself/);
		expect(() => layoutLevels([{ id: 'a', children: [{ id: 'b', level: 'b' }], edges: [] }])).toThrow(/unknown level/);
		expect(() => layoutLevels([{ id: 'a', children: [{ id: 'x', w: 1, h: 1 }], edges: [[0, 3]] }])).toThrow(/out of range/);
	});
});

describe('the first cut', () => {
	it('opens only what its fitted view can still show readably', () => {
		const { nodes, edges } = syntheticProject(3000);
		const tree = buildGroupTree(nodes, edges);
		const cache = new LayoutCache<never>(5000);
		const layout = (levels: Parameters<typeof layoutLevels>[0]) => layoutLevels(levels, cache as never);
		const open = chooseOpen(tree, { layout, minZoom: 0.45, viewport: { width: 1280, height: 720 } });
		const root = layout(levelsOf(tree, open))[ROOT];
		expect(Math.min(1280 / root.w, 720 / root.h)).toBeGreaterThanOrEqual(0.45);
		expect(cutOf(tree, open).units.length).toBeLessThanOrEqual(100);
		// A looser bound opens more.
		const more = chooseOpen(tree, { layout, minZoom: 0.1 });
		expect(cutOf(tree, more).units.length).toBeGreaterThan(cutOf(tree, open).units.length);
	});

	it('opens everything of a small folder', () => {
		const { nodes, edges } = syntheticProject(60);
		const tree = buildGroupTree(nodes, edges);
		expect(cutOf(tree, chooseOpen(tree, { layout: (l) => layoutLevels(l) })).units).toHaveLength(nodes.length);
	});
});
