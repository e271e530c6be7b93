// Column lineage inferred from compiled SQL and the catalog (issue 15). Pure: no database, no routes.
export { inferModel, modelEdges, MAX_SQL_CHARS } from './infer';
export { DEFAULT_BUDGET_MS } from './types';
export { dialectOf } from './dialect';
export { inferencePlan, resolverOf, type InferencePlan, type PlannedModel, type PlannedRelation, type Resolver } from './manifest';
export type * from './types';
