// One run job, start to end (DESIGN.md §7): resolve its arguments, prepare a fresh directory,
// then the phases: a parse when the run's model set is its own, the column-lineage pass when the
// descriptor asks, the dbt invocation(s) with live progress, node retries, the `after_all` tests,
// and the settlement. Every phase shares one wall-clock deadline and one cancellation.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { WarehouseTarget } from '$lib/lineage/relation-path';
import { hashToHex } from '$lib/types/script-hash';
import type { DbtCommand, ParseResult, RunArgs, RunNodeResult, RunResult, ShowResult } from '$lib/types/runner';
import type { Database } from '../db';
import { mayRunAgainstWarehouse } from '../access';
import { ApiError } from '../http';
import { parseDescriptor, type DbtDescriptor } from '../dbt-files/descriptor';
import { IngestError } from '../dbt-files/errors';
import type { UploadedFile } from '../dbt-files/uploaded-file';
import { digestGraphInTurns, pruneGraphs, readMarker, replaceGraph, versionKey, type GraphKey } from '../repo/graph';
import { getJob, upsertProgress } from '../repo/jobs';
import { nodeAssetPaths, readArchive, settleProgress, type ClaimedJob } from '../repo/queue';
import { getVersion, setVersionLock, type ScriptVersion } from '../repo/scripts';
import { lockOf, describeLock, type EngineLock } from '../dbt-engine-spec';
import { getWarehouseWithSecrets } from '../repo/warehouses';
import { SecretUnreadable } from '../secret-box';
import { runProcess, type ProcessOutcome } from './child-process';
import { SANDBOX_OFF_WARNING, type RunnerConfig } from './config';
import { detectEngine, flagUnsupported, sandboxed, sandboxFailure, sandboxStartError, SandboxUnavailable, withLimits, type EngineInfo } from './dbt-process';
import type { JobLog } from './job-log';
import { followLog } from './log-tail';
import { ProgressTracker } from './node-events';
import { childEnv, makeMasker, profileNameOf, renderProfile, warehouseFolders, warehouseNetwork } from './profiles';
import {
	BUILDING_COMMANDS,
	effectiveSelection,
	ownModelSet,
	parseRunArgs,
	resolutionDigest,
	resolveVars,
	selectionArgv,
	type Selection
} from './run-args';
import { failureSummary, isRetryable, mergeNodes, parseRunResults, runResultOf, settlementPlan, type ParsedRunResults } from './run-results';
import { storeOwnGraph } from './run-graph';
import { engineForJob, EngineRefused, type JobEngine } from './engine/for-job';
import { declaresPackages, PACKAGE_LOCK, readPackageLock, restorePackages, savePackages } from './engine/packages';
import type { Engine } from './engine/provision';
import type { BuiltGraphView, IngestPort } from './ingest-port';
import { createJobDirs, jobDirs, removeJobDirs, unpackProject, type JobDirs } from './workdir';
import { warehousesRoot, withEmbeddedPath } from './embedded-warehouse';

export const UNREPORTED_MESSAGE = 'the run ended before this model finished';

/** Why a job stopped before dbt finished it. */
export type StopReason = 'canceled' | 'worker-stopped' | 'lost';

/** The job ends now, with this status and message: a cancellation, the deadline, or its worker going away. */
export class JobStop extends Error {
	constructor(
		readonly status: 'canceled' | 'failure',
		message: string
	) {
		super(message);
	}
}

/** A failure the job's owner can act on, found before or between dbt invocations. */
export class JobFailure extends Error {}

/** This worker cannot run dbt at all (no Python to provision an engine with): the fix is the operator's. */
export class EngineMissingFailure extends JobFailure {}

export interface ExecContext {
	database: Database;
	ingest: IngestPort;
	job: ClaimedJob;
	workerId: string;
	/** Aborted with a StopReason. */
	signal: AbortSignal;
	/** Epoch ms: the job's one wall clock. */
	deadline: number;
	config: RunnerConfig;
	log: JobLog;
	/** Between SIGTERM and SIGKILL when the worker stops (asked at stop time); none: SIGKILL at once. */
	stopGraceMs?: () => number;
	/** Told the dbt command (`build`, `compile`, …) of each invocation as it starts. */
	onInvocation?: (command: string) => void;
}

export interface JobEnd {
	status: 'success' | 'failure' | 'canceled';
	result: unknown;
}

export interface Prepared {
	ctx: ExecContext;
	command: DbtCommand;
	/** The arguments that decide the invocation (a retry: the ones restored from the run it resumes). */
	args: RunArgs;
	/** As submitted, what the result publishes. */
	invocationArgs: Record<string, unknown>;
	descriptor: DbtDescriptor;
	selection: Selection;
	vars: Record<string, unknown>;
	digest: string;
	dirs: JobDirs;
	env: Record<string, string>;
	/** The warehouse's runs reach the network (its `network` setting). */
	network: boolean;
	/** Host folders the run may write besides its own directory (an embedded warehouse's). */
	writable: string[];
	common: string[];
	warehouse: WarehouseTarget;
	engine: EngineInfo;
	/** The dbt this job starts, and its hold on a provisioned engine. */
	dbt: JobEngine;
	/** The version's lock when it was pinned before this run; null: this run pins it. */
	lock: EngineLock | null;
	mask: (s: string) => string;
	/** The run being resumed (command retry). */
	resumed: { id: string; nodes: RunNodeResult[]; command: string; engineVersion: string } | null;
	/** Whether this run stored a snapshot of its own (its graph differs from the version's). */
	snapshot: boolean;
	/** The graph this run's nodes resolve against (its snapshot, else its version's). */
	graphKey: GraphKey | null;
	/** Every node this job's invocations reported so far (a retry: starting from the run it resumes). */
	nodes: RunNodeResult[];
}

/** A worker that is shutting down allows what its stop grants (its process is about to exit). */
const graceOf = (ctx: Pick<ExecContext, 'signal' | 'config' | 'stopGraceMs'>): number =>
	ctx.signal.reason === ('worker-stopped' satisfies StopReason) ? (ctx.stopGraceMs?.() ?? 0) : ctx.config.killGraceMs;

const secs = (ms: number) => `${Math.max(0, Math.round(ms / 1000))} s`;

function stopOf(ctx: ExecContext, during: string): JobStop {
	const reason = ctx.signal.reason as StopReason | undefined;
	if (reason === 'canceled') return new JobStop('canceled', `canceled during ${during}`);
	return new JobStop('failure', 'the worker running this job stopped');
}

function deadlineStop(ctx: ExecContext, during: string): JobStop {
	const t = ctx.job.timeoutS;
	return new JobStop('failure', `the job ran out of time: its ${t ?? ctx.config.defaultTimeoutS} s deadline passed during ${during}`);
}

export function checkpoint(ctx: ExecContext, during: string): void {
	if (ctx.signal.aborted) throw stopOf(ctx, during);
	if (Date.now() >= ctx.deadline) throw deadlineStop(ctx, during);
}

// ─── Preparation ─────────────────────────────────────────────────────────────────────────

async function restoreRetry(ctx: ExecContext, args: RunArgs): Promise<{ args: RunArgs; resumed: NonNullable<Prepared['resumed']>; digest: string | null }> {
	const id = args.retry_job;
	if (!id) throw new JobFailure('a retry needs retry_job, the id of the run it resumes');
	const old = await getJob(ctx.database.db, ctx.job.workspace, id);
	if (!old || old.kind !== 'run' || old.scriptPath !== ctx.job.scriptPath) {
		throw new JobFailure(`retry_job ${id} is not a run of ${ctx.job.scriptPath} in this workspace`);
	}
	if (old.scriptHash !== ctx.job.scriptHash) {
		throw new JobFailure(`the run being retried (${id}) ran another version of ${ctx.job.scriptPath}; run the script normally instead`);
	}
	if (old.status !== 'failure' && old.status !== 'canceled') throw new JobFailure(`the run being retried (${id}) is ${old.status}: only a failed or canceled run can be resumed`);
	const result = (old.result ?? {}) as Partial<RunResult> & { resolution_digest?: string };
	const nodes = Array.isArray(result.nodes) ? result.nodes : [];
	if (!nodes.some(isRetryable)) throw new JobFailure(`the run being retried (${id}) has no failed or skipped node to resume`);
	let restored: RunArgs;
	try {
		restored = parseRunArgs((old.args ?? {}) as Record<string, unknown>);
	} catch (e) {
		throw new JobFailure(`the arguments of the run being retried no longer parse: ${(e as Error).message}`);
	}
	if (restored.command === 'retry') {
		// A retry of a retry resumes the original invocation, whose arguments it published.
		const { retry_job: _resumed, resumed_command, ...original } = (result.invocation_args ?? {}) as Record<string, unknown>;
		try {
			restored = parseRunArgs({ ...original, command: resumed_command });
		} catch (e) {
			throw new JobFailure(`the arguments of the run being retried no longer parse: ${(e as Error).message}`);
		}
	}
	return {
		args: restored,
		resumed: { id, nodes, command: restored.command, engineVersion: result.engine_version ?? 'unknown' },
		digest: result.resolution_digest ?? null
	};
}

async function prepare(ctx: ExecContext): Promise<Prepared> {
	const { database, job, log } = ctx;
	if (ctx.config.sandbox === 'off') log.say(SANDBOX_OFF_WARNING);
	let submitted: RunArgs;
	try {
		submitted = parseRunArgs(job.args);
	} catch (e) {
		throw new JobFailure(`the job's arguments are not valid: ${(e as Error).message}`);
	}
	if (!job.scriptPath || job.scriptHash === null) throw new JobFailure('this job names no deployed version to run');
	const version = await getVersion(database.db, job.workspace, job.scriptHash);
	if (!version || version.deleted) throw new JobFailure(`version ${hashToHex(job.scriptHash)} of ${job.scriptPath} no longer exists`);
	if (version.language !== 'dbt') throw new JobFailure(`${job.scriptPath} is not a dbt project`);
	let descriptor: DbtDescriptor;
	try {
		descriptor = parseDescriptor(version.content);
	} catch (e) {
		throw new JobFailure(`the descriptor of this version is not valid: ${(e as Error).message}`);
	}

	let args = submitted;
	let resumed: Prepared['resumed'] = null;
	let savedDigest: string | null = null;
	if (submitted.command === 'retry') {
		const r = await restoreRetry(ctx, submitted);
		args = r.args;
		resumed = r.resumed;
		savedDigest = r.digest;
		log.say(`resuming run ${r.resumed.id} (dbt ${r.args.command}) with its arguments`);
	}
	const resolved = resolveVars(descriptor.vars, args);
	if (resolved.missing.length) {
		const names = resolved.missing.map((n) => `{{ ${n} }}`).join(', ');
		throw new JobFailure(
			`the descriptor's vars use ${names}, but this run gave no value for ${resolved.missing.length === 1 ? 'it' : 'them'}: ` +
				`pass ${resolved.missing.map((n) => `"${n}"`).join(', ')} in the run's arguments. dbt was not started.`
		);
	}
	const selection = effectiveSelection(descriptor, args);
	const digest = resolutionDigest(job.scriptHash, selection, resolved.vars);
	if (resumed && savedDigest && savedDigest !== digest) {
		throw new JobFailure(
			"the values this run's arguments resolve to have changed since the run being retried, so its failures no longer describe what a retry would build; run the script normally instead"
		);
	}

	const setup = await setupProject(ctx, { version, descriptor, warehouseRequired: true, adapterType: null });
	const invocationArgs: Record<string, unknown> = resumed ? { ...args, command: 'retry', retry_job: resumed.id, resumed_command: args.command } : { ...submitted };
	return {
		...setup,
		ctx,
		command: submitted.command,
		args,
		invocationArgs,
		descriptor,
		selection,
		vars: resolved.vars,
		digest,
		resumed,
		snapshot: false,
		graphKey: versionKey(job.workspace, job.scriptPath!, job.scriptHash),
		nodes: resumed ? [...resumed.nodes] : []
	};
}

/** What a job needs to invoke dbt on a version's project: its files unpacked, a profile, a sandbox, an engine. */
export type ProjectSetup = Pick<Prepared, 'dirs' | 'env' | 'network' | 'writable' | 'common' | 'warehouse' | 'engine' | 'dbt' | 'lock' | 'mask'> & {
	/** The warehouse's `type`, null when it is not configured. */
	warehouseType: string | null;
};

/**
 * Unpacks the version's project files into a fresh job directory, renders the profile of its
 * warehouse, and starts its engine's `dbt --version` in the sandbox. A deploy being pinned may
 * have no warehouse configured yet (`warehouseRequired` false): its adapter then comes from the
 * manifest it uploaded (`adapterType`), and no profile is written.
 */
export async function setupProject(
	ctx: ExecContext,
	opts: {
		version: ScriptVersion;
		descriptor: DbtDescriptor;
		warehouseRequired: boolean;
		adapterType: string | null;
		/** False for a pin that only installs packages: the warehouse's `folders` rule governs what connects to it. */
		usesWarehouse?: boolean;
	}
): Promise<ProjectSetup> {
	const { database, job, log } = ctx;
	const { version, descriptor } = opts;
	const wh = await getWarehouseWithSecrets(database, job.workspace, descriptor.warehouse).catch((e) => {
		if (e instanceof SecretUnreadable) throw new JobFailure(e.message);
		throw e;
	});
	if (!wh && opts.warehouseRequired) {
		throw new JobFailure(`the warehouse "${descriptor.warehouse}" this project builds into is not configured in this workspace: a workspace admin adds it under Settings → Warehouses`);
	}
	const allowed = wh ? warehouseFolders(wh.settings) : null;
	if (wh && opts.usesWarehouse !== false && !mayRunAgainstWarehouse(allowed, job.scriptPath!)) {
		throw new JobFailure(
			`the warehouse "${wh.name}" may be used only by projects in ${allowed!.length ? allowed!.map((f) => `"${f}"`).join(', ') : 'no folder'}, and ${job.scriptPath} is not among them: a workspace admin lists its folder in the warehouse's settings.folders. dbt was not started.`
		);
	}
	const network = wh ? warehouseNetwork(wh.settings) : false;
	const archive = await readArchive(database, job.workspace, version.hash);
	if (!archive) {
		throw new JobFailure('this version was deployed from artifacts alone (no project files), so it can be browsed but not run: deploy it with its project files');
	}
	const dirs = await createJobDirs(job.id);
	let unpacked: { files: number; bytes: number };
	try {
		unpacked = await unpackProject(archive, dirs.project);
	} catch (e) {
		throw new JobFailure((e as Error).message);
	}
	const projectYml = await readFile(path.join(dirs.project, 'dbt_project.yml'), 'utf8').catch(() => null);
	if (projectYml === null) throw new JobFailure('the project files have no dbt_project.yml at their top level');
	let profileName: string;
	try {
		profileName = profileNameOf(parseYaml(projectYml));
	} catch (e) {
		throw new JobFailure(`dbt_project.yml is not valid YAML: ${(e as Error).message.split('\n')[0]}`);
	}
	const embedded = wh ? await withEmbeddedPath(ctx.config.warehouseDir ?? warehousesRoot(), job.workspace, wh) : { settings: {}, writable: [], file: null };
	if (embedded.file) log.say(`warehouse "${wh!.name}" is embedded: DuckDB file ${embedded.file}`);
	const profile = wh ? renderProfile({ ...wh, settings: embedded.settings }, profileName) : { yaml: '', env: {}, secrets: [], refusedEnv: [] };
	const mask = makeMasker(profile.secrets);
	log.setMask(mask);
	if (wh) await writeFile(path.join(dirs.profiles, 'profiles.yml'), profile.yaml, { mode: 0o600 });
	if (profile.refusedEnv.length) log.say(`warehouse env entries ignored (reserved names): ${profile.refusedEnv.join(', ')}`);
	log.say(`project files: ${unpacked.files} (${unpacked.bytes.toLocaleString('en-US')} bytes); profile "${profileName}", target ${descriptor.warehouse}${wh ? '' : ' (not configured here: no profile)'}`);

	const env = childEnv({ home: dirs.root, warehouseEnv: profile.env });
	if (ctx.config.sandbox === 'bwrap') {
		log.say(`sandbox: bubblewrap, uid 65534, no new namespaces, system calls filtered, only the job directory${embedded.file ? " and the warehouse's folder" : ''} writable, ${network ? 'with the network' : 'no network'}${wh ? ` (warehouse "${wh.name}")` : ''}`);
	}
	const lock = lockOf(version.lock);
	let dbt: JobEngine;
	try {
		dbt = await engineForJob(ctx.config, {
			jobId: job.id,
			request: descriptor.engine,
			adapterType: wh && typeof wh.settings.type === 'string' ? wh.settings.type : opts.adapterType,
			lock,
			log: (l) => log.say(l),
			signal: ctx.signal,
			deadline: ctx.deadline
		});
	} catch (e) {
		if (e instanceof EngineRefused) throw new (e.unavailable ? EngineMissingFailure : JobFailure)(`${e.message.replace(/\.$/, '')}. dbt was not started.`);
		throw e;
	}
	try {
		// A provisioned engine was verified when it was built and its versions are its key: asking it
		// `dbt --version` again would cost a whole Python start per job. An engine the operator
		// brought (DBT_BIN, Fusion) is asked.
		const engine = dbt.provisioned ? provisionedEngineInfo(dbt.provisioned) : await detectEngineIn(ctx, dbt.dbtBin, dirs, env, network, embedded.writable);
		checkpoint(ctx, 'preparation');
		log.say(`engine: ${engine.name} ${engine.version}${engine.emitsNodeEvents ? '' : ' (no live node events: progress settles when the run ends)'}`);
		if (lock && dbt.source === 'dbt_bin' && lock.engine_version !== engine.version) {
			log.say(`note: this version is pinned to ${describeLock(lock)}, and DBT_BIN runs ${engine.name} ${engine.version}: the operator's engine is used`);
		}
		return {
			dirs,
			env,
			network,
			writable: embedded.writable,
			common: ['--project-dir', dirs.project, '--profiles-dir', dirs.profiles],
			warehouse: { name: wh?.name ?? descriptor.warehouse, defaultDatabase: wh?.defaultDatabase ?? null },
			warehouseType: wh && typeof wh.settings.type === 'string' ? wh.settings.type : opts.adapterType,
			engine,
			dbt,
			lock,
			mask
		};
	} catch (e) {
		await dbt.release();
		throw e;
	}
}

/** What `dbt --version` would say of an engine this worker provisioned. */
export function provisionedEngineInfo(e: Pick<Engine, 'coreVersion' | 'adapterType' | 'adapterVersion'>): EngineInfo {
	const one = e.coreVersion.startsWith('1.');
	return { name: 'dbt-core', version: e.coreVersion, writesIndex: one ? false : null, emitsNodeEvents: one, adapter: e.adapterType, adapterVersion: e.adapterVersion };
}

/** `dbt --version` of the engine, inside the sandbox as every invocation is. */
export async function detectEngineIn(
	ctx: Pick<ExecContext, 'config' | 'deadline' | 'signal' | 'stopGraceMs'>,
	dbtBin: string,
	dirs: JobDirs,
	env: Record<string, string>,
	network: boolean,
	writable: string[]
): Promise<EngineInfo> {
	const versionCmd = await wrapCommand(ctx, dbtBin, dirs, env, network, ['--version'], writable);
	const engine = await detectEngine(versionCmd, dirs.project, env, { deadline: ctx.deadline, signal: ctx.signal, killGraceMs: () => graceOf(ctx) });
	if (engine.sandboxError) throw new JobFailure(sandboxFailure(engine.sandboxError).message);
	if (engine.error) throw new JobFailure(`could not start dbt (${dbtBin}): ${engine.error}`);
	return engine;
}


// ─── Invocations ─────────────────────────────────────────────────────────────────────────

export interface Invocation {
	label: string;
	argv: string[];
	/** Follow this invocation's JSON log and write progress rows. */
	progress?: boolean;
	/** An earlier deadline than the job's (the lineage pass's budget). */
	deadline?: number;
	captureStdout?: number;
	/** Stream console output into the job log (default yes). */
	console?: boolean;
	/** Overrides the warehouse's network setting for this invocation (`dbt deps` fetches packages). */
	network?: boolean;
}

interface Invoked {
	outcome: ProcessOutcome;
	/** The invocation's own budget ran out (never the job's deadline: that throws). */
	timedOut: boolean;
}

/**
 * dbt's argv as it is started: under the shell's limits, inside the sandbox unless the operator
 * turned it off. A sandbox that cannot be built fails the job; dbt never runs bare instead.
 */
export async function wrapCommand(
	ctx: Pick<ExecContext, 'config'>,
	dbtBin: string,
	dirs: JobDirs,
	env: Record<string, string>,
	network: boolean,
	argv: string[],
	writable: string[] = []
): Promise<{ bin: string; argv: string[]; supervised?: boolean; extraFds?: Uint8Array[] }> {
	const spec = withLimits(dbtBin, argv, { memoryMb: ctx.config.memoryMb });
	if (ctx.config.sandbox === 'off') return spec;
	try {
		const wrapped = await sandboxed(spec, {
			bwrapPath: ctx.config.bwrapPath,
			dbtBin,
			pathVar: env.PATH,
			jobRoot: dirs.root,
			cwd: dirs.project,
			network,
			readOnly: ctx.config.sandboxReadOnly,
			writable
		});
		return { ...wrapped, supervised: true };
	} catch (e) {
		if (e instanceof SandboxUnavailable) throw new JobFailure(e.message);
		throw e;
	}
}

export async function invoke(p: Prepared, inv: Invocation): Promise<Invoked> {
	const { ctx } = p;
	checkpoint(ctx, inv.label);
	const logDir = path.join(p.dirs.logs, inv.label.replace(/[^a-z0-9]+/gi, '-'));
	await mkdir(logDir, { recursive: true });
	const argv = [...inv.argv, '--log-path', logDir, '--log-format-file', 'json'];
	const spec = await wrapCommand(ctx, p.dbt.dbtBin, p.dirs, p.env, inv.network ?? p.network, argv, p.writable);
	const shown = inv.argv.map((a) => (a.startsWith(p.dirs.root) ? `<job>${a.slice(p.dirs.root.length)}` : /[\s"'{}]/.test(a) ? JSON.stringify(a) : a));
	ctx.log.say(`$ dbt ${shown.join(' ')}`);

	const tracker = new ProgressTracker();
	let progressFailed = false;
	const follower = inv.progress
		? followLog(
				path.join(logDir, 'dbt.log'),
				async (lines) => {
					const changes = tracker.applyLines(lines, p.warehouse);
					if (changes.length === 0) return;
					try {
						await upsertProgress(ctx.database, ctx.job.workspace, ctx.job.id, changes.map((c) => ({ assetKind: 'dbt', ...c, error: c.error === null ? null : p.mask(c.error) })));
					} catch (e) {
						if (!progressFailed) ctx.log.say(`live progress could not be written: ${(e as Error).message}`);
						progressFailed = true;
					}
				},
				{ intervalMs: ctx.config.logPollMs }
			)
		: null;
	const deadline = Math.min(inv.deadline ?? ctx.deadline, ctx.deadline);
	let outcome: ProcessOutcome;
	ctx.onInvocation?.(inv.argv[0]);
	try {
		outcome = await runProcess(
			{ bin: spec.bin, argv: spec.argv, cwd: p.dirs.project, env: p.env, pidFile: p.dirs.pidFile, supervised: spec.supervised, extraFds: spec.extraFds },
			{ deadline, signal: ctx.signal, killGraceMs: () => graceOf(ctx) },
			{ onLine: inv.console === false ? undefined : (line) => ctx.log.console(line), captureStdout: inv.captureStdout }
		);
	} finally {
		await follower?.finish();
	}
	ctx.log.endOfOutput();
	if (ctx.config.memoryMb && outcome.end === 'exited' && crashed(outcome)) memoryCrashes.set(outcome, ctx.config.memoryMb);
	const skipped = follower?.stats().skippedLines ?? 0;
	if (skipped) ctx.log.say(`live progress skipped ${skipped} over-long line${skipped === 1 ? '' : 's'} of dbt's JSON log`);
	if (outcome.escalated) ctx.log.say(`dbt did not stop within ${secs(graceOf(ctx))} of SIGTERM; its process group was killed`);
	if (outcome.end === 'spawn_error') throw new JobFailure(`could not start dbt (${p.dbt.dbtBin}): ${outcome.spawnError}`);
	const sandboxError = sandboxStartError(outcome);
	if (sandboxError) throw new JobFailure(sandboxFailure(sandboxError).message);
	if (outcome.end === 'aborted') throw stopOf(ctx, `dbt ${inv.label}`);
	if (outcome.end === 'deadline') {
		if (Date.now() >= ctx.deadline - 5) throw deadlineStop(ctx, `dbt ${inv.label}`);
		return { outcome, timedOut: true };
	}
	return { outcome, timedOut: false };
}

/** Outcomes that ended the way a process does on reaching the address-space cap, with the cap in MB. */
const memoryCrashes = new WeakMap<ProcessOutcome, number>();
/** A crash signal, or the sandbox's 128 + signal exit code for one. */
const CRASH = new Set(['SIGSEGV', 'SIGABRT', 'SIGBUS', 'SIGTRAP', 'SIGKILL']);
const crashed = (o: ProcessOutcome) => (o.signal !== null && CRASH.has(o.signal)) || [133, 134, 135, 137, 139].includes(o.exitCode ?? -1);

export const exitText = (o: ProcessOutcome) => {
	const how = o.exitCode !== null ? `exit code ${o.exitCode}` : `signal ${o.signal}`;
	const cap = memoryCrashes.get(o);
	return cap ? `${how}: it crashed, as a process does on running out of memory under the ${cap} MB cap of TRIBUTARY_DBT_MEMORY_MB` : how;
};

export function stderrTail(o: ProcessOutcome, mask: (s: string) => string, lines = 20): string {
	const tail = o.stderrTail.filter((l) => l.trim() !== '').slice(-lines);
	return tail.length ? `\n${tail.map(mask).join('\n')}` : '';
}

async function readRunResults(dir: string): Promise<{ parsed: ParsedRunResults | null; problem: string | null }> {
	const file = path.join(dir, 'run_results.json');
	let text: string;
	try {
		text = await readFile(file, 'utf8');
	} catch {
		return { parsed: null, problem: null };
	}
	try {
		return { parsed: parseRunResults(text), problem: null };
	} catch (e) {
		return { parsed: null, problem: (e as Error).message };
	}
}

// ─── Graph: per-run snapshot, column lineage ─────────────────────────────────────────────

async function fileIfExists(p: string, name: string): Promise<UploadedFile | undefined> {
	if (!existsSync(p)) return undefined;
	return { name, bytes: new Uint8Array(await readFile(p)) };
}

async function indexFiles(target: string): Promise<{ columnLineage?: UploadedFile; nodeColumns?: UploadedFile }> {
	for (const dir of ['index', 'private/index', 'info_schema/v1']) {
		const cl = await fileIfExists(path.join(target, dir, 'dbt.column_lineage.parquet'), 'dbt.column_lineage.parquet');
		if (cl) return { columnLineage: cl, nodeColumns: await fileIfExists(path.join(target, dir, 'dbt.node_columns.parquet'), 'dbt.node_columns.parquet') };
	}
	return {};
}

export async function graphFrom(p: Prepared, manifestPath: string, index: { columnLineage?: UploadedFile; nodeColumns?: UploadedFile }): Promise<BuiltGraphView> {
	const manifest = await fileIfExists(manifestPath, 'manifest.json');
	if (!manifest) throw new JobFailure(`dbt wrote no manifest.json (${path.basename(path.dirname(manifestPath))})`);
	try {
		return await p.ctx.ingest.buildGraphContent({
			manifest,
			...index,
			warehouse: p.warehouse.name,
			defaultDatabase: p.warehouse.defaultDatabase ?? null,
			selection: p.selection,
			columnLineageWanted: p.descriptor.columnLineage
		});
	} catch (e) {
		if (e instanceof IngestError || e instanceof ApiError) throw new JobFailure(`the manifest this run produced could not be read: ${e.message}`);
		throw e;
	}
}

/** Stores the run's graph under its job (a versioned run: only when it differs from the version's). */
async function storeGraph(p: Prepared, built: BuiltGraphView): Promise<boolean> {
	const { database, job } = p.ctx;
	const key: GraphKey = { workspace: job.workspace, scriptPath: job.scriptPath!, scriptHash: job.scriptHash, jobId: job.id };
	const stats = { nodes: built.content.nodes.length, edges: built.content.edges.length, column_edges: built.content.columnEdges?.length ?? null, typed_nodes: built.typedNodes, source: 'run' };
	const stored = await database.db.transaction(async (tx) => {
		if (key.scriptHash === null) {
			const { digest, nodeDigests } = await digestGraphInTurns(built.content);
			await replaceGraph(database, tx, key, built.content, { digest, permissionedAs: job.permissionedAs, stats }, { nodeDigests });
			return true;
		}
		return storeOwnGraph(database, tx, { ...key, scriptHash: key.scriptHash }, built.content, job.permissionedAs, stats);
	});
	if (stored) {
		p.snapshot = true;
		p.graphKey = key;
	}
	p.ctx.log.say(
		stored
			? `stored this run's own graph: ${built.content.nodes.length} nodes, ${built.content.edges.length} edges${built.content.columnEdges ? `, ${built.content.columnEdges.length} column edges` : ''}`
			: "this run's graph is the same as its version's; nothing stored"
	);
	return stored;
}

async function parsePhase(p: Prepared): Promise<BuiltGraphView> {
	const { outcome } = await invoke(p, { label: 'parse', argv: ['parse', ...p.common, '--target-path', p.dirs.parseTarget, ...varsArgv(p)] });
	if (outcome.exitCode !== 0) throw new JobFailure(`dbt parse failed (${exitText(outcome)}), so this run's models are unknown and nothing was built${stderrTail(outcome, p.mask)}`);
	const built = await graphFrom(p, path.join(p.dirs.parseTarget, 'manifest.json'), {});
	for (const w of built.warnings) p.ctx.log.say(`warning: ${w}`);
	return built;
}

export const varsArgv = (p: Prepared): string[] => (Object.keys(p.vars).length ? ['--vars', JSON.stringify(p.vars)] : []);

/**
 * The column-lineage pass: its own compile into its own target dir, within half of what is left
 * of the job's time. Whatever goes wrong with it costs the lineage and says which in one line;
 * only a cancellation or the job's own deadline (thrown by invoke) fail the job.
 */
async function lineagePass(p: Prepared): Promise<{ index: { columnLineage?: UploadedFile; nodeColumns?: UploadedFile }; manifestPath: string } | null> {
	const { log } = p.ctx;
	if (p.engine.writesIndex === false) {
		log.say(`column_lineage is set, but ${p.engine.name} ${p.engine.version} has no --write-index (column lineage needs an engine that does static analysis); skipped. The rest of the run is unaffected.`);
		return null;
	}
	const budgetMs = Math.max(1000, Math.floor((p.ctx.deadline - Date.now()) / 2));
	const { outcome, timedOut } = await invoke(p, {
		label: 'column lineage',
		argv: ['compile', '--static-analysis', 'strict', '--write-index', '--write-lineage', ...p.common, '--target-path', p.dirs.lineageTarget, ...varsArgv(p)],
		deadline: Date.now() + budgetMs,
		console: false
	});
	const tail = stderrTail(outcome, p.mask, 15);
	if (timedOut) {
		log.say(`No column lineage: the analysis pass did not finish within ${secs(budgetMs)} (half of what was left of this job's time); the build gets the rest.${tail}`);
		return null;
	}
	if (outcome.exitCode !== 0 && flagUnsupported(outcome.stderrTail.join('\n'))) {
		log.say(`column_lineage is set, but this dbt has no --write-index; skipped.${tail}`);
		return null;
	}
	const index = await indexFiles(p.dirs.lineageTarget);
	if (!index.columnLineage) {
		log.say(
			outcome.exitCode === 0
				? `No column lineage: the analysis pass wrote no dbt.column_lineage.parquet (only an engine that computes it does, and only for warehouses it analyzes).${tail}`
				: `No column lineage: the analysis pass failed (${exitText(outcome)}) and wrote no index.${tail}`
		);
		return null;
	}
	if (outcome.exitCode !== 0) log.say(`Column lineage is partial: --static-analysis strict rejected part of the project (${exitText(outcome)}); the index covers the models it analyzed.${tail}`);
	return { index, manifestPath: path.join(p.dirs.lineageTarget, 'manifest.json') };
}

/** The run's own graph (parse, lineage pass) before anything is built. */
async function graphPhases(p: Prepared, withLineage: boolean): Promise<void> {
	let built: BuiltGraphView | null = null;
	if (ownModelSet(p.descriptor, p.args)) {
		p.ctx.log.say("this run's model set is its own (vars or selection overridden, or placeholders in the descriptor): parsing it first");
		built = await parsePhase(p);
	}
	if (withLineage) {
		const lineage = await lineagePass(p);
		if (lineage) {
			const manifest = existsSync(lineage.manifestPath) ? lineage.manifestPath : path.join(p.dirs.parseTarget, 'manifest.json');
			const withIndex = await graphFrom(p, manifest, lineage.index).catch((e) => {
				p.ctx.log.say(`No column lineage: ${(e as Error).message}`);
				return null;
			});
			if (withIndex) {
				for (const w of withIndex.warnings) p.ctx.log.say(`No column lineage: ${w}`);
				for (const l of withIndex.indexLog) p.ctx.log.say(l);
				if (withIndex.content.columnEdges) built = withIndex;
			}
		}
	}
	if (built) await storeGraph(p, built);
}

/**
 * The project's packages before dbt parses it. A version pinned with packages restores the tree
 * cached under its package-lock digest, or runs `dbt deps` from its pinned package-lock.yml and
 * fails closed when what deps resolved differs from the pin. An unpinned version runs deps as
 * its files say (the CLI packs a project without dbt_packages/) and its lock records the result.
 */
export async function depsPhase(p: Prepared): Promise<{ packageLock: string | null; packageLockText: string | null }> {
	const { log } = p.ctx;
	const pinned = p.lock?.package_lock_digest ?? null;
	if (!(await declaresPackages(p.dirs.project))) return { packageLock: null, packageLockText: null };
	if (existsSync(path.join(p.dirs.project, 'dbt_packages')) && !pinned) return { packageLock: (await readPackageLock(p.dirs.project))?.digest ?? null, packageLockText: null };
	const cacheRoot = p.ctx.config.packageCacheDir ?? null;
	if (pinned && cacheRoot && (await restorePackages(cacheRoot, p.ctx.job.workspace, pinned, p.dirs.project))) {
		log.say(`packages: the installed tree of package-lock ${pinned.slice(0, 12)} restored from the cache; dbt deps skipped`);
		return { packageLock: pinned, packageLockText: null };
	}
	const pinnedText = p.lock?.package_lock_yml ?? null;
	if (pinned && pinnedText) await writeFile(path.join(p.dirs.project, PACKAGE_LOCK), pinnedText);
	const { outcome } = await invoke(p, { label: 'deps', argv: ['deps', ...p.common], network: true });
	if (outcome.exitCode !== 0) throw new JobFailure(`dbt deps failed (${exitText(outcome)}), so the project's packages are missing and nothing was built${stderrTail(outcome, p.mask)}`);
	const lock = await readPackageLock(p.dirs.project);
	if (pinned && lock?.digest !== pinned) {
		throw new JobFailure(
			`dbt deps installed packages whose package-lock.yml (digest ${lock?.digest ?? 'none: deps wrote no package-lock.yml'}) differs from the one this version was pinned with (digest ${pinned}): the run stops rather than build with other packages. Redeploy to pin the packages anew.`
		);
	}
	if (lock && cacheRoot) await savePackages(cacheRoot, p.ctx.job.workspace, lock, p.dirs.project).catch((e) => log.say(`packages could not be cached: ${(e as Error).message}`));
	return { packageLock: lock?.digest ?? null, packageLockText: lock?.text ?? null };
}

/** A version deployed before pinning existed (or with pinning after it went live) is pinned by its first run. */
async function pinOnFirstRun(p: Prepared, packages: { packageLock: string | null; packageLockText: string | null }): Promise<void> {
	const { database, job, log } = p.ctx;
	if (p.lock || job.scriptHash === null) return;
	const lock = lockFromRun(p, packages);
	const wrote = await setVersionLock(database.db, job.workspace, job.scriptHash, lock, true);
	if (wrote) log.say(`pinned this version to ${describeLock(lock)}: its later runs use exactly this engine`);
}

export function lockFromRun(p: Pick<Prepared, 'dbt' | 'engine'>, packages: { packageLock: string | null; packageLockText: string | null }): EngineLock & { package_lock_yml?: string } {
	const e = p.dbt.provisioned;
	return {
		engine: p.engine.name === 'dbt-fusion' ? 'dbt-fusion' : p.engine.name === 'dbt-core' ? 'dbt-core' : 'dbt',
		engine_version: e?.coreVersion ?? p.engine.version,
		adapter: e?.adapterType ?? p.engine.adapter ?? null,
		adapter_version: e?.adapterVersion ?? p.engine.adapterVersion ?? null,
		python_version: e?.python.version ?? null,
		package_lock_digest: packages.packageLock,
		source: p.dbt.source,
		...(packages.packageLockText ? { package_lock_yml: packages.packageLockText } : {})
	};
}

// ─── Commands ────────────────────────────────────────────────────────────────────────────

async function runParse(p: Prepared): Promise<JobEnd> {
	const built = await parsePhase(p);
	const byType: Record<string, number> = {};
	for (const n of built.content.nodes) byType[n.resourceType] = (byType[n.resourceType] ?? 0) + 1;
	const stored = await storeGraph(p, built);
	const result: ParseResult = {
		engine: p.engine.name,
		engine_version: p.engine.version,
		command: 'parse',
		nodes: built.content.nodes.length,
		edges: built.content.edges.length,
		by_resource_type: byType,
		graph_job: stored ? p.ctx.job.id : null,
		invocation_args: p.invocationArgs
	};
	return { status: 'success', result };
}

const SHOW_MAX_OUTPUT = 8 * 1024 * 1024;

/** The `{"node": …, "show": [...]}` document in dbt's stdout (banners before it, warnings after). */
export function showDocument(stdout: string): { node: string | null; rows: Record<string, unknown>[] } | null {
	for (let at = stdout.indexOf('{'); at >= 0; at = stdout.indexOf('{', at + 1)) {
		let depth = 0;
		let inString = false;
		for (let i = at; i < stdout.length; i++) {
			const c = stdout[i];
			if (inString) {
				if (c === '\\') i++;
				else if (c === '"') inString = false;
				continue;
			}
			if (c === '"') inString = true;
			else if (c === '{') depth++;
			else if (c === '}' && --depth === 0) {
				try {
					const doc = JSON.parse(stdout.slice(at, i + 1)) as Record<string, unknown>;
					if (Array.isArray(doc.show)) return { node: typeof doc.node === 'string' ? doc.node : null, rows: doc.show as Record<string, unknown>[] };
				} catch {
					/* not a document: keep looking */
				}
				break;
			}
		}
	}
	return null;
}

async function runShow(p: Prepared): Promise<JobEnd> {
	const model = p.args.model!;
	const limit = p.args.limit ?? 100;
	const { outcome } = await invoke(p, {
		label: 'show',
		argv: ['show', ...p.common, '--target-path', p.dirs.target, ...varsArgv(p), '--select', `${model},resource_type:model`, '--output', 'json', '--limit', String(limit)],
		captureStdout: SHOW_MAX_OUTPUT
	});
	const doc = showDocument(outcome.stdout ?? '');
	if (outcome.exitCode !== 0 || !doc) {
		const why = outcome.exitCode !== 0 ? `dbt show failed (${exitText(outcome)})` : 'dbt show printed no rows to read';
		throw new JobFailure(`${why}${stderrTail(outcome, p.mask)}${doc ? '' : `\n${p.mask((outcome.stdout ?? '').slice(0, 2000))}`}`);
	}
	const result: ShowResult = {
		engine: p.engine.name,
		engine_version: p.engine.version,
		command: 'show',
		model,
		limit,
		node: doc.node,
		rows: doc.rows.slice(0, limit),
		invocation_args: p.invocationArgs
	};
	p.ctx.log.say(`${result.rows.length} row${result.rows.length === 1 ? '' : 's'} of ${doc.node ?? model}`);
	return { status: 'success', result };
}

/** dbt retry reads the run it resumes from run_results.json in its target path: written from the stored result. */
async function writeResumedState(p: Prepared): Promise<void> {
	const r = p.resumed!;
	const doc = {
		metadata: {
			dbt_schema_version: 'https://schemas.getdbt.com/dbt/run-results/v6.json',
			dbt_version: r.engineVersion,
			generated_at: new Date().toISOString(),
			invocation_id: randomUUID(),
			env: {}
		},
		results: r.nodes.map((n) => ({
			status: n.status,
			timing: [],
			thread_id: 'Thread-1',
			execution_time: n.execution_time ?? 0,
			adapter_response: {},
			message: n.message ?? null,
			failures: n.failures ?? null,
			unique_id: n.unique_id,
			compiled: null,
			compiled_code: null,
			relation_name: n.relation_name ?? null,
			batch_results: null
		})),
		elapsed_time: 0,
		// dbt retry turns each of these back into a command-line option: an absent value must be
		// absent (a null selector would become `--no-selector`, which dbt does not have).
		args: {
			which: r.command,
			select: p.selection.select,
			exclude: p.selection.exclude,
			...(p.selection.selector ? { selector: p.selection.selector } : {}),
			...(Object.keys(p.vars).length ? { vars: p.vars } : {})
		}
	};
	await mkdir(p.dirs.target, { recursive: true });
	await writeFile(path.join(p.dirs.target, 'run_results.json'), JSON.stringify(doc));
}

interface PhaseOutcome {
	ok: boolean;
	outcome: ProcessOutcome;
	problem: string | null;
	/** The invocation wrote a run_results.json. */
	wrote: boolean;
}

async function buildPhase(p: Prepared, command: DbtCommand): Promise<PhaseOutcome> {
	const isRetry = command === 'retry';
	const argv = [command, ...p.common, '--target-path', p.dirs.target];
	if (!isRetry) {
		argv.push(...selectionArgv(p.selection), ...varsArgv(p));
		// The model phase of `after_all` (and every phase of `none`) is a build without tests.
		if (command === 'build' && p.descriptor.testBehavior !== 'build') argv.push('--exclude-resource-type', 'test', '--exclude-resource-type', 'unit_test');
	}
	// Only what THIS invocation wrote counts: the file a retry resumes from (or the model phase's,
	// before the tests) is still there when dbt fails before writing its own.
	const before = await stat(path.join(p.dirs.target, 'run_results.json')).catch(() => null);
	const { outcome } = await invoke(p, { label: command, argv, progress: BUILDING_COMMANDS.has(command) });
	const after = await stat(path.join(p.dirs.target, 'run_results.json')).catch(() => null);
	if (!after || (before && after.mtimeMs === before.mtimeMs && after.size === before.size)) {
		return { ok: outcome.exitCode === 0, outcome, problem: null, wrote: false };
	}
	const { parsed, problem } = await readRunResults(p.dirs.target);
	if (parsed) p.nodes = mergeNodes(p.nodes, parsed.nodes.map((n) => ({ ...n, ...(n.message ? { message: p.mask(n.message) } : {}) })));
	return { ok: outcome.exitCode === 0 && !problem, outcome, problem, wrote: true };
}

async function sleepAbortable(ctx: ExecContext, ms: number): Promise<void> {
	if (ms <= 0) return;
	await new Promise<void>((resolve) => {
		const t = setTimeout(done, Math.min(ms, Math.max(0, ctx.deadline - Date.now())));
		function done() {
			clearTimeout(t);
			ctx.signal.removeEventListener('abort', done);
			resolve();
		}
		ctx.signal.addEventListener('abort', done, { once: true });
	});
}

/** `retry_failed_nodes`: `dbt retry` up to N times (the budget is the job's, not the phase's), only while something is retryable. */
async function retryFailedNodes(p: Prepared, phase: PhaseOutcome, budget: { left: number }): Promise<PhaseOutcome> {
	const policy = p.descriptor.retryFailedNodes;
	let current = phase;
	while (!current.ok && policy && budget.left > 0) {
		const last = await readRunResults(p.dirs.target);
		if (!last.parsed || !last.parsed.nodes.some(isRetryable)) break;
		const attempt = policy.attempts - budget.left + 1;
		budget.left--;
		await sleepAbortable(p.ctx, policy.delay * 1000);
		checkpoint(p.ctx, 'the wait before retrying failed nodes');
		p.ctx.log.say(`retrying the nodes that failed (attempt ${attempt} of ${policy.attempts})`);
		current = await buildPhase(p, 'retry');
	}
	return current;
}

async function runBuild(p: Prepared): Promise<JobEnd> {
	const { ctx } = p;
	const command = p.command;
	await graphPhases(p, p.descriptor.columnLineage && (command === 'build' || command === 'run' || command === 'compile'));
	if (p.resumed) await writeResumedState(p);
	const budget = { left: p.descriptor.retryFailedNodes?.attempts ?? 0 };

	let phase = await buildPhase(p, command);
	if (command !== 'compile') phase = await retryFailedNodes(p, phase, budget);
	const restoredCommand = p.resumed ? p.args.command : command;
	const testsOnly = p.resumed !== null && p.resumed.nodes.filter(isRetryable).every((n) => /^(test|unit_test)\./.test(n.unique_id));
	if (phase.ok && p.descriptor.testBehavior === 'after_all' && restoredCommand === 'build' && !testsOnly) {
		ctx.log.say('test_behavior after_all: the models built; running their tests');
		phase = await buildPhase(p, 'test');
		phase = await retryFailedNodes(p, phase, budget);
	}
	const end = await settle(p, phase);
	const catalog = await catalogPass(p, phase);
	if (catalog) (end.result as Record<string, unknown>).catalog_pass = catalog;
	return end;
}

/** What the catalog pass did, in the run's result. */
export interface CatalogPassResult {
	/** `refreshed`: the version's graph was stored anew; `unchanged`; `failed`: no catalog (the log says why). */
	outcome: 'refreshed' | 'unchanged' | 'failed' | 'skipped';
	seconds: number;
	typed_nodes?: number;
	lineage_job_id?: string | null;
	reason?: string;
}

/**
 * After a build or run whose models, seeds and snapshots all built (failed tests allowed), a
 * bounded `dbt docs generate` reads what the warehouse really holds, and the version's graph is
 * refreshed from its catalog (typed columns, and column lineage inferred again from the compiled
 * SQL), unless the version's column lineage is the engine's own index. Whatever goes wrong costs
 * only the refresh, with a line in the log.
 */
async function catalogPass(p: Prepared, phase: PhaseOutcome): Promise<CatalogPassResult | null> {
	const { ctx } = p;
	const { database, job, log } = ctx;
	const started = Date.now();
	const skipped = (reason: string): CatalogPassResult => {
		log.say(`catalog pass skipped: ${reason}`);
		return { outcome: 'skipped', seconds: 0, reason };
	};
	const command = p.resumed ? p.args.command : p.command;
	if (command !== 'build' && command !== 'run') return null;
	if (ctx.config.catalogPass === false) return null;
	if (!phase.wrote) return null;
	const broken = p.nodes.filter((n) => /^(model|seed|snapshot)\./.test(n.unique_id) && n.status === 'error');
	if (broken.length) return skipped(`${broken.length} of the project's relations did not build, so the warehouse does not hold the project`);
	if (job.scriptHash === null || !job.scriptPath) return null;
	if (p.snapshot) return skipped("this run's model set is its own, not its version's");
	const marker = await readMarker(database.db, versionKey(job.workspace, job.scriptPath, job.scriptHash));
	if (!marker) return null;
	const lineageSource = (marker.stats.column_lineage as { source?: string } | undefined)?.source;
	if (lineageSource === 'engine') return skipped("this version's column lineage is the engine's own index, which a catalog would not improve");
	const budgetMs = Math.min((ctx.config.catalogTimeoutS ?? 600) * 1000, Math.floor((ctx.deadline - Date.now()) / 2));
	if (budgetMs < 5_000) return skipped('too little of the job\'s time is left');
	const { outcome, timedOut } = await invoke(p, {
		label: 'docs generate',
		argv: ['docs', 'generate', ...p.common, '--target-path', p.dirs.catalogTarget, ...varsArgv(p)],
		deadline: Date.now() + budgetMs,
		console: false
	});
	const seconds = (Date.now() - started) / 1000;
	const failed = (reason: string): CatalogPassResult => {
		log.say(`No catalog: ${reason}. The run's outcome is unaffected; the version keeps the graph it had.`);
		return { outcome: 'failed', seconds, reason };
	};
	if (timedOut) return failed(`dbt docs generate did not finish within ${secs(budgetMs)}`);
	if (outcome.exitCode !== 0) return failed(`dbt docs generate failed (${exitText(outcome)})${stderrTail(outcome, p.mask, 8)}`);
	const catalog = await fileIfExists(path.join(p.dirs.catalogTarget, 'catalog.json'), 'catalog.json');
	const manifest = await fileIfExists(path.join(p.dirs.catalogTarget, 'manifest.json'), 'manifest.json');
	if (!catalog || !manifest) return failed(`dbt docs generate wrote no ${catalog ? 'manifest.json' : 'catalog.json'}`);
	try {
		const version = await getVersion(database.db, job.workspace, job.scriptHash);
		const answer = await ctx.ingest.ingestUpload(database, {
			workspace: job.workspace,
			path: job.scriptPath,
			kind: 'deploy',
			username: job.createdBy,
			descriptor: version?.content ?? '',
			manifest,
			catalog,
			into: { hash: job.scriptHash, jobId: job.id },
			unlessDigest: marker.digest
		});
		const total = (Date.now() - started) / 1000;
		if (answer.unchanged) {
			log.say(`catalog pass: the warehouse holds what the version's graph says; nothing stored (${total.toFixed(1)} s)`);
			return { outcome: 'unchanged', seconds: total, typed_nodes: answer.typed_nodes };
		}
		log.say(
			`catalog pass: refreshed the version's graph from what the warehouse holds: ${answer.typed_nodes} relations with typed columns` +
				`${answer.lineage_job_id ? `; column lineage is inferred again by lineage job ${answer.lineage_job_id}` : ''} (${total.toFixed(1)} s)`
		);
		return { outcome: 'refreshed', seconds: total, typed_nodes: answer.typed_nodes, lineage_job_id: answer.lineage_job_id };
	} catch (e) {
		return failed(`the catalog could not be stored: ${p.mask((e as Error).message)}`);
	}
}

async function settle(p: Prepared, phase: PhaseOutcome): Promise<JobEnd> {
	const { ctx } = p;
	const nodes = p.nodes;
	const result: RunResult & { resolution_digest: string } = {
		...runResultOf({ nodes, dbtVersion: p.engine.version }, p.command, p.invocationArgs, { name: p.engine.name, version: p.engine.version }),
		graph_snapshot: p.snapshot,
		resolution_digest: p.digest
	};
	if (BUILDING_COMMANDS.has(p.command)) await settleRelations(p, nodes);
	if (!phase.ok) {
		const parts: string[] = [];
		if (phase.problem) parts.push(`run_results.json could not be read: ${phase.problem}`);
		else if (!phase.wrote) parts.push(`dbt exited with ${exitText(phase.outcome)} before writing run_results.json${stderrTail(phase.outcome, p.mask)}`);
		else parts.push(failureSummary(nodes) ?? `dbt exited with ${exitText(phase.outcome)}${stderrTail(phase.outcome, p.mask)}`);
		result.error = p.mask(parts.join('\n'));
		ctx.log.say(result.error);
	}
	const t = result.totals;
	ctx.log.say(`${t.total} nodes: ${t.success} passed, ${t.error} failed, ${t.warn} warned, ${t.skipped} skipped`);
	return { status: phase.ok ? 'success' : 'failure', result };
}

/** The end of the live view: every relation this run reported gets its settled state, and nothing stays running. */
export async function settleRelations(p: Pick<Prepared, 'ctx' | 'warehouse' | 'graphKey'>, nodes: readonly RunNodeResult[]): Promise<void> {
	const { database, job } = p.ctx;
	const needFallback = nodes.some((n) => !n.relation_name);
	const fallback = needFallback && p.graphKey ? await nodeAssetPaths(database, p.graphKey) : new Map<string, string>();
	const plan = settlementPlan(nodes, p.warehouse, fallback);
	await settleProgress(database, job.workspace, job.id, plan, UNREPORTED_MESSAGE);
}

// ─── Entry ───────────────────────────────────────────────────────────────────────────────

/** Runs one claimed job. Never throws for the job's own reasons: the end state says what happened. */
export async function executeJob(ctx: ExecContext): Promise<JobEnd> {
	let prepared: Prepared | null = null;
	try {
		prepared = await prepare(ctx);
		await pinOnFirstRun(prepared, await depsPhase(prepared));
		switch (prepared.command) {
			case 'parse':
				return await runParse(prepared);
			case 'show':
				return await runShow(prepared);
			default:
				return await runBuild(prepared);
		}
	} catch (e) {
		const failure = e instanceof JobStop ? e : null;
		const message = e instanceof JobStop || e instanceof JobFailure ? e.message : `internal error: ${(e as Error).stack ?? e}`;
		const masked = prepared ? prepared.mask(message) : message;
		ctx.log.say(masked);
		await settleAfterStop(ctx, prepared).catch((err) => ctx.log.say(`progress could not be settled: ${(err as Error).message}`));
		const command = (ctx.job.args.command as string) ?? 'build';
		const result = prepared?.nodes.length
			? { ...runResultOf({ nodes: prepared.nodes, dbtVersion: prepared.engine.version }, command, prepared.invocationArgs, { name: prepared.engine.name, version: prepared.engine.version }), error: masked }
			: { command, error: masked, invocation_args: prepared?.invocationArgs ?? ctx.job.args };
		return { status: failure?.status ?? 'failure', result };
	} finally {
		await prepared?.dbt.release().catch(() => {});
		await pruneAfterRun(ctx).catch(() => {});
		// Whatever got as far as creating the directory leaves nothing behind.
		await removeJobDirs(jobDirs(ctx.job.id));
	}
}

/** After a stop: what dbt had already reported is settled from its run_results, the rest failed. */
async function settleAfterStop(ctx: ExecContext, p: Prepared | null): Promise<void> {
	if (p) {
		await settleRelations(p, p.nodes);
		return;
	}
	await settleProgress(ctx.database, ctx.job.workspace, ctx.job.id, { updates: [], untouched: [] }, UNREPORTED_MESSAGE);
}

/** Retention runs with every run (DESIGN.md §4): old snapshots and progress rows of the workspace. */
async function pruneAfterRun(ctx: ExecContext): Promise<void> {
	const path = ctx.job.scriptPath;
	if (!path) return;
	await ctx.database.db.transaction((tx) => pruneGraphs(ctx.database, tx, ctx.job.workspace, path));
}

