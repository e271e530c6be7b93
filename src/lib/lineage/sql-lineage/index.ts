// The SQL-lineage engine, one for dbt models and producer scripts: statements in, column edges
// with kinds and one outcome per statement out (docs/column-lineage.md, "One engine for models
// and producers"). This entry is the light half (shapes, the statement text layer): the parser is
// a WASM module that weighs on every thread that loads it, so `./parse` and `./session`, which
// load it, are imported by themselves where SQL is parsed, never through here.
export * from './types';
export { blankComments, fragment, lineIndex, querySpan, splitStatements, statementHead, type StatementHead, type StatementText } from './text';
export { POLYGLOT_DIALECT } from './dialect';
