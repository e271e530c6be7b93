// The lineage diff between two stored graphs (GET /api/w/{ws}/dbt/diff), as sent to the browser
// and the CLI.

import type { ColumnImpactConsumer } from './column-impact';

export type DiffClassification = 'breaking' | 'partial' | 'non_breaking' | 'unknown';

export type ModelChange = 'sql' | 'materialized' | 'tests' | 'columns' | 'column_types' | 'column_lineage' | 'description' | 'tags' | 'resource_type';

/** One column downstream of a changed column (a dbt model's, a lake table's): the column-impact walk's entry. */
export interface ImpactEntry {
	kind: string;
	asset_path: string;
	column: string;
	/** Edges from the changed column along the shortest path: 1 for a direct reader. */
	depth: number;
	/** The edge kinds along that path (`copy`, `mod`, `producer`). */
	kinds: string[];
	/** Producer scripts whose derivations lie on that path. */
	via: string[];
}

export interface ModifiedModel {
	unique_id: string;
	asset_path: string | null;
	changes: ModelChange[];
	classification: DiffClassification;
	/** Why the classification (absent for a caller who may see only the shape). */
	reason?: string;
}

export interface DiffColumn {
	asset_path: string;
	column: string;
	type: string | null;
}

export interface RemovedColumn extends DiffColumn {
	/** Who downstream reads it, in the `from` graph; null when that graph has no column lineage to walk. */
	impact: ImpactEntry[] | null;
	/** The metrics, semantic models, saved queries and exposures it reaches in the `from` graph; absent when none. */
	consumers?: ColumnImpactConsumer[];
}

export interface RetypedColumn {
	asset_path: string;
	column: string;
	from_type: string | null;
	to_type: string | null;
	impact: ImpactEntry[] | null;
	consumers?: ColumnImpactConsumer[];
}

export interface RefEdgeChange {
	from_unique_id: string;
	to_unique_id: string;
	from_asset_path: string | null;
	to_asset_path: string | null;
}

export interface DiffSide {
	/** 16 hex digits, or null for a preview. */
	hash: string | null;
	/** The job whose own graph this is, or null for a version's graph. */
	job_id: string | null;
}

export interface GraphDiff {
	from: DiffSide;
	to: DiffSide;
	models: {
		added: string[];
		removed: string[];
		/** A removed and an added model with the same SQL: most likely a rename. */
		renamed: { from: string; to: string }[];
		modified: ModifiedModel[];
	};
	/** The relation of every unique_id listed under models (null for a relation-less node): where the canvas colours it. */
	asset_paths: Record<string, string | null>;
	/** Absent for a caller who may see only the shape (column names are authored). */
	columns?: {
		added: DiffColumn[];
		removed: RemovedColumn[];
		retyped: RetypedColumn[];
	};
	ref_edges: { added: RefEdgeChange[]; removed: RefEdgeChange[] };
	/** Counted over the edges touching a changed model; null when a side has no column lineage. */
	column_edges: { added: number; removed: number } | null;
	/** Every metric, semantic model, saved query and exposure a removed or retyped column reaches; absent when none (and for a shape-only caller). */
	consumers?: ColumnImpactConsumer[];
	/** The worst classification of any modified model: what `--fail-on` compares. */
	classification: DiffClassification | null;
	/** Authored parts (columns, reasons, SQL-derived changes) are left out for this caller. */
	authored: boolean;
}

export const CLASSIFICATION_ORDER: readonly DiffClassification[] = ['non_breaking', 'unknown', 'partial', 'breaking'];
