// Columns on the canvas: which cards are expanded into
// their columns, the column graph they are traced on (dbt's half fetched per expanded relation,
// the producers' half from the page), the traced column, and the trace as SVG paths in the
// canvas's own coordinates. Apart from the details pane's trace: the canvas and the pane each
// keep their own selection of columns.
import { assetNodeId, scriptNodeId } from '$lib/lineage/canvas-model';
import {
	cardAnchor,
	cardRows,
	columnsByAsset,
	producerVia,
	rowAnchor,
	rowsHeight,
	scanPath,
	tracePaths,
	type CardColumn,
	type CardRows,
	type Ends,
	type TracePaths
} from '$lib/lineage/canvas-columns';
import {
	buildProducerColumnGraph,
	columnId,
	connectedComponent,
	dbtRelationsOf,
	edgeKey,
	edgesAmong,
	emptyColumnGraph,
	mergeColumnGraphs,
	traceColumn,
	type ColumnGraph,
	type ColumnId,
	type EdgeStyle
} from '$lib/lineage/column-trace';
import type { ColumnLineageAnswer, ColumnLineageEdge, DbtProvenance, ProducerColumnLineage } from '$lib/types/asset-graph';
import { attrId, type CanvasState } from './canvas.svelte';
import { ColumnLineage, type LineageFetcher, type LineagePin } from './column-lineage.svelte';

export type RelationFetcher = (path: string) => Promise<DbtProvenance | null>;
/** Column lineage with `include=scan`: only its `scan_edges` are read. */
export type ScanFetcher = (assetPath: string, pin: LineagePin) => Promise<ColumnLineageAnswer>;

export interface CanvasColumnsOptions {
	lineage: LineageFetcher;
	relation: RelationFetcher;
	scan: ScanFetcher;
	pin: LineagePin;
	/** May this viewer read columns and column lineage at all? A share-link holder may not. */
	authored: boolean;
	/** A relation's details the page already holds (the selection's), so expanding it reads nothing. */
	known?: (path: string) => DbtProvenance | null;
}

const columnsOfDetails = (d: DbtProvenance | null | undefined) =>
	d?.column_schema?.length ? d.column_schema.map((c) => ({ name: c.name, type: c.type ?? '' })) : Object.keys(d?.columns ?? {}).map((name) => ({ name, type: '' }));

const assetKey = (kind: string, path: string) => `${kind}\u0000${path}`;

export class CanvasColumns {
	/** Cards the user expanded, by node id. */
	expanded = $state.raw<ReadonlySet<string>>(new Set());
	/** The analyzed (typed, ordered) columns of the expanded dbt relations that have them, by node id. */
	typed = $state.raw<ReadonlyMap<string, { name: string; type: string }[]>>(new Map());
	/** Expanded cards whose columns are still being read. */
	loading = $state.raw<ReadonlySet<string>>(new Set());
	/** The column clicked on a card: its upstream and downstream are drawn. */
	traced = $state<ColumnId | null>(null);
	/** The scan lens: indirect influence drawn dotted, fetched only while on. */
	scan = $state(false);
	scanEdges = $state.raw<ColumnLineageEdge[]>([]);
	scanTruncated = $state(false);
	scanError = $state<string | null>(null);
	lineage: ColumnLineage;
	readonly authored: boolean;

	#canvas: CanvasState;
	#o: CanvasColumnsOptions;
	#producers = $state.raw<ColumnGraph>(emptyColumnGraph());
	#via = new Map<string, string>();
	#scanAsked = new Map<string, ColumnLineageEdge[]>();
	#scanGeneration = 0;

	graph: ColumnGraph;
	byAsset: Map<string, ColumnId[]>;
	impact: Set<ColumnId> | null;
	/** Every card drawn with rows: the expanded ones, and the cards a trace reaches (only their traced columns). */
	rows: Map<string, CardRows>;
	/** Where each drawn row is: its card and index (a folded column: the "+N more" row). */
	rowIndex: Map<ColumnId, { card: string; index: number }>;
	/** The edges drawn: the trace's while a column is traced, else those among expanded cards. */
	edges: { from: ColumnId; to: ColumnId; style: EdgeStyle }[];
	paths: TracePaths & { count: number };
	scanPaths: { d: string; count: number };
	/** CSS raising expanded cards above their neighbours, so the rows they hang are not covered. */
	css: string;

	constructor(canvas: CanvasState, o: CanvasColumnsOptions) {
		this.#canvas = canvas;
		this.#o = o;
		this.authored = o.authored;
		this.lineage = new ColumnLineage(o.lineage);
		this.graph = $derived(o.authored ? mergeColumnGraphs(this.#producers, this.lineage.graph) : emptyColumnGraph());
		this.byAsset = $derived(columnsByAsset(this.graph));
		this.impact = $derived(this.traced && this.graph.nodes.has(this.traced) ? traceColumn(this.traced, this.graph) : null);
		this.rows = $derived.by(() => {
			const out = new Map<string, CardRows>();
			for (const id of this.expanded) out.set(id, cardRows(this.columnsOf(id)));
			const impact = this.impact;
			if (!impact) return out;
			const extra = new Map<string, CardColumn[]>();
			for (const c of impact) {
				const n = this.graph.nodes.get(c)!;
				const card = assetNodeId(n.kind, n.path);
				if (out.has(card) || !this.#canvas.nodeById.has(card) || this.#canvas.unitOf(card) !== card) continue;
				const list = extra.get(card);
				const col = { name: n.column, type: '', id: c };
				if (list) list.push(col);
				else extra.set(card, [col]);
			}
			for (const [card, cols] of extra) out.set(card, cardRows(cols.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))));
			return out;
		});
		this.rowIndex = $derived.by(() => {
			const out = new Map<ColumnId, { card: string; index: number }>();
			for (const [card, r] of this.rows) {
				r.shown.forEach((c, i) => out.set(c.id, { card, index: i }));
				if (r.more) {
					const cols = this.expanded.has(card) ? this.columnsOf(card) : [];
					for (const c of cols.slice(r.shown.length)) out.set(c.id, { card, index: r.shown.length });
				}
			}
			return out;
		});
		this.edges = $derived.by(() => {
			const impact = this.impact;
			if (impact) return edgesAmong(impact, this.graph);
			const drawn = new Set(this.rowIndex.keys());
			return drawn.size ? edgesAmong(drawn, this.graph) : [];
		});
		this.paths = $derived.by(() => {
			const placed = this.#canvas.placed;
			return tracePaths(this.edges, (id) => this.#anchor(id, placed), (from, to) => {
				const script = this.#via.get(edgeKey(from, to));
				if (!script) return null;
				const sid = scriptNodeId(script);
				if (!this.#canvas.nodeById.has(sid)) return null;
				const p = placed.get(this.#canvas.unitOf(sid));
				return p ? cardAnchor(p) : null;
			});
		});
		this.scanPaths = $derived.by(() => {
			if (!this.scan) return { d: '', count: 0 };
			const placed = this.#canvas.placed;
			const ends = this.scanEdges.map((e) => ({ from: columnId('dbt', e.from_asset_path, e.from_column), to: columnId('dbt', e.to_asset_path, e.to_column) }));
			// Only those touching a drawn row: a scan edge is context for the columns being read,
			// not a trace of its own; its other end meets its row or, folded, its card.
			return scanPath(
				ends.filter((e) => this.rowIndex.has(e.from) || this.rowIndex.has(e.to)),
				(id) => this.#anchor(id, placed)
			);
		});
		this.css = $derived(
			[...this.rows.keys()].map((id) => `.tributary-canvas .svelte-flow__node${attrId(id)}{z-index:5!important}`).join('\n')
		);
	}

	#anchor(id: ColumnId, placed: Map<string, { id: string; x: number; y: number; w: number; h: number }>): Ends | null {
		const at = this.rowIndex.get(id);
		if (at) {
			const p = placed.get(at.card);
			return p ? rowAnchor(p, at.index) : null;
		}
		const n = this.graph.nodes.get(id);
		if (!n) return null;
		const card = assetNodeId(n.kind, n.path);
		if (!this.#canvas.nodeById.has(card)) return null;
		const p = placed.get(this.#canvas.unitOf(card));
		return p ? cardAnchor(p) : null;
	}

	/** The producer script carrying each producer column edge, by `edgeKey`. */
	get via(): ReadonlyMap<string, string> {
		return this.#via;
	}

	setProducers(lineage: readonly { path: string; column_lineage: ProducerColumnLineage[] }[]): void {
		this.#producers = buildProducerColumnGraph({
			runnables: lineage.map((l) => ({ path: l.path, language: 'sql', script_hash: null, column_lineage: l.column_lineage }))
		});
		this.#via = producerVia(lineage);
	}

	setPin(pin: LineagePin): void {
		this.#o = { ...this.#o, pin };
		this.#scanAsked.clear();
	}

	/**
	 * A card's columns, typed and in the relation's order where its analyzed schema is known,
	 * then any the lineage names that the schema does not; otherwise the lineage's, by name.
	 */
	columnsOf(id: string): CardColumn[] {
		const n = this.#canvas.nodeById.get(id);
		if (!n || n.type !== 'asset') return [];
		const typed = this.typed.get(id);
		const inGraph = this.byAsset.get(assetKey(n.kind, n.path)) ?? [];
		const out: CardColumn[] = [];
		const seen = new Set<string>();
		for (const c of typed ?? []) {
			out.push({ name: c.name, type: c.type, id: columnId(n.kind, n.path, c.name) });
			seen.add(c.name);
		}
		const rest = inGraph.map((c) => this.graph.nodes.get(c)!.column).filter((c) => !seen.has(c));
		if (!typed) rest.sort();
		for (const c of rest) out.push({ name: c, type: '', id: columnId(n.kind, n.path, c) });
		return out;
	}

	/** The overlay height of a card's rows (0: drawn without rows). */
	heightOf(id: string): number {
		const r = this.rows.get(id);
		return r ? rowsHeight(r) : 0;
	}

	isExpanded(id: string): boolean {
		return this.expanded.has(id);
	}

	/** Expand a card into its columns, or fold it back. Resolves once its columns are read. */
	toggle(id: string): Promise<void> {
		const next = new Set(this.expanded);
		if (next.has(id)) {
			next.delete(id);
			this.expanded = next;
			const t = this.traced ? this.graph.nodes.get(this.traced) : undefined;
			if (t && assetNodeId(t.kind, t.path) === id) this.traced = null;
			return Promise.resolve();
		}
		next.add(id);
		this.expanded = next;
		return this.#read(id);
	}

	async #read(id: string): Promise<void> {
		const n = this.#canvas.nodeById.get(id);
		if (!n || n.type !== 'asset' || !this.authored) return;
		const work: Promise<unknown>[] = [this.lineage.request(this.#relations(), this.#o.pin)];
		const held = n.kind === 'dbt' && !this.typed.has(id) ? columnsOfDetails(this.#o.known?.(n.path)) : [];
		if (held.length) this.typed = new Map(this.typed).set(id, held);
		if (n.kind === 'dbt' && !this.typed.has(id)) {
			this.loading = new Set(this.loading).add(id);
			work.push(
				this.#o
					.relation(n.path)
					.then((d) => {
						const cols = columnsOfDetails(d);
						if (cols.length) this.typed = new Map(this.typed).set(id, cols);
					})
					.catch(() => undefined)
					.finally(() => {
						const l = new Set(this.loading);
						l.delete(id);
						this.loading = l;
					})
			);
		}
		if (this.scan) work.push(this.#readScan());
		await Promise.all(work);
	}

	/** The dbt relations whose lineage the expanded cards need: each expanded one, and those a lake table's producers read. */
	#relations(): string[] {
		const out = new Set<string>();
		const p = this.#producers;
		for (const id of this.expanded) {
			const n = this.#canvas.nodeById.get(id);
			if (!n || n.type !== 'asset') continue;
			if (n.kind === 'dbt') out.add(n.path);
			else {
				const own = columnsByAsset(p).get(assetKey(n.kind, n.path)) ?? [];
				for (const r of dbtRelationsOf(connectedComponent(own, p), p)) out.add(r);
			}
		}
		return [...out].sort();
	}

	/** Trace a column on the canvas (again: clear it). */
	trace(id: ColumnId | null): void {
		this.traced = this.traced === id ? null : id;
	}

	/** Turn the scan lens on (fetching the scan edges of the expanded relations) or off. */
	async setScan(on: boolean): Promise<void> {
		this.scan = on;
		if (on) await this.#readScan();
	}

	async #readScan(): Promise<void> {
		if (!this.authored) return;
		const generation = ++this.#scanGeneration;
		const paths = this.#relations().filter((p) => !this.#scanAsked.has(p));
		this.scanError = null;
		const results = await Promise.allSettled(paths.map((p) => this.#o.scan(p, this.#o.pin)));
		results.forEach((r, i) => {
			if (r.status === 'fulfilled') {
				this.#scanAsked.set(paths[i], r.value.scan_edges ?? []);
				if (r.value.scan_truncated) this.scanTruncated = true;
			} else this.scanError = r.reason instanceof Error ? r.reason.message : String(r.reason);
		});
		if (generation !== this.#scanGeneration) return;
		const seen = new Set<string>();
		const all: ColumnLineageEdge[] = [];
		for (const list of this.#scanAsked.values()) {
			for (const e of list) {
				const k = `${e.from_asset_path}\u0000${e.from_column}\u0000${e.to_asset_path}\u0000${e.to_column}`;
				if (!seen.has(k)) {
					seen.add(k);
					all.push(e);
				}
			}
		}
		this.scanEdges = all;
	}

	/** Fold every card and clear the trace (a new graph). */
	reset(): void {
		this.expanded = new Set();
		this.traced = null;
		this.typed = new Map();
		this.#scanAsked.clear();
		this.scanEdges = [];
	}
}
