// The canvas as a drawing file, built from the graph model (positions, sizes, labels, edges)
// rather than copied from the DOM: the canvas renders only what is near the viewport, and an HTML
// snapshot wrapped in an SVG opens in browsers only. This is plain SVG (rect, path, text) with
// the fonts named, so Inkscape, a browser and GitHub's image view all draw it. Pure: the page
// resolves colours and hands a scene in; the PNG is this SVG rasterised.
import type { Direction } from './canvas-sizes';
import { COLUMN_ROWS } from './canvas-columns';

export interface ExportBox {
	x: number;
	y: number;
	w: number;
	h: number;
}

/** A column row hanging below an expanded card; `more` is the "+N more" line. */
export interface ExportRow {
	name: string;
	type: string;
	state: 'plain' | 'lit' | 'traced' | 'dim' | 'more';
}

export interface ExportCard extends ExportBox {
	id: string;
	name: string;
	/** The kind chip (`model`, `lake`, `python`...) or, for a closed group, null. */
	chip: string | null;
	/** The second line: schema, materialization, tests, status, already worded. */
	details: string[];
	group: boolean;
	/** Colours, resolved by the caller from the design tokens and the card's state. */
	fill: string;
	stroke: string;
	stripe: string;
	rows: ExportRow[] | null;
}

export interface ExportFrame extends ExportBox {
	id: string;
	label: string;
}

export interface ExportEdge {
	source: string;
	target: string;
	width: number;
}

/** The column trace drawn over the cards, one path per edge style, in canvas coordinates. */
export interface ExportTrace {
	copy: string;
	mod: string;
	producer: string;
}

export interface ExportScene {
	cards: ExportCard[];
	frames: ExportFrame[];
	edges: ExportEdge[];
	direction: Direction;
	trace: ExportTrace | null;
}

export interface ExportStyle {
	background: string;
	/** Behind a card's column rows. */
	surface: string;
	text: string;
	muted: string;
	edge: string;
	chip: string;
	frame: string;
	rowText: string;
	rowDim: string;
	rowLit: string;
	rowTraced: string;
	traceCopy: string;
	traceMod: string;
	traceProducer: string;
}

/** Named in the file so every viewer picks a close system face; nothing is embedded. */
export const EXPORT_FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif";
export const EXPORT_MONO = "ui-monospace, 'SF Mono', Menlo, Consolas, 'DejaVu Sans Mono', monospace";
/** Room around the drawing, in canvas units. */
export const EXPORT_PAD = 24;

/** XML 1.0 forbids most control characters even escaped; they become spaces. */
export function escapeXml(s: string): string {
	return s
		.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, ' ')
		.replace(/&/g, '&amp;')
		.replace(/</g, '&lt;')
		.replace(/>/g, '&gt;')
		.replace(/"/g, '&quot;')
		.replace(/'/g, '&#39;');
}

const rowsHeight = (c: ExportCard) => (c.rows ? 2 * COLUMN_ROWS.pad + c.rows.length * COLUMN_ROWS.row : 0);

/** The area a card covers, its hanging column rows included. */
export function cardExtent(c: ExportCard): ExportBox {
	return { x: c.x, y: c.y, w: c.w, h: c.h + rowsHeight(c) };
}

/** Only the cards in `keep`, the edges between them, and no frames: the export of a selection. */
export function cropScene(scene: ExportScene, keep: ReadonlySet<string>): ExportScene {
	const cards = scene.cards.filter((c) => keep.has(c.id));
	const ids = new Set(cards.map((c) => c.id));
	return {
		cards,
		frames: [],
		edges: scene.edges.filter((e) => ids.has(e.source) && ids.has(e.target)),
		direction: scene.direction,
		trace: scene.trace
	};
}

/** The box holding every card and frame, padded; an empty scene is a small empty box. */
export function sceneBounds(scene: ExportScene, pad = EXPORT_PAD): ExportBox {
	let x0 = Infinity;
	let y0 = Infinity;
	let x1 = -Infinity;
	let y1 = -Infinity;
	for (const b of [...scene.frames, ...scene.cards.map(cardExtent)]) {
		x0 = Math.min(x0, b.x);
		y0 = Math.min(y0, b.y);
		x1 = Math.max(x1, b.x + b.w);
		y1 = Math.max(y1, b.y + b.h);
	}
	if (x0 === Infinity) return { x: 0, y: 0, w: 2 * pad, h: 2 * pad };
	return { x: x0 - pad, y: y0 - pad, w: x1 - x0 + 2 * pad, h: y1 - y0 + 2 * pad };
}

const n = (v: number) => (Math.round(v * 10) / 10).toString();

/** An edge from one card's outlet to the next card's inlet, the way the canvas draws it (a cubic). */
export function edgePath(a: ExportBox, b: ExportBox, direction: Direction): string {
	if (direction === 'LR') {
		const x1 = a.x + a.w;
		const y1 = a.y + a.h / 2;
		const x2 = b.x;
		const y2 = b.y + b.h / 2;
		const d = Math.max(Math.abs(x2 - x1) / 2, 24);
		return `M${n(x1)},${n(y1)} C${n(x1 + d)},${n(y1)} ${n(x2 - d)},${n(y2)} ${n(x2)},${n(y2)}`;
	}
	const x1 = a.x + a.w / 2;
	const y1 = a.y + a.h;
	const x2 = b.x + b.w / 2;
	const y2 = b.y;
	const d = Math.max(Math.abs(y2 - y1) / 2, 24);
	return `M${n(x1)},${n(y1)} C${n(x1)},${n(y1 + d)} ${n(x2)},${n(y2 - d)} ${n(x2)},${n(y2)}`;
}

/** Advance widths of a typical sans-serif face, in em, by character class. */
function charEm(ch: string): number {
	if (/[iljI!.,:;'|·\s]/.test(ch)) return 0.28;
	if (/[ftr()/\[\]-]/.test(ch)) return 0.36;
	if (/[mwMW]/.test(ch)) return 0.86;
	if (/[A-Z]/.test(ch)) return 0.68;
	return 0.56;
}

/** An estimate of text's width in the UI face: to place the name after its chip, and to tell when it must be narrowed. */
function textWidth(s: string, px: number, bold = false): number {
	let em = 0;
	for (const ch of s) em += charEm(ch);
	return em * px * (bold ? 1.08 : 1);
}

/** Narrowed to `room` when it would likely overrun the card; the clip path is the last resort. */
const fitAttr = (s: string, px: number, room: number, bold = false) =>
	textWidth(s, px, bold) > room ? ` textLength="${n(room)}" lengthAdjust="spacingAndGlyphs"` : '';

function cardSvg(c: ExportCard, i: number, s: ExportStyle): string {
	const out: string[] = [];
	const clip = `card-clip-${i}`;
	out.push(`<g class="card${c.group ? ' group' : ''}">`);
	out.push(`<title>${escapeXml(c.name)}</title>`);
	out.push(`<clipPath id="${clip}"><rect x="${n(c.x)}" y="${n(c.y)}" width="${n(c.w)}" height="${n(c.h)}" rx="7"/></clipPath>`);
	out.push(`<rect x="${n(c.x)}" y="${n(c.y)}" width="${n(c.w)}" height="${n(c.h)}" rx="7" fill="${escapeXml(c.fill)}" stroke="${escapeXml(c.stroke)}"/>`);
	if (!c.group) out.push(`<rect x="${n(c.x)}" y="${n(c.y)}" width="4" height="${n(c.h)}" fill="${escapeXml(c.stripe)}" clip-path="url(#${clip})"/>`);
	const left = c.x + (c.group ? 10 : 12);
	let nameX = left;
	out.push(`<g clip-path="url(#${clip})">`);
	if (c.chip) {
		const w = textWidth(c.chip, 11) + 8;
		out.push(`<rect x="${n(left)}" y="${n(c.y + 7)}" width="${n(w)}" height="16" rx="3" fill="${escapeXml(s.chip)}"/>`);
		out.push(`<text x="${n(left + 5)}" y="${n(c.y + 19)}" font-size="11" fill="${escapeXml(s.muted)}">${escapeXml(c.chip)}</text>`);
		nameX = left + w + 6;
	}
	const right = c.x + c.w - 8;
	out.push(`<text x="${n(nameX)}" y="${n(c.y + 20)}" font-size="13" font-weight="600" fill="${escapeXml(s.text)}"${fitAttr(c.name, 13, right - nameX, true)}>${escapeXml(c.name)}</text>`);
	if (c.details.length) {
		const d = c.details.join(' · ');
		out.push(`<text x="${n(left)}" y="${n(c.y + c.h - 10)}" font-size="11" fill="${escapeXml(s.muted)}"${fitAttr(d, 11, right - left)}>${escapeXml(d)}</text>`);
	}
	out.push('</g>');
	if (c.rows) {
		const top = c.y + c.h;
		out.push(`<rect x="${n(c.x)}" y="${n(top)}" width="${n(c.w)}" height="${n(rowsHeight(c))}" fill="${escapeXml(s.surface)}" stroke="${escapeXml(c.stroke)}"/>`);
		c.rows.forEach((r, k) => {
			const y = top + COLUMN_ROWS.pad + k * COLUMN_ROWS.row;
			if (r.state === 'lit' || r.state === 'traced') {
				out.push(`<rect x="${n(c.x + 1)}" y="${n(y)}" width="${n(c.w - 2)}" height="${COLUMN_ROWS.row}" fill="${escapeXml(r.state === 'traced' ? s.rowTraced : s.rowLit)}"/>`);
			}
			const fill = r.state === 'traced' ? s.surface : r.state === 'dim' || r.state === 'more' ? s.rowDim : s.rowText;
			const weight = r.state === 'lit' ? ' font-weight="600"' : '';
			out.push(`<text x="${n(c.x + 8)}" y="${n(y + 13)}" font-family="${escapeXml(EXPORT_MONO)}" font-size="11" fill="${escapeXml(fill)}"${weight}>${escapeXml(r.name)}</text>`);
			if (r.type) out.push(`<text x="${n(c.x + c.w - 8)}" y="${n(y + 13)}" text-anchor="end" font-family="${escapeXml(EXPORT_MONO)}" font-size="10" fill="${escapeXml(s.rowDim)}">${escapeXml(r.type)}</text>`);
		});
	}
	out.push('</g>');
	return out.join('');
}

/** The scene as a standalone SVG document, sized to its bounds (one canvas unit per pixel). */
export function canvasSvg(scene: ExportScene, s: ExportStyle, title = 'Lineage'): string {
	const b = sceneBounds(scene);
	const byId = new Map(scene.cards.map((c) => [c.id, c]));
	const out: string[] = [];
	out.push(
		`<svg xmlns="http://www.w3.org/2000/svg" width="${n(b.w)}" height="${n(b.h)}" viewBox="${n(b.x)} ${n(b.y)} ${n(b.w)} ${n(b.h)}" font-family="${escapeXml(EXPORT_FONT)}">`
	);
	out.push(`<title>${escapeXml(title)}</title>`);
	out.push(`<rect x="${n(b.x)}" y="${n(b.y)}" width="${n(b.w)}" height="${n(b.h)}" fill="${escapeXml(s.background)}"/>`);
	if (scene.frames.length) {
		out.push('<g class="frames">');
		for (const f of scene.frames) {
			out.push(`<rect x="${n(f.x)}" y="${n(f.y)}" width="${n(f.w)}" height="${n(f.h)}" rx="12" fill="none" stroke="${escapeXml(s.frame)}" stroke-width="1.5" stroke-dasharray="6 4"/>`);
			out.push(`<text x="${n(f.x + 12)}" y="${n(f.y + 20)}" font-size="12" fill="${escapeXml(s.muted)}">${escapeXml(f.label)}</text>`);
		}
		out.push('</g>');
	}
	out.push(`<g class="edges" fill="none" stroke="${escapeXml(s.edge)}" stroke-width="1.3">`);
	for (const e of scene.edges) {
		const a = byId.get(e.source);
		const c = byId.get(e.target);
		if (!a || !c) continue;
		const w = e.width > 1.3 ? ` stroke-width="${n(e.width)}"` : '';
		out.push(`<path d="${edgePath(a, c, scene.direction)}"${w}/>`);
	}
	out.push('</g>');
	out.push('<g class="cards">');
	scene.cards.forEach((c, i) => out.push(cardSvg(c, i, s)));
	out.push('</g>');
	const t = scene.trace;
	if (t && (t.copy || t.mod || t.producer)) {
		out.push('<g class="trace" fill="none" stroke-width="1.6">');
		if (t.copy) out.push(`<path d="${escapeXml(t.copy)}" stroke="${escapeXml(s.traceCopy)}"/>`);
		if (t.mod) out.push(`<path d="${escapeXml(t.mod)}" stroke="${escapeXml(s.traceMod)}" stroke-dasharray="5 3"/>`);
		if (t.producer) out.push(`<path d="${escapeXml(t.producer)}" stroke="${escapeXml(s.traceProducer)}" stroke-dasharray="2 3"/>`);
		out.push('</g>');
	}
	out.push('</svg>');
	return out.join('\n');
}

/**
 * The pixel size of a raster of a drawing: `scale` pixels per canvas unit (text stays sharp at
 * twice the pixels), less where a browser's canvas would refuse the size.
 */
export function rasterSize(w: number, h: number, scale = 2, maxSide = 16384, maxPixels = 120_000_000): { width: number; height: number; scale: number } {
	const k = Math.min(scale, maxSide / w, maxSide / h, Math.sqrt(maxPixels / (w * h)));
	return { width: Math.max(1, Math.round(w * k)), height: Math.max(1, Math.round(h * k)), scale: k };
}
