// The jobs/* answers: rows mapped onto the wire types, including what a viewer of a run who may
// not read its project is not shown (the run's grant says which: RunGrant.redactRun).
import type { RunGrant } from '../../access';
import { type JobDetail, type JobStatus, type JobSummary, type RunProgressItem, type ShareLinkInfo } from '../../../types/jobs';
import type { RunNodeResult } from '../../../types/runner';
import { hashToHex } from '../../../types/script-hash';
import { type JobListRow, type JobPayload, type JobView, type ProgressRow } from '../../repo/jobs';
import type { ShareLinkRow } from '../../repo/share-links';
import { shareLinkState } from '../../share';
import { failureSummary } from '../../runner/run-results';
import { sourcelessReason } from '../../runner/failure-reason';

/** A share link as the API lists it, its state as of `now`. */
export function shareLinkInfoOf(l: ShareLinkRow, now: Date): ShareLinkInfo {
	return {
		id: l.id,
		job_id: l.jobId,
		kind: l.kind,
		created_by: l.createdBy,
		created_at: l.createdAt.toISOString(),
		expires_at: iso(l.expiresAt),
		revoked_at: iso(l.revokedAt),
		revoked_by: l.revokedBy,
		last_used_at: iso(l.lastUsedAt),
		state: shareLinkState(l, now)
	};
}

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

export function jobSummaryOf(r: JobListRow | JobView): JobSummary {
	return {
		id: r.id,
		kind: r.kind,
		status: r.status,
		script_path: r.scriptPath,
		script_hash: r.scriptHash === null ? null : hashToHex(r.scriptHash),
		created_by: r.createdBy,
		created_at: r.createdAt.toISOString(),
		completed_at: iso(r.completedAt)
	};
}

// Job args that say WHAT ran (the page shows them) rather than what the author configured:
// anything else, `vars` and the values of `{{ placeholders }}` first of all, is withheld from a
// viewer who may not read the project. A result's `invocation_args` are filtered the same way
// (a retry's also name the command it resumed).
const SHAPE_ARGS = new Set(['command', 'select', 'exclude', 'selector', 'model', 'limit', 'retry_job', 'openlineage']);
const SHAPE_INVOCATION_ARGS = new Set([...SHAPE_ARGS, 'resumed_command']);

// Keys that carry the project's code, file layout or configured values wherever they appear in
// a result (run_results entries carry `compiled_code`; its `args` block carries `vars`), and
// dbt's messages, which quote SQL and file paths (`message` on each node).
const AUTHORED_KEYS = new Set(['raw_code', 'compiled_code', 'raw_sql', 'compiled_sql', 'original_file_path', 'vars', 'descriptor', 'message', 'stack_trace']);

function withoutAuthored(v: unknown, depth = 0): unknown {
	// Results are JSON we wrote; the bound only guards the recursion against a hostile import.
	if (depth > 64 || v === null || typeof v !== 'object') return v;
	if (Array.isArray(v)) return v.map((x) => withoutAuthored(x, depth + 1));
	const out: Record<string, unknown> = {};
	for (const [k, x] of Object.entries(v)) if (!AUTHORED_KEYS.has(k)) out[k] = withoutAuthored(x, depth + 1);
	return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const pick = (o: Record<string, unknown>, keys: ReadonlySet<string>) => Object.fromEntries(Object.entries(o).filter(([k]) => keys.has(k)));

/**
 * `GET jobs/get/{id}`. A caller who may read the run but not its script (the grant redacts it
 * to its shape) gets the run's shape and outcome: status, times, the command and selection, and the result
 * (which nodes ran and dbt's status word for each) without code, paths, variables or dbt's
 * messages, and no log (dbt's log prints compiled SQL and file paths, and cannot be cleaned
 * reliably line by line).
 */
export function jobDetailOf(grant: RunGrant, payload: JobPayload): JobDetail {
	const j = grant.job;
	const canReadScript = grant.redactRun() === 'authored';
	const args = isObject(payload.args) ? payload.args : {};
	const result = isObject(payload.result) ? payload.result : null;
	return {
		...jobSummaryOf(j),
		started_at: iso(j.startedAt),
		parent_job: j.parentJob,
		args: canReadScript ? args : pick(args, SHAPE_ARGS),
		result: canReadScript || result === null ? result : redactedResult(result, j.status),
		logs: canReadScript ? payload.logs : '',
		logs_truncated: canReadScript && payload.logsTruncated,
		redacted: !canReadScript
	};
}

/**
 * A result for a caller who may not read the project: no code, paths, variables or data, and
 * none of dbt's messages. `error` becomes the generic outcome (which nodes did not succeed and
 * dbt's status word, or that the run failed), `messages_withheld: true` saying the rest exists.
 * A `show` job's `rows` are the previewed model's data from the warehouse (the project's, not the
 * run's shape): they are left out and `rows_withheld: true` says so. `resolution_digest` is an
 * unsalted hash over the selection and the resolved vars: with the selection visible, it would
 * let a viewer confirm guesses of the vars offline, so it goes too (only the runner reads it).
 */
function redactedResult(result: Record<string, unknown>, status: JobStatus): Record<string, unknown> {
	const out = withoutAuthored(result) as Record<string, unknown>;
	delete out.resolution_digest;
	// Each failed or warned node keeps WHY in a form that quotes nothing (failure-reason.ts).
	if (Array.isArray(result.nodes) && Array.isArray(out.nodes)) {
		out.nodes = out.nodes.map((n, i) => {
			const src = (result.nodes as unknown[])[i];
			if (!isObject(n) || !isObject(src) || typeof src.unique_id !== 'string' || !NEEDS_REASON.has(String(src.outcome))) return n;
			const failures = typeof src.failures === 'number' ? src.failures : null;
			return { ...n, reason: sourcelessReason(src.unique_id, typeof src.message === 'string' ? src.message : null, failures) };
		});
	}
	if (isObject(out.invocation_args)) out.invocation_args = pick(out.invocation_args, SHAPE_INVOCATION_ARGS);
	if ('rows' in out) {
		delete out.rows;
		out.rows_withheld = true;
	}
	const hadMessages = typeof result.error === 'string' || (Array.isArray(result.nodes) && result.nodes.some((n) => isObject(n) && 'message' in n));
	if (typeof result.error === 'string') out.error = genericError(out.nodes, status);
	if (hadMessages) out.messages_withheld = true;
	return out;
}

const NEEDS_REASON = new Set(['failed', 'unknown', 'warned']);

function genericError(nodes: unknown, status: JobStatus): string {
	// Nodes come from results we wrote (or a recorded import): only well-formed ones are named,
	// each with its sourceless reason in place of dbt's message.
	const named = Array.isArray(nodes)
		? nodes
				.filter((n): n is RunNodeResult & { reason?: string } => isObject(n) && typeof n.unique_id === 'string' && typeof n.status === 'string' && typeof n.outcome === 'string')
				.map((n) => (typeof n.reason === 'string' ? { ...n, message: n.reason, failures: undefined } : n))
		: [];
	return failureSummary(named) ?? (status === 'canceled' ? 'the run was canceled' : 'the run failed');
}

/** One progress row; dbt's message on a failed relation only for a caller who may read the project (it quotes SQL and paths). */
export function progressItemOf(grant: RunGrant, r: ProgressRow): RunProgressItem {
	const shape = progressShapeOf(r);
	return r.error === null || grant.redactRun() === 'shape' ? shape : { ...shape, error: r.error };
}

/** One progress row without dbt's message: what any viewer of the run sees (a canvas's run lens). */
export function progressShapeOf(r: ProgressRow): RunProgressItem {
	return {
		asset_kind: r.assetKind,
		asset_path: r.assetPath,
		status: r.status,
		...(r.rowCount === null ? {} : { row_count: r.rowCount })
	};
}
