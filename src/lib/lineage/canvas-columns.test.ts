import { describe, expect, it } from 'vitest';
import { cardAnchor, cardRows, COLUMN_ROWS, columnsByAsset, link, producerVia, rowAnchor, rowsHeight, scanPath, tracePaths, type CardColumn, type Ends } from './canvas-columns';
import { buildDbtColumnGraph, columnId, edgeKey } from './column-trace';
import { col, edge, producer } from '../../../tests/support/trace-fixtures';

const cols = (n: number): CardColumn[] => Array.from({ length: n }, (_, i) => ({ name: `c${i}`, type: 'int', id: `id${i}` }));
const card = { id: 'dbt:main/s/orders', x: 100, y: 40, w: 220, h: 58 };

describe('cardRows', () => {
	it.each([
		{ n: 0, shown: 0, more: 0 },
		{ n: 3, shown: 3, more: 0 },
		{ n: COLUMN_ROWS.max, shown: COLUMN_ROWS.max, more: 0 },
		{ n: COLUMN_ROWS.max + 1, shown: COLUMN_ROWS.max - 1, more: 2 },
		{ n: 500, shown: COLUMN_ROWS.max - 1, more: 500 - COLUMN_ROWS.max + 1 }
	])('$n columns: $shown rows and $more folded', ({ n, shown, more }) => {
		const r = cardRows(cols(n));
		expect(r.shown.length).toBe(shown);
		expect(r.more).toBe(more);
		// Never taller than the cap, and the folded row is counted.
		expect(rowsHeight(r)).toBe((shown + (more ? 1 : 0)) * COLUMN_ROWS.row + 2 * COLUMN_ROWS.pad);
		expect(rowsHeight(r)).toBeLessThanOrEqual(COLUMN_ROWS.max * COLUMN_ROWS.row + 2 * COLUMN_ROWS.pad);
	});
});

describe('anchors', () => {
	it('a row meets edges at its middle, below the card, on either side', () => {
		const a = rowAnchor(card, 0);
		const b = rowAnchor(card, 3);
		expect(a.r).toEqual({ x: card.x + card.w, y: card.y + card.h + COLUMN_ROWS.pad + COLUMN_ROWS.row / 2 });
		expect(b.l.x).toBe(card.x);
		expect(b.l.y - a.r.y).toBe(3 * COLUMN_ROWS.row);
		expect(cardAnchor(card).l).toEqual({ x: card.x, y: card.y + card.h / 2 });
	});

	const at = (x: number, y = 0): Ends => ({ l: { x, y }, r: { x: x + 100, y } });
	it.each([
		{ name: 'target to the right: right side to left side', a: at(0), b: at(300), from: 'M100.0,0.0', to: ' 300.0,0.0' },
		{ name: 'target to the left: left side to right side', a: at(300), b: at(0), from: 'M300.0,0.0', to: ' 100.0,0.0' },
		{ name: 'one above the other: out and back in on the right', a: at(0), b: at(20, 80), from: 'M100.0,0.0', to: ' 120.0,80.0' }
	])('link, $name', ({ a, b, from, to }) => {
		const d = link(a, b);
		expect(d.startsWith(from)).toBe(true);
		expect(d.endsWith(to)).toBe(true);
	});
});

describe('producerVia', () => {
	it('names the script on each producer column edge', () => {
		const p = producer('f/x/report', { 'lake:report.total': ['orders.amount', 'payments.amount'] });
		const via = producerVia([{ path: p.path, column_lineage: p.column_lineage! }]);
		const id = (ref: string) => {
			const c = col(ref);
			return columnId(c.kind, c.path, c.column);
		};
		expect(via.get(edgeKey(id('orders.amount'), id('lake:report.total')))).toBe('f/x/report');
		expect(via.get(edgeKey(id('payments.amount'), id('lake:report.total')))).toBe('f/x/report');
		expect(via.size).toBe(2);
	});
});

describe('tracePaths', () => {
	const g = buildDbtColumnGraph([edge('a.x', 'b.x'), edge('a.x', 'c.x', 'mod'), edge('b.x', 'd.x')]);
	const ids = [...g.nodes.keys()];
	const edges = [...g.down].flatMap(([from, tos]) => [...tos].map((to) => ({ from, to, style: g.styles.get(edgeKey(from, to))! })));

	it('draws one path per style, leaves out an edge with an end off the canvas, and routes through a script', () => {
		const off = ids.find((i) => g.nodes.get(i)!.path.endsWith('/d'))!;
		const ends = new Map(ids.map((id, i): [string, Ends] => [id, { l: { x: i * 300, y: 10 }, r: { x: i * 300 + 200, y: 10 } }]));
		const anchor = (id: string) => (id === off ? null : ends.get(id)!);
		const plain = tracePaths(edges, anchor, () => null);
		expect(plain.count).toBe(2);
		expect(plain.copy.match(/M/g)).toHaveLength(1);
		expect(plain.mod.match(/M/g)).toHaveLength(1);
		expect(plain.producer).toBe('');
		const through = tracePaths(edges, anchor, (from) => (g.nodes.get(from)!.path.endsWith('/a') ? { l: { x: 250, y: 0 }, r: { x: 260, y: 0 } } : null));
		// An edge through a script is two curves: into the script's card, and out of it.
		expect(through.copy.match(/M/g)).toHaveLength(2);
		expect(through.copy).toContain('M260.0,0.0');
	});

	it('scan edges get their own path, only between anchored ends', () => {
		const s = scanPath([{ from: ids[0], to: ids[1] }, { from: ids[0], to: 'nowhere' }], (id) => (id === 'nowhere' ? null : { l: { x: 1, y: 2 }, r: { x: 3, y: 2 } }));
		expect(s.count).toBe(1);
	});
});

describe('columnsByAsset', () => {
	it('groups a graph\'s columns by asset', () => {
		const g = buildDbtColumnGraph([edge('a.x', 'b.x'), edge('a.y', 'b.y')]);
		const by = columnsByAsset(g);
		expect(by.size).toBe(2);
		expect(by.get('dbt\u0000main/s/a')!.map((i) => g.nodes.get(i)!.column)).toEqual(['x', 'y']);
	});
});
