// The runner's settings, from the environment of the process that runs jobs (the in-process
// worker of `npm start` or `npm run worker`). Read once per worker; tests pass their own.

export interface RunnerConfig {
	/** The dbt executable (DBT_BIN), looked up on PATH when it is a bare name. */
	dbtBin: string;
	/** Between SIGTERM and SIGKILL when a job is stopped. */
	killGraceMs: number;
	/** How often the JSON log is checked for new lines. */
	logPollMs: number;
	/** A job's deadline when its request named none. */
	defaultTimeoutS: number;
	/** `bwrap`: run dbt inside bubblewrap (which must then be installed). */
	sandbox: 'none' | 'bwrap';
	/** dbt console output kept in a job's log; the rest is counted and its last lines kept. */
	consoleLogBytes: number;
	/** How often buffered log text is written to the job row. */
	logFlushMs: number;
	/** Address-space cap of a dbt process (TRIBUTARY_DBT_MEMORY_MB); null for none. */
	memoryMb: number | null;
}

const int = (v: string | undefined, fallback: number, min: number): number => {
	const n = v === undefined || v === '' ? NaN : Number(v);
	return Number.isFinite(n) && n >= min ? Math.trunc(n) : fallback;
};

export function runnerConfigFromEnv(env: NodeJS.ProcessEnv = process.env): RunnerConfig {
	const sandbox = (env.TRIBUTARY_SANDBOX ?? '').trim().toLowerCase();
	if (sandbox !== '' && sandbox !== 'none' && sandbox !== 'bwrap') {
		throw new Error(`TRIBUTARY_SANDBOX must be "bwrap" or unset, got "${env.TRIBUTARY_SANDBOX}"`);
	}
	return {
		dbtBin: env.DBT_BIN?.trim() || 'dbt',
		killGraceMs: int(env.TRIBUTARY_KILL_GRACE_MS, 10_000, 0),
		logPollMs: int(env.TRIBUTARY_LOG_POLL_MS, 200, 10),
		defaultTimeoutS: int(env.TRIBUTARY_JOB_TIMEOUT_S, 6 * 3600, 1),
		sandbox: sandbox === 'bwrap' ? 'bwrap' : 'none',
		consoleLogBytes: int(env.TRIBUTARY_JOB_LOG_MAX_BYTES, 2_000_000, 1000),
		logFlushMs: int(env.TRIBUTARY_LOG_FLUSH_MS, 500, 10),
		memoryMb: env.TRIBUTARY_DBT_MEMORY_MB ? int(env.TRIBUTARY_DBT_MEMORY_MB, 0, 64) || null : null
	};
}
