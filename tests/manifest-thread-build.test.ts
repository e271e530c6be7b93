// The build's manifest-parse thread entry (build/manifest-thread.js, vite.worker.config.ts): that
// the built app finds it from where its chunks and the worker live, that it bundles the parser and
// nothing of the server (a thread loading the server chunk took longer than the parse), and that it
// parses a real manifest exactly as the request thread does.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseManifest } from '../src/lib/server/ingest/manifest';
import { findBuiltThreadEntry, parseManifestOffThread } from '../src/lib/server/ingest/manifest-thread';
import { describeFixtures, fixture } from './support/fixtures';

const BUILD = path.resolve('build');
const ENTRY = path.join(BUILD, 'manifest-thread.js');

describe('the build', () => {
	it('has the thread entry (npm run build writes it; npm test builds first)', () => {
		expect(existsSync(ENTRY)).toBe(true);
	});

	it('imports only Node built-ins from the thread entry: no database driver, no SvelteKit', () => {
		const imports = [...readFileSync(ENTRY, 'utf8').matchAll(/^import\s[^;]*?from\s+"([^"]+)"|^import\s+"([^"]+)"/gm)].map((m) => m[1] ?? m[2]);
		expect(imports.length).toBeGreaterThan(0);
		expect(imports.filter((i) => !i.startsWith('node:'))).toEqual([]);
	});

	const chunkDir = path.join(BUILD, 'server', 'chunks', 'chunks');
	const chunk = existsSync(chunkDir) ? readdirSync(chunkDir).find((f) => f.endsWith('.js')) : undefined;
	const from = [
		{ name: 'the job worker (build/worker.js)', file: path.join(BUILD, 'worker.js') },
		{ name: "one of the web app's chunks", file: chunk ? path.join(chunkDir, chunk) : path.join(BUILD, 'server', 'missing.js') },
		{ name: "the app's entry (build/index.js)", file: path.join(BUILD, 'index.js') }
	];
	it.each(from)('is found from $name', ({ file }) => {
		expect(existsSync(file)).toBe(true);
		expect(findBuiltThreadEntry(pathToFileURL(file))?.pathname).toBe(pathToFileURL(ENTRY).pathname);
	});

	it('is not found from outside a build', () => {
		expect(findBuiltThreadEntry(pathToFileURL('/tmp/somewhere/else.js'))).toBeNull();
	});
});

describeFixtures('the built thread entry parses', () => {
	it.each(['jaffle-shop-1.12-duckdb-docs-generate', 'fivetran-sap-1.10.10-v12'])('%s as the request thread does', async (name) => {
		const bytes = readFileSync(fixture(name, 'manifest.json'));
		const opts = { fileName: 'manifest.json', warehouse: 'main', defaultDatabase: null, selection: {} };
		const threaded = await parseManifestOffThread(new Uint8Array(bytes), opts, {}, pathToFileURL(ENTRY));
		expect(threaded.graph).toEqual(parseManifest(bytes.toString('utf8'), opts));
		expect(threaded.graph.nodes.length).toBeGreaterThan(10);
	});
});
