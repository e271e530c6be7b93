import { describe, expect, it } from 'vitest';
import { syntheticProject } from '../../../tests/support/canvas-fixtures';
import { buildGroupTree, isGroupId } from '$lib/lineage/canvas-groups';
import { layoutLevels } from '$lib/lineage/canvas-layout';
import { digestOf } from '$lib/lineage/canvas-model';
import { levelsOf } from '$lib/lineage/canvas-view';
import { CanvasState } from './canvas.svelte';
import { CanvasExport, canvasScene, type ColourSource } from './canvas-export.svelte';

/** Each token resolves to its own name, so a test can tell which one a colour came from. */
const colours: ColourSource = { token: (name) => `token(${name})`, lens: () => '#ff0000' };

function loaded(n: number) {
	const { nodes, edges } = syntheticProject(n);
	const canvas = { nodes, edges, projects: [], hidden: 0, digest: digestOf(`export-${n}`) };
	const tree = buildGroupTree(nodes, edges);
	const s = new CanvasState(() => Promise.reject(new Error('no layout server here')));
	s.load({ canvas, open: [], layouts: layoutLevels(levelsOf(tree, new Set())) });
	return s;
}

describe('the export scene of a canvas', () => {
	it('holds every card of the cut, named, with the edges between them, not only what is on screen', () => {
		const s = loaded(40);
		// No viewport at all: nothing is "on screen", the scene is still the whole cut.
		expect(s.viewport).toBeNull();
		const scene = canvasScene(s, null, colours)!;
		expect(scene.cards.map((c) => c.id).sort()).toEqual(s.composed!.cards.map((c) => c.id).sort());
		for (const c of scene.cards) if (!isGroupId(c.id)) expect(c.name).toBe(s.nodeById.get(c.id)!.name);
		expect(scene.edges).toHaveLength(s.edges.length);
		const svg = new CanvasExport(s, () => null).svg(colours, 'demo');
		expect(svg.text).not.toMatch(/foreignObject/);
		for (const c of scene.cards) expect(svg.text).toContain(`>${c.name}</text>`);
	});

	it('closed groups of a big folder are group cards named by their label', () => {
		const s = loaded(3000);
		const scene = canvasScene(s, null, colours)!;
		const groups = scene.cards.filter((c) => c.group);
		expect(groups.length).toBeGreaterThan(0);
		for (const g of groups) expect(g.name).toBe(s.tree.groups.get(g.id)!.label);
	});

	it('colours a failed card as the canvas does and a lensed card by its lens', () => {
		const s = loaded(40);
		const id = s.composed!.cards.find((c) => !isGroupId(c.id))!.id;
		s.status = new Map([[id, { status: 'failed' }]]);
		let card = canvasScene(s, null, colours)!.cards.find((c) => c.id === id)!;
		expect(card.stroke).toBe('token(--state-failed)');
		expect(card.fill).toBe('token(--color-danger-soft)');
		expect(card.details).toContain('failed');
		s.status = new Map();
		s.lens = 'type';
		card = canvasScene(s, null, colours)!.cards.find((c) => c.id === id)!;
		expect(card.stripe).toBe('#ff0000');
		expect(card.fill).toMatch(/^rgb\(/);
	});

	it('exports the selection\'s lit lineage alone when asked, and the whole graph otherwise', () => {
		const s = loaded(40);
		const ex = new CanvasExport(s, () => null);
		expect(ex.selection).toBeNull();
		const whole = ex.svg(colours, 'demo');
		const mid = s.canvas.nodes[Math.floor(s.canvas.nodes.length / 2)].id;
		s.selected = mid;
		expect(ex.selection?.has(mid)).toBe(true);
		ex.scope = 'selection';
		const sel = ex.svg(colours, 'demo');
		const cards = (t: string) => (t.match(/<g class="card[" ]/g) ?? []).length;
		expect(cards(sel.text)).toBe(ex.selection!.size);
		expect(cards(sel.text)).toBeLessThan(cards(whole.text));
		expect(sel.text).toContain(`>${s.nodeById.get(mid)!.name}</text>`);
	});

	it('reports a failed export rather than throwing, and runs one at a time', async () => {
		const ex = new CanvasExport(loaded(40), () => null);
		let calls = 0;
		const slow = ex.run('png', async () => {
			calls++;
			await new Promise((r) => setTimeout(r, 10));
			throw new Error('no 2D canvas in this browser');
		});
		await ex.run('svg', async () => void calls++);
		await slow;
		expect(calls).toBe(1);
		expect(ex.error).toBe('no 2D canvas in this browser');
		expect(ex.exporting).toBeNull();
	});
});
