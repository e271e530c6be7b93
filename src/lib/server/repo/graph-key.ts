// How a stored graph is addressed, and what a lineage job stores per model: shared by the graph
// store and the inference tables, apart from both so neither imports the other for a type.
import type { ModelOutcomeKind } from '$lib/types/asset-graph';

export interface GraphKey {
	workspace: string;
	scriptPath: string;
	scriptHash: bigint | null;
	jobId: string;
}

/** One model's inference outcome as dbt_node.column_lineage stores it. */
export interface StoredModelOutcome {
	outcome: ModelOutcomeKind;
	message: string | null;
	line: number | null;
	column: number | null;
	untraced: { column: string; reason: string }[];
}
