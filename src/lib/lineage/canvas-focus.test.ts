import { describe, expect, it } from 'vitest';
import { densestWindow, neighbourhood, stepAlong, within, type Box, type Depth } from './canvas-focus';
import { namedGraphs } from '../../../tests/support/test-graphs';

// The named column graphs at model level: `a.x → b.x` is the edge a → b.
function modelGraph(name: string) {
	const g = namedGraphs.find((x) => x.name === name)!;
	const up = new Map<string, string[]>();
	const down = new Map<string, string[]>();
	for (const e of g.edges) {
		(down.get(e.parentUniqueId) ?? down.set(e.parentUniqueId, []).get(e.parentUniqueId)!).push(e.childUniqueId);
		(up.get(e.childUniqueId) ?? up.set(e.childUniqueId, []).get(e.childUniqueId)!).push(e.parentUniqueId);
	}
	return { up, down };
}

const sorted = (s: Set<string>) => [...s].sort();

describe('a selection’s neighbourhood to a depth', () => {
	it.each<[string, string, Depth, Depth, string[]]>([
		['diamond', 'a', 1, 1, ['a', 'b', 'c']],
		['diamond', 'a', 'all', 1, ['a', 'b', 'c']],
		['diamond', 'a', 'all', 2, ['a', 'b', 'c', 'd']],
		['diamond', 'd', 1, 'all', ['b', 'c', 'd']],
		['diamond', 'd', 2, 1, ['a', 'b', 'c', 'd']],
		['diamond', 'b', 1, 1, ['a', 'b', 'd']],
		['cycle', 'a', 1, 1, ['a', 'b', 'c']],
		['cycle', 'a', 'all', 'all', ['a', 'b', 'c']],
		['self-loop', 'a', 3, 3, ['a', 'b']],
		['fan-out', 's', 1, 1, ['a', 'b', 'c', 'd', 's']],
		['fan-out', 'a', 1, 1, ['a', 's']],
		['fan-out', 'a', 'all', 'all', ['a', 's']]
	])('%s from %s, up %s down %s', (name, start, up, down, want) => {
		const g = modelGraph(name);
		expect(sorted(neighbourhood(g, start, up, down))).toEqual(want);
	});

	it('counts hops: a chain lights exactly `depth` nodes each way', () => {
		const down = new Map(Array.from({ length: 9 }, (_, i) => [`m${i}`, [`m${i + 1}`]]));
		for (const d of [1, 2, 3] as const) expect(within(down, 'm0', d).size).toBe(d + 1);
		expect(within(down, 'm0', 'all').size).toBe(10);
	});
});

describe('the densest window of a cut', () => {
	const card = (id: string, x: number, y: number): Box => ({ id, x, y, w: 200, h: 50 });

	it('frames the cluster, not the outliers', () => {
		const cluster = Array.from({ length: 12 }, (_, i) => card(`c${i}`, 5000 + (i % 4) * 240, 3000 + Math.floor(i / 4) * 80));
		const strays = [card('s0', 0, 0), card('s1', 9000, 0), card('s2', 0, 8000)];
		const win = densestWindow([...strays, ...cluster], 1200, 800)!;
		for (const c of cluster) {
			expect(c.x + c.w / 2).toBeGreaterThanOrEqual(win.x);
			expect(c.x + c.w / 2).toBeLessThanOrEqual(win.x + win.w);
			expect(c.y + c.h / 2).toBeGreaterThanOrEqual(win.y);
			expect(c.y + c.h / 2).toBeLessThanOrEqual(win.y + win.h);
		}
		expect([win.w, win.h]).toEqual([1200, 800]);
	});

	it('counts lighter cards for less: three relations beat four closed groups', () => {
		const groups = Array.from({ length: 4 }, (_, i) => card(`g${i}`, i * 240, 0));
		const relations = Array.from({ length: 3 }, (_, i) => card(`r${i}`, 6000 + i * 240, 0));
		const win = densestWindow([...groups, ...relations], 1000, 400, (id) => (id.startsWith('g') ? 0.25 : 1))!;
		expect(win.x).toBeGreaterThan(5000);
		expect(densestWindow([...groups, ...relations], 1000, 400)!.x).toBeLessThan(1000);
	});

	it('is null for an empty cut', () => {
		expect(densestWindow([], 100, 100)).toBeNull();
	});
});

describe('arrow keys along the edges', () => {
	// a → b, a → c, b → d; b above c in LR (same layer), and in TB b left of c.
	const edges = [
		{ source: 'a', target: 'b' },
		{ source: 'a', target: 'c' },
		{ source: 'b', target: 'd' }
	];
	const lr = new Map<string, Box>([
		['a', { id: 'a', x: 0, y: 50, w: 200, h: 50 }],
		['b', { id: 'b', x: 300, y: 0, w: 200, h: 50 }],
		['c', { id: 'c', x: 300, y: 100, w: 200, h: 50 }],
		['d', { id: 'd', x: 600, y: 0, w: 200, h: 50 }]
	]);
	// The same graph top-down: x and y swapped.
	const tb = new Map([...lr].map(([id, b]) => [id, { id, x: b.y * 3, y: b.x / 3, w: 200, h: 50 }]));
	const all = () => true;

	it.each([
		['LR', lr, 'a', 'ArrowRight', 'b'],
		['LR', lr, 'b', 'ArrowRight', 'd'],
		['LR', lr, 'd', 'ArrowLeft', 'b'],
		['LR', lr, 'b', 'ArrowDown', 'c'],
		['LR', lr, 'c', 'ArrowUp', 'b'],
		['LR', lr, 'a', 'ArrowLeft', null],
		['LR', lr, 'c', 'ArrowRight', null],
		['TB', tb, 'a', 'ArrowDown', 'b'],
		['TB', tb, 'd', 'ArrowUp', 'b'],
		['TB', tb, 'b', 'ArrowRight', 'c'],
		['TB', tb, 'c', 'ArrowLeft', 'b']
	] as const)('%s: from %s, %s goes to %s', (direction, placed, from, key, want) => {
		expect(stepAlong(from, key, direction, edges, placed, all)).toBe(want);
	});

	it('a step back returns where the selection came from, not the nearest upstream', () => {
		const two = [...edges, { source: 'c', target: 'd' }];
		expect(stepAlong('d', 'ArrowLeft', 'LR', two, lr, all)).toBe('b');
		expect(stepAlong('d', 'ArrowLeft', 'LR', two, lr, all, 'c')).toBe('c');
		// A preference that is not a candidate is ignored.
		expect(stepAlong('d', 'ArrowLeft', 'LR', two, lr, all, 'a')).toBe('b');
	});

	it('never lands on a card that cannot hold the selection (a closed group)', () => {
		expect(stepAlong('a', 'ArrowRight', 'LR', edges, lr, (id) => id !== 'b')).toBe('c');
	});
});
