// Schemathesis (the property-based API tester, from the Python package index) in a virtualenv of
// its own under .cache/ (gitignored): made once, reused while its marker names the pinned version.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const SCHEMATHESIS_VERSION = '4.32.5';
const VENV = path.resolve('.cache', 'schemathesis-venv');
const MARKER = path.join(VENV, `.installed-${SCHEMATHESIS_VERSION}`);

/** The schemathesis executable, installing it first when the cached virtualenv is missing or stale. */
export function ensureSchemathesis(): string {
	const bin = path.join(VENV, 'bin', 'schemathesis');
	if (existsSync(MARKER) && existsSync(bin)) return bin;
	// A half-made or older venv is rebuilt from scratch: pip upgrades in place leave stale pins.
	rmSync(VENV, { recursive: true, force: true });
	execFileSync('python3', ['-m', 'venv', VENV], { stdio: 'pipe' });
	execFileSync(path.join(VENV, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', `schemathesis==${SCHEMATHESIS_VERSION}`], {
		stdio: 'pipe',
		timeout: 300_000
	});
	const version = execFileSync(bin, ['--version'], { encoding: 'utf8' });
	if (!version.includes(SCHEMATHESIS_VERSION)) throw new Error(`installed schemathesis says ${version.trim()}, not ${SCHEMATHESIS_VERSION}`);
	writeFileSync(MARKER, version);
	return bin;
}

export interface SchemathesisRun {
	code: number | null;
	output: string;
}

/**
 * Runs `schemathesis <args>` in `cwd` (where it and hypothesis keep their state), killing it
 * after `timeoutMs` (the run then fails with code null).
 */
export function runSchemathesis(bin: string, args: string[], env: Record<string, string>, cwd: string, timeoutMs: number): Promise<SchemathesisRun> {
	return new Promise((resolve, reject) => {
		let output = '';
		const proc = spawn(bin, args, {
			cwd,
			env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1', ...env },
			stdio: ['ignore', 'pipe', 'pipe']
		});
		proc.stdout.on('data', (d) => (output += d));
		proc.stderr.on('data', (d) => (output += d));
		const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
		proc.on('error', reject);
		proc.on('exit', (code) => {
			clearTimeout(timer);
			resolve({ code, output });
		});
	});
}

/** The failures, errors and summary of a run's output: what a failing test should show. */
export function failureReport(output: string): string {
	const start = output.search(/^=+ (FAILURES|ERRORS) =+$/m);
	return start < 0 ? output.slice(-6000) : output.slice(start, start + 20_000);
}
