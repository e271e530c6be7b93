// The columns the search box's column selectors (`orders.amount`, `+orders.amount+1`) read: the
// producers' column lineage (carried by the page) and dbt's, fetched for the relations a column
// selector names. Its own ColumnLineage, so a search never disturbs the details pane's trace
// (its loading and failure states describe the pane's request only).
import { buildProducerColumnGraph, emptyColumnGraph, mergeColumnGraphs, type ColumnGraph } from '$lib/lineage/column-trace';
import { columnUniverse, type ColumnUniverse } from '$lib/lineage/selector';
import type { ProducerColumnLineage } from '$lib/types/asset-graph';
import { ColumnLineage, type LineageFetcher, type LineagePin } from './column-lineage.svelte';

export class ColumnSearch {
	lineage: ColumnLineage;
	/** Canvas node ids (`dbt:<path>`) whose dbt lineage arrived under the current pin. */
	fetched = $state.raw<ReadonlySet<string>>(new Set());
	/** Node ids asked for and refused (a failure, or a viewer without access): not asked again. */
	failed = $state.raw<ReadonlySet<string>>(new Set());
	#producers = $state.raw<ColumnGraph>(emptyColumnGraph());
	#pin: LineagePin;
	#authored: boolean;
	#wanted = new Set<string>();
	#generation = 0;
	graph: ColumnGraph;
	universe: ColumnUniverse | null;

	constructor(fetcher: LineageFetcher, pin: LineagePin, authored: boolean) {
		this.lineage = new ColumnLineage(fetcher);
		this.#pin = pin;
		this.#authored = authored;
		this.graph = $derived(mergeColumnGraphs(this.#producers, this.lineage.graph));
		// A dbt relation's columns are known once its own answer came; a lake table's come whole
		// with the producers that write it.
		this.universe = $derived.by(() => {
			if (!this.#authored) return null;
			const fetched = this.fetched;
			const failed = this.failed;
			return columnUniverse(this.graph, (id) => !id.startsWith('dbt:') || fetched.has(id) || failed.has(id));
		});
	}

	setProducers(lineage: readonly { path: string; column_lineage: ProducerColumnLineage[] }[]): void {
		this.#producers = buildProducerColumnGraph({
			runnables: lineage.map((l) => ({ path: l.path, language: 'sql', script_hash: null, column_lineage: l.column_lineage }))
		});
	}

	setPin(pin: LineagePin): void {
		this.#pin = pin;
		this.#generation++;
		this.#wanted.clear();
		this.fetched = new Set();
		this.failed = new Set();
	}

	/**
	 * Fetch the dbt lineage of these nodes (canvas ids). Each call asks for everything still
	 * wanted, so a call superseded while typing loses nothing: the latest one settles it all.
	 */
	async request(nodeIds: readonly string[]): Promise<void> {
		for (const id of nodeIds) if (id.startsWith('dbt:') && !this.fetched.has(id) && !this.failed.has(id)) this.#wanted.add(id);
		if (!this.#authored || this.#wanted.size === 0) return;
		const generation = ++this.#generation;
		const asked = [...this.#wanted];
		await this.lineage.request(
			asked.map((id) => id.slice('dbt:'.length)),
			this.#pin
		);
		if (generation !== this.#generation) return;
		const failed = new Set(this.lineage.failed.map((p) => `dbt:${p}`));
		this.fetched = new Set([...this.fetched, ...asked.filter((id) => !failed.has(id))]);
		if (failed.size) this.failed = new Set([...this.failed, ...failed]);
		this.#wanted.clear();
	}
}
