// The jobs/* endpoints' inputs: list filters, log and progress cursors, share-link audience and
// lifetime (400s naming the field).
import { JOB_KINDS, JOB_STATUSES, SHARE_DOMAINS, type JobKind, type JobStatus, type ShareDomain } from '../../../types/jobs';
import { badRequest } from '../../http';
import { parseScriptPath } from '../../paths';
import { parseProgressCursor, type JobListFilter } from '../../repo/jobs';
import { MAX_SHARE_EXPIRES_IN } from '../../share';

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
