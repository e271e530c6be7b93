// The real OpenLineage Python client (openlineage-python, pinned), installed by the tests into a
// virtualenv under node_modules/.cache (pip from PyPI), once per machine. Where it cannot be
// installed, CI fails; elsewhere the tests that need it skip with a printed notice.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const OPENLINEAGE_PYTHON_VERSION = '1.54.0';
const VENV = path.resolve('node_modules/.cache/tributary', `openlineage-python-${OPENLINEAGE_PYTHON_VERSION}`);
export const SEND_SCRIPT = path.resolve('tests/support/openlineage_client_send.py');

/** The venv's python with the client importable, or null (with the reason) when it cannot be had. */
export async function openLineagePython(): Promise<{ python: string } | { missing: string }> {
	const python = path.join(VENV, 'bin', 'python');
	const importable = async () => {
		try {
			await run(python, ['-c', 'import openlineage.client.transport.http'], { timeout: 60_000 });
			return true;
		} catch {
			return false;
		}
	};
	if (existsSync(python) && (await importable())) return { python };
	try {
		mkdirSync(path.dirname(VENV), { recursive: true });
		if (!existsSync(python)) await run('python3', ['-m', 'venv', VENV], { timeout: 120_000 });
		await run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', `openlineage-python==${OPENLINEAGE_PYTHON_VERSION}`], { timeout: 300_000 });
	} catch (e) {
		return { missing: `could not install openlineage-python ${OPENLINEAGE_PYTHON_VERSION} into ${VENV}: ${(e as Error).message.slice(0, 400)}` };
	}
	return (await importable()) ? { python } : { missing: `openlineage-python installed into ${VENV} does not import` };
}

/** Fails in CI, prints the skip notice elsewhere; true when the tests may run. */
export function needPython(found: { python: string } | { missing: string }, name: string): boolean {
	if ('python' in found) return true;
	if (process.env.CI) throw new Error(`${name}: ${found.missing}`);
	process.stderr.write(`[notice] skipping "${name}": ${found.missing}\n`);
	return false;
}
