// Real dbt-core for the runner's tests: engines provisioned through the app's own provisioning
// into one cache shared by every test (TRIBUTARY_ENGINE_DIR, default .cache/engines in the
// checkout, which .ci/run fills before the suite), and a check that the machine can run them.
// Without Python these tests skip with a notice; in CI they never skip.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'vitest';
import { EngineCache, engineSettingsFromEnv } from '../../src/lib/server/runner/engine/provision';

export const ENGINE_DIR = path.resolve(process.env.TRIBUTARY_ENGINE_DIR ?? path.join(process.cwd(), '.cache', 'engines'));

/** The current series and one older minor, to prove pinning. */
export const CORE_CURRENT = '1.12';
export const CORE_OLDER = '1.11';

export function testEngines(): EngineCache {
	return new EngineCache(engineSettingsFromEnv({ ...process.env, TRIBUTARY_ENGINE_DIR: ENGINE_DIR }));
}

function havePython(): boolean {
	try {
		const v = execFileSync('python3', ['-c', 'import sys, venv; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8', timeout: 20_000 }).trim();
		const [major, minor] = v.split('.').map(Number);
		return major > 3 || (major === 3 && minor >= 10);
	} catch {
		return false;
	}
}

const python = havePython();

/** `describe` over real dbt-core: skipped with a notice where Python is missing, a failure in CI. */
export function describeRealDbt(name: string, fn: () => void): void {
	if (python) {
		describe(name, fn);
		return;
	}
	if (process.env.CI) throw new Error(`"${name}" needs Python 3.10+ with venv (python3) to run real dbt-core, and CI has none`);
	process.stderr.write(`[notice] skipping "${name}": no Python 3.10+ with venv on this machine (real dbt-core needs it)\n`);
	describe.skip(name, () => it.skip('needs Python 3.10+ to run real dbt-core', () => {}));
}
