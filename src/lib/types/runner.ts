// Wire types of the runner (DESIGN.md §7): what a run request carries, and the result object a
// finished dbt job stores (read back through `jobs/get/{id}` as `result`).

export const DBT_COMMANDS = ['build', 'run', 'test', 'parse', 'show', 'retry', 'compile', 'seed', 'snapshot'] as const;
export type DbtCommand = (typeof DBT_COMMANDS)[number];

/**
 * When a deploy with project files is pinned (its `pin` form field, stored in its deploy job's
 * args): `before_live` keeps the version pending until the pin succeeds, `after_live` makes it
 * live at once and pins it in the background, `at_first_run` leaves the pin to its first run.
 */
export const PIN_MODES = ['before_live', 'after_live', 'at_first_run'] as const;
export type PinMode = (typeof PIN_MODES)[number];

/** Job args keys with a meaning of their own; any other key is a value for a `{{ placeholder }}`. */
export const RESERVED_RUN_ARGS = ['command', 'select', 'exclude', 'vars', 'model', 'limit', 'retry_job', 'timeout_s'] as const;

/** `POST jobs/run/p/{path}` body, as stored in the job's `args` once checked. */
export interface RunArgs {
	command: DbtCommand;
	select?: string[];
	exclude?: string[];
	vars?: Record<string, unknown>;
	/** `show`: the one model to preview. */
	model?: string;
	/** `show`: rows, clamped to 1..1000 (default 100). */
	limit?: number;
	/** `retry`: the run being resumed. */
	retry_job?: string;
	timeout_s?: number;
	/** Values of the descriptor's `{{ placeholders }}`, by name. */
	[placeholder: string]: unknown;
}

/**
 * Ours, not dbt's: `passed` (success/pass), `failed` (error/fail/runtime error/partial success),
 * `warned`, `skipped`, `no_op`, or `unknown` for a word this version does not know (counted as
 * an error). dbt renames or adds a status and `status` moves; this does not.
 */
export const NODE_OUTCOMES = ['passed', 'failed', 'warned', 'skipped', 'no_op', 'unknown'] as const;
export type NodeOutcome = (typeof NODE_OUTCOMES)[number];

export interface RunNodeResult {
	unique_id: string;
	/** dbt's own word, verbatim. */
	status: string;
	outcome: NodeOutcome;
	execution_time: number | null;
	/** Absent when dbt reported none or a negative (unknown) count. */
	rows_affected?: number;
	relation_name?: string;
	message?: string;
	/** Tests: rows that violated the assertion. */
	failures?: number;
}

export interface RunTotals {
	total: number;
	/** passed */
	success: number;
	/** failed + unknown */
	error: number;
	warn: number;
	/** skipped + no_op */
	skipped: number;
}

/** The result of a build-like job (build, run, test, seed, snapshot, compile, retry) and of a recorded run. */
export interface RunResult {
	engine: string;
	engine_version: string;
	command: string;
	totals: RunTotals;
	nodes: RunNodeResult[];
	/** The arguments as submitted (a retry: the restored ones, plus `retry_job`). */
	invocation_args: Record<string, unknown>;
	/** Why the job failed, naming the nodes that did not succeed. */
	error?: string;
	/** Whether this run stored a graph snapshot of its own (else it reads its version's graph). */
	graph_snapshot?: boolean;
}

/** The result of a `show`. */
export interface ShowResult {
	engine: string;
	engine_version: string;
	command: 'show';
	model: string;
	limit: number;
	/** dbt's own description of the previewed node, when it printed one. */
	node: string | null;
	rows: Record<string, unknown>[];
	invocation_args: Record<string, unknown>;
}

/** The result of a `parse`: what dbt found, and where the graph was stored. */
export interface ParseResult {
	engine: string;
	engine_version: string;
	command: 'parse';
	nodes: number;
	edges: number;
	by_resource_type: Record<string, number>;
	/** The job to read the graph through (`jobs/dbt_graph/{id}`): this one, or null when it matched its version's. */
	graph_job: string | null;
	invocation_args: Record<string, unknown>;
}

/** `POST jobs/run/p/{path}` and `POST jobs/record`. */
export interface QueuedJob {
	job_id: string;
	/** The run page, relative to the site. */
	url: string;
}

/** `POST jobs/cancel/{id}`. */
export interface CancelAnswer {
	job_id: string;
	/** `canceled` when it had not started; `running` while the worker stops it. */
	status: 'canceled' | 'running';
	cancel_requested: true;
}

/** `POST jobs/record`. */
export interface RecordAnswer extends QueuedJob {
	status: 'success' | 'failure';
	totals: RunTotals;
	progress_rows: number;
	graph_snapshot: boolean;
}
