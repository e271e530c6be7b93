// The build's producer-analysis thread entry (build/producer-thread.js, vite.worker.config.ts):
// that the built app finds it from where its chunks and the worker live, that it carries the
// analysis and the SQL parser and nothing of the server, and that it answers as the analysis does
// in-process. The web process itself never loads the parser: only the thread does.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { analyzeProducer, type KnownColumns } from '../src/lib/server/producers/analyze';
import { analyzeProducerOffThread } from '../src/lib/server/producers/analysis-thread';
import { findBuildEntry } from '../src/lib/server/thread-entry';
import { CORPUS, CORPUS_CATALOG, CORPUS_WAREHOUSE } from './support/producer-corpus';

const BUILD = path.resolve('build');
const ENTRY = path.join(BUILD, 'producer-thread.js');

/** The non-relative imports of a built module and of the chunks it imports, followed. */
function packagesImported(file: string, seen = new Set<string>()): string[] {
	// A chunk's text may mention an import that is no module of the build (in a string): not followed.
	if (seen.has(file) || !existsSync(file)) return [];
	seen.add(file);
	const text = readFileSync(file, 'utf8');
	const specs = [...text.matchAll(/(?:^import\s[^;]*?from\s+|^import\s+|import\()\s*["']([^"']+)["']/gm)].map((m) => m[1]);
	return specs.flatMap((s) => (s.startsWith('.') ? packagesImported(path.resolve(path.dirname(file), s), seen) : [s]));
}

describe('the build', () => {
	it('has the producer thread entry (npm run build writes it; npm test builds first)', () => {
		expect(existsSync(ENTRY)).toBe(true);
	});

	it('the entry loads the parser and Node built-ins, no database driver, no SvelteKit', () => {
		const packages = [...new Set(packagesImported(ENTRY))];
		expect(packages).toContain('@polyglot-sql/sdk');
		expect(packages.filter((p) => !p.startsWith('node:') && p !== '@polyglot-sql/sdk')).toEqual([]);
	});

	const chunkDir = path.join(BUILD, 'server', 'chunks', 'chunks');
	const chunk = existsSync(chunkDir) ? readdirSync(chunkDir).find((f) => f.endsWith('.js')) : undefined;
	it.each([
		{ name: 'the job worker (build/worker.js)', file: path.join(BUILD, 'worker.js') },
		{ name: "one of the web app's chunks", file: chunk ? path.join(chunkDir, chunk) : path.join(BUILD, 'server', 'missing.js') }
	])('is found from $name', ({ file }) => {
		expect(existsSync(file)).toBe(true);
		expect(findBuildEntry(pathToFileURL(file), 'producer-thread.js')?.pathname).toBe(pathToFileURL(ENTRY).pathname);
	});

	it('the web app’s deploy code loads the parser only through a dynamic import (which the thread takes)', () => {
		// The chunk the producer deploy is in: it holds the thread's tag.
		const files = readdirSync(path.join(BUILD, 'server'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'));
		const host = files.map((f) => path.join(BUILD, 'server', f)).find((f) => readFileSync(f, 'utf8').includes('tributary-producer-analysis'));
		expect(host).toBeDefined();
		const staticOnly = (file: string, seen = new Set<string>()): string[] => {
			if (seen.has(file)) return [];
			seen.add(file);
			const text = readFileSync(file, 'utf8');
			const specs = [...text.matchAll(/^import\s[^;]*?from\s+["']([^"']+)["']|^import\s+["']([^"']+)["']/gm)].map((m) => m[1] ?? m[2]);
			return specs.flatMap((s) => (s.startsWith('.') ? staticOnly(path.resolve(path.dirname(file), s), seen) : [s]));
		};
		expect(staticOnly(host!)).not.toContain('@polyglot-sql/sdk');
		expect(packagesImported(host!)).toContain('@polyglot-sql/sdk');
	});
});

describe('the built thread entry', () => {
	it('analyses the demo producers and the corpus as the request would in-process', async () => {
		const catalog = (a: { kind: string; path: string }) => CORPUS_CATALOG[`${a.kind}://${a.path}`] ?? null;
		const load = async (assets: { kind: string; path: string }[]) => {
			const out = new Map<string, KnownColumns>();
			for (const a of assets) if (catalog(a)) out.set(`${a.kind}://${a.path}`, catalog(a)!);
			return out;
		};
		for (const c of [CORPUS[0], CORPUS[1], CORPUS[8]]) {
			const r = await analyzeProducerOffThread(c.sql, CORPUS_WAREHOUSE, load, { entry: pathToFileURL(ENTRY) });
			expect(r.analysis).toEqual(analyzeProducer(c.sql, CORPUS_WAREHOUSE, catalog));
			expect(r.analysis.columns.length).toBeGreaterThan(0);
		}
	}, 120_000);
});
