// The runner's settings, from the environment of the process that runs jobs (the in-process
// worker of `npm start` or `npm run worker`). Read once per worker; tests pass their own.
import { openLineagePushFromEnv, type OpenLineagePush } from '../openlineage-push';
import path from 'node:path';
import { EngineCache, engineSettingsFromEnv } from './engine/provision';
import { warehousesRoot } from './embedded-warehouse';

export interface RunnerConfig {
	/**
	 * The operator's own dbt (DBT_BIN), looked up on PATH when it is a bare name; null: engines are
	 * provisioned per project (the descriptor's `engine:`, pinned at deploy) in `engines`.
	 */
	dbtBin: string | null;
	/** The dbt Fusion binary (TRIBUTARY_FUSION_BIN) for projects whose engine is `kind: fusion`. */
	fusionBin?: string | null;
	/** Where provisioned engines live; absent: from the environment when first needed. */
	engines?: EngineCache;
	/** Installed dbt packages cached per (workspace, package-lock digest); absent: no cache. */
	packageCacheDir?: string | null;
	/** Embedded DuckDB warehouses' folders; absent: TRIBUTARY_DATA_DIR/warehouses. */
	warehouseDir?: string;
	/** `dbt docs generate` after a build that built every relation (TRIBUTARY_CATALOG_PASS=0: never). */
	catalogPass?: boolean;
	/** The catalog pass's own deadline (TRIBUTARY_CATALOG_TIMEOUT_S), within half of the job's time left. */
	catalogTimeoutS?: number;
	/** Between SIGTERM and SIGKILL when a job is stopped. */
	killGraceMs: number;
	/** How often the JSON log is checked for new lines. */
	logPollMs: number;
	/** A job's deadline when its request named none. */
	defaultTimeoutS: number;
	/** `bwrap` (the default): dbt runs inside bubblewrap, or not at all. `off`: bare, with a warning on every run. */
	sandbox: 'bwrap' | 'off';
	/** The bubblewrap binary (TRIBUTARY_BWRAP); null: `bwrap` on PATH. */
	bwrapPath: string | null;
	/** Extra host paths the sandbox shows read-only (TRIBUTARY_SANDBOX_READ_ONLY, `:`-separated). */
	sandboxReadOnly: string[];
	/** dbt console output kept in a job's log; the rest is counted and its last lines kept. */
	consoleLogBytes: number;
	/** How often buffered log text is written to the job row. */
	logFlushMs: number;
	/** Address-space cap of a dbt process (TRIBUTARY_DBT_MEMORY_MB); null for none. */
	memoryMb: number | null;
	/** Where a settled run's OpenLineage events are posted (TRIBUTARY_OPENLINEAGE_URL); absent or null: nowhere. */
	openLineage?: OpenLineagePush | null;
}

/** Said at worker start and in every job's log while the sandbox is off. */
export const SANDBOX_OFF_WARNING =
	'WARNING: TRIBUTARY_SANDBOX=off: dbt runs WITHOUT the sandbox, so project code can read what this worker can (its environment, the data directory, other jobs) and write where it can. Unset TRIBUTARY_SANDBOX to isolate runs.';

const int = (v: string | undefined, fallback: number, min: number): number => {
	const n = v === undefined || v === '' ? NaN : Number(v);
	return Number.isFinite(n) && n >= min ? Math.trunc(n) : fallback;
};

export function runnerConfigFromEnv(env: NodeJS.ProcessEnv = process.env): RunnerConfig {
	const sandbox = (env.TRIBUTARY_SANDBOX ?? '').trim().toLowerCase();
	if (sandbox !== '' && sandbox !== 'bwrap' && sandbox !== 'off') {
		throw new Error(`TRIBUTARY_SANDBOX must be "bwrap" (the default) or "off", got "${env.TRIBUTARY_SANDBOX}"`);
	}
	return {
		dbtBin: env.DBT_BIN?.trim() || null,
		fusionBin: env.TRIBUTARY_FUSION_BIN?.trim() || null,
		engines: new EngineCache(engineSettingsFromEnv(env)),
		packageCacheDir: path.resolve(env.TRIBUTARY_DATA_DIR || './data', 'packages'),
		warehouseDir: warehousesRoot(env),
		catalogPass: env.TRIBUTARY_CATALOG_PASS !== '0',
		catalogTimeoutS: int(env.TRIBUTARY_CATALOG_TIMEOUT_S, 600, 1),
		killGraceMs: int(env.TRIBUTARY_KILL_GRACE_MS, 10_000, 0),
		logPollMs: int(env.TRIBUTARY_LOG_POLL_MS, 200, 10),
		defaultTimeoutS: int(env.TRIBUTARY_JOB_TIMEOUT_S, 6 * 3600, 1),
		sandbox: sandbox === 'off' ? 'off' : 'bwrap',
		bwrapPath: env.TRIBUTARY_BWRAP?.trim() || null,
		sandboxReadOnly: (env.TRIBUTARY_SANDBOX_READ_ONLY ?? '').split(':').filter((p) => p.trim() !== ''),
		consoleLogBytes: int(env.TRIBUTARY_JOB_LOG_MAX_BYTES, 2_000_000, 1000),
		logFlushMs: int(env.TRIBUTARY_LOG_FLUSH_MS, 500, 10),
		memoryMb: env.TRIBUTARY_DBT_MEMORY_MB ? int(env.TRIBUTARY_DBT_MEMORY_MB, 0, 64) || null : null,
		openLineage: openLineagePushFromEnv(env)
	};
}
