// Wire shapes of the read API (DESIGN.md §6): the asset graph and column lineage. Shared by the
// server (which builds them from plain rows, never Drizzle objects) and the browser.
import type { JobStatus } from './jobs';
import type { GraphConsumer } from './consumers';

export const ASSET_KINDS = ['dbt', 'ducklake', 'openlineage'] as const;
export type AssetKind = (typeof ASSET_KINDS)[number];

export function isAssetKind(s: string): s is AssetKind {
	return (ASSET_KINDS as readonly string[]).includes(s);
}

export type UsageAccess = 'r' | 'w' | 'rw';

/**
 * The languages of producers: scripts whose lineage is stored per output column
 * (producer_column_lineage) and drawn as runnable nodes. `openlineage`: a job another tool
 * reported over OpenLineage.
 */
export const PRODUCER_LANGUAGES = ['sql', 'openlineage'] as const;

export function isProducerLanguage(language: string): boolean {
	return (PRODUCER_LANGUAGES as readonly string[]).includes(language);
}

/**
 * A dbt test folded onto the relation it tests. `column` and `args` are authored (a column
 * name; an accepted_values list is a column's domain): absent when the provenance is redacted.
 */
export interface DbtDataTest {
	kind: string | null;
	column?: string | null;
	severity: string | null;
	args?: unknown;
}

/**
 * What a dbt project says about one relation. The shape (ids, resource type, materialization,
 * test kinds) is always present; the authored fields are omitted entirely (not nulled) when
 * `authored` is false, so "absent" never looks like "empty".
 */
export interface DbtProvenance {
	script_path: string;
	/** 16 hex digits; null for a preview's graph. */
	script_hash: string | null;
	unique_id: string;
	resource_type: string;
	materialized: string | null;
	materialize_strategy: string | null;
	data_tests: DbtDataTest[];
	/** Whether the authored fields below were served to this caller. */
	authored: boolean;
	tags?: string[];
	description?: string | null;
	columns?: Record<string, string> | null;
	column_schema?: { name: string; type?: string }[] | null;
	freshness?: unknown;
	raw_code?: string | null;
	original_file_path?: string | null;
	/**
	 * How this relation's column lineage came about (the relation endpoints fill it; absent in the
	 * asset graph). Only for a caller shown the authored fields: messages quote the compiled SQL.
	 */
	column_lineage?: ModelColumnLineage | null;
}

/** too_complex: the SQL was past a limit of the scan before parsing (its message names the figure). */
export type ModelOutcomeKind = 'analyzed' | 'partial' | 'failed' | 'skipped' | 'too_complex';

export interface ModelColumnLineage {
	/** null: this graph has no column lineage at all. */
	source: 'engine' | 'inferred' | null;
	/** The lineage job, for inferred graphs. */
	job: { id: string; status: JobStatus; done: number | null; total: number | null } | null;
	/** null while the job is queued or running, when it failed, for engine lineage, and for a relation the job did not analyse (a source, a seed). */
	outcome: ModelOutcomeKind | null;
	/** failed: the parser's message (with line and column in the compiled SQL); skipped, too_complex: the reason; a failed job: why. */
	message: string | null;
	line: number | null;
	column: number | null;
	/** partial: the output columns that could not be traced, and why. */
	untraced: { column: string; reason: string }[];
}

export interface GraphAsset {
	kind: AssetKind;
	path: string;
	dbt?: DbtProvenance;
}

export interface ProducerColumnInput {
	from_kind: string;
	from_path: string;
	from_column: string;
	source: 'annotation' | 'inferred';
	/** copy or mod as inferred from the SQL; null when an annotation did not say. */
	kind: 'copy' | 'mod' | null;
}

/** A producer's lineage for one output column of one asset it writes. */
export interface ProducerColumnLineage {
	asset_kind: string;
	asset_path: string;
	column: string;
	inputs: ProducerColumnInput[];
}

export interface GraphRunnable {
	path: string;
	language: string;
	/** The version drawn: 16 hex digits, null for a preview. */
	script_hash: string | null;
	dbt?: { model_count: number };
	/** Producer scripts only, and only for a caller who may read the script. */
	column_lineage?: ProducerColumnLineage[];
}

/** A script reads or writes an asset (informational lineage, not an execution order). */
export interface GraphUsageEdge {
	runnable_path: string;
	asset_kind: AssetKind;
	asset_path: string;
	access: UsageAccess;
}

/** A `ref()`/`source()` edge of a dbt project, resolved to the two relations. */
export interface DbtRefEdge {
	from_asset_path: string;
	to_asset_path: string;
}

export interface AssetGraph {
	assets: GraphAsset[];
	runnables: GraphRunnable[];
	edges: GraphUsageEdge[];
	dbt_edges: DbtRefEdge[];
	/** How many scripts and assets in the asked scope were withheld from this caller (never which). */
	hidden: number;
	/** Exposures, semantic models, metrics and saved queries of the drawn projects; absent when none. */
	consumers?: GraphConsumer[];
	/** The job whose own stored graph answered (a run snapshot or a preview); absent otherwise. */
	dbt_snapshot_job?: string;
	/** When the pinned graph was stored; present only when the answer is pinned to a job. */
	dbt_graph_ingested_at?: string;
}

export interface ColumnLineageEdge {
	from_asset_path: string;
	from_column: string;
	to_asset_path: string;
	to_column: string;
	kind: string;
	/** engine: from the uploaded index; inferred: from the compiled SQL by a lineage job. */
	provenance: 'engine' | 'inferred';
}

export interface ColumnLineageAnswer {
	edges: ColumnLineageEdge[];
	/** True only when edges of the component were actually left out. */
	truncated: boolean;
	/**
	 * Only with `include=scan`: the `scan` edges touching the asked relations (a column read by a
	 * JOIN, WHERE or GROUP BY, not carried), kept apart so no trace or impact list walks them.
	 */
	scan_edges?: ColumnLineageEdge[];
	/** With `include=scan`: true when scan edges were left out at the cap. */
	scan_truncated?: boolean;
}
