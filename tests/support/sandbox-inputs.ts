// Runs are sandboxed in the tests as by default, so the stand-in dbt sees only its job directory,
// its own folder and what the worker binds read-only (TRIBUTARY_SANDBOX_READ_ONLY): the fixtures
// it replays, and this folder, where a test writes the files its scenario names.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FIXTURES } from './fixtures';

export const SANDBOX_INPUTS = path.join(tmpdir(), 'tributary-test-inputs');
mkdirSync(SANDBOX_INPUTS, { recursive: true });

/**
 * What the real engine wrote, recorded by scripts/record-dbt-fixtures.ts, for the stand-in to
 * replay: a copy outside the checkout, since a read-only bind of the checkout's own folder would
 * show the sandbox the app's directory (which an attack test checks it never sees).
 */
export const REAL_DBT_RECORDINGS = recordingsCopy(path.resolve('tests/fixtures/real-dbt'));

/** A copy named by its content, made once (aside, then renamed) however many test files start at once. */
function recordingsCopy(from: string): string {
	const digest = createHash('sha256');
	for (const rel of (readdirSync(from, { recursive: true }) as string[]).sort()) {
		const file = path.join(from, rel);
		digest.update(rel);
		try {
			digest.update(readFileSync(file));
		} catch {
			// a folder
		}
	}
	const to = path.join(SANDBOX_INPUTS, `real-dbt-${digest.digest('hex').slice(0, 16)}`);
	if (existsSync(to)) return to;
	const aside = `${to}.${process.pid}`;
	cpSync(from, aside, { recursive: true });
	try {
		renameSync(aside, to);
	} catch {
		rmSync(aside, { recursive: true, force: true });
	}
	return to;
}

/** The paths a test worker shows its sandbox read-only. */
export const SANDBOX_READ_ONLY = [FIXTURES, SANDBOX_INPUTS, REAL_DBT_RECORDINGS];
