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
                 [--project DIR | --no-project] [--no-wait]
       tributary deploy-sql <file.sql> --path <u/user/name|f/folder/name>
                 [--url URL] [--token TOKEN] [--workspace WS]

  Finds manifest.json, catalog.json, run_results.json and the column-lineage index
  (index/*.parquet or info_schema/v1/*.parquet) in <target-dir> and uploads them. Without an
  index, the server infers column lineage from the manifest's compiled SQL in a lineage job;
  the command waits for it and prints its counts (--no-wait: print the job and return). The project files (the directory
  holding dbt_project.yml, default: the parent of <target-dir>) are uploaded as a tar.gz without
  target/, logs/ and .env* so the server can run the version.
  --url and --token default to $TRIBUTARY_URL and $TRIBUTARY_TOKEN; --workspace to
  $TRIBUTARY_WORKSPACE, else the token's only workspace.
  deploy-sql stores a producer script (DuckDB SQL) and prints what it reads and writes, its
  column lineage (annotated and inferred) and the warnings.`;

function fail(msg, code = 1) {
	process.stderr.write(`tributary: ${msg}\n`);
	process.exit(code);
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
		help: { type: 'boolean', short: 'h' }
	}
});

if (values.help) {
	process.stdout.write(`${USAGE}\n`);
	process.exit(0);
}
const [command, targetArg] = positionals;
if (!['deploy', 'preview', 'deploy-sql'].includes(command ?? '') || !targetArg) fail(`${USAGE}`, 2);
const url = (values.url ?? process.env.TRIBUTARY_URL ?? '').replace(/\/$/, '');
const token = values.token ?? process.env.TRIBUTARY_TOKEN;
if (!url) fail('no server: pass --url or set TRIBUTARY_URL', 2);
if (!token) fail('no token: pass --token or set TRIBUTARY_TOKEN (mint one in Settings → Tokens)', 2);
if (!values.path) fail('--path is required (u/<user>/<name> or f/<folder>/<name>)', 2);
if (command === 'deploy-sql') {
	await deploySql(targetArg).catch((e) => fail(e.message));
	process.exit(0);
}

const target = path.resolve(targetArg);
if (!existsSync(path.join(target, 'manifest.json'))) fail(`${target}: no manifest.json here (is this a dbt target/ directory?)`);

function firstExisting(...candidates) {
	return candidates.map((c) => path.join(target, c)).find((p) => existsSync(p));
}

const files = {
	manifest: path.join(target, 'manifest.json'),
	catalog: firstExisting('catalog.json'),
	run_results: firstExisting('run_results.json'),
	column_lineage: firstExisting(
		'index/dbt.column_lineage.parquet',
		'private/index/dbt.column_lineage.parquet',
		'info_schema/v1/dbt.column_lineage.parquet'
	),
	node_columns: firstExisting(
		'index/dbt.node_columns.parquet',
		'private/index/dbt.node_columns.parquet',
		'info_schema/v1/dbt.node_columns.parquet'
	)
};

async function projectArchive() {
	if (values['no-project']) return null;
	const dir = path.resolve(values.project ?? path.dirname(target));
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
	let total = 0;
	for (const [field, file] of Object.entries(files)) {
		if (!file) continue;
		const bytes = readFileSync(file);
		total += bytes.length;
		form.set(field, new Blob([bytes]), path.basename(file));
		process.stderr.write(`  ${field.padEnd(15)} ${path.relative(process.cwd(), file)} (${mb(statSync(file).size)})\n`);
	}
	if (!files.column_lineage) {
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

	let workspace = values.workspace ?? process.env.TRIBUTARY_WORKSPACE;
	const headers = { authorization: `Bearer ${token}` };
	if (!workspace) {
		const who = await fetch(`${url}/api/whoami`, { headers });
		if (!who.ok) fail(`${url}/api/whoami: ${who.status} ${await errorText(who)}`);
		const ws = (await who.json()).workspaces ?? [];
		if (ws.length !== 1) fail(`this token reaches ${ws.length} workspaces: pass --workspace`, 2);
		workspace = ws[0].id;
	}

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
	process.stdout.write(`${lines.join('\n')}\n`);
	if (a.lineage_job_id && !values['no-wait']) await waitLineage(workspace, headers, a.lineage_job_id);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls the lineage job until it ends, showing models done / total; prints its counts. */
async function waitLineage(workspace, headers, id) {
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
			process.stdout.write(
				`  column lineage inferred: ${m.analyzed} analyzed, ${m.partial} partial, ${m.failed} failed, ${m.skipped} skipped; ` +
					`${r.column_edges} column edges, ${r.cache_hits} models from the cache, ${r.seconds}s\n`
			);
			return;
		}
		await sleep(1000);
	}
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

main().catch((e) => fail(e.message));
