// A workspace to run dbt jobs in, on one database: members with and without run access, a
// warehouse with a secret, projects deployed through the real deploy route with a `fake-dbt.json`
// scenario inside their project files, and a worker (the real one) whose DBT_BIN is the stand-in.
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { bootstrap } from '../../src/lib/server/bootstrap';
import { setDatabase, type Database } from '../../src/lib/server/db';
import { tarGz } from '../../src/lib/server/demo/tarball';
import type { RunnerConfig } from '../../src/lib/server/runner/config';
import { Worker } from '../../src/lib/server/runner/worker';
import { runnerIngest } from '../../src/lib/server/runner-ingest';
import { ApiClient } from './api';
import { fixture } from './fixtures';
import { SANDBOX_INPUTS, SANDBOX_READ_ONLY } from './sandbox-inputs';
import { login } from './jobs-world';

export const WS = 'runs';
export const FOLDER = 'data';
export const SECRET = 'hunter2-warehouse-password';
export const FAKE_DBT = path.resolve('tests/support/fake-dbt/dbt.mjs');
export const PG_LOGS = fixture('openlineage-json-logs-postgres-1.8.2');
export { SANDBOX_INPUTS };

/**
 * The host pid of a process the stand-in reports from inside the sandbox's PID namespace: the
 * process working in `jobsDir` whose innermost NSpid is `nsPid`. Null when there is none (yet, or any more).
 */
export function hostPidOf(nsPid: number, jobsDir: string): number | null {
	for (const name of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
		try {
			if (!readlinkSync(`/proc/${name}/cwd`).startsWith(jobsDir)) continue;
			const ns = /^NSpid:\s+(.+)$/m.exec(readFileSync(`/proc/${name}/status`, 'utf8'))?.[1].trim().split(/\s+/).map(Number) ?? [];
			if (ns.length > 1 && ns.at(-1) === nsPid) return Number(name);
		} catch {
			/* gone meanwhile */
		}
	}
	return null;
}

/** Steps of the stand-in's scenario (see tests/support/fake-dbt/dbt.mjs). */
export type Step = Record<string, unknown>;
export interface Scenario {
	engine?: 'dbt-core' | 'dbt-fusion';
	version?: string;
	speed?: number;
	maxGapMs?: number;
	/** The manifest of any step that names none. */
	manifest?: string;
	commands?: Record<string, Step>;
	default?: Step;
	/** The column-lineage pass (`compile --write-index`). */
	lineage?: Step;
}

export interface RunnerWorld {
	database: Database;
	admin: ApiClient;
	/** Writer of folder `data`. */
	wendy: ApiClient;
	/** Reader of folder `data`. */
	rita: ApiClient;
	/** A member without any grant. */
	carl: ApiClient;
	worker: Worker;
	/** The worker's own settings object: a test may change a field for its runs and put it back. */
	config: RunnerConfig;
	jobsDir: string;
	/** Deploys a project at `f/data/<name>` whose files carry `scenario`; answers its version hash. */
	/**
	 * Deploys a project at `f/data/<name>` whose files carry `scenario`; answers its version hash
	 * once it is live: pinned by its first run, or (`pin: 'before_live'`) by a deploy job first,
	 * which this waits for.
	 */
	deploy(
		name: string,
		scenario: Scenario,
		opts?: { descriptor?: string; manifest?: string; withProject?: boolean; extraFiles?: Record<string, string>; pin?: 'before_live' | 'after_live' | 'at_first_run' }
	): Promise<string>;
	/** The last deploy's answer. */
	lastDeploy: any;
	/** Queues a run as wendy; answers the job id. */
	run(name: string, body?: Record<string, unknown>, client?: ApiClient): Promise<string>;
	/** Waits for a job to end; answers jobs/get. */
	waitJob(id: string, timeoutMs?: number): Promise<any>;
	progress(id: string): Promise<{ asset_path: string; status: string; row_count?: number; error?: string }[]>;
	token(scopes: string[]): Promise<ApiClient>;
	close(): Promise<void>;
}

export function runnerConfig(over: Partial<RunnerConfig> = {}): RunnerConfig {
	return {
		dbtBin: FAKE_DBT,
		killGraceMs: 500,
		logPollMs: 50,
		defaultTimeoutS: 120,
		sandbox: 'bwrap',
		bwrapPath: null,
		sandboxReadOnly: SANDBOX_READ_ONLY,
		consoleLogBytes: 200_000,
		logFlushMs: 50,
		memoryMb: null,
		...over
	};
}

function form(fields: Record<string, string | Uint8Array>): FormData {
	const f = new FormData();
	for (const [k, v] of Object.entries(fields)) {
		if (typeof v === 'string' && k !== 'manifest') f.set(k, v);
		else f.set(k, new Blob([typeof v === 'string' ? new TextEncoder().encode(v) : (v as Uint8Array<ArrayBuffer>)]), `${k}.bin`);
	}
	return f;
}

const ok = async (p: Promise<{ status: number; body: unknown }>) => {
	const r = await p;
	expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
	return r;
};

export async function buildRunnerWorld(database: Database, workerOpts: { slots?: number; config?: Partial<RunnerConfig>; start?: boolean } = {}): Promise<RunnerWorld> {
	setDatabase(database);
	process.env.TRIBUTARY_ADMIN_USER = 'root';
	process.env.TRIBUTARY_ADMIN_PASSWORD = 'root-password-1';
	// As an operator running workers sets it: warehouse secrets sealed under a key of their own,
	// independent of the share-link secret (which a test may change).
	process.env.TRIBUTARY_ENCRYPTION_KEY = 'runner-world-encryption-key';
	await bootstrap(database);
	const admin = await login('root', 'root-password-1');
	await ok(admin.post('/api/workspaces', { id: WS, name: 'Runs' }));
	for (const u of ['wendy', 'rita', 'carl']) await ok(admin.post(`/api/w/${WS}/users`, { username: u, password: `${u}-password-1` }));
	await ok(admin.post(`/api/w/${WS}/folders`, { name: FOLDER, readers: ['u/rita'], writers: ['u/wendy'] }));
	await ok(
		admin.post(`/api/w/${WS}/warehouses`, {
			name: 'main',
			default_database: 'postgres',
			settings: { type: 'postgres', host: 'localhost', user: 'dbt', dbname: 'postgres', schema: 'public', threads: 4, env: { FAKE_DBT_SPEED: '200' }, secrets: { password: SECRET } }
		})
	);
	const [wendy, rita, carl] = [await login('wendy'), await login('rita'), await login('carl')];
	const jobsDir = mkdtempSync(path.join(tmpdir(), 'tributary-jobs-'));
	process.env.TRIBUTARY_JOBS_DIR = jobsDir;
	// These worlds test runs: no lineage job may take a slot or a claim (tests/api/column-lineage-inference.test.ts tests those).
	process.env.TRIBUTARY_LINEAGE_INFERENCE = '0';
	const config = runnerConfig(workerOpts.config);
	const worker = new Worker({ database, ingest: runnerIngest, slots: workerOpts.slots ?? 2, pollMs: 30, heartbeatMs: 100, staleS: 5, config, log: process.env.DEBUG_WORKER ? (l) => process.stderr.write(`${l}\n`) : undefined });
	if (workerOpts.start !== false) worker.start();

	const world: RunnerWorld = {
		database,
		admin,
		wendy,
		rita,
		carl,
		worker,
		config,
		jobsDir,
		lastDeploy: null,
		async deploy(name, scenario, opts = {}) {
			const files = new Map<string, string>([
				['dbt_project.yml', 'name: jaffle_shop\nversion: "1.0.0"\nconfig-version: 2\nprofile: jaffle_shop\n'],
				['models/orders.sql', 'select 1 as id\n'],
				['fake-dbt.json', JSON.stringify(scenario)],
				...Object.entries(opts.extraFiles ?? {})
			]);
			const fields: Record<string, string | Uint8Array> = {
				path: `f/${FOLDER}/${name}`,
				manifest: new Uint8Array(readFileSync(opts.manifest ?? path.join(PG_LOGS, 'build', 'manifest.json')))
			};
			if (opts.descriptor !== undefined) fields.descriptor = opts.descriptor;
			if (opts.withProject !== false) fields.project = tarGz(files);
			// Pinned by its first run unless a test asks for a deploy job: most of these tests are
			// about runs, and a deploy job per deploy would only slow them (pinning has tests of its own).
			fields.pin = opts.pin ?? 'at_first_run';
			const r = await ok(wendy.call('POST', `/api/w/${WS}/scripts/dbt/deploy`, { form: form(fields) }));
			world.lastDeploy = r.body;
			const pinJob = (r.body as { pin?: { job_id: string; mode: string } | null }).pin;
			if (pinJob && pinJob.mode === 'before_live') {
				const end = await world.waitJob(pinJob.job_id, 120_000);
				expect(end.status, `the deploy job pinning ${name} ended ${end.status}:\n${end.logs}`).toBe('success');
			}
			return (r.body as { hash: string }).hash;
		},
		async run(name, body = {}, client = wendy) {
			const r = await client.post(`/api/w/${WS}/jobs/run/p/f/${FOLDER}/${name}`, body);
			expect(r.status, JSON.stringify(r.body)).toBe(201);
			return r.body.job_id as string;
		},
		async waitJob(id, timeoutMs = 25_000) {
			const t0 = Date.now();
			for (;;) {
				const r = await wendy.get(`/api/w/${WS}/jobs/get/${id}`);
				expect(r.status, JSON.stringify(r.body)).toBe(200);
				if (!['queued', 'running'].includes(r.body.status)) return r.body;
				if (Date.now() - t0 > timeoutMs) {
					const { sql } = await import('drizzle-orm');
					const ping = await Promise.race([database.rows(sql`select 1 as x`).then(() => 'db ok'), new Promise((res) => setTimeout(() => res('db STUCK'), 3000))]);
					const procs = (await import('node:child_process')).execSync('ps -eo pid,ppid,stat,etime,args | grep -E "dbt.mjs|fake" | grep -v grep || true').toString();
					throw new Error(`job ${id} still ${r.body.status} after ${timeoutMs} ms (${ping}; active ${JSON.stringify(worker.active)}):\n${procs}\n${r.body.logs}`);
				}
				await new Promise((res) => setTimeout(res, 50));
			}
		},
		async progress(id) {
			const r = await wendy.get(`/api/w/${WS}/jobs/run_progress/${id}`);
			expect(r.status).toBe(200);
			return r.body;
		},
		async token(scopes) {
			const r = await wendy.post(`/api/w/${WS}/tokens`, { label: `t-${scopes.join('-') || 'all'}`, scopes });
			expect(r.status, JSON.stringify(r.body)).toBe(201);
			return new ApiClient().withBearer(r.body.token);
		},
		async close() {
			await worker.stop();
			await database.close();
			rmSync(jobsDir, { recursive: true, force: true });
		}
	};
	return world;
}

/** A scenario that replays one recorded log for `build` (and `run`), with that invocation's manifest. */
export function replay(log: string, extra: Step = {}, manifest = path.join(PG_LOGS, 'build', 'manifest.json')): Scenario {
	const step = { log, manifest, ...extra };
	return { speed: 100, commands: { build: step, run: step, parse: { manifest } } };
}
