// The jobs/* read API between the routes and the repo: query parsing (400s naming the field)
// and the mapping of rows onto the wire types, including what a viewer of a run who may not
// read its project is not shown.
import {
	JOB_KINDS,
	JOB_STATUSES,
	SHARE_DOMAINS,
	type JobDetail,
	type JobKind,
	type JobStatus,
	type JobSummary,
	type RunProgressItem,
	type ShareDomain
} from '../types/jobs';
import { hashToHex } from '../types/script-hash';
import { badRequest } from './http';
import { parseScriptPath } from './paths';
import type { JobListFilter, JobListRow, JobPayload, JobView, ProgressRow } from './repo/jobs';

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

/** `GET jobs/share/{id}?kind=member|public`. */
export function parseShareKind(q: URLSearchParams): ShareDomain {
	const kind = oneOf<ShareDomain>(q, 'kind', SHARE_DOMAINS);
	if (kind === undefined) throw badRequest(`kind must be one of ${SHARE_DOMAINS.join(', ')}`);
	return kind;
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
// anything else, `vars` first of all, is withheld from a viewer who may not read the project.
const SHAPE_ARGS = new Set(['command', 'select', 'exclude', 'selector', 'model', 'limit', 'retry_job']);

// Keys that carry the project's code, file layout or configured values wherever they appear in
// a result (run_results entries carry `compiled_code`; its `args` block carries `vars`).
const AUTHORED_KEYS = new Set(['raw_code', 'compiled_code', 'raw_sql', 'compiled_sql', 'original_file_path', 'vars', 'descriptor']);

function withoutAuthored(v: unknown, depth = 0): unknown {
	// Results are JSON we wrote; the bound only guards the recursion against a hostile import.
	if (depth > 64 || v === null || typeof v !== 'object') return v;
	if (Array.isArray(v)) return v.map((x) => withoutAuthored(x, depth + 1));
	const out: Record<string, unknown> = {};
	for (const [k, x] of Object.entries(v)) if (!AUTHORED_KEYS.has(k)) out[k] = withoutAuthored(x, depth + 1);
	return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `GET jobs/get/{id}`. A caller who may read the run but not its script (canReadScript false)
 * gets the run's shape and outcome: status, times, the command and selection, the result
 * (dbt's per-node statuses and messages) without code, paths or variables, and no log (dbt's
 * log prints compiled SQL and file paths, and cannot be cleaned reliably line by line).
 */
export function jobDetailOf(j: JobView, payload: JobPayload, canReadScript: boolean): JobDetail {
	const args = isObject(payload.args) ? payload.args : {};
	const result = isObject(payload.result) ? payload.result : null;
	return {
		...jobSummaryOf(j),
		started_at: iso(j.startedAt),
		parent_job: j.parentJob,
		args: canReadScript ? args : Object.fromEntries(Object.entries(args).filter(([k]) => SHAPE_ARGS.has(k))),
		result: canReadScript || result === null ? result : (withoutAuthored(result) as Record<string, unknown>),
		logs: canReadScript ? payload.logs : '',
		logs_truncated: canReadScript && payload.logsTruncated,
		redacted: !canReadScript
	};
}

export function progressItemOf(r: ProgressRow): RunProgressItem {
	return {
		asset_kind: r.assetKind,
		asset_path: r.assetPath,
		status: r.status,
		...(r.rowCount === null ? {} : { row_count: r.rowCount }),
		...(r.error === null ? {} : { error: r.error })
	};
}
