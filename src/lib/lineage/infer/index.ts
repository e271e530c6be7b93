// Column lineage inferred from compiled SQL and the catalog (issue 15). Pure: no database, no routes.
import type { InferResult, InferredEdge } from './types';

export { inferModel, MAX_SQL_CHARS, DEFAULT_BUDGET_MS } from './infer';
export { dialectOf } from './dialect';
export { inferencePlan, resolverOf, type InferencePlan, type PlannedModel, type PlannedRelation, type Resolver } from './manifest';
export type * from './types';

/**
 * A model's edges in the engine's row form: its copy/mod inputs, and every scanned column as a
 * `scan` into every output column (the engine keeps a copy and a scan of the same pair as two rows).
 */
export function modelEdges(result: InferResult): InferredEdge[] {
	if (result.outcome === 'failed') return [];
	const out: InferredEdge[] = [];
	for (const c of result.columns) for (const i of c.inputs) out.push({ fromNode: i.node, fromColumn: i.column, toColumn: c.name, kind: i.kind });
	for (const c of result.columns) for (const s of result.scanned) out.push({ fromNode: s.node, fromColumn: s.column, toColumn: c.name, kind: 'scan' });
	return out;
}
