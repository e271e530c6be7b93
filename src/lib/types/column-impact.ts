// Wire shape of the column impact read: what one column feeds (or is fed by)
// across dbt models, producer scripts and lake tables. Shared by the server and the browser.

export interface ColumnImpactEntry {
	/** The asset kind: `dbt` or `ducklake`. */
	kind: string;
	asset_path: string;
	column: string;
	/** Edges from the asked column along the shortest path: 1 for a direct child (or parent). */
	depth: number;
	/** The edge kinds along that path, in walking order; `producer` where a producer's annotation did not say copy or mod. */
	kinds: ('copy' | 'mod' | 'producer')[];
	/** Producer scripts on that path, in walking order. */
	via: string[];
}

/** A dbt test on a listed relation. */
export interface ColumnImpactTest {
	kind: string | null;
	/** The tested column; null for a test of the whole relation. */
	column: string | null;
	severity: string | null;
}

export interface ColumnImpactAnswer {
	columns: ColumnImpactEntry[];
	/** True only when reachable columns were actually left out (or the lineage walked was cut at its own bound). */
	truncated: boolean;
	/** Reached columns of relations this caller may not see: counted, never named, never walked through. */
	withheld: number;
	/** The tests on each listed dbt relation, by asset path (relations without tests are absent). */
	tests: Record<string, ColumnImpactTest[]>;
	/**
	 * Downstream only: the metrics, semantic models, saved queries and exposures the asked column
	 * and the listed ones reach (what the change breaks); absent when none.
	 */
	consumers?: ColumnImpactConsumer[];
}

export interface ColumnImpactConsumer {
	type: 'semantic_model' | 'metric' | 'saved_query' | 'exposure';
	name: string;
	label: string | null;
	unique_id: string;
	script_path: string;
	/** What reaches it: columns (`orders.amount`), or the consumer it is built on (`metric revenue`). */
	via: string[];
}
