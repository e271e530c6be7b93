#!/usr/bin/env node
// Records a dbt run made in CI, from its target directory: run_results.json (required), the
// manifest and the JSON event log, stored by the server as if the run had happened there.
//   node bin/record.js ./target --path f/analytics/jaffle [--log logs/dbt.log] [--script-hash H]
// (`npx tributary record` dispatches here.) Exits 0 once the run is stored, whatever its outcome,
// and prints the outcome; a refused upload exits 1 with the server's message.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

export const RECORD_USAGE = `usage: tributary record <target-dir> --path <u/user/name|f/folder/name>
                 [--log FILE] [--script-hash HASH] [--url URL] [--token TOKEN] [--workspace WS]

  Uploads run_results.json (required) and manifest.json from <target-dir>, and dbt's JSON event
  log (--log, default <target-dir>/../logs/dbt.log when it is there: run dbt with
  --log-format-file json). The run is stored against the newest version of --path unless
  --script-hash names one.`;

function fail(msg, code = 1) {
	process.stderr.write(`tributary: ${msg}\n`);
	process.exit(code);
}

async function errorText(res) {
	const text = await res.text();
	try {
		return JSON.parse(text).error ?? text;
	} catch {
		return text.slice(0, 500);
	}
}

export async function record(argv) {
	const { values, positionals } = parseArgs({
		args: argv,
		allowPositionals: true,
		options: {
			path: { type: 'string' },
			log: { type: 'string' },
			'script-hash': { type: 'string' },
			url: { type: 'string' },
			token: { type: 'string' },
			workspace: { type: 'string' },
			help: { type: 'boolean', short: 'h' }
		}
	});
	if (values.help) {
		process.stdout.write(`${RECORD_USAGE}\n`);
		return;
	}
	const [targetArg] = positionals;
	if (!targetArg) fail(RECORD_USAGE, 2);
	const url = (values.url ?? process.env.TRIBUTARY_URL ?? '').replace(/\/$/, '');
	const token = values.token ?? process.env.TRIBUTARY_TOKEN;
	if (!url) fail('no server: pass --url or set TRIBUTARY_URL', 2);
	if (!token) fail('no token: pass --token or set TRIBUTARY_TOKEN (mint one with the jobs:run scope)', 2);
	if (!values.path) fail('--path is required (u/<user>/<name> or f/<folder>/<name>)', 2);

	const target = path.resolve(targetArg);
	const runResults = path.join(target, 'run_results.json');
	if (!existsSync(runResults)) fail(`${target}: no run_results.json here (is this the target/ directory of a finished run?)`);
	const manifest = path.join(target, 'manifest.json');
	const log = values.log ? path.resolve(values.log) : path.join(target, '..', 'logs', 'dbt.log');
	if (values.log && !existsSync(log)) fail(`${log}: no such log file`);

	const form = new FormData();
	// First, before the files (FormData keeps this order): the server gates on it.
	form.set('path', values.path);
	if (values['script-hash']) form.set('script_hash', values['script-hash']);
	form.set('run_results', new Blob([readFileSync(runResults)]), 'run_results.json');
	process.stderr.write(`  run_results     ${path.relative(process.cwd(), runResults)}\n`);
	if (existsSync(manifest)) {
		form.set('manifest', new Blob([readFileSync(manifest)]), 'manifest.json');
		process.stderr.write(`  manifest        ${path.relative(process.cwd(), manifest)}\n`);
	}
	if (existsSync(log)) {
		form.set('log', new Blob([readFileSync(log)]), 'dbt.log');
		process.stderr.write(`  log             ${path.relative(process.cwd(), log)}\n`);
	} else process.stderr.write('  no JSON log: progress comes from run_results alone\n');

	const headers = { authorization: `Bearer ${token}` };
	let workspace = values.workspace ?? process.env.TRIBUTARY_WORKSPACE;
	if (!workspace) {
		const who = await fetch(`${url}/api/whoami`, { headers });
		if (!who.ok) fail(`${url}/api/whoami: ${who.status} ${await errorText(who)}`);
		const ws = (await who.json()).workspaces ?? [];
		if (ws.length !== 1) fail(`this token reaches ${ws.length} workspaces: pass --workspace`, 2);
		workspace = ws[0].id;
	}
	// The path in the query too: the server gates on it before reading the files.
	const res = await fetch(`${url}/api/w/${workspace}/jobs/record?path=${encodeURIComponent(values.path)}`, { method: 'POST', headers, body: form });
	if (!res.ok) fail(`record failed (${res.status}): ${await errorText(res)}`);
	const a = await res.json();
	const t = a.totals;
	process.stdout.write(
		[
			`recorded run of ${values.path}: ${a.status}`,
			`  ${t.total} nodes: ${t.success} passed, ${t.error} failed, ${t.warn} warned, ${t.skipped} skipped; ${a.progress_rows} relations`,
			`  ${a.graph_snapshot ? 'stored its own graph' : "its graph is its version's"}`,
			`  job ${a.job_id}: ${url}${a.url}`
		].join('\n') + '\n'
	);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	record(process.argv.slice(2)).catch((e) => fail(e.message));
}
