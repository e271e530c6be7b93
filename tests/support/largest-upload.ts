// The largest upload Tributary accepts, made from a real project's artifacts: a catalog.json at
// every catalog limit at once (relations, the widest relation, columns in all, and its bytes up to
// the byte limit), and a manifest.json at the node limit and close to the byte limit. The
// latency-under-abuse test and the upload benchmark send these while they time other requests.
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { catalogLimits, manifestLimits } from '../../src/lib/server/limits';

type Json = Record<string, any>;

/** Room left under a byte limit for the multipart framing and rounding. */
const BYTES_MARGIN = 256 * 1024;

/**
 * A catalog of `limits.relations` relations holding `limits.columns` columns, the first of
 * `base`'s relations `limits.relationColumns` wide (it is a node of the manifest, so its columns
 * are stored); the others are `base`'s remaining relations and made-up ones. Each column carries
 * a comment long enough to bring the file to just under `limits.bytes`.
 */
export function largestCatalog(base: Json, limits = catalogLimits()): Uint8Array {
	const real = [...Object.keys(base.nodes), ...Object.keys(base.sources ?? {})];
	const ids = Array.from({ length: limits.relations }, (_, i) => (i < real.length ? real[i] : `model.padding.relation_${i}`));
	const rest = limits.columns - limits.relationColumns;
	const others = limits.relations - 1;
	const width = (i: number) => (i === 0 ? limits.relationColumns : Math.floor(rest / others) + (i - 1 < rest % others ? 1 : 0));
	const build = (comment: string) => {
		const parts: string[] = ['{"metadata":{"dbt_schema_version":"https://schemas.getdbt.com/dbt/catalog/v1.json","dbt_version":"1.10.0"},"nodes":{'];
		for (let i = 0; i < ids.length; i++) {
			const id = ids[i];
			const name = id.slice(id.lastIndexOf('.') + 1);
			parts.push(`${i ? ',' : ''}${JSON.stringify(id)}:{"metadata":{"type":"BASE TABLE","schema":"main","name":${JSON.stringify(name)},"database":"db"},"columns":{`);
			const n = width(i);
			for (let j = 1; j <= n; j++) parts.push(`${j > 1 ? ',' : ''}"c${j}":{"type":"INTEGER","index":${j},"name":"c${j}","comment":${comment}}`);
			parts.push(`},"stats":{},"unique_id":${JSON.stringify(id)}}`);
		}
		parts.push('},"sources":{},"errors":null}');
		return parts.join('');
	};
	const bare = build('null').length;
	const spare = limits.bytes - BYTES_MARGIN - bare;
	// "x…x" in place of null: each column grows by the comment's length - 2.
	const pad = Math.floor(spare / limits.columns) + 2;
	const text = pad > 2 ? build(JSON.stringify('x'.repeat(pad - 2))) : build('null');
	return new TextEncoder().encode(text);
}

/**
 * `base` grown to `limits.nodes` nodes (copies of its first model, reading what it reads) and
 * padded with an extra top-level key to just under `limits.bytes`.
 */
export function largestManifest(base: Json, limits = manifestLimits()): Uint8Array {
	const m = structuredClone(base);
	const count = Object.keys(m.nodes).length + Object.keys(m.sources ?? {}).length + Object.keys(m.unit_tests ?? {}).length;
	const template = Object.values(m.nodes as Record<string, Json>).find((n) => n.resource_type === 'model')!;
	for (let i = 0; count + i < limits.nodes; i++) {
		const name = `copy_${i}`;
		const id = `model.${template.package_name}.${name}`;
		m.nodes[id] = {
			...template,
			unique_id: id,
			name,
			alias: name,
			fqn: [template.package_name, name],
			path: `${name}.sql`,
			original_file_path: `models/${name}.sql`,
			relation_name: template.relation_name ? String(template.relation_name).replace(/"?[^".]+"?$/, `"${name}"`) : template.relation_name
		};
	}
	const text = JSON.stringify(m);
	const spare = limits.bytes - BYTES_MARGIN - text.length - 20;
	const padded = spare > 0 ? `${text.slice(0, -1)},"x_padding":${JSON.stringify('x'.repeat(spare))}}` : text;
	return new TextEncoder().encode(padded);
}

/** Response times of the two unrelated reads, each pair sent side by side. */
export interface ReadTimes {
	login: number[];
	graph: number[];
	/** Any answer other than 200, as `status path`. */
	failures: string[];
	/** Pairs answered before `until` settled. */
	answeredInFlight: number;
}

async function timed(url: string, headers: Record<string, string>): Promise<{ ms: number; status: number }> {
	const t0 = performance.now();
	const r = await fetch(url, { headers: { connection: 'close', ...headers } });
	await r.arrayBuffer();
	return { ms: performance.now() - t0, status: r.status };
}

/**
 * `GET /login` and `GET <graphPath>` (signed in with `cookie`) side by side, pair after pair with
 * `gapMs` between, until `until` settles (at least `minPairs`), or for `pairs` pairs.
 */
export async function timeReads(
	base: string,
	cookie: string,
	graphPath: string,
	opts: { until?: Promise<unknown>; pairs?: number; minPairs?: number; gapMs?: number }
): Promise<ReadTimes> {
	const out: ReadTimes = { login: [], graph: [], failures: [], answeredInFlight: 0 };
	let settled = false;
	opts.until?.then(
		() => (settled = true),
		() => (settled = true)
	);
	const gap = opts.gapMs ?? 25;
	for (let i = 0; ; i++) {
		if (opts.pairs !== undefined && i >= opts.pairs) break;
		if (opts.until && settled && i >= (opts.minPairs ?? 0)) break;
		const [login, graph] = await Promise.all([timed(`${base}/login`, {}), timed(`${base}${graphPath}`, { cookie })]);
		if (opts.until && !settled) out.answeredInFlight++;
		out.login.push(login.ms);
		out.graph.push(graph.ms);
		if (login.status !== 200) out.failures.push(`${login.status} /login`);
		if (graph.status !== 200) out.failures.push(`${graph.status} ${graphPath}`);
		await new Promise((r) => setTimeout(r, gap));
	}
	return out;
}

/** p-th percentile (0..100) by nearest rank. */
export function percentileOf(xs: number[], p: number): number {
	if (xs.length === 0) return NaN;
	const s = [...xs].sort((a, b) => a - b);
	return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

/** The uploading client of postUploadFromChild: one fetch of a multipart form whose files stream from disk. */
const UPLOAD_CHILD = `
const { openAsBlob } = require('node:fs');
const { url, cookie, fields, files } = JSON.parse(process.argv[1]);
(async () => {
	const form = new FormData();
	for (const [k, v] of Object.entries(fields)) form.set(k, v);
	for (const [k, [file, name]] of Object.entries(files)) form.set(k, await openAsBlob(file), name);
	const t0 = performance.now();
	const r = await fetch(url, { method: 'POST', headers: { cookie, origin: new URL(url).origin, connection: 'close' }, body: form });
	const text = await r.text();
	process.stdout.write(JSON.stringify({ status: r.status, text, ms: performance.now() - t0 }));
})().catch((e) => { process.stderr.write(String(e && e.stack || e)); process.exit(1); });
`;

/**
 * postUpload from another process, its files read from disk as they are sent: the client's own
 * work (a 128 MB form serialized) then never delays the reads this process times beside it.
 */
export function postUploadFromChild(
	url: string,
	cookie: string,
	fields: Record<string, string>,
	files: Record<string, [path: string, name: string]>
): Promise<{ status: number; body: any; ms: number }> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, ['-e', UPLOAD_CHILD, JSON.stringify({ url, cookie, fields, files })], { stdio: ['ignore', 'pipe', 'pipe'] });
		let out = '';
		let err = '';
		child.stdout.on('data', (d) => (out += d));
		child.stderr.on('data', (d) => (err += d));
		child.on('error', reject);
		child.on('exit', (code) => {
			if (code !== 0) return reject(new Error(`the uploading client exited ${code}: ${err.slice(-2000)}`));
			const r = JSON.parse(out) as { status: number; text: string; ms: number };
			let body: unknown = r.text;
			try {
				body = JSON.parse(r.text);
			} catch {
				/* not JSON */
			}
			resolve({ status: r.status, body, ms: r.ms });
		});
	});
}

/** A multipart upload of `files` (field → [bytes, file name]) beside text `fields`, its status and body. */
export async function postUpload(
	url: string,
	cookie: string,
	fields: Record<string, string>,
	files: Record<string, [Uint8Array, string]>
): Promise<{ status: number; body: any; ms: number }> {
	const form = new FormData();
	for (const [k, v] of Object.entries(fields)) form.set(k, v);
	for (const [k, [bytes, name]] of Object.entries(files)) form.set(k, new Blob([bytes as Uint8Array<ArrayBuffer>]), name);
	const t0 = performance.now();
	const r = await fetch(url, { method: 'POST', headers: { cookie, origin: new URL(url).origin, connection: 'close' }, body: form });
	const text = await r.text();
	let body: unknown = text;
	try {
		body = JSON.parse(text);
	} catch {
		/* not JSON */
	}
	return { status: r.status, body, ms: performance.now() - t0 };
}

/**
 * Streams a multipart upload whose file `field` is `totalBytes` long (chunked, no
 * Content-Length), writing only as fast as the server reads, and stops writing once it answers:
 * its status and body, and how much of the file had been written by then.
 */
export function streamOversized(
	url: string,
	cookie: string,
	path: string,
	field: string,
	filename: string,
	totalBytes: number
): Promise<{ status: number; body: string; sentBytes: number; ms: number }> {
	const boundary = 'tributary-oversized';
	const t0 = performance.now();
	return new Promise((resolve, reject) => {
		let sent = 0;
		let answered = false;
		const req = request(
			url,
			{
				method: 'POST',
				headers: { cookie, origin: new URL(url).origin, connection: 'close', 'content-type': `multipart/form-data; boundary=${boundary}`, 'transfer-encoding': 'chunked' }
			},
			(res) => {
				answered = true;
				const at = sent;
				let body = '';
				res.on('data', (d) => (body += d));
				res.on('end', () => {
					resolve({ status: res.statusCode ?? 0, body, sentBytes: at, ms: performance.now() - t0 });
					// The upload was never finished: this connection carries nothing more.
					req.destroy();
				});
			}
		);
		req.on('error', (e) => {
			if (!answered) reject(e);
		});
		req.write(`--${boundary}\r\ncontent-disposition: form-data; name="path"\r\n\r\n${path}\r\n--${boundary}\r\ncontent-disposition: form-data; name="${field}"; filename="${filename}"\r\n\r\n`);
		const chunk = Buffer.alloc(1 << 20, 0x20);
		const pump = () => {
			while (!answered && sent < totalBytes) {
				sent += chunk.length;
				if (!req.write(chunk)) return void req.once('drain', pump);
			}
			if (!answered) req.end(`\r\n--${boundary}--\r\n`);
		};
		pump();
	});
}
