import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vitest/config';
import { quietFrameworkNotices } from './scripts/quiet-build.js';

// `vite build` (npm run build, npm start): no framework notices that do not apply here.
if (process.argv.includes('build')) quietFrameworkNotices();

export default defineConfig({
	plugins: [sveltekit()],
	// Rolldown's report of slow plugin callbacks is noise for someone running `npm start`.
	build: { rolldownOptions: { checks: { bundlerTimings: false } } },
	test: {
		include: ['src/**/*.test.ts', 'tests/**/*.test.ts', 'bench/**/*.test.ts'],
		globalSetup: ['tests/support/global-setup.ts'],
		// PGlite instances cost ~0.5 GB and seconds of CPU each; two workers keep a 2-core
		// machine responsive without serialising the whole suite.
		maxWorkers: 2,
		testTimeout: 30_000,
		// expect.poll waits for a browser or a worker to get somewhere; on a loaded 2-core
		// machine 1 s (vitest's default) is not enough, and a wait that never ends still fails.
		expect: { poll: { timeout: 20_000, interval: 100 } },
		hookTimeout: 120_000,
		reporters: process.env.CI ? ['default', ['json', { outputFile: 'test-results/vitest.json' }]] : ['default']
	}
});
