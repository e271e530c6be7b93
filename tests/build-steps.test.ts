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

describe('a build prints no framework notice that does not apply here', () => {
	it('drops kit\'s preview hint and the empty env chunk, and nothing else', async () => {
		const { isFrameworkNoise } = await import('../scripts/quiet-build.js');
		expect(isFrameworkNoise(['\nRun \x1b[1m\x1b[36mnpm run preview\x1b[39m\x1b[22m to preview your production build locally.'])).toBe(true);
		expect(isFrameworkNoise(['Generated an empty chunk: "chunks/env.js".'])).toBe(true);
		expect(isFrameworkNoise(['Generated an empty chunk: "chunks/routes.js".'])).toBe(false);
		expect(isFrameworkNoise(['✓ built in 3.36s'])).toBe(false);
		expect(isFrameworkNoise(['to preview your production build locally.', 'x'])).toBe(false);
	});
});
