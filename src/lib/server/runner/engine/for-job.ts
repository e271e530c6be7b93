// Which dbt a job starts: the operator's own (DBT_BIN) overrides everything; a `kind: fusion`
// project runs TRIBUTARY_FUSION_BIN; every other project gets the engine its version is pinned to
// (or, unpinned, the one its descriptor asks for), provisioned on this worker if it lacks it.
import { adapterPackage, coreSpecifier, EngineSpecError, type EngineLock, type EngineRequest } from '../../dbt-engine-spec';
import type { RunnerConfig } from '../config';
import { EngineCache, EngineInstallFailed, EngineUnavailable, engineSettingsFromEnv, findPython, type Provisioned } from './provision';

export interface JobEngine {
	/** The executable the job starts (inside the sandbox). */
	dbtBin: string;
	source: EngineLock['source'];
	/** What Tributary provisioned, when it did. */
	provisioned: Provisioned | null;
	/** Ends this job's hold on the engine (eviction may remove it afterwards). */
	release: () => Promise<void>;
}

export const FUSION_MISSING =
	'This project runs on dbt Fusion (`engine: {kind: fusion}`), which cannot be installed from a package index: the operator installs it on the worker and sets TRIBUTARY_FUSION_BIN to its path.';

/** The job cannot get an engine: the message says why in words a project's owner can act on. */
export class EngineRefused extends Error {
	/** The worker has no way to provision any engine (no Python): not the project's fault. */
	readonly unavailable: boolean;
	constructor(message: string, opts: { unavailable?: boolean } = {}) {
		super(message);
		this.unavailable = opts.unavailable ?? false;
	}
}

export function enginesOf(config: RunnerConfig): EngineCache {
	config.engines ??= new EngineCache(engineSettingsFromEnv());
	return config.engines;
}

export async function engineForJob(
	config: RunnerConfig,
	opts: {
		jobId: string;
		request: EngineRequest;
		/** The warehouse's `type`; null when the project's warehouse is not configured. */
		adapterType: string | null;
		lock: EngineLock | null;
		log: (line: string) => void;
		signal: AbortSignal;
		deadline: number;
	}
): Promise<JobEngine> {
	const none = async () => {};
	if (config.dbtBin) {
		return { dbtBin: config.dbtBin, source: 'dbt_bin', provisioned: null, release: none };
	}
	if (opts.request.kind === 'fusion' || opts.lock?.engine === 'dbt-fusion') {
		if (!config.fusionBin) throw new EngineRefused(FUSION_MISSING, { unavailable: true });
		return { dbtBin: config.fusionBin, source: 'fusion_bin', provisioned: null, release: none };
	}
	const lock = opts.lock?.source === 'provisioned' ? opts.lock : null;
	const adapterType = lock?.adapter ?? opts.adapterType;
	if (!adapterType) {
		throw new EngineRefused("the warehouse this project builds into is not configured here, so its adapter is unknown: a workspace admin adds it under Settings → Warehouses (its `type` names the adapter)");
	}
	const cache = enginesOf(config);
	try {
		adapterPackage(adapterType);
		if (lock) {
			const python = await findPython(cache.settings);
			if (lock.python_version && lock.python_version.split('.').slice(0, 2).join('.') !== python.series) {
				throw new EngineRefused(
					`this version is pinned to Python ${lock.python_version}, and this worker's ${cache.settings.python} is Python ${python.version}: run it on a worker with Python ${lock.python_version.split('.').slice(0, 2).join('.')} (TRIBUTARY_PYTHON), or redeploy to pin anew`
				);
			}
		}
		const provisioned = await cache.ensure(
			lock
				? { core: `==${lock.engine_version}`, adapterType, adapterSpec: lock.adapter_version ? `==${lock.adapter_version}` : null }
				: { core: coreSpecifier(opts.request), adapterType, adapterSpec: opts.request.adapterVersion },
			{ log: opts.log, signal: opts.signal, deadline: opts.deadline }
		);
		opts.log(`engine ${provisioned.key}${provisioned.hit ? ` (installed; found in ${provisioned.ms} ms)` : ''}`);
		const release = await cache.use(provisioned, opts.jobId);
		return { dbtBin: provisioned.dbtBin, source: 'provisioned', provisioned, release };
	} catch (e) {
		if (e instanceof EngineUnavailable) throw new EngineRefused(e.message, { unavailable: true });
		if (e instanceof EngineInstallFailed || e instanceof EngineSpecError) throw new EngineRefused(e.message);
		throw e;
	}
}
