// The real `dbt-ol` (openlineage-dbt from PyPI, pinned) over a real dbt-core engine of the test
// engine cache (tests/support/real-dbt.ts): a virtualenv made from the engine's own Python, under
// .cache/ in the checkout, that sees the engine's packages (dbt-core, its adapter) through a .pth
// file, so dbt-ol imports the engine's dbt and runs the engine's `dbt`. openlineage-dbt and its
// integration package go in without their dependencies (they name dbt-core, which the engine holds
// with its own pins); the client packages they use with theirs. Installed once per engine.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Engine } from '../../src/lib/server/runner/engine/provision';

const run = promisify(execFile);
export const OPENLINEAGE_DBT_VERSION = '1.54.0';

export interface DbtOl {
	/** The dbt-ol script. */
	dbtOl: string;
	/** PATH for it: the venv, then the engine's dbt. */
	pathVar: string;
}

/** dbt-ol over `engine`, installed when missing; `{ missing }` with the reason when it cannot be had. */
export async function openLineageDbt(engine: Pick<Engine, 'key' | 'dir'>): Promise<DbtOl | { missing: string }> {
	const venv = path.resolve('.cache', `openlineage-dbt-${OPENLINEAGE_DBT_VERSION}`, engine.key);
	const python = path.join(venv, 'bin', 'python');
	const dbtOl = path.join(venv, 'bin', 'dbt-ol');
	const out = { dbtOl, pathVar: `${path.join(venv, 'bin')}:${path.join(engine.dir, 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}` };
	const works = async () => {
		try {
			await run(python, ['-c', 'import openlineage.dbt, dbt.version'], { timeout: 60_000 });
			return existsSync(dbtOl);
		} catch {
			return false;
		}
	};
	if (await works()) return out;
	const pip = (args: string[]) => run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', ...args], { timeout: 300_000 });
	try {
		mkdirSync(path.dirname(venv), { recursive: true });
		if (!existsSync(python)) await run(path.join(engine.dir, 'bin', 'python'), ['-m', 'venv', venv], { timeout: 120_000 });
		const { stdout } = await run(path.join(engine.dir, 'bin', 'python'), ['-c', 'import sysconfig; print(sysconfig.get_paths()["purelib"])'], { timeout: 60_000 });
		const { stdout: own } = await run(python, ['-c', 'import sysconfig; print(sysconfig.get_paths()["purelib"])'], { timeout: 60_000 });
		writeFileSync(path.join(own.trim(), 'tributary-engine.pth'), `${stdout.trim()}\n`);
		await pip(['--no-deps', `openlineage-dbt==${OPENLINEAGE_DBT_VERSION}`, `openlineage-integration-common==${OPENLINEAGE_DBT_VERSION}`]);
		await pip([`openlineage-python==${OPENLINEAGE_DBT_VERSION}`, `openlineage-sql==${OPENLINEAGE_DBT_VERSION}`, 'tqdm>=4.62']);
	} catch (e) {
		return { missing: `could not install openlineage-dbt ${OPENLINEAGE_DBT_VERSION} into ${venv}: ${(e as Error).message.slice(0, 400)}` };
	}
	return (await works()) ? out : { missing: `openlineage-dbt installed into ${venv} does not import with the engine's dbt-core` };
}
