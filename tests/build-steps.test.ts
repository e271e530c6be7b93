import { describe, expect, it } from 'vitest';
import { buildSteps } from '../scripts/build-steps.js';

describe('npm start builds what npm run build builds', () => {
	it('reads every vite build of package.json, the manifest-parse thread entry included', () => {
		const steps: string[][] = buildSteps();
		expect(steps).toContainEqual([]);
		expect(steps).toContainEqual(['--config', 'vite.worker.config.ts']);
		expect(steps).toContainEqual(['--config', 'vite.worker.config.ts', '--mode', 'manifest-thread']);
	});

	it('refuses a build script it could not run quietly', () => {
		expect(() => buildSteps({ scripts: { build: 'vite build && tsc -p .' } })).toThrow(/expected only `vite build …` commands, found `tsc -p \.`/);
	});
});
