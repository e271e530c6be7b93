// The real dbt artifacts live beside the checkout in ../shared/fixtures. In CI their absence is
// a failure; elsewhere the tests that need them skip with a printed notice.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe } from 'vitest';

export const FIXTURES = path.resolve(process.env.TRIBUTARY_FIXTURES ?? path.join(process.cwd(), '..', 'shared', 'fixtures'));

export function fixture(...parts: string[]): string {
	return path.join(FIXTURES, ...parts);
}

export const haveFixtures = existsSync(FIXTURES);

/** `describe` over the real fixtures: throws in CI when they are missing, skips loudly elsewhere. */
export function describeFixtures(name: string, fn: () => void): void {
	if (haveFixtures) {
		describe(name, fn);
		return;
	}
	if (process.env.CI) throw new Error(`fixtures folder missing: ${FIXTURES} (needed by "${name}")`);
	process.stderr.write(`[notice] skipping "${name}": no fixtures at ${FIXTURES}\n`);
	describe.skip(name, fn);
}
