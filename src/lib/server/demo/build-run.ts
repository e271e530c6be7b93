// A simulated `dbt build --log-format-file json`: schedules the project's nodes on N threads the
// way dbt does (a node waits for the tests of what it is built on; an error or a failing test
// skips everything downstream), then writes what dbt-core 1.10 would: run_results.json (v6) and the JSON event
// log, both from the same timeline so they agree to the microsecond.
import type { Compiler } from './compile';
import type { Rng } from './rng';
import { relationName, type ExecutableSpec, type ModelSpec, type NodeSpec, type ProjectSpec, type TestSpec } from './spec';
import { sha256 } from './manifest-builder';
import { fileContent } from './project-files';

export const RUN_RESULTS_SCHEMA = 'https://schemas.getdbt.com/dbt/run-results/v6.json';

type Json = Record<string, unknown>;
type Status = 'success' | 'error' | 'skipped' | 'pass' | 'fail' | 'warn';

export interface BuildInput {
	spec: ProjectSpec;
	compiler: Compiler;
	rng: Rng;
	invocationId: string;
	/** Manifest written (parse done), epoch ms. */
	parsedAt: number;
	pid: number;
}

export interface BuildOutput {
	runResults: Json;
	eventLog: string;
	counts: Record<Status, number>;
}

interface Execution {
	node: NodeSpec;
	index: number;
	thread: string;
	status: Status;
	/** µs since epoch */
	start: number;
	compileStart: number;
	compileEnd: number;
	executeStart: number;
	executeEnd: number;
	end: number;
	message: string | null;
	failures: number | null;
	adapterResponse: Json;
}

const isEphemeral = (n: NodeSpec): boolean => n.resourceType === 'model' && n.materialized === 'ephemeral';

function isoMicros(us: number, zone = 'Z'): string {
	const ms = Math.floor(us / 1000);
	return `${new Date(ms).toISOString().slice(0, 19)}.${String(us % 1_000_000).padStart(6, '0')}${zone}`;
}

const secs = (us: number) => Math.round(us / 10) / 100_000;

/** dbt's `format_fancy_output_line`: the message padded with dots to the printer width. */
function fancy(msg: string, status: string, index: number | null, total: number | null, seconds?: number): string {
	const progress = index !== null && total !== null ? `${index} of ${total} ` : '';
	const justified = `${progress}${msg} `.padEnd(80, '.');
	const time = seconds === undefined ? '' : ` in ${seconds.toFixed(2)}s`;
	return `${justified} [${status}${time}]`;
}

function describe(node: NodeSpec): string {
	if (node.resourceType === 'test') return `test ${node.name}`;
	if (node.resourceType === 'seed') return `seed file ${node.schema}.${node.alias}`;
	if (node.resourceType === 'snapshot') return `snapshot ${node.schema}.${node.alias}`;
	return `sql ${node.materialized} model ${node.schema}.${node.alias}`;
}

function resourcePath(filePath: string): string {
	return filePath.slice(filePath.indexOf('/') + 1);
}

export function simulateBuild(input: BuildInput): BuildOutput {
	const { spec, rng } = input;
	const byId = new Map<string, NodeSpec>();
	for (const n of spec.nodes) byId.set(n.uniqueId, n);
	const order = new Map<string, number>();
	spec.nodes.forEach((n, i) => order.set(n.uniqueId, i));

	// Executable parents, walking through ephemeral models (they are inlined, never run).
	const execParents = (n: NodeSpec): string[] => {
		if (n.resourceType === 'seed') return [];
		const out = new Set<string>();
		const walk = (ids: string[]) => {
			for (const id of ids) {
				const p = byId.get(id);
				if (!p) continue;
				if (isEphemeral(p)) walk((p as ModelSpec).parents);
				else out.add(id);
			}
		};
		walk(n.parents);
		return [...out];
	};

	const nodes = spec.nodes.filter((n) => !isEphemeral(n));
	const deps = new Map<string, Set<string>>();
	for (const n of nodes) deps.set(n.uniqueId, new Set(execParents(n)));
	// dbt build (Linker.add_test_edges): a test gates every node whose ancestors include all the
	// nodes the test depends on, so a failing test skips what is built on the data it checked.
	const ancestors = new Map<string, Set<string>>();
	const ancestorsOf = (id: string): Set<string> => {
		let set = ancestors.get(id);
		if (set) return set;
		set = new Set<string>();
		const n = byId.get(id);
		if (n && n.resourceType !== 'seed') {
			for (const p of n.parents) {
				set.add(p);
				for (const a of ancestorsOf(p)) set.add(a);
			}
		}
		ancestors.set(id, set);
		return set;
	};
	const testsOn = new Map<string, TestSpec[]>();
	for (const n of spec.nodes) {
		if (n.resourceType !== 'test') continue;
		for (const p of n.parents) (testsOn.get(p) ?? testsOn.set(p, []).get(p)!).push(n);
	}
	for (const n of nodes) {
		if (n.resourceType === 'test') continue;
		const up = ancestorsOf(n.uniqueId);
		const own = deps.get(n.uniqueId)!;
		for (const a of up) {
			for (const t of testsOn.get(a) ?? []) {
				if (!own.has(t.uniqueId) && t.parents.every((p) => up.has(p))) own.add(t.uniqueId);
			}
		}
	}
	const dependents = new Map<string, string[]>();
	for (const n of nodes) for (const p of deps.get(n.uniqueId)!) (dependents.get(p) ?? dependents.set(p, []).get(p)!).push(n.uniqueId);

	// dbt dequeues by depth in the graph; ties by manifest order.
	const depth = new Map<string, number>();
	const depthOf = (id: string): number => {
		const known = depth.get(id);
		if (known !== undefined) return known;
		let d = 0;
		for (const p of deps.get(id)!) d = Math.max(d, depthOf(p) + 1);
		depth.set(id, d);
		return d;
	};
	for (const n of nodes) depthOf(n.uniqueId);
	const priority = (id: string) => depth.get(id)! * 1e7 + order.get(id)!;

	const remaining = new Map<string, number>();
	for (const n of nodes) remaining.set(n.uniqueId, deps.get(n.uniqueId)!.size);
	let ready = nodes.filter((n) => remaining.get(n.uniqueId) === 0).map((n) => n.uniqueId);
	const skip = new Set<string>();
	const markSkipped = (id: string) => {
		for (const d of dependents.get(id) ?? []) {
			if (skip.has(d)) continue;
			skip.add(d);
			markSkipped(d);
		}
	};

	const threads = Math.max(1, spec.threads);
	const free: number[] = Array.from({ length: threads }, () => input.parsedAt * 1000 + 180_000 + rng.int(0, 40_000));
	const running: { exec: Execution; slot: number }[] = [];
	const executions: Execution[] = [];
	let index = 0;
	const total = nodes.length;
	let now = Math.min(...free);

	while (executions.length < total) {
		ready.sort((a, b) => priority(a) - priority(b));
		// Hand ready nodes to idle threads.
		for (let slot = 0; slot < threads && ready.length > 0; slot++) {
			if (running.some((r) => r.slot === slot)) continue;
			const id = ready.shift()!;
			const exec = execute(byId.get(id)!, ++index, slot, Math.max(now, free[slot]), skip.has(id));
			running.push({ exec, slot });
		}
		if (running.length === 0) {
			now = Math.min(...free.filter((f) => f > now), now + 1000);
			continue;
		}
		running.sort((a, b) => a.exec.end - b.exec.end || a.slot - b.slot);
		const done = running.shift()!;
		now = done.exec.end;
		free[done.slot] = now + rng.int(300, 2500);
		executions.push(done.exec);
		const st = done.exec.status;
		if (st === 'error' || st === 'fail') markSkipped(done.exec.node.uniqueId);
		for (const d of dependents.get(done.exec.node.uniqueId) ?? []) {
			const left = remaining.get(d)! - 1;
			remaining.set(d, left);
			if (left === 0) ready.push(d);
		}
		if (running.length === 0 && ready.length > 0) now = Math.max(now, Math.min(...free));
	}

	function execute(node: NodeSpec, idx: number, slot: number, start: number, skipped: boolean): Execution {
		const thread = `Thread-${slot + 1} (worker)`;
		if (skipped) {
			const end = start + rng.int(200, 900);
			return {
				node,
				index: idx,
				thread,
				status: 'skipped',
				start,
				compileStart: start,
				compileEnd: start,
				executeStart: start,
				executeEnd: start,
				end,
				message: null,
				failures: null,
				adapterResponse: {}
			};
		}
		const compileStart = start + rng.int(400, 3000);
		const compileEnd = compileStart + (node.resourceType === 'seed' ? rng.int(5, 40) : rng.int(2000, 40_000));
		const executeStart = compileEnd + rng.int(300, 6000);
		const base =
			node.resourceType === 'test'
				? rng.int(15_000, 320_000)
				: node.resourceType === 'seed'
					? rng.int(120_000, 600_000)
					: node.resourceType === 'snapshot'
						? rng.int(400_000, 1_500_000)
						: node.materialized === 'view'
							? rng.int(40_000, 260_000)
							: rng.int(300_000, 2_800_000);
		const executeEnd = executeStart + base;
		const end = executeEnd + rng.int(500, 6000);
		const outcome = spec.outcomes.get(node.uniqueId) ?? 'ok';
		let status: Status;
		let message: string | null;
		let failures: number | null = null;
		let adapterResponse: Json = { _message: 'OK' };
		if (node.resourceType === 'test') {
			failures = outcome === 'fail' || outcome === 'warn' ? Math.max(1, node.failures) : 0;
			status = outcome === 'fail' ? 'fail' : outcome === 'warn' ? 'warn' : outcome === 'error' ? 'error' : 'pass';
			message =
				status === 'fail'
					? `Got ${failures} result${failures === 1 ? '' : 's'}, configured to fail if != 0`
					: status === 'warn'
						? `Got ${failures} result${failures === 1 ? '' : 's'}, configured to warn if != 0`
						: null;
		} else if (outcome === 'error') {
			status = 'error';
			message = runtimeError(node);
			adapterResponse = {};
		} else {
			status = 'success';
			const rows = node.rowCount;
			if (node.resourceType === 'seed') {
				message = `INSERT ${rows ?? 0}`;
				adapterResponse = { _message: message, code: 'INSERT', rows_affected: rows ?? 0 };
			} else {
				message = 'OK';
				if (rows !== null) adapterResponse = { _message: 'OK', rows_affected: rows };
			}
		}
		return { node, index: idx, thread, status, start, compileStart, compileEnd, executeStart, executeEnd, end, message, failures, adapterResponse };
	}

	function runtimeError(node: ExecutableSpec): string {
		const col = node.columns[Math.min(2, node.columns.length - 1)]?.name ?? 'id';
		return `Runtime Error in ${node.resourceType} ${node.name} (${node.filePath})\n  Binder Error: Referenced column "${col}_old" not found in FROM clause!\n  Candidate bindings: "${col}"`;
	}

	executions.sort((a, b) => a.end - b.end || a.index - b.index);
	return writeOutputs(input, executions, total);
}

function checksumOf(node: NodeSpec): string {
	if (node.resourceType === 'test') return node.kind === 'singular' ? sha256(node.rawCode ?? '') : '';
	return sha256(fileContent(node));
}

function writeOutputs(input: BuildInput, executions: Execution[], total: number): BuildOutput {
	const { spec } = input;
	const lines: { ts: number; seq: number; line: string }[] = [];
	let seq = 0;
	const emit = (ts: number, name: string, code: string, level: string, msg: string, data: Json, thread = 'MainThread') => {
		const info = { name, code, msg, level, invocation_id: input.invocationId, pid: input.pid, thread, ts: isoMicros(ts), extra: {}, category: '' };
		lines.push({ ts, seq: seq++, line: JSON.stringify({ info, data }) });
	};

	const nodeInfo = (e: Execution, status: string, finished: boolean, summary = false): Json => {
		const n = e.node;
		const isTest = n.resourceType === 'test';
		const relation = isTest ? '' : (relationName(n) ?? '');
		return {
			node_path: isTest && n.kind === 'generic' ? `${n.alias}.sql` : resourcePath(n.filePath),
			node_name: n.name,
			unique_id: n.uniqueId,
			resource_type: n.resourceType,
			materialized: isTest ? 'test' : n.resourceType === 'model' ? n.materialized : n.resourceType,
			node_status: summary ? 'None' : status,
			node_started_at: summary ? '' : isoMicros(e.start, ''),
			node_finished_at: summary || !finished ? '' : isoMicros(e.end - 80, ''),
			meta: isTest ? {} : n.meta,
			node_relation: {
				database: spec.database,
				schema: isTest ? `${spec.schema}_dbt_test__audit` : n.schema,
				alias: n.alias,
				relation_name: relation
			},
			node_checksum: checksumOf(n)
		};
	};

	const t0 = spec.startedAt * 1000;
	const parsed = input.parsedAt * 1000;
	const args = buildArgs(spec);
	// The log carries the args as Python reprs (`'True'`, `'None'`), as dbt's proto message does.
	const argStrings: Record<string, string> = {};
	for (const [k, v] of Object.entries(args)) argStrings[k] = typeof v === 'boolean' ? (v ? 'True' : 'False') : typeof v === 'string' ? v : JSON.stringify(v);
	emit(t0 + 41_203, 'MainReportVersion', 'A001', 'info', `Running with dbt=${spec.dbtVersion}`, { version: `=${spec.dbtVersion}`, log_version: 3 });
	emit(t0 + 41_877, 'MainReportArgs', 'A002', 'debug', `running dbt with arguments ${JSON.stringify(argStrings)}`, { args: argStrings });
	emit(t0 + 180_344, 'AdapterRegistered', 'E034', 'info', 'Registered adapter: duckdb=1.10.0', { adapter_name: 'duckdb', adapter_version: '=1.10.0' });
	const found = foundStats(spec);
	emit(parsed - 3_112, 'ArtifactWritten', 'P001', 'debug', `Wrote artifact WritableManifest to /srv/dbt/${spec.name}/target/manifest.json`, {
		artifact_type: 'WritableManifest',
		artifact_path: `/srv/dbt/${spec.name}/target/manifest.json`
	});
	emit(parsed + 24_510, 'FoundStats', 'W006', 'info', `Found ${found}`, { stat_line: found });
	emit(parsed + 60_207, 'ConcurrencyLine', 'Q027', 'info', `Concurrency: ${spec.threads} threads (target='dev')`, {
		num_threads: spec.threads,
		target_name: 'dev',
		node_count: total
	});

	const counts: Record<Status, number> = { success: 0, error: 0, skipped: 0, pass: 0, fail: 0, warn: 0 };
	const results: Json[] = [];
	for (const e of executions) {
		counts[e.status]++;
		const n = e.node;
		const info = (status: string, finished = false) => nodeInfo(e, status, finished);
		emit(e.start + 96, 'NodeStart', 'Q024', 'debug', `Began running node ${n.uniqueId}`, { node_info: info('started') }, e.thread);
		const desc = describe(n);
		const time = secs(e.end - e.start);
		const timing =
			e.status === 'skipped'
				? []
				: [
						{ name: 'compile', started_at: isoMicros(e.compileStart), completed_at: isoMicros(e.compileEnd) },
						{ name: 'execute', started_at: isoMicros(e.executeStart), completed_at: isoMicros(e.executeEnd) }
					];
		if (e.status === 'skipped') {
			const what = n.resourceType === 'test' ? `test ${n.name}` : `relation ${n.schema}.${n.name}`;
			emit(e.start + 310, 'SkippingDetails', 'Q034', 'info', fancy(`SKIP ${what}`, 'SKIP', e.index, total), {
				node_info: info('skipped'),
				resource_type: n.resourceType,
				schema: n.resourceType === 'test' ? `${spec.schema}_dbt_test__audit` : n.schema,
				node_name: n.name,
				index: e.index,
				total
			}, e.thread);
		} else {
			emit(e.start + 540, 'LogStartLine', 'Q011', 'info', fancy(`START ${desc}`, 'RUN', e.index, total), {
				node_info: info('started'),
				description: desc,
				index: e.index,
				total
			}, e.thread);
			emit(e.compileStart + 12, 'NodeCompiling', 'Q030', 'debug', `Began compiling node ${n.uniqueId}`, { node_info: info('compiling') }, e.thread);
			emit(e.executeStart + 9, 'NodeExecuting', 'Q031', 'debug', `Began executing node ${n.uniqueId}`, { node_info: info('executing') }, e.thread);
			emitResult(e, desc, time, info(e.status, true));
		}
		const runResult = {
			status: e.status,
			message: e.message ?? '',
			timing_info: timing,
			thread: e.thread,
			execution_time: e.status === 'skipped' ? 0 : time,
			num_failures: e.failures ?? 0,
			adapter_response: e.adapterResponse
		};
		emit(e.end + 420, 'NodeFinished', 'Q025', 'debug', `Finished running node ${n.uniqueId}`, { node_info: info(e.status, true), run_result: runResult }, e.thread);
		results.push(resultJson(e, input.compiler, timing, time));
	}

	function emitResult(e: Execution, desc: string, time: number, info: Json) {
		const n = e.node;
		const at = e.end - 40;
		const progress = [e.index, total] as const;
		if (n.resourceType === 'test') {
			const word = e.status === 'pass' ? 'PASS' : e.status === 'fail' ? 'FAIL' : e.status === 'warn' ? 'WARN' : 'ERROR';
			const counted = e.status === 'fail' || e.status === 'warn' ? `${word} ${e.failures}` : word;
			const level = e.status === 'fail' || e.status === 'error' ? 'error' : e.status === 'warn' ? 'warn' : 'info';
			emit(at, 'LogTestResult', 'Q007', level, fancy(`${counted} ${n.name}`, counted, ...progress, time), {
				node_info: info,
				name: n.name,
				status: e.status,
				index: e.index,
				num_models: total,
				execution_time: time,
				num_failures: e.failures ?? 0,
				attached_node: n.attachedNode ?? ''
			}, e.thread);
		} else if (n.resourceType === 'seed') {
			const ok = e.status === 'success';
			emit(at, 'LogSeedResult', 'Q016', ok ? 'info' : 'error', fancy(ok ? `OK loaded ${desc}` : `ERROR loading ${desc}`, ok ? (e.message ?? '') : 'ERROR', ...progress, time), {
				node_info: info,
				status: e.status,
				result_message: e.message ?? '',
				index: e.index,
				total,
				execution_time: time,
				schema: n.schema,
				relation: n.alias
			}, e.thread);
		} else if (n.resourceType === 'snapshot') {
			const ok = e.status === 'success';
			emit(at, 'LogSnapshotResult', 'Q015', ok ? 'info' : 'error', fancy(ok ? `OK snapshotted ${n.schema}.${n.alias}` : `ERROR snapshotting ${n.schema}.${n.alias}`, ok ? 'OK' : 'ERROR', ...progress, time), {
				node_info: info,
				description: `${n.schema}.${n.alias}`,
				status: e.status,
				index: e.index,
				total,
				execution_time: time,
				cfg: { materialized: 'snapshot', strategy: n.strategy, unique_key: n.uniqueKey, updated_at: n.updatedAt ?? 'None', tags: JSON.stringify(n.tags).replace(/"/g, "'") },
				result_message: e.message ?? ''
			}, e.thread);
		} else {
			const ok = e.status === 'success';
			emit(at, 'LogModelResult', 'Q012', ok ? 'info' : 'error', fancy(ok ? `OK created ${desc}` : `ERROR creating ${desc}`, ok ? 'OK' : 'ERROR', ...progress, time), {
				node_info: info,
				description: desc,
				status: ok ? 'OK' : 'error',
				index: e.index,
				total,
				execution_time: time
			}, e.thread);
		}
	}

	const firstStart = executions.reduce((m, e) => Math.min(m, e.start), Infinity);
	const lastEnd = executions.reduce((m, e) => Math.max(m, e.end), 0);
	const end = (Number.isFinite(firstStart) ? lastEnd : parsed) + 8_300;
	const elapsed = secs(end - (Number.isFinite(firstStart) ? firstStart : parsed));
	const statLine = runStatLine(executions);
	const execution = ` in 0 hours ${Math.floor(elapsed / 60)} minutes and ${(elapsed % 60).toFixed(2)} seconds`;
	emit(end, 'FinishedRunningStats', 'E047', 'info', `Finished running ${statLine}${execution} (${elapsed.toFixed(2)}s).`, {
		stat_line: statLine,
		execution,
		execution_time: elapsed
	});
	const resultsWritten = end + 21_480;
	emit(resultsWritten, 'ArtifactWritten', 'P001', 'debug', `Wrote artifact RunExecutionResult to /srv/dbt/${spec.name}/target/run_results.json`, {
		artifact_type: 'RunExecutionResult',
		artifact_path: `/srv/dbt/${spec.name}/target/run_results.json`
	});

	const errors = executions.filter((e) => e.status === 'error' || e.status === 'fail');
	const warnings = executions.filter((e) => e.status === 'warn');
	const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
	const summary =
		errors.length > 0
			? `Completed with ${plural(errors.length, 'error')}, 0 partial successes, and ${plural(warnings.length, 'warning')}:`
			: warnings.length > 0
				? `Completed with ${plural(warnings.length, 'warning')}:`
				: 'Completed successfully';
	let at = resultsWritten + 30_000;
	emit(at, 'EndOfRunSummary', 'Z030', 'info', summary, {
		num_errors: errors.length,
		num_warnings: warnings.length,
		num_partial_success: 0,
		keyboard_interrupt: false
	});
	for (const e of [...errors, ...warnings]) {
		const n = e.node;
		const path = n.filePath;
		const info = nodeInfo(e, 'None', false, true);
		at += 700;
		if (e.status === 'error' && n.resourceType !== 'test') {
			emit(at, 'RunResultError', 'Z024', 'error', `  ${e.message}`, { msg: e.message, node_info: info });
		} else if (e.status === 'warn') {
			emit(at, 'RunResultWarning', 'Z021', 'warn', `Warning in test ${n.name} (${path})`, { resource_type: 'test', node_name: n.name, path, node_info: info });
			emit(at + 350, 'RunResultWarningMessage', 'Z046', 'warn', `  ${e.message}`, { msg: e.message, node_info: info });
		} else {
			emit(at, 'RunResultFailure', 'Z022', 'error', `Failure in ${n.resourceType} ${n.name} (${path})`, {
				resource_type: n.resourceType,
				node_name: n.name,
				path,
				node_info: info
			});
			emit(at + 350, 'RunResultError', 'Z024', 'error', `  ${e.message}`, { msg: e.message, node_info: info });
		}
	}
	const stats = {
		error: counts.error + counts.fail,
		pass: counts.success + counts.pass,
		skip: counts.skipped,
		total,
		warn: counts.warn,
		noop: 0
	};
	at += 1_900;
	emit(at, 'StatsLine', 'Z023', 'info', `Done. PASS=${stats.pass} WARN=${stats.warn} ERROR=${stats.error} SKIP=${stats.skip} NO-OP=0 TOTAL=${total}`, { stats });
	const success = stats.error === 0;
	const completedAt = at + 1_400;
	const commandElapsed = secs(completedAt - t0);
	const clock = isoMicros(completedAt).slice(11, 26);
	emit(completedAt, 'CommandCompleted', 'Q039', 'debug', `Command \`dbt build\` ${success ? 'succeeded' : 'failed'} at ${clock} after ${commandElapsed.toFixed(2)} seconds`, {
		command: 'dbt build',
		success,
		completed_at: isoMicros(completedAt),
		elapsed: commandElapsed
	});

	lines.sort((a, b) => a.ts - b.ts || a.seq - b.seq);
	const runResults = {
		metadata: {
			dbt_schema_version: RUN_RESULTS_SCHEMA,
			dbt_version: spec.dbtVersion,
			generated_at: isoMicros(resultsWritten),
			invocation_id: input.invocationId,
			invocation_started_at: isoMicros(t0),
			env: {}
		},
		results,
		elapsed_time: elapsed,
		args: { ...args, select: [], exclude: [], vars: {}, warn_error_options: { error: [], warn: [], silence: [] } }
	};
	return { runResults, eventLog: lines.map((l) => l.line).join('\n') + '\n', counts };
}

function resultJson(e: Execution, compiler: Compiler, timing: Json[], time: number): Json {
	const n = e.node;
	// dbt reports compile fields only for compiled node types (not seeds); a skipped node was never compiled.
	const compiledType = n.resourceType !== 'seed';
	let compiledCode: string | null = null;
	if (compiledType && e.status !== 'skipped') {
		if (n.resourceType === 'test') compiledCode = n.kind === 'singular' ? compiler.compile({ uniqueId: n.uniqueId, rawCode: n.rawCode ?? '' }).code : null;
		else compiledCode = compiler.compile(n).code;
	}
	return {
		status: e.status,
		timing,
		thread_id: e.thread,
		execution_time: e.status === 'skipped' ? 0 : time,
		adapter_response: e.adapterResponse,
		message: e.message,
		failures: n.resourceType === 'test' && e.status !== 'skipped' ? e.failures : null,
		unique_id: n.uniqueId,
		compiled: compiledType ? e.status !== 'skipped' : null,
		compiled_code: compiledCode,
		relation_name: compiledType && n.resourceType !== 'test' ? relationName(n) : null,
		batch_results: null
	};
}

function runStatLine(executions: Execution[]): string {
	const counts = new Map<string, number>();
	for (const e of executions) {
		const n = e.node;
		const key =
			n.resourceType === 'test'
				? 'data test'
				: n.resourceType === 'seed'
					? 'seed'
					: n.resourceType === 'snapshot'
						? 'snapshot'
						: `${n.materialized} model`;
		counts.set(key, (counts.get(key) ?? 0) + 1);
	}
	return [...counts.entries()].map(([k, v]) => `${v} ${k}${v === 1 ? '' : 's'}`).join(', ');
}

function foundStats(spec: ProjectSpec): string {
	let models = 0;
	let tests = 0;
	let seeds = 0;
	let snapshots = 0;
	for (const n of spec.nodes) {
		if (n.resourceType === 'model') models++;
		else if (n.resourceType === 'test') tests++;
		else if (n.resourceType === 'seed') seeds++;
		else snapshots++;
	}
	const parts = [`${models} models`];
	if (snapshots) parts.push(`${snapshots} snapshot${snapshots === 1 ? '' : 's'}`);
	parts.push(`${tests} data tests`, `${seeds} seeds`, `${spec.sources.length} sources`, '471 macros');
	return parts.join(', ');
}

function buildArgs(spec: ProjectSpec): Json {
	return {
		which: 'build',
		invocation_command: 'dbt build --log-format-file json',
		project_dir: `/srv/dbt/${spec.name}`,
		profiles_dir: `/srv/dbt/${spec.name}`,
		log_path: `/srv/dbt/${spec.name}/logs`,
		target_path: 'target',
		log_format: 'default',
		log_format_file: 'json',
		log_level: 'info',
		log_level_file: 'debug',
		indirect_selection: 'eager',
		resource_types: [],
		exclude_resource_types: [],
		threads: spec.threads,
		fail_fast: false,
		full_refresh: false,
		partial_parse: true,
		static_parser: true,
		write_json: true,
		printer_width: 80,
		use_colors: true,
		use_colors_file: true,
		version_check: true,
		send_anonymous_usage_stats: false,
		favor_state: false,
		defer: false,
		empty: false,
		introspect: true,
		show: false,
		store_failures: false,
		quiet: false
	};
}
