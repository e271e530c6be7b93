// One canvas page's state (pipeline, project, run): the canvas, the selected relation's
// details and its column trace, wired so a selection asks for exactly what it shows, under the
// same pin as the graph on screen.
import { untrack } from 'svelte';
import type { Direction, LevelLayout } from '$lib/lineage/canvas-sizes';
import { consumerNodeId, fromWire, type CanvasNode, type CanvasWire } from '$lib/lineage/canvas-model';
import type { GraphConsumer } from '$lib/types/consumers';
import type { DbtProvenance, ProducerColumnLineage } from '$lib/types/asset-graph';
import { CanvasState, httpLayoutFetcher } from './canvas.svelte';
import { httpLineageFetcher, type LineageFetcher, type LineagePin } from './column-lineage.svelte';
import { DeepLinkState } from './deep-link.svelte';
import { ColumnSearch } from './column-search.svelte';
import { ColumnTraceView, RelationDetails, type RelationFetcher } from './details.svelte';
import { CanvasColumns, type ScanFetcher } from './canvas-columns.svelte';
import { ImpactList, httpImpactFetcher, type ImpactFetcher } from './impact.svelte';
import { ColumnFocus, type FocusSource } from './column-focus.svelte';
import type { LayoutFetcher } from './canvas.svelte';

export interface LineagePageData {
	wire: CanvasWire;
	open: readonly string[];
	layouts: Record<string, LevelLayout>;
	direction?: Direction;
	producerLineage: { path: string; column_lineage: ProducerColumnLineage[] }[];
	consumers?: GraphConsumer[];
}

export interface LineagePageOptions {
	workspace: string;
	pin: LineagePin;
	/** Where one relation's details are read (the unpinned or the run's own endpoint). */
	relationUrl: (path: string) => string;
	/** A share-link holder: sent with every request, and nothing authored is asked for. */
	viewToken?: string | null;
	/** The run on screen (a run page): a share link lays out that run's levels only. */
	layoutJob?: () => string;
	/** Test seams; the browser's fetch by default. */
	lineageFetcher?: LineageFetcher;
	relationFetcher?: RelationFetcher;
	scanFetcher?: ScanFetcher;
	impactFetcher?: ImpactFetcher;
	layoutFetcher?: LayoutFetcher;
}

export function httpRelationFetcher(url: (path: string) => string, viewToken?: string | null): RelationFetcher {
	return async (path) => {
		const r = await fetch(url(path), { headers: viewToken ? { 'x-view-token': viewToken } : {} });
		if (r.status === 404) return null;
		if (!r.ok) throw new Error(`status ${r.status}`);
		return (await r.json()) as DbtProvenance;
	};
}

export class LineagePage {
	canvas: CanvasState;
	details: RelationDetails;
	trace: ColumnTraceView;
	/** The search box's column selectors: their own fetches, under the page's pin. */
	columnSearch: ColumnSearch;
	/** `?select=&column=`: what the URL opens on, and the URL following the page. */
	link: DeepLinkState;
	/** Cards expanded into their columns, and the column trace drawn across them on the canvas. */
	columns: CanvasColumns;
	/** The impact list of a traced column. */
	impact: ImpactList;
	/** The canvas showing only the traced column's path (the focus toggle). */
	focus: ColumnFocus;
	/** The consumer layer's entries by canvas node id: what a consumer's details pane shows. */
	consumers = $state.raw(new Map<string, GraphConsumer>());
	#authored: boolean;
	selectedNode: CanvasNode | null;

	constructor(o: LineagePageOptions) {
		const layout = o.layoutFetcher ?? httpLayoutFetcher(o.workspace, o.viewToken, o.layoutJob);
		this.canvas = new CanvasState(layout);
		// A lineage job that ends while its relation is shown changed that relation's lineage.
		this.details = new RelationDetails(o.relationFetcher ?? httpRelationFetcher(o.relationUrl, o.viewToken), {
			onLineageSettled: () => void this.trace.refresh()
		});
		this.trace = new ColumnTraceView(o.lineageFetcher ?? httpLineageFetcher(o.workspace), o.pin);
		this.link = new DeepLinkState(this.canvas, this.trace);
		this.columnSearch = new ColumnSearch(o.lineageFetcher ?? httpLineageFetcher(o.workspace), o.pin, !o.viewToken);
		this.canvas.columnSearch = this.columnSearch;
		this.#authored = !o.viewToken;
		const relationFetcher = o.relationFetcher ?? httpRelationFetcher(o.relationUrl, o.viewToken);
		this.columns = new CanvasColumns(this.canvas, {
			lineage: o.lineageFetcher ?? httpLineageFetcher(o.workspace),
			relation: relationFetcher,
			scan: o.scanFetcher ?? httpLineageFetcher(o.workspace, undefined, { include: 'scan' }),
			pin: o.pin,
			authored: !o.viewToken,
			known: (path) => (this.details.path === path ? this.details.dbt : null)
		});
		this.impact = new ImpactList(o.impactFetcher ?? httpImpactFetcher(o.workspace), o.pin);
		this.focus = new ColumnFocus(this.canvas, () => this.#focusSource(), layout);
		this.selectedNode = $derived(this.canvas.selected ? (this.canvas.nodeById.get(this.canvas.selected) ?? null) : null);
		// The trace lists an asset's columns in the order its analyzed schema gives, when the
		// pane has that schema (the selected relation); others by name.
		this.trace.setColumnOrder((kind, path) => {
			const d = this.details.dbt;
			return kind === 'dbt' && this.details.path === path && d?.column_schema ? d.column_schema.map((c) => c.name) : undefined;
		});
	}

	/** The column the focus toggle focuses on: the one traced on the canvas's cards, else the details pane's. */
	#focusSource(): FocusSource | null {
		const c = this.columns;
		if (c.traced && c.impact) return { column: c.traced, columns: c.impact, graph: c.graph, via: c.via };
		const t = this.trace;
		if (t.traced && t.path) return { column: t.traced, columns: t.path.columns, graph: t.graph, via: t.via };
		return null;
	}

	load(data: LineagePageData): void {
		// Another graph: its cards are other cards (a run's re-read of the same graph keeps them).
		if (data.wire.digest !== this.canvas.canvas.digest && this.canvas.canvas.digest) {
			this.columns.reset();
			this.focus.drop();
		}
		this.canvas.load({ canvas: fromWire(data.wire), open: data.open, layouts: data.layouts, direction: data.direction });
		this.trace.setProducers(data.producerLineage);
		this.trace.setConsumers(data.consumers ?? []);
		this.consumers = new Map((data.consumers ?? []).map((c) => [consumerNodeId(c.script_path, c.unique_id), c]));
		this.columnSearch.setProducers(data.producerLineage);
		this.columns.setProducers(data.producerLineage);
	}

	setPin(pin: LineagePin): void {
		this.trace.setPin(pin);
		this.columnSearch.setPin(pin);
		this.columns.setPin(pin);
		this.impact.setPin(pin);
	}

	/** Follow a selection: its details and its trace, both dropping stale answers. */
	follow(id: string | null): void {
		untrack(() => {
			const n = id ? this.canvas.nodeById.get(id) : undefined;
			const relation = n && n.type === 'asset' && n.kind === 'dbt' ? n.path : null;
			if (relation !== this.details.path) void this.details.show(relation);
			const settled = this.trace.select(n && n.type === 'asset' ? { kind: n.kind, path: n.path, authored: this.#authored } : null);
			this.link.followed(id, settled);
		});
	}
}
