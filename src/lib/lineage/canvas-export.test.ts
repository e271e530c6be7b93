import { describe, expect, it } from 'vitest';
import { COLUMN_ROWS } from './canvas-columns';
import { CARD } from './canvas-sizes';
import { canvasSvg, cropScene, edgePath, escapeXml, EXPORT_FONT, rasterSize, sceneBounds, type ExportCard, type ExportScene, type ExportStyle } from './canvas-export';

const STYLE: ExportStyle = {
	background: '#f5f7f9',
	surface: '#fff',
	text: '#1f2933',
	muted: '#5f6b76',
	edge: '#9aa8b5',
	chip: '#edf0f3',
	frame: '#b8c4cf',
	rowText: '#24292f',
	rowDim: '#6b7885',
	rowLit: '#e8f1fb',
	rowTraced: '#1d6fb8',
	traceCopy: '#6f8091',
	traceMod: '#c0561b',
	traceProducer: '#6b4fbb'
};

const HOSTILE = `order_total"><img src=x onerror=alert(1)>&<script>x</script>`;

function card(i: number, name: string, extra: Partial<ExportCard> = {}): ExportCard {
	return {
		id: `dbt:main/analytics/${name}`,
		x: (i % 8) * 300,
		y: Math.floor(i / 8) * 100,
		...CARD,
		name,
		chip: 'model',
		details: ['main/analytics', 'table', 'tests ✓3'],
		group: false,
		fill: '#fff',
		stroke: '#c9d3dc',
		stripe: '#ff694a',
		rows: null,
		...extra
	};
}

/** Forty cards in a chain and a fan, one with hostile text and expanded columns. */
function scene(): ExportScene {
	const cards = Array.from({ length: 40 }, (_, i) => card(i, `model_${String(i).padStart(2, '0')}_with_a_rather_long_name`));
	cards[5] = card(5, HOSTILE, { rows: [{ name: HOSTILE, type: 'int', state: 'traced' }, { name: 'order_id', type: 'int', state: 'lit' }, { name: '+3 more', type: '', state: 'more' }] });
	const edges = cards.slice(1).map((c, i) => ({ source: cards[i].id, target: c.id, width: i % 7 === 0 ? 3 : 1.3 }));
	return {
		cards,
		frames: [{ id: 'g:marts', x: -20, y: -40, w: 700, h: 300, label: 'marts <b>' }],
		edges,
		direction: 'LR',
		trace: { copy: 'M0,0 L10,10', mod: '', producer: 'M5,5 L20,20' }
	};
}

/** Tags in order; a well-formed document closes every one it opens. */
function balanced(svg: string): boolean {
	const stack: string[] = [];
	for (const m of svg.matchAll(/<(\/?)([a-zA-Z][\w:-]*)[^>]*?(\/?)>/g)) {
		if (m[1]) {
			if (stack.pop() !== m[2]) return false;
		} else if (!m[3]) stack.push(m[2]);
	}
	return stack.length === 0;
}

const count = (svg: string, tag: string) => [...svg.matchAll(new RegExp(`<${tag}[\\s>/]`, 'g'))].length;
const unescape = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
/** The character data of every <text>, unescaped. */
const texts = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => unescape(m[1]));

describe('canvasSvg', () => {
	const s = scene();
	const svg = canvasSvg(s, STYLE, 'Lineage of demo');

	it('is a vector drawing: rect, path and text elements, fonts named, no foreignObject', () => {
		expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="[\d.]+" height="[\d.]+" viewBox="/);
		expect(svg).not.toMatch(/foreignObject/i);
		expect(svg).toContain(`font-family="${escapeXml(EXPORT_FONT)}"`);
		expect(svg).toContain('font-family="ui-monospace');
		expect(balanced(svg)).toBe(true);
		// Card, chip and (not for a group) stripe per card, the background, the frame, the rows' box and lit rows.
		expect(count(svg, 'rect')).toBeGreaterThanOrEqual(40 * 3 + 2);
		// One path per edge, and the trace's non-empty styles.
		expect(count(svg, 'path')).toBe(39 + 2);
		// Name and details per card, chips, the frame label, the column rows and their types.
		expect(count(svg, 'text')).toBeGreaterThanOrEqual(40 * 3);
	});

	it('names every card in a text element, whole', () => {
		const t = texts(svg);
		for (const c of s.cards) expect(t).toContain(c.name);
		expect(t).toContain('main/analytics · table · tests ✓3');
		// A name too long for its card is narrowed to fit it, whole; a short one is left alone.
		const m = /<text x="([\d.]+)"[^>]*textLength="([\d.]+)" lengthAdjust="spacingAndGlyphs">model_00_with_a_rather_long_name</.exec(svg);
		expect(m).not.toBeNull();
		expect(+m![1] + +m![2]).toBeLessThanOrEqual(s.cards[0].x + s.cards[0].w);
		const short = canvasSvg({ ...s, cards: [card(0, 'orders')], edges: [] }, STYLE);
		expect(short).not.toMatch(/textLength[^>]*>orders</);
		expect(short).toMatch(/>orders</);
	});

	it('carries hostile text as text: no element or attribute comes out of it', () => {
		expect(svg).not.toMatch(/<img|<script|<b>/);
		expect(svg).not.toMatch(/<[a-z][^<>]*\sonerror=/);
		expect(texts(svg).filter((x) => x === HOSTILE).length).toBe(2);
		// Characters XML does not allow at all become spaces.
		expect(escapeXml('a\u0000b\u0007c')).toBe('a b c');
	});

	it('is a few hundred KB at most for forty nodes', () => {
		expect(new TextEncoder().encode(svg).length).toBeLessThan(300_000);
	});

	it('is sized to hold every card, its column rows and the frame', () => {
		const b = sceneBounds(s);
		const m = /width="([\d.]+)" height="([\d.]+)" viewBox="([-\d.]+) ([-\d.]+) ([\d.]+) ([\d.]+)"/.exec(svg)!;
		expect([+m[1], +m[2]]).toEqual([+m[5], +m[6]]);
		expect(+m[3]).toBeCloseTo(b.x, 0);
		for (const c of s.cards) {
			expect(c.x).toBeGreaterThanOrEqual(b.x);
			expect(c.x + c.w).toBeLessThanOrEqual(b.x + b.w);
			expect(c.y + c.h).toBeLessThanOrEqual(b.y + b.h);
		}
		expect(b.x).toBeLessThanOrEqual(-20);
		// A card low in the scene with rows: the bounds reach below its rows.
		const low = card(39, 'low', { rows: Array.from({ length: 10 }, (_, i) => ({ name: `c${i}`, type: '', state: 'plain' as const })) });
		const b2 = sceneBounds({ ...s, cards: [low] });
		expect(b2.y + b2.h).toBeGreaterThanOrEqual(low.y + low.h + 10 * COLUMN_ROWS.row);
	});

	it('draws edges from the outlet to the inlet along the direction', () => {
		const a = { x: 0, y: 0, w: 100, h: 50 };
		const b = { x: 300, y: 100, w: 100, h: 50 };
		expect(edgePath(a, b, 'LR')).toMatch(/^M100,25 C[\d.]+,25 [\d.]+,125 300,125$/);
		expect(edgePath(a, b, 'TB')).toMatch(/^M50,50 C50,[\d.]+ 350,[\d.]+ 350,100$/);
	});
});

describe('cropScene', () => {
	it('keeps the chosen cards and the edges between them, and the bounds shrink to them', () => {
		const s = scene();
		const keep = new Set([s.cards[10].id, s.cards[11].id, s.cards[12].id]);
		const c = cropScene(s, keep);
		expect(c.cards.map((x) => x.id)).toEqual([...keep]);
		expect(c.edges).toHaveLength(2);
		expect(c.frames).toEqual([]);
		const svg = canvasSvg(c, STYLE);
		expect(texts(svg)).toContain(s.cards[11].name);
		expect(texts(svg)).not.toContain(s.cards[0].name);
		expect(sceneBounds(c).w).toBeLessThan(sceneBounds(s).w);
	});
});

describe('rasterSize', () => {
	it('doubles the pixels, less where a browser canvas would refuse the size', () => {
		expect(rasterSize(1000, 500)).toEqual({ width: 2000, height: 1000, scale: 2 });
		const huge = rasterSize(20_000, 3000);
		expect(huge.width).toBeLessThanOrEqual(16384);
		expect(huge.width / huge.height).toBeCloseTo(20_000 / 3000, 1);
		const area = rasterSize(12_000, 12_000);
		expect(area.width * area.height).toBeLessThanOrEqual(120_000_000);
	});
});
