// Reading a job's result object (DESIGN.md §7) into what the run page lists: one row per node,
// failures first with dbt's message, and the totals sentence.
export interface ResultRow {
	uniqueId: string;
	/** The resource type, from the unique id (`model`, `test`, `seed`, …). */
	kind: string;
	relation: string | null;
	rows: number | null;
	seconds: number | null;
	outcome: string;
	status: string;
	message: string | null;
	/** Why it failed in words that quote nothing, for a viewer dbt's message is withheld from. */
	reason: string | null;
}

const RANK: Record<string, number> = { failed: 0, unknown: 0, warned: 1, skipped: 2, no_op: 3, passed: 4 };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function resultRows(result: Record<string, unknown> | null): ResultRow[] {
	if (!result || !Array.isArray(result.nodes)) return [];
	const rows: ResultRow[] = [];
	for (const n of result.nodes) {
		if (!isObject(n) || typeof n.unique_id !== 'string') continue;
		rows.push({
			uniqueId: n.unique_id,
			kind: n.unique_id.split('.')[0],
			relation: typeof n.relation_name === 'string' ? n.relation_name : null,
			rows: typeof n.rows_affected === 'number' ? n.rows_affected : null,
			seconds: typeof n.execution_time === 'number' ? n.execution_time : null,
			outcome: typeof n.outcome === 'string' ? n.outcome : 'unknown',
			status: typeof n.status === 'string' ? n.status : '',
			message: typeof n.message === 'string' && n.message ? n.message : null,
			reason: typeof n.reason === 'string' && n.reason ? n.reason : null
		});
	}
	return rows.sort((a, b) => (RANK[a.outcome] ?? 0) - (RANK[b.outcome] ?? 0) || (a.uniqueId < b.uniqueId ? -1 : 1));
}

/** "3 passed, 1 warned, 1 failed, 2 skipped of 7", or null for a result without totals. */
export function totalsLine(result: Record<string, unknown> | null): string | null {
	const t = result?.totals;
	if (!isObject(t) || typeof t.total !== 'number') return null;
	const n = (k: string) => (typeof t[k] === 'number' ? (t[k] as number) : 0);
	return `${n('success')} passed, ${n('warn')} warned, ${n('error')} failed, ${n('skipped')} skipped of ${n('total')}`;
}

/** What a deploy or preview stored: "55 nodes, 50 edges, 186 column edges". */
export function storedLine(result: Record<string, unknown> | null): string | null {
	if (!result || typeof result.nodes !== 'number') return null;
	const parts = [`${result.nodes} nodes`];
	if (typeof result.edges === 'number') parts.push(`${result.edges} edges`);
	parts.push(typeof result.column_edges === 'number' ? `${result.column_edges} column edges` : 'no column lineage');
	return parts.join(', ');
}

export function hasFailures(result: Record<string, unknown> | null): boolean {
	return resultRows(result).some((r) => r.outcome === 'failed' || r.outcome === 'unknown');
}

/**
 * A node's name in pieces that may wrap after each `_` and `.` (a `<wbr>` between pieces), so a
 * long test name breaks at its words instead of overflowing or splitting mid-word.
 */
export function breakablePieces(name: string): string[] {
	return name.split(/(?<=[_.])/).filter(Boolean);
}

/** "orders" from `model.shop.orders`; a test's name without its hash; a source as source.table. */
export function shortName(uniqueId: string): string {
	const parts = uniqueId.split('.');
	if (parts.length < 3) return uniqueId;
	if (parts[0] === 'source') return parts.slice(2).join('.');
	return parts[2];
}
