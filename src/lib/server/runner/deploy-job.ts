// The deploy job: pins a deployed version before (or, when asked, after) it goes live. It
// provisions the engine the descriptor asks for, reads the exact versions `dbt --version` reports,
// installs the project's packages (`dbt deps`, with the network for that step only) and records
// the version's lock. A deploy of the source alone also makes its manifest here (`dbt parse`, and
// `dbt compile` when the warehouse answers) and stores the graph. A failure removes a pending
// version with everything stored for it, so the previous version stays live.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { hashToHex } from '$lib/types/script-hash';
import type { PinMode, RunArgs } from '$lib/types/runner';
import { describeLock, type EngineLock } from '../dbt-engine-spec';
import { parseDescriptor } from '../dbt-files/descriptor';
import { getJob } from '../repo/jobs';
import { dropPendingVersion, getVersion, makeVersionLive, pruneAssetUsage, publishAssetUsage, setVersionLock, stageAssetUsage, type PendingPublish } from '../repo/scripts';
import {
	depsPhase,
	EngineMissingFailure,
	exitText,
	invoke,
	JobFailure,
	JobStop,
	lockFromRun,
	setupProject,
	stderrTail,
	varsArgv,
	type ExecContext,
	type JobEnd,
	type Prepared,
	type ProjectSetup
} from './execute';
import { effectiveSelection, resolveVars } from './run-args';
import { jobDirs, removeJobDirs } from './workdir';

interface DeployArgs {
	pin?: PinMode;
	source_only?: boolean;
	adapter_type?: string | null;
}

/** The lock as answers show it (the package-lock text stays stored, not repeated). */
function publicLock(lock: EngineLock): EngineLock {
	const { package_lock_yml: _text, ...shown } = lock;
	return shown;
}

export async function executeDeployJob(ctx: ExecContext): Promise<JobEnd> {
	const { database, job, log } = ctx;
	const args = job.args as DeployArgs;
	const mode: PinMode = args.pin ?? 'before_live';
	const hash = job.scriptHash;
	const stored = ((await getJob(database.db, job.workspace, job.id))?.result ?? {}) as Record<string, unknown> & { pending_publish?: PendingPublish };
	const { pending_publish: requestPublish, ...prior } = stored;
	let setup: ProjectSetup | null = null;
	try {
		if (hash === null || !job.scriptPath) throw new JobFailure('this deploy job names no version');
		const version = await getVersion(database.db, job.workspace, hash);
		if (!version || version.deleted) throw new JobFailure(`version ${hashToHex(hash)} of ${job.scriptPath} no longer exists`);
		const descriptor = parseDescriptor(version.content);
		try {
			setup = await setupProject(ctx, { version, descriptor, warehouseRequired: args.source_only === true, usesWarehouse: args.source_only === true, adapterType: args.adapter_type ?? null });
		} catch (e) {
			// A worker with no way to run dbt must not cost a team its deploy of artifacts: the version
			// goes live unpinned, and its runs say what is missing.
			if (e instanceof EngineMissingFailure && !args.source_only) return await liveUnpinned(ctx, mode, prior, requestPublish, e.message);
			throw e;
		}
		const resolved = resolveVars(descriptor.vars, { command: 'parse' } as RunArgs);
		const p: Prepared = {
			...setup,
			ctx,
			command: 'parse',
			args: { command: 'parse' } as RunArgs,
			invocationArgs: {},
			descriptor,
			selection: effectiveSelection(descriptor, { command: 'parse' } as RunArgs),
			vars: resolved.vars,
			digest: '',
			resumed: null,
			snapshot: false,
			graphKey: null,
			nodes: []
		};
		const packages = await depsPhase(p);
		let made: Awaited<ReturnType<typeof manifestFromSource>> | null = null;
		if (args.source_only) {
			if (resolved.missing.length) {
				throw new JobFailure(
					`the descriptor's vars use ${resolved.missing.map((n) => `{{ ${n} }}`).join(', ')}, which only a run's arguments fill: a deploy without a manifest cannot parse the project. Deploy its target/ instead, or give the vars values in the descriptor`
				);
			}
			made = await manifestFromSource(p, hash, job.scriptPath, job.createdBy);
		}
		const lock = lockFromRun(p, packages);
		const publish = made?.answer.pending_publish ?? requestPublish ?? null;
		const uses = publish?.uses.map(([assetPath, access]) => ({ assetKind: 'dbt' as const, assetPath, access })) ?? null;
		// While the version is pending nothing reads its usage rows: they are written before the
		// transaction that makes it live, which then only names them.
		const staged = uses !== null && mode === 'before_live';
		if (staged) await stageAssetUsage(database, job.workspace, job.scriptPath!, hash, uses);
		await database.db.transaction(async (tx) => {
			if (mode === 'before_live') {
				if (!(await makeVersionLive(tx, job.workspace, hash, lock))) throw new JobFailure('the version was removed while it was being pinned');
			} else await setVersionLock(tx, job.workspace, hash, lock);
			if (uses) {
				const published = await publishAssetUsage(database, tx, job.workspace, job.scriptPath!, hash, staged ? undefined : uses);
				log.say(published ? 'published the relations this version reads and writes' : 'a newer version of this path owns its relations');
			}
		});
		if (uses) await pruneAssetUsage(database, job.workspace, job.scriptPath!);
		log.say(`pinned to ${describeLock(lock)}`);
		log.say(mode === 'before_live' ? 'the version is live' : 'the version was live already; its runs now use this engine');
		const { log: _lines, pending_publish: _publish, ...answer } = made?.answer ?? { log: [], pending_publish: undefined };
		return { status: 'success', result: { ...prior, ...answer, lock: publicLock(lock), live: true, pin: { job_id: job.id, mode } } };
	} catch (e) {
		const stop = e instanceof JobStop ? e : null;
		const message = stop || e instanceof JobFailure ? (e as Error).message : `internal error: ${(e as Error).stack ?? e}`;
		const shown = setup ? setup.mask(message) : message;
		log.say(shown);
		let live = mode === 'after_live';
		// A worker shutting down hands this job back to the queue: its version stays pending for the next try.
		const handedBack = ctx.signal.reason === 'worker-stopped';
		if (mode === 'before_live' && hash !== null && !handedBack) {
			const dropped = await database.db.transaction((tx) => dropPendingVersion(tx, job.workspace, hash)).catch(() => false);
			if (dropped) log.say('the version was not pinned, so it was removed with everything stored for it; the previous version stays live');
			live = false;
		}
		return { status: stop?.status ?? 'failure', result: { ...prior, error: shown, live, pin: { job_id: job.id, mode } } };
	} finally {
		await setup?.dbt.release().catch(() => {});
		await removeJobDirs(jobDirs(job.id));
	}
}

/** No engine on this worker: the version goes live without a lock, with the reason as a warning. */
async function liveUnpinned(ctx: ExecContext, mode: PinMode, prior: Record<string, unknown>, publish: PendingPublish | undefined, why: string): Promise<JobEnd> {
	const { database, job, log } = ctx;
	const hash = job.scriptHash!;
	await database.db.transaction(async (tx) => {
		if (mode === 'before_live') await makeVersionLive(tx, job.workspace, hash, null);
		if (publish) {
			const uses = publish.uses.map(([assetPath, access]) => ({ assetKind: 'dbt' as const, assetPath, access }));
			await publishAssetUsage(database, tx, job.workspace, job.scriptPath!, hash, uses);
		}
	});
	if (publish) await pruneAssetUsage(database, job.workspace, job.scriptPath!);
	const warning = `not pinned: ${why.replace(/ dbt was not started\.$/, '')} The version is live and can be browsed; its runs need that fixed first.`;
	log.say(`warning: ${warning}`);
	const warnings = Array.isArray(prior.warnings) ? [...(prior.warnings as string[]), warning] : [warning];
	return { status: 'success', result: { ...prior, warnings, lock: null, live: true, pin: { job_id: job.id, mode } } };
}

/**
 * `dbt parse` (the manifest), then `dbt compile` within a bounded share of the job's time (the
 * compiled SQL that column lineage is inferred from; a warehouse that does not answer costs only
 * that), and the result stored through the same ingest as an upload.
 */
async function manifestFromSource(p: Prepared, hash: bigint, scriptPath: string, username: string) {
	const { ctx } = p;
	const parsed = await invoke(p, { label: 'parse', argv: ['parse', ...p.common, '--target-path', p.dirs.parseTarget, ...varsArgv(p)] });
	if (parsed.outcome.exitCode !== 0) {
		throw new JobFailure(`dbt parse failed (${exitText(parsed.outcome)}), so this project has no manifest and was not deployed${stderrTail(parsed.outcome, p.mask, 25)}`);
	}
	let manifestPath = path.join(p.dirs.parseTarget, 'manifest.json');
	const budgetMs = Math.max(5_000, Math.floor((ctx.deadline - Date.now()) / 2));
	const compiled = await invoke(p, { label: 'compile', argv: ['compile', ...p.common, '--target-path', p.dirs.target, ...varsArgv(p)], deadline: Date.now() + budgetMs });
	if (compiled.timedOut) ctx.log.say(`dbt compile did not finish within ${Math.round(budgetMs / 1000)} s: the graph is stored from the parse, without compiled SQL`);
	else if (compiled.outcome.exitCode !== 0) {
		ctx.log.say(`dbt compile failed (${exitText(compiled.outcome)}; is the warehouse reachable?): the graph is stored from the parse, without compiled SQL, so no column lineage is inferred${stderrTail(compiled.outcome, p.mask, 8)}`);
	} else if (existsSync(path.join(p.dirs.target, 'manifest.json'))) manifestPath = path.join(p.dirs.target, 'manifest.json');
	const bytes = new Uint8Array(await readFile(manifestPath));
	const answer = await ctx.ingest.ingestUpload(ctx.database, {
		workspace: ctx.job.workspace,
		path: scriptPath,
		kind: 'deploy',
		username,
		descriptor: (await getVersion(ctx.database.db, ctx.job.workspace, hash))?.content ?? '',
		manifest: { name: 'manifest.json', bytes },
		into: { hash, jobId: ctx.job.id }
	});
	for (const line of answer.log ?? []) ctx.log.say(line);
	return { answer };
}
