#!/usr/bin/env node
// The command-line client CI calls: upload a dbt target directory as a deploy or a preview, or
// deploy a producer SQL script.
//   npx tributary deploy ./target --path f/analytics/jaffle --url https://tributary.example --token …
//   npx tributary deploy-sql report.sql --path f/lake/report --url … --token …
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { create } from 'tar';

const USAGE = `usage: tributary <deploy|preview|record> <target-dir> --path <u/user/name|f/folder/name>
                 [--url URL] [--token TOKEN] [--workspace WS] [--descriptor FILE]
                 [--project DIR | --no-project] [--no-wait] [--pin before_live|after_live|at_first_run]
       tributary deploy <project-dir> --path …   (the source alone: the server runs dbt parse)
                 preview only: [--fail-on breaking|partial|unknown|never] [--format text|markdown] [--from REF]
       tributary deploy-sql <file.sql> --path <u/user/name|f/folder/name>
                 [--url URL] [--token TOKEN] [--workspace WS]
       tributary mcp [--url URL] [--token TOKEN] [--workspace WS]   (an MCP server on stdio: see tributary mcp --help)

  Finds manifest.json, catalog.json, run_results.json and the column-lineage index
  (index/*.parquet or info_schema/v1/*.parquet) in <target-dir> and uploads them. Without an
  index, the server infers column lineage from the manifest's compiled SQL in a lineage job;
  the command waits for it and prints its counts (--no-wait: print the job and return). The project files (the directory
  holding dbt_project.yml, default: the parent of <target-dir>) are uploaded as a tar.gz without
  target/, logs/ and .env* so the server can run the version. A deploy with project files is
  pinned by a worker (its dbt engine provisioned, its packages installed) before it goes live
  (--pin before_live, the default), in the background (after_live), or by its first run
  (at_first_run); the command waits for the pin and prints the engine lock (--no-wait: return).
  Given a project directory with no manifest.json (one holding dbt_project.yml), deploy uploads
  the source alone and the server's deploy job makes the manifest with dbt parse (and compile),
  so no dbt is needed where the command runs.
  --url and --token default to $TRIBUTARY_URL and $TRIBUTARY_TOKEN; --workspace to
  $TRIBUTARY_WORKSPACE, else the token's only workspace.
  preview then prints the lineage diff against --from (default: latest, the newest deployed
  version; else a version hash or a job id): models, columns and their downstream readers, each
  change classified breaking, partial, non_breaking or unknown. --fail-on LEVEL exits 1 when a
  change is at that level or worse (breaking > partial > unknown > non_breaking; default never);
  --format markdown prints it as a pull-request comment. The diff needs the token's assets:read
  and jobs:read scopes besides scripts:write, and scripts:read for its columns and reasons.
  deploy-sql stores a producer script (DuckDB SQL) and prints what it reads and writes, its
  column lineage (annotated and inferred) and the warnings.`;

function fail(msg, code = 1) {
	process.stderr.write(`tributary: ${msg}\n`);
	process.exit(code);
}

// `mcp` serves MCP on stdio: its own options, and stdout belongs to the protocol.
if (process.argv[2] === 'mcp') {
	const { mcp } = await import('./mcp.js');
	await mcp(process.argv.slice(3)).catch((e) => fail(e.message));
	// Serves until the client closes stdin (mcp.js exits then); nothing below is for this command.
	await new Promise(() => {});
}

// `record` takes options of its own (--log, --script-hash): hand it the raw arguments.
if (process.argv[2] === 'record') {
	const { record } = await import('./record.js');
	await record(process.argv.slice(3)).catch((e) => fail(e.message));
	process.exit(process.exitCode ?? 0);
}

const { values, positionals } = parseArgs({
	allowPositionals: true,
	options: {
		path: { type: 'string' },
		url: { type: 'string' },
		token: { type: 'string' },
		workspace: { type: 'string' },
		descriptor: { type: 'string' },
		project: { type: 'string' },
		'no-project': { type: 'boolean' },
		'no-wait': { type: 'boolean' },
		'fail-on': { type: 'string' },
		format: { type: 'string' },
		from: { type: 'string' },
		pin: { type: 'string' },
		help: { type: 'boolean', short: 'h' }
	}
});

if (values.help) {
	process.stdout.write(`${USAGE}\n`);
	process.exit(0);
}
const [command, targetArg] = positionals;
if (!['deploy', 'preview', 'deploy-sql'].includes(command ?? '') || !targetArg) fail(`${USAGE}`, 2);
// Worst last: a --fail-on level fails on itself and everything after it.
const LEVELS = ['non_breaking', 'unknown', 'partial', 'breaking'];
const failOn = values['fail-on'] ?? 'never';
if (failOn !== 'never' && !LEVELS.includes(failOn)) fail(`--fail-on: unknown level "${failOn}" (breaking, partial, unknown or never)\n${USAGE}`, 2);
const format = values.format ?? 'text';
if (!['text', 'markdown'].includes(format)) fail(`--format: unknown format "${format}" (text or markdown)\n${USAGE}`, 2);
if (command !== 'preview' && (values['fail-on'] || values.format || values.from)) fail(`--fail-on, --format and --from apply to preview only\n${USAGE}`, 2);
const url = (values.url ?? process.env.TRIBUTARY_URL ?? '').replace(/\/$/, '');
const token = values.token ?? process.env.TRIBUTARY_TOKEN;
if (!url) fail('no server: pass --url or set TRIBUTARY_URL', 2);
if (!token) fail('no token: pass --token or set TRIBUTARY_TOKEN (mint one in Settings → Tokens)', 2);
if (!values.path) fail('--path is required (u/<user>/<name> or f/<folder>/<name>)', 2);
if (command === 'deploy-sql') {
	await deploySql(targetArg).catch((e) => fail(e.message));
	process.exit(0);
}

const PIN_MODES = ['before_live', 'after_live', 'at_first_run'];
if (values.pin && !PIN_MODES.includes(values.pin)) fail(`--pin: unknown mode "${values.pin}" (${PIN_MODES.join(', ')})\n${USAGE}`, 2);
const target = path.resolve(targetArg);
// A project directory without a manifest: the source alone, parsed by the server.
const sourceOnly = command === 'deploy' && !existsSync(path.join(target, 'manifest.json')) && existsSync(path.join(target, 'dbt_project.yml'));
if (!sourceOnly && !existsSync(path.join(target, 'manifest.json'))) {
	fail(`${target}: no manifest.json here (is this a dbt target/ directory? ${command === 'deploy' ? 'or a project directory, with dbt_project.yml' : ''})`);
}
if (sourceOnly && values['no-project']) fail('--no-project: a deploy of a project directory uploads its source; nothing would be left to deploy', 2);

function firstExisting(...candidates) {
	return candidates.map((c) => path.join(target, c)).find((p) => existsSync(p));
}

const files = sourceOnly
	? {}
	: {
			manifest: path.join(target, 'manifest.json'),
			catalog: firstExisting('catalog.json'),
			run_results: firstExisting('run_results.json'),
			column_lineage: firstExisting('index/dbt.column_lineage.parquet', 'private/index/dbt.column_lineage.parquet', 'info_schema/v1/dbt.column_lineage.parquet'),
			node_columns: firstExisting('index/dbt.node_columns.parquet', 'private/index/dbt.node_columns.parquet', 'info_schema/v1/dbt.node_columns.parquet')
		};

async function projectArchive() {
	if (values['no-project']) return null;
	const dir = path.resolve(values.project ?? (sourceOnly ? target : path.dirname(target)));
	if (!existsSync(path.join(dir, 'dbt_project.yml'))) {
		if (values.project) fail(`${dir}: no dbt_project.yml here`);
		return null;
	}
	const skip = /^(\.\/)?(target|logs|dbt_packages|node_modules|\.git)(\/|$)|(^|\/)\.env/;
	const chunks = [];
	const stream = create({ gzip: true, cwd: dir, portable: true, filter: (p) => !skip.test(p) }, ['.']);
	for await (const c of stream) chunks.push(c);
	return Buffer.concat(chunks);
}

const mb = (n) => `${(n / 1024 / 1024).toFixed(1)} MB`;

async function main() {
	const form = new FormData();
	// First, before the files (FormData keeps this order): the server gates on it.
	form.set('path', values.path);
	if (values.descriptor) form.set('descriptor', readFileSync(values.descriptor, 'utf8'));
	if (values.pin) form.set('pin', values.pin);
	let total = 0;
	for (const [field, file] of Object.entries(files)) {
		if (!file) continue;
		const bytes = readFileSync(file);
		total += bytes.length;
		form.set(field, new Blob([bytes]), path.basename(file));
		process.stderr.write(`  ${field.padEnd(15)} ${path.relative(process.cwd(), file)} (${mb(statSync(file).size)})\n`);
	}
	if (sourceOnly) process.stderr.write('  no manifest.json: uploading the source alone; the server parses it\n');
	else if (!files.column_lineage) {
		process.stderr.write('  no column-lineage index in this target: column lineage is inferred from the compiled SQL\n');
		if (!files.catalog) {
			process.stderr.write(
				'  no catalog.json (`dbt docs generate` writes it): no typed columns, and `select *` over a seed, source or snapshot cannot be expanded\n'
			);
		}
	}
	const tgz = await projectArchive();
	if (tgz) {
		total += tgz.length;
		form.set('project', new Blob([tgz]), 'project.tar.gz');
		process.stderr.write(`  ${'project'.padEnd(15)} ${mb(tgz.length)} tar.gz\n`);
	}

	const headers = { authorization: `Bearer ${token}` };
	const workspace = await workspaceOf(headers);

	// Upload progress: serialise the form, then stream it out in slices we can count.
	const body = new Response(form);
	const contentType = body.headers.get('content-type');
	const bytes = new Uint8Array(await body.arrayBuffer());
	let sent = 0;
	const started = Date.now();
	const tty = process.stderr.isTTY;
	const progress = (label) => {
		const line = `${label} ${mb(sent)} / ${mb(bytes.length)}  ${((Date.now() - started) / 1000).toFixed(1)}s`;
		process.stderr.write(tty ? `\r${line}` : '');
	};
	const stream = new ReadableStream({
		pull(controller) {
			if (sent >= bytes.length) {
				controller.close();
				progress('uploaded');
				process.stderr.write(tty ? `\n` : `uploaded ${mb(bytes.length)}\n`);
				return;
			}
			const next = bytes.subarray(sent, sent + 256 * 1024);
			sent += next.length;
			controller.enqueue(next);
			progress('uploading');
		}
	});
	const ticker = setInterval(() => {
		if (sent >= bytes.length && tty) process.stderr.write(`\ringesting… ${((Date.now() - started) / 1000).toFixed(1)}s`);
	}, 250);
	let res;
	try {
		// The path in the query too: the server gates on it before reading the files.
		res = await fetch(`${url}/api/w/${workspace}/scripts/dbt/${command}?path=${encodeURIComponent(values.path)}`, {
			method: 'POST',
			headers: { ...headers, 'content-type': contentType },
			body: stream,
			duplex: 'half'
		});
	} finally {
		clearInterval(ticker);
		if (tty) process.stderr.write('\n');
	}
	if (!res.ok) fail(`${command} failed (${res.status}): ${await errorText(res)}`);
	const a = await res.json();
	const secs = ((Date.now() - started) / 1000).toFixed(1);
	if (sourceOnly) {
		process.stdout.write(`uploaded ${values.path} version ${a.hash} in ${secs}s; deploy job ${a.job_id} parses it: ${url}${a.url}\n`);
		for (const w of a.warnings ?? []) process.stdout.write(`  warning: ${w}\n`);
		if (values['no-wait']) return;
		const pinned = await waitPin(workspace, headers, a.job_id);
		if (pinned.lineage_job_id) await waitLineage(workspace, headers, pinned.lineage_job_id, false);
		return;
	}
	const lines = [
		`${command === 'deploy' ? `deployed ${values.path} version ${a.hash}` : `preview of ${values.path} stored`} in ${secs}s`,
		`  nodes ${a.nodes}, edges ${a.edges}, column edges ${a.column_edges ?? 'none'}, typed nodes ${a.typed_nodes}`,
		`  dropped: ${a.dropped.column_edges_outside_graph} outside the graph, ${a.dropped.column_edges_over_cap} over the cap, ${a.dropped.unnamed_columns} unnamed columns`,
		...a.warnings.map((w) => `  warning: ${w}`),
		`  job ${a.job_id}: ${url}${a.url}`
	];
	const cl = a.column_lineage;
	if (cl?.source === 'engine') lines.push('  column lineage: the engine index');
	else if (cl?.source === null) lines.push('  column lineage: none');
	if (a.lineage_job_id) lines.push(`  column lineage: ${cl.models.pending} models to infer in lineage job ${a.lineage_job_id}`);
	// A markdown summary is all a preview prints to stdout (it becomes a PR comment).
	const quiet = command === 'preview' && format === 'markdown';
	if (!quiet) process.stdout.write(`${lines.join('\n')}\n`);
	// The diff classifies column changes by their lineage: wait for the inferred edges first.
	if (a.pin && !values['no-wait']) await waitPin(workspace, headers, a.pin.job_id);
	else if (a.pin) process.stdout.write(`  pinning in deploy job ${a.pin.job_id} (${a.pin.mode})\n`);
	if (a.lineage_job_id && !values['no-wait']) await waitLineage(workspace, headers, a.lineage_job_id, quiet);
	if (command === 'preview') await previewDiff(headers, workspace, a);
}

/**
 * Follows the deploy job pinning a version: its log as it grows (provisioning an engine the first
 * time takes a while), then the lock; exits 1 when the pin fails (a pending version is then gone).
 */
async function waitPin(workspace, headers, id) {
	let offset = 0;
	let toldRedacted = false;
	for (;;) {
		const res = await fetch(`${url}/api/w/${workspace}/jobs/get/${id}?log_offset=${offset}`, { headers });
		if (res.status === 403) {
			process.stderr.write(`tributary: warning: this token cannot read jobs (it needs jobs:read), so the command cannot follow deploy job ${id}; the version goes live when it is pinned\n`);
			return {};
		}
		if (!res.ok) fail(`deploy job ${id}: ${res.status} ${await errorText(res)}`);
		const j = await res.json();
		if (j.redacted && !toldRedacted) {
			toldRedacted = true;
			process.stderr.write(`tributary: note: this token may deploy but not read the project (it needs scripts:read), so deploy job ${id}'s log is not shown; its outcome is\n`);
		}
		if (typeof j.logs === 'string' && j.logs) {
			process.stderr.write(j.logs.split('\n').filter(Boolean).map((l) => `  | ${l}\n`).join(''));
			offset = (j.log_from ?? offset) + j.logs.length;
		}
		if (j.status !== 'queued' && j.status !== 'running') {
			const r = j.result ?? {};
			if (j.status !== 'success') fail(`the deploy job ${id} ended ${j.status}: ${r.error ?? 'see its log'}`);
			const l = r.lock;
			process.stdout.write(
				l
					? `  pinned: ${l.engine} ${l.engine_version}${l.adapter ? ` + ${l.adapter} ${l.adapter_version}` : ''}${l.python_version ? `, Python ${l.python_version}` : ''}${l.package_lock_digest ? `, packages ${l.package_lock_digest.slice(0, 12)}` : ''}; the version is live\n`
					: '  live, not pinned (see the warnings)\n'
			);
			for (const w of r.warnings ?? []) if (/^not pinned/.test(w)) process.stdout.write(`  warning: ${w}\n`);
			return r;
		}
		await sleep(1000);
	}
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls the lineage job until it ends, showing models done / total; prints its counts. */
async function waitLineage(workspace, headers, id, quiet) {
	const tty = process.stderr.isTTY;
	const started = Date.now();
	let last = '';
	for (;;) {
		const res = await fetch(`${url}/api/w/${workspace}/jobs/get/${id}?logs=false`, { headers });
		if (!res.ok) fail(`lineage job ${id}: ${res.status} ${await errorText(res)}`);
		const j = await res.json();
		const p = j.result?.progress;
		const line = `inferring column lineage: ${j.status}${p ? ` ${p.done} / ${p.total} models${p.storing ? ', storing the edges' : ''}` : ''}  ${((Date.now() - started) / 1000).toFixed(1)}s`;
		if (tty) process.stderr.write(`\r${line}`);
		else if (line.replace(/\s+[\d.]+s$/, '') !== last) process.stderr.write(`${line}\n`);
		last = line.replace(/\s+[\d.]+s$/, '');
		if (j.status !== 'queued' && j.status !== 'running') {
			if (tty) process.stderr.write('\n');
			const r = j.result ?? {};
			if (j.status !== 'success') {
				// The deploy itself succeeded: its graph stands, only the inferred lineage is missing.
				process.stderr.write(`tributary: warning: lineage job ${id} ended ${j.status}: ${r.error ?? 'see its log'}; the graph is stored without inferred column lineage\n`);
				return;
			}
			const m = r.models ?? {};
			(quiet ? process.stderr : process.stdout).write(
				`  column lineage inferred: ${m.analyzed} analyzed, ${m.partial} partial, ${m.failed} failed, ${m.skipped} skipped; ` +
					`${r.column_edges} column edges, ${r.cache_hits} models from the cache, ${r.seconds}s\n`
			);
			return;
		}
		await sleep(1000);
	}
}

/** The preview's lineage diff against --from, printed; exit 1 when --fail-on says so. */
async function previewDiff(headers, workspace, preview) {
	const from = values.from ?? 'latest';
	const q = new URLSearchParams({ path: values.path, from, to: preview.job_id });
	const res = await fetch(`${url}/api/w/${workspace}/dbt/diff?${q}`, { headers });
	const page = `${url}${preview.url}`;
	if (res.status === 404 && from === 'latest') {
		process.stdout.write(format === 'markdown' ? `No deployed version of \`${values.path}\` to compare with yet. [Preview](${page})\n` : 'diff: no deployed version of this path to compare with yet\n');
		return;
	}
	// Without a gate to apply, a diff the token may not read is a note, not a failed preview.
	if (res.status === 403 && failOn === 'never') {
		process.stdout.write(`diff: not shown: ${await errorText(res)}\n`);
		return;
	}
	if (!res.ok) fail(`diff failed (${res.status}): ${await errorText(res)}`);
	const d = await res.json();
	process.stdout.write(format === 'markdown' ? diffMarkdown(d, from, page) : diffText(d, from));
	if (failOn !== 'never' && d.classification && LEVELS.indexOf(d.classification) >= LEVELS.indexOf(failOn)) {
		process.stderr.write(`tributary: the preview has a ${d.classification.replace('_', '-')} change (--fail-on ${failOn})\n`);
		process.exitCode = 1;
	}
}

const SHAPE_ONLY = 'shape only: columns and reasons are left out (the token needs scripts:read on this path)';
const label = (c) => (c ?? 'no change').replace('_', '-');
const readers = (impact) => {
	if (impact === null) return 'unknown (no column lineage)';
	if (impact.length === 0) return 'nothing';
	const via = [...new Set(impact.flatMap((i) => i.via))];
	return `${impact.length} column${impact.length === 1 ? '' : 's'}${via.length ? ` and ${via.map((v) => `producer ${v}`).join(', ')}` : ''}`;
};

function diffText(d, from) {
	const out = [`diff against ${from}${d.from.hash ? ` (version ${d.from.hash})` : ''}: ${label(d.classification)}`];
	const m = d.models;
	out.push(`  models: ${m.added.length} added, ${m.removed.length} removed, ${m.modified.length} modified${m.renamed.length ? `, ${m.renamed.length} renamed` : ''}`);
	for (const id of m.added) out.push(`    + ${id}`);
	for (const id of m.removed) out.push(`    - ${id}`);
	for (const r of m.renamed) out.push(`    ${r.from} -> ${r.to} (renamed?)`);
	for (const x of m.modified) out.push(`    ~ ${x.unique_id} [${x.changes.join(', ')}] ${label(x.classification)}${x.reason ? `: ${x.reason}` : ''}`);
	if (!d.authored) out.push(`  ${SHAPE_ONLY}`);
	if (d.columns) {
		const c = d.columns;
		out.push(`  columns: ${c.added.length} added, ${c.removed.length} removed, ${c.retyped.length} retyped`);
		for (const x of c.removed) out.push(`    - ${x.asset_path}.${x.column}: read by ${readers(x.impact)}`);
		for (const x of c.retyped) out.push(`    ~ ${x.asset_path}.${x.column} ${x.from_type} -> ${x.to_type}: read by ${readers(x.impact)}`);
	}
	out.push(`  ref() edges: +${d.ref_edges.added.length} -${d.ref_edges.removed.length}`);
	if (d.column_edges) out.push(`  column edges: +${d.column_edges.added} -${d.column_edges.removed}`);
	return `${out.join('\n')}\n`;
}

const cell = (s) => String(s ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (s) => `\`${cell(s)}\``;

function diffMarkdown(d, from, page) {
	const m = d.models;
	const icon = { breaking: '🔴', partial: '🟠', unknown: '⚪', non_breaking: '🟢' }[d.classification] ?? '✅';
	const out = [
		`### ${icon} Lineage diff of \`${values.path}\`: ${label(d.classification)}`,
		'',
		`Against ${from === 'latest' ? 'the newest deployed version' : code(from)}${d.from.hash ? ` (${code(d.from.hash)})` : ''}: ${m.added.length} added, ${m.removed.length} removed, ${m.modified.length} modified. [Open the preview](${page})`,
		''
	];
	if (m.modified.length || m.added.length || m.removed.length) {
		out.push('| model | change | classification | why |', '|---|---|---|---|');
		for (const id of m.added) out.push(`| ${code(id)} | added | | |`);
		for (const id of m.removed) out.push(`| ${code(id)} | removed | | |`);
		for (const x of m.modified) out.push(`| ${code(x.unique_id)} | ${x.changes.join(', ')} | ${label(x.classification)} | ${cell(x.reason)} |`);
		out.push('');
	}
	const c = d.columns;
	if (c && (c.removed.length || c.retyped.length)) {
		out.push('| column | change | read downstream by |', '|---|---|---|');
		for (const x of c.removed) out.push(`| ${code(`${x.asset_path}.${x.column}`)} | removed | ${readers(x.impact)} |`);
		for (const x of c.retyped) out.push(`| ${code(`${x.asset_path}.${x.column}`)} | ${cell(x.from_type)} → ${cell(x.to_type)} | ${readers(x.impact)} |`);
		out.push('');
	}
	if (!d.authored) out.push(`_${SHAPE_ONLY}_`, '');
	const edges = [`ref() edges +${d.ref_edges.added.length} −${d.ref_edges.removed.length}`];
	if (d.column_edges) edges.push(`column edges +${d.column_edges.added} −${d.column_edges.removed}`);
	if (c) edges.push(`columns +${c.added.length}`);
	out.push(edges.join(' · '));
	return `${out.join('\n')}\n`;
}

/** --workspace, $TRIBUTARY_WORKSPACE, or the token's only workspace. */
async function workspaceOf(headers) {
	const named = values.workspace ?? process.env.TRIBUTARY_WORKSPACE;
	if (named) return named;
	const who = await fetch(`${url}/api/whoami`, { headers });
	if (!who.ok) fail(`${url}/api/whoami: ${who.status} ${await errorText(who)}`);
	const ws = (await who.json()).workspaces ?? [];
	if (ws.length !== 1) fail(`this token reaches ${ws.length} workspaces: pass --workspace`, 2);
	return ws[0].id;
}

async function deploySql(file) {
	if (!existsSync(file)) fail(`${file}: no such file`);
	const content = readFileSync(file, 'utf8');
	const headers = { authorization: `Bearer ${token}` };
	const workspace = await workspaceOf(headers);
	const res = await fetch(`${url}/api/w/${workspace}/scripts/sql/deploy`, {
		method: 'POST',
		headers: { ...headers, 'content-type': 'application/json' },
		body: JSON.stringify({ path: values.path, content })
	});
	if (!res.ok) fail(`deploy-sql failed (${res.status}): ${await errorText(res)}`);
	const a = await res.json();
	const list = (xs) => (xs.length ? xs.join(', ') : 'nothing');
	const lines = [
		`deployed ${values.path} version ${a.hash}`,
		`  target: ${a.target ?? 'none'}`,
		`  writes: ${list(a.writes)}`,
		`  reads: ${list(a.reads)}`,
		`  columns: ${a.columns_annotated} annotated, ${a.columns_inferred} inferred, ${a.lineage_edges} lineage edges`,
		...a.columns.map((c) => `    ${c.column} <- ${c.inputs.map((i) => i.column).join(', ') || '(no input column)'} [${c.source}]`),
		...a.warnings.map((w) => `  warning: ${w}`),
		`  job ${a.job_id}: ${url}${a.url}`
	];
	process.stdout.write(`${lines.join('\n')}\n`);
}

async function errorText(res) {
	const text = await res.text();
	try {
		return JSON.parse(text).error ?? text;
	} catch {
		return text.slice(0, 500);
	}
}

main()
	.then(() => process.exit(process.exitCode ?? 0))
	.catch((e) => fail(e.message));
