// What a run left each relation in, by canvas node id: live progress by relation, then the
// settled result by unique id. Pure, so the run page and the server's run lens colour alike.
import type { RunProgressItem } from '../types/jobs';
import type { NodeStatus } from '../types/canvas';

/** dbt's outcome words and our progress words, as the canvas colours them. */
function outcomeStatus(outcome: string): NodeStatus['status'] | null {
	switch (outcome) {
		case 'passed':
			return 'passed';
		case 'failed':
		case 'unknown':
			return 'failed';
		case 'warned':
			return 'warned';
		case 'skipped':
		case 'no_op':
			return 'skipped';
		default:
			return null;
	}
}

interface ResultNode {
	unique_id: string;
	outcome: string;
	rows_affected?: number;
	message?: string;
}

/** Statuses by canvas node id: live progress by relation, then the settled result by unique id. */
export function runStatuses(
	progress: readonly RunProgressItem[],
	result: Record<string, unknown> | null,
	nodeOfUniqueId: (uid: string) => string | undefined
): Map<string, NodeStatus> {
	const out = new Map<string, NodeStatus>();
	for (const p of progress) {
		out.set(`${p.asset_kind}:${p.asset_path}`, { status: p.status, rowCount: p.row_count, error: p.error });
	}
	const nodes = Array.isArray(result?.nodes) ? (result!.nodes as ResultNode[]) : [];
	for (const n of nodes) {
		const id = nodeOfUniqueId(n.unique_id);
		const st = outcomeStatus(n.outcome);
		if (!id || !st) continue;
		const prev = out.get(id);
		// A built model keeps its row count; a test's outcome lands on the relation it tests
		// only when it is worse than what the relation already shows.
		if (st === 'passed' && prev?.status === 'materialized') continue;
		out.set(id, { status: st === 'passed' && n.rows_affected !== undefined ? 'materialized' : st, rowCount: n.rows_affected ?? prev?.rowCount, error: n.message ?? prev?.error });
	}
	return out;
}
