import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { afterEach, expect, it } from 'vitest';
import { describeFixtures, fixture } from '../../../../tests/support/fixtures';
import { IngestError } from '../dbt-files/errors';
import { parseManifest } from './manifest';
import { manifestThreadBytes, parseManifestBytes, parseUploadBytes, THREAD_NICE } from './manifest-thread';

const REAL = ['jaffle-shop-1.12-duckdb-docs-generate', 'fivetran-sap-1.10.10-v12', 'jaffle-shop-1.9-bigquery-build'];
const opts = { fileName: 'manifest.json', warehouse: 'main', defaultDatabase: null, selection: {} };

describeFixtures('manifests parsed on a worker thread', () => {
	const saved = process.env.TRIBUTARY_MAX_MANIFEST_NODES;
	afterEach(() => {
		if (saved === undefined) delete process.env.TRIBUTARY_MAX_MANIFEST_NODES;
		else process.env.TRIBUTARY_MAX_MANIFEST_NODES = saved;
	});

	it.each(REAL)('%s: the thread gives the graph the request thread gives', async (name) => {
		const bytes = readFileSync(fixture(name, 'manifest.json'));
		const inline = parseManifest(bytes.toString('utf8'), opts);
		let parsedSignalled = false;
		// threadBytes 0: every manifest goes to the thread.
		const threaded = await parseManifestBytes(new Uint8Array(bytes), { ...opts, onParsed: () => (parsedSignalled = true) }, 0);
		expect(threaded).toEqual(inline);
		expect(threaded.nodes.length).toBeGreaterThan(10);
		expect(parsedSignalled).toBe(true);
	});

	it('bytes lent to the thread are moved there, not copied, and come back the same', async () => {
		const original = new Uint8Array(readFileSync(fixture(REAL[0], 'manifest.json')));
		const lent = original.slice();
		let back: Uint8Array | null = null;
		const reading = parseUploadBytes(lent, opts, {}, 0, (bytes) => (back = bytes));
		// Moved: the caller's view is detached while the thread holds the bytes.
		expect(lent.byteLength).toBe(0);
		const upload = await reading;
		expect(upload.graph).toEqual(parseManifest(Buffer.from(original).toString('utf8'), opts));
		expect(back).not.toBeNull();
		expect(Buffer.compare(back!, original)).toBe(0);
		// A refusal hands the bytes back too.
		const truncated = original.slice(0, 5000);
		let backAfterRefusal: Uint8Array | null = null;
		await expect(parseUploadBytes(truncated, opts, {}, 0, (bytes) => (backAfterRefusal = bytes))).rejects.toBeInstanceOf(IngestError);
		expect(Buffer.compare(backAfterRefusal!, original.subarray(0, 5000))).toBe(0);
	});

	it('bytes that are a view of a bigger buffer, or not lent, are copied and stay put', async () => {
		const whole = new Uint8Array(readFileSync(fixture(REAL[0], 'manifest.json')));
		const padded = new Uint8Array(whole.length + 16);
		padded.set(whole, 8);
		const view = padded.subarray(8, 8 + whole.length);
		let called = false;
		await parseUploadBytes(view, opts, {}, 0, () => (called = true));
		expect(view.byteLength).toBe(whole.length);
		expect(called).toBe(false);
		const kept = whole.slice();
		await parseUploadBytes(kept, opts, {}, 0);
		expect(Buffer.compare(kept, whole)).toBe(0);
	});

	it('a small manifest with a big catalog goes to the thread: their bytes together are counted, both lent and given back', async () => {
		const manifest = new Uint8Array(readFileSync(fixture(REAL[0], 'manifest.json')));
		const catalogBytes = new Uint8Array(readFileSync(fixture(REAL[0], 'catalog.json')));
		const catalog = { name: 'catalog.json', bytes: catalogBytes.slice() };
		let back: { manifest: Uint8Array; catalog?: Uint8Array } | null = null;
		// The manifest alone is under the threshold; with its catalog it is not.
		const reading = parseUploadBytes(manifest.slice(), opts, { catalog }, manifest.length + 1, (m, c) => (back = { manifest: m, catalog: c }));
		expect(catalog.bytes.byteLength).toBe(0);
		const upload = await reading;
		expect(back).not.toBeNull();
		expect(Buffer.compare(back!.catalog!, catalogBytes)).toBe(0);
		expect(Buffer.compare(back!.manifest, manifest)).toBe(0);
		expect(upload.catalogColumns!.size).toBeGreaterThan(10);
	});

	it('only the columns of the graph\'s own nodes come back from the catalog', async () => {
		const manifest = new Uint8Array(readFileSync(fixture(REAL[0], 'manifest.json')));
		const catalog = JSON.parse(readFileSync(fixture(REAL[0], 'catalog.json'), 'utf8'));
		catalog.nodes['model.elsewhere.not_in_the_manifest'] = { metadata: {}, columns: { a: { name: 'a', type: 'INTEGER', index: 1 } } };
		const bytes = new TextEncoder().encode(JSON.stringify(catalog));
		for (const threadBytes of [Number.MAX_SAFE_INTEGER, 0]) {
			const upload = await parseUploadBytes(manifest.slice(), opts, { catalog: { name: 'catalog.json', bytes } }, threadBytes);
			const ids = new Set(upload.graph.nodes.map((n) => n.uniqueId));
			expect([...upload.catalogColumns!.keys()].every((id) => ids.has(id))).toBe(true);
			expect(upload.catalogColumns!.has('model.elsewhere.not_in_the_manifest')).toBe(false);
			expect(upload.catalogColumns!.size).toBeGreaterThan(10);
		}
	});

	it.runIf(process.platform === 'linux')('the thread parses at a lower priority, and the process keeps its own', async () => {
		const before = getPriority();
		const threads = () => readdirSync('/proc/self/task');
		const known = new Set(threads());
		let niced: number[] = [];
		const bytes = new Uint8Array(readFileSync(fixture('fivetran-sap-1.10.10-v12', 'manifest.json')));
		const parsing = parseManifestBytes(bytes, opts, 0);
		// While it parses, the new threads of this process: the parse thread among them runs niced.
		for (let i = 0; i < 200 && niced.length === 0; i++) {
			await new Promise((r) => setTimeout(r, 5));
			niced = threads()
				.filter((t) => !known.has(t))
				.map((t) => {
					try {
						const stat = readFileSync(`/proc/self/task/${t}/stat`, 'utf8');
						return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
					} catch {
						return NaN;
					}
				})
				.filter((nice) => nice === Math.max(before, THREAD_NICE));
		}
		await parsing;
		expect(niced.length).toBeGreaterThan(0);
		expect(getPriority()).toBe(before);
	});

	const refusals = [
		{ name: 'not UTF-8', bytes: () => new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), status: 400, message: /^manifest\.json: is not UTF-8 text/ },
		{ name: 'truncated JSON', bytes: () => new Uint8Array(readFileSync(fixture(REAL[0], 'manifest.json')).subarray(0, 5000)), status: 400, message: /^manifest\.json: / },
		{
			name: 'over the node limit (read from the environment by the thread)',
			bytes: () => new Uint8Array(readFileSync(fixture(REAL[0], 'manifest.json'))),
			env: '10',
			status: 413,
			message: /TRIBUTARY_MAX_MANIFEST_NODES/
		}
	];
	it.each(refusals)('refuses $name with the same IngestError inline and on the thread', async ({ bytes, env, status, message }) => {
		if (env) process.env.TRIBUTARY_MAX_MANIFEST_NODES = env;
		for (const threadBytes of [Number.MAX_SAFE_INTEGER, 0]) {
			const error = await parseManifestBytes(bytes(), opts, threadBytes).then(
				() => null,
				(e: unknown) => e
			);
			expect(error).toBeInstanceOf(IngestError);
			expect((error as IngestError).status).toBe(status);
			expect((error as IngestError).message).toMatch(message);
		}
	});
});

it.each([
	{ env: undefined, mb: 8 },
	{ env: '', mb: 8 },
	{ env: '0', mb: 0 },
	{ env: '32', mb: 32 },
	{ env: 'lots', mb: 8 }
])('TRIBUTARY_MANIFEST_THREAD_MB=$env sends manifests of $mb MB and more to the thread', ({ env, mb }) => {
	expect(manifestThreadBytes({ TRIBUTARY_MANIFEST_THREAD_MB: env })).toBe(mb * 1024 * 1024);
});
