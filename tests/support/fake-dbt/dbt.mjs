#!/usr/bin/env node
// Test equipment: a stand-in for the `dbt` executable that REPLAYS real recorded dbt output (the
// JSON event logs, manifests and run_results in ../shared/fixtures, or the generator's). It is
// driven by `fake-dbt.json` in the project directory, so each deployed test project carries its
// own scenario; FAKE_DBT_SPEED (from the warehouse's env) compresses the recorded timing.
//
// Scenario: { engine, version, speed, maxGapMs, manifest (for steps naming none),
//             commands: { <command>: Step }, default: Step,
//             lineage: Step (the `compile --write-index` pass) }
// Step: { mode, log, manifest, run_results, exit, index, rows, ... } with mode one of
//   replay | parse | exit-early | truncated-run-results | hang | grandchild | print-env |
//   huge-line | rewrite-log | million-lines | show | retry | lineage-ok | lineage-partial |
//   lineage-fail | lineage-missing | lineage-unreadable | lineage-unsupported | lineage-hang |
//   latency | probe-sandbox | deps | deps-fail | docs
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';

const argv = process.argv.slice(2);

function flag(name) {
	const i = argv.indexOf(name);
	return i >= 0 ? argv[i + 1] : undefined;
}
function multi(name) {
	const i = argv.indexOf(name);
	if (i < 0) return [];
	const out = [];
	for (let j = i + 1; j < argv.length && !argv[j].startsWith('--'); j++) out.push(argv[j]);
	return out;
}

const projectDir = flag('--project-dir') ?? process.cwd();
const scenarioFile = path.join(projectDir, 'fake-dbt.json');
const scenario = existsSync(scenarioFile) ? JSON.parse(readFileSync(scenarioFile, 'utf8')) : {};
const engine = scenario.engine ?? 'dbt-core';
const version = scenario.version ?? '1.8.2';

if (argv[0] === '--version') {
	if (engine === 'dbt-fusion') process.stdout.write(`dbt-fusion ${version}\n`);
	else process.stdout.write(`Core:\n  - installed: ${version}\n  - latest:    ${version} - Up to date!\n\nPlugins:\n  - postgres: ${version} - Up to date!\n`);
	process.exit(0);
}

const command = argv[0];
// The column-lineage pass (a compile with --write-index) has a step of its own: `lineage`.
const lineagePass = command === 'compile' && argv.includes('--write-index');
const step = lineagePass ? { mode: 'lineage-missing', ...(scenario.lineage ?? {}) } : { ...(scenario.default ?? {}), ...((scenario.commands ?? {})[command] ?? {}) };
const DEFAULT_MODES = { show: 'show', retry: 'retry', parse: 'parse', deps: 'deps', docs: 'docs' };
const mode = step.mode ?? DEFAULT_MODES[command] ?? 'replay';
const speed = Number(scenario.speed ?? process.env.FAKE_DBT_SPEED ?? 50);
const maxGapMs = Number(scenario.maxGapMs ?? 250);
const targetPath = flag('--target-path') ?? path.join(projectDir, 'target');
const logPath = flag('--log-path') ?? path.join(projectDir, 'logs');
const logFile = path.join(logPath, 'dbt.log');
mkdirSync(targetPath, { recursive: true });
mkdirSync(logPath, { recursive: true });

// As dbt writes its files: new contents, our own mode (a copy would keep a read-only fixture's
// mode, and the sandbox's unprivileged user could not overwrite it on the next invocation).
const copyFresh = (from, to) => writeFileSync(to, readFileSync(from));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const out = (s) => process.stdout.write(`${s}\n`);

// Every invocation says what it was asked, so the job log shows the exact command line.
out(`fake-dbt argv: ${JSON.stringify(argv)}`);
if (argv.includes('--vars')) out(`fake-dbt vars: ${flag('--vars')}`);
if (argv.includes('--select')) out(`fake-dbt select: ${JSON.stringify(multi('--select'))}`);

function readLines(file) {
	if (!file) return [];
	return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '');
}

function tsOf(line) {
	try {
		const t = JSON.parse(line).info?.ts;
		return t ? Date.parse(t) : NaN;
	} catch {
		return NaN;
	}
}

function consoleLine(line) {
	try {
		const info = JSON.parse(line).info;
		if (info && info.level !== 'debug' && typeof info.msg === 'string') return `${(info.ts ?? '').slice(11, 19)}  ${info.msg}`;
	} catch {
		/* not JSON */
	}
	return null;
}

/** run_results.json from the recorded NodeFinished events (what dbt writes from the same results). */
function runResultsFromLog(lines) {
	let dbtVersion = version;
	let invocationId = '00000000-0000-0000-0000-000000000000';
	const results = [];
	for (const line of lines) {
		let doc;
		try {
			doc = JSON.parse(line);
		} catch {
			continue;
		}
		if (doc.info?.name === 'MainReportVersion') dbtVersion = String(doc.data?.version ?? version).replace(/^=/, '');
		if (doc.info?.invocation_id) invocationId = doc.info.invocation_id;
		if (doc.info?.name !== 'NodeFinished') continue;
		const ni = doc.data.node_info;
		const rr = doc.data.run_result ?? {};
		results.push({
			status: rr.status,
			timing: rr.timing_info ?? [],
			thread_id: rr.thread ?? 'Thread-1',
			execution_time: rr.execution_time ?? 0,
			adapter_response: rr.adapter_response ?? {},
			message: rr.message || null,
			failures: ni.resource_type === 'test' ? (rr.num_failures ?? 0) : null,
			unique_id: ni.unique_id,
			compiled: true,
			compiled_code: '',
			relation_name: ni.node_relation?.relation_name || null
		});
	}
	return {
		metadata: { dbt_schema_version: 'https://schemas.getdbt.com/dbt/run-results/v6.json', dbt_version: dbtVersion, generated_at: new Date().toISOString(), invocation_id: invocationId, env: {} },
		results,
		elapsed_time: 1,
		args: { which: command, select: multi('--select'), exclude: multi('--exclude') }
	};
}

function exitCodeOf(rr) {
	return rr.results.some((r) => ['error', 'fail', 'runtime error', 'partial success'].includes(String(r.status).toLowerCase())) ? 1 : 0;
}

function writeManifest() {
	const manifest = step.manifest ?? scenario.manifest ?? Object.values(scenario.commands ?? {}).find((s) => s.manifest)?.manifest;
	if (manifest) copyFresh(manifest, path.join(targetPath, 'manifest.json'));
}

function writeRunResults(lines, truncated = false) {
	const text = step.run_results ? readFileSync(step.run_results, 'utf8') : JSON.stringify(runResultsFromLog(lines));
	writeFileSync(path.join(targetPath, 'run_results.json'), truncated ? text.slice(0, Math.floor(text.length / 2)) : text);
	return JSON.parse(text);
}

/** Writes the recorded log line by line with its recorded gaps (compressed by `speed`). */
async function replay(lines, hooks = {}) {
	const fd = openSync(logFile, 'w');
	let prev = NaN;
	try {
		for (let i = 0; i < lines.length; i++) {
			const line = lines[i];
			const t = tsOf(line);
			if (Number.isFinite(prev) && Number.isFinite(t) && t > prev) await sleep(Math.min(maxGapMs, (t - prev) / speed));
			if (Number.isFinite(t)) prev = t;
			if (step.splitWrites && line.length > 10) {
				// A reader polling now sees half a line: it must carry it over, not parse it.
				const cut = 1 + Math.floor(Math.random() * (line.length - 2));
				writeSync(fd, line.slice(0, cut));
				await sleep(step.splitPauseMs ?? 30);
				writeSync(fd, `${line.slice(cut)}\n`);
			} else writeSync(fd, `${line}\n`);
			const c = consoleLine(line);
			if (c) out(c);
			if (hooks.after) await hooks.after(i, fd, line);
		}
	} finally {
		closeSync(fd);
	}
}

async function hangForever() {
	if (step.ignoreSigterm) process.on('SIGTERM', () => out('fake-dbt: ignoring SIGTERM'));
	else if (step.sayOnSigterm) {
		// As dbt does: a SIGTERM ends the invocation, and what it prints on the way out reaches the job log.
		process.on('SIGTERM', () => {
			out('fake-dbt: SIGTERM received, stopping');
			process.exit(143);
		});
	}
	// Said once the handler above is in place, so a test knows a signal now meets it.
	if (step.ignoreSigterm || step.sayOnSigterm) out('fake-dbt: hanging until stopped');
	setInterval(() => {}, 1 << 30);
	await new Promise(() => {});
}

function firstNodeStart(lines) {
	const i = lines.findIndex((l) => l.includes('"NodeStart"'));
	return i < 0 ? Math.min(5, lines.length) : i + 1;
}

async function lineage() {
	const kind = mode.slice('lineage-'.length);
	writeManifest();
	if (kind === 'unsupported') {
		process.stderr.write("Usage: dbt compile [OPTIONS]\nTry 'dbt compile -h' for help.\n\nError: No such option: --write-index\n");
		process.exit(2);
	}
	if (kind === 'hang') return hangForever();
	const indexDir = path.join(targetPath, 'index');
	if (kind === 'ok' || kind === 'partial') {
		mkdirSync(indexDir, { recursive: true });
		for (const f of readdirSync(step.index)) copyFresh(path.join(step.index, f), path.join(indexDir, f));
	}
	if (kind === 'unreadable') {
		mkdirSync(indexDir, { recursive: true });
		writeFileSync(path.join(indexDir, 'dbt.column_lineage.parquet'), 'PAR1 this is not a parquet file');
	}
	if (kind === 'fail' || kind === 'partial') {
		process.stderr.write('error: dbt1000: static analysis failed for model.shop.orders\n  column "amount_usd" could not be resolved\n');
		process.exit(1);
	}
	out('Finished compiling with static analysis');
	process.exit(0);
}

async function show() {
	const rows = step.rows ?? [{ id: 1 }, { id: 2 }];
	const limit = Number(flag('--limit') ?? 100);
	const model = (multi('--select')[0] ?? '').split(',')[0];
	out(`Running with dbt=${version}`);
	out('Registered adapter: postgres');
	out(JSON.stringify({ node: model, show: rows.slice(0, limit) }, null, 2));
	out('Warning: some deprecation notice printed after the rows');
	process.exit(0);
}

/** `dbt retry`: redoes the failed and skipped nodes of the run_results in the target path. */
async function retry() {
	const file = path.join(targetPath, 'run_results.json');
	if (!existsSync(file)) {
		process.stderr.write('Runtime Error: Could not find previous run in target path\n');
		process.exit(2);
	}
	const prev = JSON.parse(readFileSync(file, 'utf8'));
	const redo = prev.results.filter((r) => ['error', 'fail', 'skipped', 'partial success', 'runtime error'].includes(String(r.status).toLowerCase()));
	if (redo.length === 0) {
		out('Nothing to do. Try checking your model configs and model specification args');
		process.exit(0);
	}
	const outcome = step.outcome ?? 'success';
	const results = redo.map((r) => ({
		...r,
		status: outcome === 'success' ? (r.unique_id.startsWith('test.') ? 'pass' : 'success') : r.status,
		message: outcome === 'success' ? (r.unique_id.startsWith('test.') ? null : 'SELECT 1') : r.message,
		failures: outcome === 'success' && r.unique_id.startsWith('test.') ? 0 : r.failures,
		adapter_response: outcome === 'success' ? { _message: 'SELECT 7', rows_affected: 7 } : r.adapter_response
	}));
	const fd = openSync(logFile, 'w');
	for (const r of results) {
		const info = { unique_id: r.unique_id, node_status: 'started', node_relation: { relation_name: r.relation_name ?? '' }, resource_type: r.unique_id.split('.')[0] };
		writeSync(fd, `${JSON.stringify({ info: { name: 'NodeStart', level: 'debug', msg: `Began running node ${r.unique_id}` }, data: { node_info: info } })}\n`);
		await sleep(20);
		writeSync(fd, `${JSON.stringify({ info: { name: 'NodeFinished', level: 'debug', msg: `Finished running node ${r.unique_id}` }, data: { node_info: { ...info, node_status: r.status }, run_result: { status: r.status, message: r.message, adapter_response: { rows_affected: 7 } } } })}\n`);
		out(`retried ${r.unique_id}: ${r.status}`);
	}
	closeSync(fd);
	writeFileSync(file, JSON.stringify({ ...prev, results }));
	process.exit(outcome === 'success' ? 0 : 1);
}

/**
 * Node events stamped with the moment they are written (info.ts), `gapMs` apart, for measuring
 * how long an event takes to become a progress row. Relations are the recorded log's models.
 */
async function latency() {
	const lines = readLines(step.log);
	const nodes = [];
	for (const l of lines) {
		const d = JSON.parse(l);
		if (d.info?.name === 'NodeStart' && d.data.node_info.node_relation?.relation_name) nodes.push(d.data.node_info);
	}
	writeManifest();
	const fd = openSync(logFile, 'w');
	const results = [];
	for (const ni of nodes) {
		for (const [name, status] of [['NodeStart', 'started'], ['NodeFinished', 'success']]) {
			await sleep(step.gapMs ?? 300);
			const ev = { info: { name, level: 'debug', msg: `${name} ${ni.unique_id}`, ts: new Date().toISOString() }, data: { node_info: { ...ni, node_status: status }, run_result: name === 'NodeFinished' ? { status, adapter_response: { rows_affected: 1 } } : undefined } };
			writeSync(fd, `${JSON.stringify(ev)}\n`);
		}
		results.push({ status: 'success', unique_id: ni.unique_id, relation_name: ni.node_relation.relation_name, execution_time: 0.1, adapter_response: { rows_affected: 1 }, message: 'OK', failures: null, timing: [], thread_id: 'Thread-1' });
	}
	closeSync(fd);
	writeFileSync(path.join(targetPath, 'run_results.json'), JSON.stringify({ metadata: { dbt_schema_version: 'https://schemas.getdbt.com/dbt/run-results/v6.json', dbt_version: version }, results, args: { which: command } }));
	process.exit(0);
}

async function main() {
	if (mode.startsWith('lineage-')) return lineage();
	if (mode === 'show') return show();
	if (mode === 'parse') {
		writeManifest();
		out(`Running with dbt=${version}`);
		out('Performance info: target/perf_info.json');
		process.exit(step.exit ?? 0);
	}
	if (mode === 'retry') return retry();
	if (mode === 'latency') return latency();
	if (mode === 'deps' || mode === 'deps-drift') {
		mkdirSync(path.join(projectDir, 'dbt_packages', 'dbt_utils'), { recursive: true });
		out('Installing dbt-labs/dbt_utils');
		out('Installed from version 1.3.0');
		// As dbt deps does: the resolved packages written to package-lock.yml (another version each time when drifting).
		const pinned = mode === 'deps-drift' ? `1.3.${Math.floor(Math.random() * 1e9)}` : '1.3.0';
		writeFileSync(path.join(projectDir, 'package-lock.yml'), `packages:\n  - package: dbt-labs/dbt_utils\n    version: ${pinned}\nsha1_hash: 0123456789abcdef\n`);
		process.exit(step.exit ?? 0);
	}
	if (mode === 'docs') {
		// `docs generate`: the manifest, and the scenario's catalog when it names one.
		if (step.catalog) {
			writeManifest();
			copyFresh(step.catalog, path.join(targetPath, 'catalog.json'));
			out('Catalog written to target/catalog.json');
		}
		process.exit(step.exit ?? 0);
	}
	if (mode === 'deps-fail') {
		process.stderr.write('Runtime Error\n  Could not resolve package dbt-labs/dbt_utils: network unreachable\n');
		process.exit(step.exit ?? 2);
	}
	if (mode === 'probe-sandbox') {
		// What a project's macro could reach: writes and reads outside the job directory.
		const { readFileSync: read, writeFileSync: write } = await import('node:fs');
		for (const p of step.writePaths ?? []) {
			try {
				write(p, 'x');
				out(`probe write ${p}: ok`);
			} catch (e) {
				out(`probe write ${p}: ${e.code}`);
			}
		}
		for (const p of step.readPaths ?? []) {
			try {
				read(p);
				out(`probe read ${p}: ok`);
			} catch (e) {
				out(`probe read ${p}: ${e.code}`);
			}
		}
		writeFileSync(path.join(targetPath, 'run_results.json'), JSON.stringify({ metadata: { dbt_schema_version: 'https://schemas.getdbt.com/dbt/run-results/v6.json', dbt_version: version }, results: [] }));
		process.exit(0);
	}
	if (mode === 'exit-early') {
		process.stderr.write(step.stderr ?? "Runtime Error\n  Could not find profile named 'jaffle_shop'\n");
		process.exit(step.exit ?? 2);
	}
	if (mode === 'print-env') {
		for (const [k, v] of Object.entries(process.env).sort()) out(`env ${k}=${v}`);
	}
	if (mode === 'million-lines') {
		const n = step.lines ?? 1_000_000;
		const chunk = [];
		for (let i = 0; i < n; i++) {
			chunk.push(`line ${i} of a project that prints too much`);
			if (chunk.length === 10_000) {
				if (!process.stdout.write(`${chunk.join('\n')}\n`)) await new Promise((r) => process.stdout.once('drain', r));
				chunk.length = 0;
			}
		}
		if (chunk.length) process.stdout.write(`${chunk.join('\n')}\n`);
	}
	const lines = readLines(step.log);
	writeManifest();
	if (mode === 'hang' || mode === 'grandchild') {
		await replay(lines.slice(0, step.hangAfter ?? firstNodeStart(lines)));
		if (mode === 'grandchild') {
			const g = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
			writeFileSync(path.join(targetPath, 'grandchild.pid'), String(g.pid));
			out(`fake-dbt grandchild pid ${g.pid}`);
		}
		return hangForever();
	}
	const hooks = {};
	if (mode === 'huge-line') {
		const at = firstNodeStart(lines);
		const size = step.hugeBytes ?? 10 * 1024 * 1024;
		hooks.after = async (i, fd) => {
			if (i !== at - 1) return;
			// One event whose message is 10 MB (a macro printing a whole table, say).
			const big = JSON.stringify({ info: { name: 'JinjaLogInfo', level: 'info', msg: 'x'.repeat(size) }, data: {} });
			writeSync(fd, `${big}\n`);
			out(`huge ${'y'.repeat(size)}`);
		};
	}
	if (mode === 'rewrite-log') {
		// Writing through the same descriptor after a truncate would leave a hole: reopen instead.
		const at = Math.floor(lines.length / 2);
		await replay(lines.slice(0, at));
		truncateSync(logFile, 0);
		await sleep(step.rewritePauseMs ?? 600);
		const fd = openSync(logFile, 'a');
		for (const line of lines.slice(at)) {
			writeSync(fd, `${line}\n`);
			const c = consoleLine(line);
			if (c) out(c);
			await sleep(2);
		}
		closeSync(fd);
	} else await replay(lines, hooks);
	const rr = writeRunResults(lines, mode === 'truncated-run-results');
	process.exit(step.exit ?? exitCodeOf(rr));
}

main().catch((e) => {
	process.stderr.write(`fake-dbt crashed: ${e.stack ?? e}\n`);
	process.exit(3);
});
