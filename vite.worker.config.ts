// The second build of `npm run build`: the standalone job worker (`npm run worker`) as one file,
// build/worker.js, next to the app adapter-node writes. Production dependencies stay external
// (they are in node_modules after `npm ci --omit=dev`); everything else is bundled.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { defineConfig } from 'vite';

const pkg = JSON.parse(readFileSync(path.resolve('package.json'), 'utf8')) as { dependencies?: Record<string, string> };
const external = Object.keys(pkg.dependencies ?? {});

export default defineConfig({
	resolve: { alias: { $lib: path.resolve('src/lib') } },
	ssr: { noExternal: true, external },
	build: {
		ssr: 'src/lib/server/runner/worker-main.ts',
		outDir: 'build',
		emptyOutDir: false,
		target: 'node20',
		minify: false,
		rollupOptions: {
			external: (id) => external.some((d) => id === d || id.startsWith(`${d}/`)) || id.startsWith('node:'),
			output: { entryFileNames: 'worker.js', format: 'es' }
		}
	}
});
