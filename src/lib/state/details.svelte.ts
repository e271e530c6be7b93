// What the details pane shows for the selection: the relation's description (read on
// selection) and the column trace around it (dbt's half fetched, the producers' half from the
// page), each dropping answers that arrive after the selection moved on.
import {
	assetColumns,
	buildProducerColumnGraph,
	connectedComponent,
	dbtRelationsOf,
	edgesAmong,
	emptyColumnGraph,
	mergeColumnGraphs,
	traceColumn,
	traceGeometry,
	traceLanes,
	type ColumnGraph,
	type ColumnId,
	type EdgeStyle,
	type Lane,
	type TraceGeometry
} from '$lib/lineage/column-trace';
import type { DbtProvenance, ProducerColumnLineage } from '$lib/types/asset-graph';
import { ColumnLineage, type LineageFetcher, type LineagePin } from './column-lineage.svelte';

export type RelationFetcher = (path: string) => Promise<DbtProvenance | null>;

/** The selected dbt relation's description. */
export class RelationDetails {
	path = $state<string | null>(null);
	dbt = $state.raw<DbtProvenance | null>(null);
	loading = $state(false);
	error = $state<string | null>(null);
	#fetch: RelationFetcher;
	#generation = 0;

	constructor(fetch: RelationFetcher) {
		this.#fetch = fetch;
	}

	async show(path: string | null): Promise<void> {
		const generation = ++this.#generation;
		this.path = path;
		this.dbt = null;
		this.error = null;
		this.loading = path !== null;
		if (path === null) return;
		try {
			const dbt = await this.#fetch(path);
			if (generation !== this.#generation) return;
			this.dbt = dbt;
		} catch (e) {
			if (generation !== this.#generation) return;
			this.error = e instanceof Error ? e.message : String(e);
		} finally {
			if (generation === this.#generation) this.loading = false;
		}
	}
}

export interface TraceTarget {
	kind: string;
	path: string;
	/** May this viewer see the relation's lineage at all? A share-link viewer may not. */
	authored: boolean;
}

/**
 * The trace around the selected asset: which dbt relations to fetch (the selection when it is
 * one; every dbt relation its producers read when it is a lake table), the merged graph, the
 * selected asset's component in lanes, and the traced column with what it dims.
 */
export class ColumnTraceView {
	target = $state.raw<TraceTarget | null>(null);
	/** The column clicked in the trace: its upstream and downstream stay lit. */
	traced = $state<ColumnId | null>(null);
	lineage: ColumnLineage;
	#producers: ColumnGraph = $state.raw(emptyColumnGraph());
	#pin: LineagePin;
	#columnOrder: (kind: string, path: string) => string[] | undefined = () => undefined;

	graph: ColumnGraph;
	/** The selected asset's own columns in the graph: none means nothing to draw (yet). */
	ownColumns: ColumnId[];
	component: Set<ColumnId>;
	lanes: Lane[];
	geometry: TraceGeometry;
	edges: { from: ColumnId; to: ColumnId; style: EdgeStyle }[];
	/** What stays lit while a column is traced; null when none is. */
	impact: Set<ColumnId> | null;
	/** What the pane shows: nothing (no target, or a viewer without lineage), loading, the trace, or empty. */
	state: 'none' | 'loading' | 'ready' | 'empty';

	constructor(fetcher: LineageFetcher, pin: LineagePin) {
		this.lineage = new ColumnLineage(fetcher);
		this.#pin = pin;
		// Derived in the constructor: they read `lineage`, which exists only from here on.
		this.graph = $derived(this.target?.authored ? mergeColumnGraphs(this.#producers, this.lineage.graph) : emptyColumnGraph());
		this.ownColumns = $derived(this.target ? assetColumns(this.graph, this.target.kind, this.target.path) : []);
		this.component = $derived(connectedComponent(this.ownColumns, this.graph));
		this.lanes = $derived(
			traceLanes(this.component, this.graph, {
				selected: this.target ?? undefined,
				columnOrder: (k, p) => this.#columnOrder(k, p)
			})
		);
		this.geometry = $derived(traceGeometry(this.lanes));
		this.edges = $derived(edgesAmong(this.component, this.graph));
		this.impact = $derived(this.traced ? traceColumn(this.traced, this.graph) : null);
		this.state = $derived(
			!this.target || !this.target.authored ? 'none' : this.ownColumns.length > 0 ? 'ready' : this.lineage.loading ? 'loading' : 'empty'
		);
	}

	setProducers(lineage: readonly { path: string; column_lineage: ProducerColumnLineage[] }[]): void {
		this.#producers = buildProducerColumnGraph({
			runnables: lineage.map((l) => ({ path: l.path, language: 'sql', script_hash: null, column_lineage: l.column_lineage }))
		});
	}

	setPin(pin: LineagePin): void {
		this.#pin = pin;
	}

	setColumnOrder(f: (kind: string, path: string) => string[] | undefined): void {
		this.#columnOrder = f;
	}

	/** The dbt relations whose lineage this selection needs. */
	relationsFor(t: TraceTarget): string[] {
		if (t.kind === 'dbt') return [t.path];
		const p = this.#producers;
		return dbtRelationsOf(connectedComponent(assetColumns(p, t.kind, t.path), p), p);
	}

	select(t: TraceTarget | null): Promise<void> {
		this.target = t;
		this.traced = null;
		if (!t || !t.authored) {
			this.lineage.clear();
			return Promise.resolve();
		}
		const paths = this.relationsFor(t);
		if (paths.length === 0) {
			this.lineage.clear();
			return Promise.resolve();
		}
		return this.lineage.request(paths, this.#pin);
	}

	trace(id: ColumnId | null): void {
		this.traced = this.traced === id ? null : id;
	}
}
