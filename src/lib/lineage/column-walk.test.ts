import { describe, expect, it } from 'vitest';
import type { ColumnEdgeLike } from './components';
import { COLUMN_LINEAGE_LIMIT, keepNearest, reachComponent, walkColumnComponent } from './column-walk';
import { namedGraphs } from '../../../tests/support/test-graphs';

const show = (e: ColumnEdgeLike) => `${e.parentUniqueId}.${e.parentColumn}>${e.childUniqueId}.${e.childColumn}:${e.lineageKind}`;

const walks = namedGraphs.flatMap((g) => (g.walks ?? []).map((w) => ({ name: `${g.name} from ${w.select.join('+')}`, graph: g, ...w })));

describe('walkColumnComponent over the named graphs', () => {
	it('has walks to check', () => {
		expect(walks.length).toBeGreaterThanOrEqual(10);
	});

	it.each(walks)('$name', ({ graph, select, edges }) => {
		const got = walkColumnComponent(graph.edges, select);
		expect(got.edges.map(show)).toEqual(edges);
		expect(got.truncated).toBe(false);
	});

	it.each(namedGraphs)('$name: a walk from every relation stays inside the components it touches', ({ edges, components }) => {
		const relations = new Set(edges.flatMap((e) => [e.parentUniqueId, e.childUniqueId]));
		for (const r of relations) {
			const served = walkColumnComponent(edges, [r]).edges;
			const touched = components.filter((c) => c.some((col) => col.startsWith(`${r}.`)));
			const allowed = new Set(touched.flat());
			for (const e of served) {
				expect(allowed.has(`${e.parentUniqueId}.${e.parentColumn}`)).toBe(true);
				expect(allowed.has(`${e.childUniqueId}.${e.childColumn}`)).toBe(true);
				expect(['copy', 'mod']).toContain(e.lineageKind);
			}
			// ...and serves ALL of them: every direct edge of a touched component.
			const expected = new Set(
				edges
					.filter((e) => (e.lineageKind === 'copy' || e.lineageKind === 'mod') && allowed.has(`${e.parentUniqueId}.${e.parentColumn}`))
					.map(show)
			);
			expect(new Set(served.map(show))).toEqual(expected);
		}
	});

	it('serves edges sorted and de-duplicated whatever the input order', () => {
		const g = namedGraphs.find((x) => x.name === 'duplicate rows')!;
		const a = walkColumnComponent(g.edges, ['a']).edges.map(show);
		const b = walkColumnComponent([...g.edges].reverse(), ['a']).edges.map(show);
		expect(a).toEqual(b);
		expect(a).toEqual([...new Set(a)].sort());
	});
});

describe('the 5000-edge bound', () => {
	const chain = namedGraphs.find((g) => g.name === 'long chain')!.edges;

	it('keeps the edges nearest the selection, both directions, and says it cut', () => {
		// Selecting m10 of a 20-edge chain: depth 0 is m9→m10 and m10→m11, depth 1 the next pair out.
		const got = walkColumnComponent(chain, ['m10'], 4);
		expect(got.truncated).toBe(true);
		expect(got.edges.map(show)).toEqual(['m10.x>m11.x:copy', 'm11.x>m12.x:copy', 'm8.x>m9.x:copy', 'm9.x>m10.x:copy']);
	});

	it('is not truncated when exactly at the limit', () => {
		const got = walkColumnComponent(chain, ['m10'], 20);
		expect(got.edges).toHaveLength(20);
		expect(got.truncated).toBe(false);
		expect(walkColumnComponent(chain, ['m10'], 19).truncated).toBe(true);
	});

	it('counts duplicates once before deciding whether anything was cut', () => {
		const twice = [...chain, ...chain];
		const got = walkColumnComponent(twice, ['m0'], 20);
		expect(got.edges).toHaveLength(20);
		expect(got.truncated).toBe(false);
	});

	it('defaults to 5000 edges', () => {
		expect(COLUMN_LINEAGE_LIMIT).toBe(5000);
		const big: ColumnEdgeLike[] = Array.from({ length: 5001 }, (_, i) => ({
			parentUniqueId: 'src',
			parentColumn: 'id',
			childUniqueId: `m${i}`,
			childColumn: 'id',
			lineageKind: 'copy'
		}));
		expect(walkColumnComponent(big.slice(0, 5000), ['src'])).toMatchObject({ truncated: false });
		const cut = walkColumnComponent(big, ['src']);
		expect(cut.truncated).toBe(true);
		expect(cut.edges).toHaveLength(5000);
	});
});

describe('reachComponent depths and keepNearest', () => {
	it('gives each edge the BFS level of its nearer end', () => {
		const chain = namedGraphs.find((g) => g.name === 'long chain')!.edges;
		const depths = Object.fromEntries(reachComponent(chain, ['m10']).map((r) => [show(r.edge), r.depth]));
		expect(depths['m9.x>m10.x:copy']).toBe(0);
		expect(depths['m10.x>m11.x:copy']).toBe(0);
		expect(depths['m0.x>m1.x:copy']).toBe(9);
		expect(depths['m19.x>m20.x:copy']).toBe(9);
	});

	it('keeps the nearest copy of a duplicated key and breaks depth ties by key', () => {
		const r = keepNearest(
			[
				{ key: 'b', depth: 3, value: 'b-far' },
				{ key: 'b', depth: 0, value: 'b-near' },
				{ key: 'c', depth: 1, value: 'c' },
				{ key: 'a', depth: 1, value: 'a' }
			],
			2
		);
		expect(r).toEqual({ values: ['a', 'b-near'], truncated: true });
		expect(keepNearest([], 0)).toEqual({ values: [], truncated: false });
	});
});
