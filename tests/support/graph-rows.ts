// A dbt_node row for storage tests: a table model with every optional field empty; tests set
// what they exercise.
import type { NodeRow } from '../../src/lib/server/repo/graph';

export function nodeRow(uniqueId: string, extra: Partial<NodeRow> = {}): NodeRow {
	return {
		uniqueId,
		resourceType: 'model',
		name: uniqueId.split('.').pop()!,
		assetPath: null,
		materialized: 'table',
		materializeStrategy: null,
		uniqueKey: null,
		tags: [],
		description: null,
		testKind: null,
		testColumn: null,
		testArgs: null,
		severity: null,
		attachedNode: null,
		columns: null,
		columnSchema: null,
		freshness: null,
		rawCode: null,
		originalFilePath: null,
		...extra
	};
}
