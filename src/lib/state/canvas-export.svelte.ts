// Export of the canvas as a file: the scene (every card of the cut, or the lit selection, with
// its edges, expanded columns and trace) from the canvas's model, written as SVG by the pure
// builder, and rasterised for a PNG. Not the viewport: the canvas renders only what is near it.
import { canvasSvg, cropScene, rasterSize, sceneBounds, type ExportCard, type ExportRow, type ExportScene, type ExportStyle } from '$lib/lineage/canvas-export';
import { isGroupId } from '$lib/lineage/canvas-groups';
import type { CanvasState } from './canvas.svelte';
import type { CanvasColumns } from './canvas-columns.svelte';

export type ImageFormat = 'svg' | 'png';
export type ExportScope = 'all' | 'selection';

/** A CSS colour by custom property, or by a lens class's `--lens` (the caller reads the DOM). */
export interface ColourSource {
	token: (name: string) => string;
	lens: (cls: string) => string;
}

const TEST_MARKS: Record<string, string> = { pass: '✓', fail: '✗', warn: '!', skip: '·' };

// The card's state colours, by the same tokens AssetCard's styles use.
const STATUS: Record<string, { stroke: string; fill: string }> = {
	running: { stroke: '--color-accent', fill: '--state-running-bg' },
	materialized: { stroke: '--state-success', fill: '--state-success-bg' },
	passed: { stroke: '--state-success', fill: '--state-success-bg' },
	failed: { stroke: '--state-failed', fill: '--color-danger-soft' },
	warned: { stroke: '--state-warned', fill: '--color-warning-soft' },
	skipped: { stroke: '--color-border-strong', fill: '--state-skipped-bg' }
};

/** Mixes a colour toward white, as the card's lens background does (`color-mix` is not SVG). */
function tint(colour: string, amount: number): string {
	const m = /^#([0-9a-f]{6})$/i.exec(colour) ?? null;
	const rgb = m ? [0, 2, 4].map((i) => parseInt(m[1].slice(i, i + 2), 16)) : /^rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(colour)?.slice(1, 4).map(Number);
	if (!rgb) return colour;
	const [r, g, b] = rgb.map((v) => Math.round(v * amount + 255 * (1 - amount)));
	return `rgb(${r}, ${g}, ${b})`;
}

/** The scene of the canvas as it is now: the whole cut, every card (drawn or not). */
export function canvasScene(canvas: CanvasState, columns: CanvasColumns | null, colours: ColourSource): ExportScene | null {
	const c = canvas.composed;
	if (!c) return null;
	const col = (v: string) => (v.startsWith('--') ? colours.token(v) : v);
	const cards: ExportCard[] = [];
	for (const p of c.cards) {
		if (isGroupId(p.id)) {
			const g = canvas.tree.groups.get(p.id);
			cards.push({
				...p,
				name: g?.label ?? p.id,
				chip: null,
				details: [g && g.category !== g.label ? g.category : '', `${(g?.leafCount ?? 0).toLocaleString('en-US')} nodes`].filter(Boolean),
				group: true,
				fill: col('--group-stripe-a'),
				stroke: col('--color-border-frame'),
				stripe: col('--color-border-frame'),
				rows: null
			});
			continue;
		}
		const node = canvas.nodeById.get(p.id);
		if (!node) continue;
		const chip =
			node.type === 'consumer'
				? node.kind.replace('_', ' ')
				: node.type === 'runnable'
					? node.kind === 'openlineage' ? 'OL job' : node.kind
					: node.kind === 'ducklake' ? 'lake' : node.kind === 'openlineage' ? 'dataset' : (node.resourceType ?? node.kind);
		const details: string[] = [node.schema];
		const mat = node.resourceType === 'source' || node.resourceType === 'seed' ? null : node.materialized;
		if (mat) details.push(mat);
		const tested = canvas.testStatus.get(p.id);
		if (node.tests && node.tests.error + node.tests.warn > 0) {
			details.push(`tests ${tested ? TEST_MARKS[tested] : ''}${node.tests.error + node.tests.warn}${node.tests.warn ? ` (${node.tests.warn}w)` : ''}`);
		}
		const status = canvas.status.get(p.id);
		if (status) details.push(status.status === 'materialized' && status.rowCount !== undefined ? `${status.rowCount.toLocaleString('en-US')} rows` : status.status);
		let stripe = col(node.type === 'runnable' ? '--color-kind-script' : node.kind === 'dbt' ? '--color-kind-dbt' : node.kind === 'ducklake' ? '--color-kind-lake' : node.kind === 'openlineage' ? '--color-kind-openlineage' : '--color-kind-other');
		let fill = col(node.type === 'runnable' ? '--color-kind-script-soft' : '--color-surface');
		let stroke = col('--color-border-strong');
		const st = status ? STATUS[status.status] : undefined;
		if (st) {
			fill = col(st.fill);
			stroke = col(st.stroke);
			if (status?.status === 'failed') stripe = stroke;
		}
		const lensKey = canvas.lensOf(p.id);
		if (lensKey) {
			const lens = colours.lens(`lens-${canvas.lens}-${lensKey}`);
			if (lens) {
				stripe = lens;
				fill = tint(lens, 0.16);
			}
		}
		const r = columns?.rows.get(p.id);
		let rows: ExportRow[] | null = null;
		if (r) {
			const impact = columns?.impact ?? null;
			rows = r.shown.map((cl) => ({
				name: cl.name,
				type: cl.type,
				state: columns?.traced === cl.id ? 'traced' : impact ? (impact.has(cl.id) ? 'lit' : 'dim') : 'plain'
			}));
			if (r.more) rows.push({ name: `+${r.more} more`, type: '', state: 'more' });
		}
		cards.push({ ...p, name: node.name, chip, details, group: false, fill, stroke, stripe, rows });
	}
	const frames = c.frames.map((f) => ({ ...f, label: canvas.tree.groups.get(f.id)?.label ?? '' }));
	const edges = canvas.edges.map((e) => ({ source: e.source, target: e.target, width: e.count > 1 ? Math.min(1.3 + Math.log2(e.count), 6) : 1.3 }));
	const p = columns?.paths;
	return { cards, frames, edges, direction: canvas.direction, trace: p ? { copy: p.copy, mod: p.mod, producer: p.producer } : null };
}

export function exportStyle(colours: ColourSource): ExportStyle {
	const t = colours.token;
	return {
		background: t('--color-bg'),
		surface: t('--color-surface'),
		text: t('--color-text'),
		muted: t('--color-text-muted'),
		edge: t('--color-edge'),
		chip: t('--color-surface-sunk'),
		frame: t('--color-border-frame'),
		rowText: t('--color-code-text'),
		rowDim: t('--color-text-faint'),
		rowLit: t('--columns-row-lit') || t('--color-accent-soft'),
		rowTraced: t('--color-accent'),
		traceCopy: t('--trace-copy') || t('--color-kind-other'),
		traceMod: t('--trace-mod'),
		traceProducer: t('--trace-producer') || t('--color-kind-script')
	};
}

/** The export controls' state: what to export, and the one export under way. */
export class CanvasExport {
	scope = $state<ExportScope>('all');
	exporting = $state<ImageFormat | null>(null);
	error = $state<string | null>(null);
	#canvas: CanvasState;
	#columns: () => CanvasColumns | null;

	constructor(canvas: CanvasState, columns: () => CanvasColumns | null) {
		this.#canvas = canvas;
		this.#columns = columns;
	}

	/** The cards lit now (the selection's lineage or the search's matches): what "selection" exports. */
	get selection(): ReadonlySet<string> | null {
		const f = this.#canvas.focusUnits;
		return f && f.size ? f : null;
	}

	/** The SVG text of the chosen scope. */
	svg(colours: ColourSource, title: string): { text: string; width: number; height: number } {
		let scene = canvasScene(this.#canvas, this.#columns(), colours);
		if (!scene) throw new Error('the canvas is not laid out yet');
		const only = this.scope === 'selection' ? this.selection : null;
		if (only) scene = cropScene(scene, only);
		const b = sceneBounds(scene);
		return { text: canvasSvg(scene, exportStyle(colours), title), width: b.w, height: b.h };
	}

	/** Runs one export; its failure is shown rather than thrown. */
	async run(format: ImageFormat, make: (format: ImageFormat) => Promise<void>): Promise<void> {
		if (this.exporting) return;
		this.exporting = format;
		this.error = null;
		try {
			await make(format);
		} catch (err) {
			this.error = err instanceof Error ? err.message : String(err);
		} finally {
			this.exporting = null;
		}
	}
}

export { rasterSize };
