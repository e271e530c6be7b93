#!/usr/bin/env node
// Test equipment: a stand-in `dbt` that does what a project's own code could do (a macro, a
// Python model, a DuckDB `read_text`) against the machine it runs on, and reports each attempt
// in its console output as `attack <what>: denied <why>` or `attack <what>: ALLOWED <what it got>`.
// Its targets come from `fake-dbt.json` in the project (`attack: { dataDirs, appDir, ports,
// writePaths, syscalls }`), as an attacker who knows the installation would aim. With `syscalls:
// true` it also runs `sandbox-syscalls.py` from its own folder (the kernel calls project Python
// could make; the same lines). It answers `--version` like dbt-core so the runner starts it as an
// engine.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

const argv = process.argv.slice(2);
if (argv[0] === '--version') {
	process.stdout.write('Core:\n  - installed: 1.8.2\n  - latest:    1.8.2 - Up to date!\n');
	process.exit(0);
}
const flag = (name) => {
	const i = argv.indexOf(name);
	return i >= 0 ? argv[i + 1] : undefined;
};
const projectDir = flag('--project-dir') ?? process.cwd();
const scenarioFile = path.join(projectDir, 'fake-dbt.json');
const targets = (existsSync(scenarioFile) ? JSON.parse(readFileSync(scenarioFile, 'utf8')) : {}).attack ?? {};

/** Variables only the server holds: finding one of them in a process's environment is a leak. */
const SERVER_ONLY = ['DATABASE_URL', 'TRIBUTARY_SECRET', 'TRIBUTARY_ADMIN_PASSWORD', 'TRIBUTARY_ENCRYPTION_KEY', 'TEST_DATABASE_URL'];
const report = (what, outcome) => process.stdout.write(`attack ${what}: ${outcome}\n`);
const denied = (e) => `denied ${e.code ?? e.message}`;

function readEnviron(file) {
	try {
		const names = readFileSync(file, 'utf8').split('\0').filter(Boolean).map((kv) => kv.slice(0, kv.indexOf('=')));
		const leaked = names.filter((n) => SERVER_ONLY.includes(n));
		report(`read ${file}`, leaked.length ? `ALLOWED it holds ${leaked.join(', ')}` : `denied (only this run's own variables: ${names.join(',')})`);
	} catch (e) {
		report(`read ${file}`, denied(e));
	}
}

readEnviron(`/proc/${process.ppid}/environ`);
readEnviron('/proc/1/environ');
// Every process this run can see: none of them may be the server.
const pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
const leaking = pids.filter((p) => {
	try {
		return readFileSync(`/proc/${p}/environ`, 'utf8').split('\0').some((kv) => SERVER_ONLY.includes(kv.slice(0, kv.indexOf('='))));
	} catch {
		return false;
	}
});
report('scan /proc/*/environ', leaking.length ? `ALLOWED pids ${leaking.join(',')} hold server variables` : `denied (${pids.length} processes visible, none the server's)`);

for (const dir of [...(targets.dataDirs ?? []), targets.appDir, '/root', '/etc'].filter(Boolean)) {
	try {
		const entries = readdirSync(dir);
		const found = dir === '/etc' ? entries.filter((e) => ['shadow', 'passwd', 'gshadow', 'sudoers'].includes(e)) : entries;
		report(`list ${dir}`, found.length ? `ALLOWED ${found.slice(0, 10).join(',')}` : `denied (nothing of it visible: ${entries.join(',')})`);
	} catch (e) {
		report(`list ${dir}`, denied(e));
	}
}

for (const file of ['/etc/shadow', targets.appDir && path.join(targets.appDir, 'package.json')].filter(Boolean)) {
	try {
		report(`read ${file}`, `ALLOWED ${readFileSync(file).length} bytes`);
	} catch (e) {
		report(`read ${file}`, denied(e));
	}
}

for (const file of targets.writePaths ?? []) {
	try {
		writeFileSync(file, 'written by project code');
		// The run's private /tmp is its own: the test checks the host for the file.
		report(`write ${file}`, file.startsWith('/tmp/') ? 'denied (written to the private /tmp only)' : 'ALLOWED');
	} catch (e) {
		report(`write ${file}`, denied(e));
	}
}

for (const [host, port] of targets.ports ?? []) {
	const outcome = await new Promise((resolve) => {
		const s = net.connect({ host, port, timeout: 3000 });
		s.once('connect', () => {
			s.destroy();
			resolve('ALLOWED connected');
		});
		s.once('timeout', () => {
			s.destroy();
			resolve('denied ETIMEDOUT');
		});
		s.once('error', (e) => resolve(denied(e)));
	});
	report(`connect ${host}:${port}`, outcome);
}

if (targets.syscalls) {
	const script = path.join(path.dirname(process.argv[1]), 'sandbox-syscalls.py');
	const python = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
	const r = spawnSync(python, [script], { encoding: 'utf8', timeout: 120_000 });
	process.stdout.write(r.stdout ?? '');
	if (r.status !== 0) report('run sandbox-syscalls.py', `error ${r.error?.message ?? `exit ${r.status ?? r.signal}`}: ${(r.stderr ?? '').trim().split('\n').at(-1)}`);
}
process.stdout.write('attacks done\n');
