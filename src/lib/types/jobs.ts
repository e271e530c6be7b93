// Wire types of the jobs/* read API (DESIGN.md §6). Shared by the routes and the pages; the
// server maps its rows onto these, so no database row shape ever reaches a client.

export const JOB_KINDS = ['run', 'deploy', 'preview', 'recorded', 'lineage', 'openlineage'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

export const JOB_STATUSES = ['queued', 'running', 'success', 'failure', 'canceled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const PROGRESS_STATUSES = ['running', 'materialized', 'failed'] as const;
export type ProgressStatus = (typeof PROGRESS_STATUSES)[number];

/** The two audiences of a share link: a signed-in member of the workspace, or anyone. */
export const SHARE_DOMAINS = ['member', 'public'] as const;
export type ShareDomain = (typeof SHARE_DOMAINS)[number];

/** One row of `GET jobs/list`. */
export interface JobSummary {
	id: string;
	kind: JobKind;
	status: JobStatus;
	script_path: string | null;
	/** 16 lowercase hex digits, or null (a preview names no version). */
	script_hash: string | null;
	created_by: string;
	created_at: string;
	completed_at: string | null;
}

/** `GET jobs/get/{id}`. */
export interface JobDetail extends JobSummary {
	started_at: string | null;
	parent_job: string | null;
	args: Record<string, unknown>;
	/** The job's result object (§7), or null while it has none. */
	result: Record<string, unknown> | null;
	/** The end of the log (at most JOB_LOG_TAIL characters). */
	logs: string;
	/** True when the log was cut to its tail. */
	logs_truncated: boolean;
	/**
	 * True when the caller may read the run but not its project: the log and the authored parts
	 * of args and result (variables, code, dbt's messages, the resolution digest) were withheld.
	 */
	redacted: boolean;
}

/** One row of `GET jobs/run_progress/{id}`. */
export interface RunProgressItem {
	asset_kind: string;
	asset_path: string;
	status: ProgressStatus;
	row_count?: number;
	/** dbt's message on a failed relation: only for a caller who may read the project. */
	error?: string;
}

/** `GET jobs/run_progress/{id}?since=`: the rows changed after the cursor, and the next cursor. */
export interface RunProgressChanges {
	/** Pass as `since` on the next read. Opaque (today a transaction id). */
	cursor: string;
	/** How many progress rows the run has now: a client holding more re-reads with since=0 (rows are removed when a run settles). */
	total: number;
	/** Rows written since the cursor (possibly some seen before: merge by asset_kind + asset_path). */
	rows: RunProgressItem[];
}

/** `GET jobs/get/{id}?log_offset=`: the job, with `logs` starting at `log_from` of `log_length` characters. */
export interface JobDetailFrom extends JobDetail {
	/** Where `logs` starts in the whole log, in characters (later than log_offset when the part in between was longer than the tail). */
	log_from: number;
	/** The whole log's length in characters: the next `log_offset`. */
	log_length: number;
}

/** `GET jobs/get/{id}?progress_since=`: the job and, in the same answer, its progress changes (one request per poll). */
export interface JobPoll extends JobDetail {
	progress?: RunProgressChanges;
	log_from?: number;
	log_length?: number;
}

/** Whether a share link still opens its run: `revoked` wins over `expired`. */
export type ShareLinkState = 'active' | 'expired' | 'revoked';

/** One share link of a run as `GET jobs/share_links/{id}` lists it (never its token). */
export interface ShareLinkInfo {
	id: string;
	job_id: string;
	kind: ShareDomain;
	created_by: string;
	created_at: string;
	/** null: valid until revoked. */
	expires_at: string | null;
	revoked_at: string | null;
	revoked_by: string | null;
	/** Recorded at most once a minute. */
	last_used_at: string | null;
	state: ShareLinkState;
}

/** A link just made (`POST jobs/share_links/{id}`, `GET jobs/share/{id}`): the token is in this answer and nowhere else. */
export interface ShareLink extends ShareLinkInfo {
	token: string;
	/** The run page, relative to the site: `/w/{ws}/run/{id}?view_token=...`. */
	url: string;
}

/** The lifetimes the run page's share dialog offers, in seconds (null: until revoked). */
export const SHARE_LIFETIMES = [
	{ label: '1 day', seconds: 86_400 },
	{ label: '7 days', seconds: 7 * 86_400 },
	{ label: '30 days', seconds: 30 * 86_400 },
	{ label: 'never', seconds: null }
] as const;

/** Characters of log served by `jobs/get` (the tail: a failing run's reason is at the end). */
export const JOB_LOG_TAIL = 200_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A job id as the API writes it: a lowercase uuid (what Postgres prints). */
export function isJobId(s: unknown): s is string {
	return typeof s === 'string' && UUID.test(s);
}
