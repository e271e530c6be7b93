// Real dbt-core for the runner's tests: engines provisioned through the app's own provisioning
// into one cache shared by every test (TRIBUTARY_ENGINE_DIR, default .cache/engines in the
// checkout, which .ci/run fills before the suite), and a check that the machine can run them.
// Without Python these tests skip with a notice; in CI they never skip.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
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

/** Whether this machine can run real dbt-core (Python 3.10+ with venv). */
export const canRunRealDbt = python;

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

/**
 * A small dbt project for what the demo does not exercise: a var, a local package installed by
 * `dbt deps`, a slow Python model (to cancel), and a Python model that attacks the sandbox from
 * inside a real dbt-core process (reporting one `attack …` line per attempt, as the stand-in does).
 */
export function tinyProject(opts: { outside: string }): Map<string, string> {
	const syscalls = readFileSync(path.join(process.cwd(), 'tests/support/sandbox-syscalls.py'), 'utf8');
	return new Map<string, string>([
		['dbt_project.yml', 'name: tiny\nversion: "1.0.0"\nconfig-version: 2\nprofile: tiny\nmodel-paths: [models]\nmacro-paths: [macros]\n'],
		['packages.yml', 'packages:\n  - local: packages/helper\n'],
		['packages/helper/dbt_project.yml', 'name: helper\nversion: "1.0.0"\nconfig-version: 2\nmacro-paths: [macros]\n'],
		['packages/helper/macros/shout.sql', '{% macro shout(text) %}upper({{ text }}){% endmacro %}\n'],
		['models/greeting.sql', `select '{{ var("greeting", "hello") }}' as greeting, {{ helper.shout("'from a package'") }} as shouted\n`],
		['models/slow.py', 'import time\n\n\ndef model(dbt, session):\n    dbt.config(materialized="table")\n    time.sleep(300)\n    return session.sql("select 1 as x")\n'],
		['sandbox-syscalls.py', syscalls],
		[
			'models/attack.py',
			`import glob
import os
import socket
import subprocess
import sys

OUTSIDE = ${JSON.stringify(opts.outside)}


def attempt(lines, what, fn):
    try:
        got = fn()
        lines.append(f"attack {what}: ALLOWED {str(got)[:80]}")
    except Exception as e:
        lines.append(f"attack {what}: denied {type(e).__name__}: {str(e)[:80]}")


def server_environment():
    seen = []
    for f in glob.glob("/proc/*/environ"):
        try:
            text = open(f, "rb").read().decode("utf8", "replace")
        except OSError:
            continue
        for name in ("TRIBUTARY_ENCRYPTION_KEY", "DATABASE_URL", "TRIBUTARY_SECRET", "TEST_DATABASE_URL"):
            if name + "=" in text:
                seen.append(name)
    if seen:
        return sorted(set(seen))
    raise PermissionError("no process of the server is visible")


def write_outside():
    with open(OUTSIDE, "w") as f:
        f.write("written from a dbt model")
    return OUTSIDE


def connect():
    return socket.create_connection(("127.0.0.1", 5432), timeout=3)


def model(dbt, session):
    dbt.config(materialized="table")
    lines = []
    attempt(lines, "read the server's environment", server_environment)
    attempt(lines, "write outside the job directory", write_outside)
    attempt(lines, "connect to 127.0.0.1:5432", connect)
    here = os.getcwd()
    out = subprocess.run([sys.executable, os.path.join(here, "sandbox-syscalls.py")], capture_output=True, text=True, timeout=120)
    lines.extend(l for l in out.stdout.splitlines() if l.startswith(("attack ", "control ")))
    for l in lines:
        print(l, flush=True)
    return session.sql("select " + str(len(lines)) + " as attempts")
`
		]
	]);
}
