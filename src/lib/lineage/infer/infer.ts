// Column lineage of one dbt model from its compiled SQL: the model is one query
// statement of the SQL-lineage engine (src/lib/lineage/sql-lineage/, which producer scripts go
// through too), resolved against the manifest's relations, its output named by the catalog.
// The engine imports the parser, a WASM module heavy on every thread: this module is
// imported where inference runs (the inference threads, tests), never through ./index.
import { parseStatement, MAX_SQL_CHARS } from '../sql-lineage/parse';
import { LineageSession } from '../sql-lineage/session';
import type { KnownRelation, NameResolver } from '../sql-lineage/types';
import { DEFAULT_BUDGET_MS, type InferInput, type InferResult, type InferredEdge, type OutputColumn } from './types';

export { MAX_SQL_CHARS };

/**
 * The manifest's relations as the engine reads them: catalog columns are all of them, in order;
 * declared (YAML) columns may not be all of them, so a column they do not list is still the node's.
 */
function resolverOf(input: InferInput): NameResolver {
	return (parts) => {
		const label = parts.join('.');
		const p = input.resolve(parts);
		if (!p) return { unknown: `reads ${label}, which is not a node of the manifest` };
		const known: KnownRelation = { node: p.node, label, columns: p.columns ?? p.declared ?? null, complete: p.columns !== null };
		return known;
	};
}

/** The column lineage of one model's compiled SQL. Never throws: every failure is an outcome. */
export function inferModel(input: InferInput): InferResult {
	if (input.sql.length > MAX_SQL_CHARS) return { outcome: 'failed', message: `too complex to analyse: ${input.sql.length} characters, over ${MAX_SQL_CHARS}`, line: null, column: null };
	const parsed = parseStatement(input.sql, input.dialect, { wholeQuery: true });
	const session = new LineageSession({ resolve: resolverOf(input), budgetMs: input.budgetMs ?? DEFAULT_BUDGET_MS });
	const r = session.run(parsed, { outputColumns: input.outputColumns ?? null });
	if (r.outcome === 'failed' || r.outcome === 'skipped' || r.columns === null) {
		return { outcome: 'failed', message: r.reason ?? 'not analysed', line: r.position?.line ?? null, column: r.position?.column ?? null };
	}
	const columns: OutputColumn[] = r.columns.map((c, k) => ({ name: c.name ?? `_col${k}`, inputs: c.inputs }));
	const warnings = [...r.notes, ...r.scanUntraced.map((why) => `a filter, join or grouping column is not traced: ${why}`)];
	const star = r.starSources?.length ? { starSources: r.starSources } : {};
	if (r.outcome === 'partial') return { outcome: 'partial', columns, scanned: r.scanned, untraced: r.untraced, warnings, ...star };
	return { outcome: 'analyzed', columns, scanned: r.scanned, warnings, ...star };
}

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
