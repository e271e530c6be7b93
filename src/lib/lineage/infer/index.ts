// Column lineage inferred from compiled SQL and the catalog. Pure: no database, no routes.
// This entry is the light half (the plan, dialects, shapes): the walker (./infer) imports the
// parser, a large WASM module per thread, so it is imported by itself where it runs
// (the inference threads, tests), never through here.
export { DEFAULT_BUDGET_MS } from './types';
export { dialectOf } from './dialect';
export { inferencePlan, resolverOf, type InferencePlan, type PlannedModel, type PlannedRelation, type Resolver } from './manifest';
export type * from './types';
