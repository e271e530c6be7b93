// The jobs/* read API between the routes and the repo: query parsing (400s naming the field)
// and the mapping of rows onto the wire types, including what a viewer of a run who may not
// read its project is not shown (the run's grant says which: RunGrant.redactRun).
import type { RunGrant } from './access';
import {
	JOB_KINDS,
	JOB_STATUSES,
	SHARE_DOMAINS,
	type JobDetail,
	type JobKind,
	type JobStatus,
	type JobSummary,
	type RunProgressItem,
	type ShareDomain,
	type ShareLinkInfo
} from '../types/jobs';
import type { RunNodeResult } from '../types/runner';
import { hashToHex } from '../types/script-hash';
import { badRequest } from './http';
import { parseScriptPath } from './paths';
import { parseProgressCursor, type JobListFilter, type JobListRow, type JobPayload, type JobView, type ProgressRow } from './repo/jobs';
import type { ShareLinkRow } from './repo/share-links';
import { MAX_SHARE_EXPIRES_IN, shareLinkState } from './share';
import { failureSummary } from './runner/run-results';
import { sourcelessReason } from './runner/failure-reason';

export const DEFAULT_JOB_LIMIT = 50;
export const MAX_JOB_LIMIT = 500;

/** One optional query parameter; repeating it is a 400 rather than a silent first-wins. */
function single(q: URLSearchParams, name: string): string | undefined {
	const all = q.getAll(name);
	if (all.length > 1) throw badRequest(`${name} may be given once`);
	return all[0];
}

function oneOf<T extends string>(q: URLSearchParams, name: string, allowed: readonly T[]): T | undefined {
	const v = single(q, name);
	if (v === undefined) return undefined;
	if (!(allowed as readonly string[]).includes(v)) throw badRequest(`${name} must be one of ${allowed.join(', ')}`);
	return v as T;
}

/** `GET jobs/list?script_path=&kind=&status=&limit=`. */
export function parseJobListQuery(q: URLSearchParams): JobListFilter {
	const scriptPath = single(q, 'script_path');
	if (scriptPath !== undefined && !parseScriptPath(scriptPath)) {
		throw badRequest('script_path must be a script path such as f/<folder>/<name> or u/<user>/<name>');
	}
	const kind = oneOf<JobKind>(q, 'kind', JOB_KINDS);
	const status = oneOf<JobStatus>(q, 'status', JOB_STATUSES);
	const rawLimit = single(q, 'limit');
	let limit = DEFAULT_JOB_LIMIT;
	if (rawLimit !== undefined) {
		limit = /^[0-9]{1,4}$/.test(rawLimit) ? Number(rawLimit) : 0;
		if (limit < 1 || limit > MAX_JOB_LIMIT) throw badRequest(`limit must be an integer from 1 to ${MAX_JOB_LIMIT}`);
	}
	return { scriptPath, kind, status, limit };
}

/** A new share link's audience and lifetime (seconds; null: until revoked). */
export interface ShareLinkInput {
	kind: ShareDomain;
	expiresIn: number | null;
}

const EXPIRES_IN_RULE = `expires_in must be a whole number of seconds from 1 to ${MAX_SHARE_EXPIRES_IN} (365 days), or null for a link that lasts until revoked`;

function checkExpiresIn(n: number): number {
	if (!Number.isSafeInteger(n) || n < 1 || n > MAX_SHARE_EXPIRES_IN) throw badRequest(EXPIRES_IN_RULE);
	return n;
}

/** `GET jobs/share/{id}?kind=member|public&expires_in=`. */
export function parseShareQuery(q: URLSearchParams): ShareLinkInput {
	const kind = oneOf<ShareDomain>(q, 'kind', SHARE_DOMAINS);
	if (kind === undefined) throw badRequest(`kind must be one of ${SHARE_DOMAINS.join(', ')}`);
	const raw = single(q, 'expires_in');
	if (raw === undefined) return { kind, expiresIn: null };
	return { kind, expiresIn: checkExpiresIn(/^[0-9]{1,9}$/.test(raw) ? Number(raw) : -1) };
}

/** `POST jobs/share_links/{id}` with `{kind, expires_in?}`. */
export function parseShareLinkBody(body: Record<string, unknown>): ShareLinkInput {
	const kind = body.kind;
	if (typeof kind !== 'string' || !(SHARE_DOMAINS as readonly string[]).includes(kind)) throw badRequest(`kind must be one of ${SHARE_DOMAINS.join(', ')}`);
	const e = body.expires_in;
	if (e === undefined || e === null) return { kind: kind as ShareDomain, expiresIn: null };
	if (typeof e !== 'number') throw badRequest(EXPIRES_IN_RULE);
	return { kind: kind as ShareDomain, expiresIn: checkExpiresIn(e) };
}

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

/** How `GET jobs/get/{id}` reads the log: the tail (default), none, or the part after an offset. */
export type JobLogQuery = ({ mode: 'tail' } | { mode: 'none' } | { mode: 'from'; offset: number }) & {
	/** `progress_since=`: also answer the run's progress changes since this cursor (0n: all). */
	progressSince: bigint | null;
};

/**
 * `GET jobs/get/{id}?logs=false|true&log_offset=N`. `logs=false` answers without the log (a job
 * poll that does not show it); `log_offset=N` answers only the log after its first N characters
 * (a page that shows the log live and already holds them), with `log_from` and `log_length`.
 */
export function parseJobGetQuery(q: URLSearchParams): JobLogQuery {
	const logs = single(q, 'logs');
	const rawOffset = single(q, 'log_offset');
	const rawSince = single(q, 'progress_since');
	let progressSince: bigint | null = null;
	if (rawSince !== undefined) {
		progressSince = parseProgressCursor(rawSince);
		if (progressSince === null) throw badRequest('progress_since must be a progress cursor from an earlier answer, or 0 for every row');
	}
	if (logs !== undefined && logs !== 'true' && logs !== 'false') throw badRequest('logs must be true or false');
	if (rawOffset === undefined) return logs === 'false' ? { mode: 'none', progressSince } : { mode: 'tail', progressSince };
	if (logs === 'false') throw badRequest('log_offset reads the log: it cannot be combined with logs=false');
	const offset = /^[0-9]{1,15}$/.test(rawOffset) ? Number(rawOffset) : -1;
	if (!Number.isSafeInteger(offset) || offset < 0) throw badRequest('log_offset must be a non-negative integer (characters of the log already held)');
	return { mode: 'from', offset, progressSince };
}

/** `GET jobs/run_progress/{id}?since=<cursor>`: the cursor, or null without `since`. */
export function parseProgressQuery(q: URLSearchParams): { since: bigint | null } {
	const raw = single(q, 'since');
	if (raw === undefined) return { since: null };
	const since = parseProgressCursor(raw);
	if (since === null) throw badRequest('since must be a cursor from an earlier answer (its `cursor` field or X-Progress-Cursor header), or 0 for every row');
	return { since };
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
