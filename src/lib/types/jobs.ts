// Wire types of the jobs/* read API (DESIGN.md §6). Shared by the routes and the pages; the
// server maps its rows onto these, so no database row shape ever reaches a client.

export const JOB_KINDS = ['run', 'deploy', 'preview', 'recorded'] as const;
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
	 * of args and result (variables, code) were withheld.
	 */
	redacted: boolean;
}

/** One row of `GET jobs/run_progress/{id}`. */
export interface RunProgressItem {
	asset_kind: string;
	asset_path: string;
	status: ProgressStatus;
	row_count?: number;
	error?: string;
}

/** `GET jobs/share/{id}`. */
export interface ShareLink {
	token: string;
	/** The run page, relative to the site: `/w/{ws}/run/{id}?view_token=...`. */
	url: string;
}

/** Characters of log served by `jobs/get` (the tail: a failing run's reason is at the end). */
export const JOB_LOG_TAIL = 200_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A job id as the API writes it: a lowercase uuid (what Postgres prints). */
export function isJobId(s: unknown): s is string {
	return typeof s === 'string' && UUID.test(s);
}
