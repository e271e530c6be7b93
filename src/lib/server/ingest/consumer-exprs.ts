// Semantic-model and metric `expr`s → the columns they read, through the same SQL-lineage engine
// as models. The parser (WASM) is loaded only when some expr is more than a bare column name.
import { exprsToParse, type ExprReads } from '$lib/lineage/consumers';
import { dialectOf } from '$lib/lineage/infer/dialect';
import type { Consumer } from '$lib/types/consumers';

const SELF = '__expr_relation';

export async function consumerExprReader(consumers: readonly Consumer[], adapterType: string | null): Promise<ExprReads> {
	if (exprsToParse(consumers).length === 0) return () => ({ error: 'no parser loaded' });
	const [{ parseStatement }, { LineageSession }] = await Promise.all([
		import('$lib/lineage/sql-lineage/parse'),
		import('$lib/lineage/sql-lineage/session')
	]);
	const { dialect } = dialectOf(adapterType);
	const memo = new Map<string, { reads: string[] } | { error: string }>();
	return (expr) => {
		const hit = memo.get(expr);
		if (hit) return hit;
		// The expr as the one output of a query over its model: what that column reads is what the expr reads.
		const session = new LineageSession({ resolve: () => ({ node: SELF, label: 'the semantic model', columns: null, complete: false }) });
		const r = session.run(parseStatement(`select ${expr} as __expr_value from ${SELF}`, dialect, { wholeQuery: true }));
		let out: { reads: string[] } | { error: string };
		if (r.outcome === 'failed' || !r.columns || r.columns.length !== 1) out = { error: r.reason ?? 'not one expression' };
		else if (r.columns[0].untraced) out = { error: r.columns[0].untraced };
		else out = { reads: [...new Set(r.columns[0].inputs.map((i) => i.column.toLowerCase()))].sort() };
		memo.set(expr, out);
		return out;
	};
}
