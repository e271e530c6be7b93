// The builds of `npm run build` after the app adapter-node writes: the standalone job worker
// (`npm run worker`) as one file, build/worker.js, and (`--mode manifest-thread`, `--mode
// producer-thread`) the manifest-parse and producer-analysis threads' entries,
// build/manifest-thread.js and build/producer-thread.js, kept apart so that a thread loads its
// work and nothing else. Production dependencies stay external
// (they are in node_modules after `npm ci --omit=dev`); everything else is bundled.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { defineConfig } from 'vite';

const pkg = JSON.parse(readFileSync(path.resolve('package.json'), 'utf8')) as { dependencies?: Record<string, string> };
const external = Object.keys(pkg.dependencies ?? {});

const ENTRIES: Record<string, { source: string; file: string }> = {
	worker: { source: 'src/lib/server/worker-main.ts', file: 'worker.js' },
	'manifest-thread': { source: 'src/lib/server/ingest/manifest-thread-main.ts', file: 'manifest-thread.js' },
	'producer-thread': { source: 'src/lib/server/producers/analysis-thread-main.ts', file: 'producer-thread.js' }
};

export default defineConfig(({ mode }) => {
	const entry = ENTRIES[mode] ?? ENTRIES.worker;
	return {
		resolve: { alias: { $lib: path.resolve('src/lib') } },
		ssr: { noExternal: true, external },
		build: {
			ssr: entry.source,
			outDir: 'build',
			emptyOutDir: false,
			target: 'node20',
			minify: false,
			rollupOptions: {
				external: (id) => external.some((d) => id === d || id.startsWith(`${d}/`)) || id.startsWith('node:'),
				output: { entryFileNames: entry.file, format: 'es' },
				// shutdown.ts imports the worker lazily so the web process loads it only when it runs
				// one; in the worker's own bundle it is already loaded, which is what this check reports.
				checks: { ineffectiveDynamicImport: false }
			}
		}
	};
});
