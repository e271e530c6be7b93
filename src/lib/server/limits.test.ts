import { afterEach, describe, expect, it } from 'vitest';
import { layoutLevels, LayoutStopped } from '$lib/lineage/canvas-layout';
import { countAnnotationLines, manifestLimits, producerLimits, rankSpans, requireLayoutWork, requireManifestNodes } from './limits';

const chain = (n: number) => Array.from({ length: n - 1 }, (_, i) => [i, i + 1] as [number, number]);
const complete = (n: number) => {
	const e: [number, number][] = [];
	for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) e.push([a, b]);
	return e;
};

describe('rankSpans', () => {
	it.each([
		['no edges', 5, [], 0],
		['a chain: one rank per edge', 6, chain(6), 5],
		['a chain and its long edge', 6, [...chain(6), [0, 5]], 10],
		// Ranks 0..3; edge a→b spans b−a: Σ over the 6 pairs = 1+2+3+1+2+1.
		['four cards all linked', 4, complete(4), 10],
		['listed downstream first', 3, [[1, 2], [0, 1]], 2],
		['a cycle, broken at one edge', 3, [[0, 1], [1, 2], [2, 0]], 4],
		['a self-loop', 2, [[0, 0]], 1]
	] as const)('%s', (_name, n, edges, spans) => {
		expect(rankSpans(n, edges as [number, number][])).toBe(spans);
	});

	it('grows with density where nodes × edges does not (24 cards all linked: 2,300 spans)', () => {
		expect(rankSpans(24, complete(24))).toBe(2300);
		expect(() => requireLayoutWork([{ id: 'g:', children: Array.from({ length: 24 }, (_, i) => ({ id: `n${i}`, w: 1, h: 1 })), edges: complete(24) }])).toThrow(
			/^level g:: its edges span 2,300 ranks, over the limit of 800 per level/
		);
	});
});

describe('the layout time budget', () => {
	it('stops between components once the budget is spent', () => {
		const level = { id: 'g:', children: Array.from({ length: 6 }, (_, i) => ({ id: `n${i}`, w: 10, h: 10 })), edges: [[0, 1], [2, 3], [4, 5]] as [number, number][] };
		let asked = 0;
		expect(() => layoutLevels([level], null, { shouldStop: () => ++asked > 1 })).toThrow(LayoutStopped);
		expect(asked).toBe(2);
		expect(Object.keys(layoutLevels([level], null, { shouldStop: () => false })['g:'].pos)).toHaveLength(6);
	});
});

describe('upload limits from the environment', () => {
	const saved = { ...process.env };
	afterEach(() => {
		process.env = { ...saved };
	});

	it('defaults, overrides, and ignores a value that is not a positive number', () => {
		delete process.env.TRIBUTARY_MAX_MANIFEST_NODES;
		expect(manifestLimits()).toEqual({ nodes: 30_000, bytes: 128 * 1024 * 1024 });
		process.env.TRIBUTARY_MAX_MANIFEST_NODES = '12';
		process.env.TRIBUTARY_MAX_MANIFEST_MB = '0.5';
		expect(manifestLimits()).toEqual({ nodes: 12, bytes: 512 * 1024 });
		expect(() => requireManifestNodes('manifest.json', 13)).toThrow(/^manifest\.json: 13 nodes is over the limit of 12 nodes \(TRIBUTARY_MAX_MANIFEST_NODES\)/);
		process.env.TRIBUTARY_MAX_PRODUCER_ANNOTATIONS = 'lots';
		expect(producerLimits().annotations).toBe(5000);
	});
});

describe('countAnnotationLines', () => {
	it.each([
		['-- materialize ducklake://main/t\n-- column a <- dbt://main/s/x.a\n  // column b <- ducklake://main/u.b', 3],
		['-- columns are listed below\n-- materialized daily\nselect 1 -- column a <- x', 0],
		['--column a <- x\r\n\t--  MATERIALIZE ducklake', 2]
	])('%j has %i', (sql, n) => {
		expect(countAnnotationLines(sql)).toBe(n);
	});
});
