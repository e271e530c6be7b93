// The real dbt artifacts live beside the checkout in ../shared/fixtures. In CI their absence is
// a failure; elsewhere the tests that need them skip with a printed notice.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'vitest';

export const FIXTURES = path.resolve(process.env.TRIBUTARY_FIXTURES ?? path.join(process.cwd(), '..', 'shared', 'fixtures'));

export function fixture(...parts: string[]): string {
	return path.join(FIXTURES, ...parts);
}

const haveFixtures = existsSync(FIXTURES);

/**
 * Whether the fixtures are here for the suite `name`: throws in CI when they are missing, prints
 * the skip notice elsewhere. For `describe.skipIf(!needFixtures(name))` over a suite that reads
 * them only in its hooks and tests (a skipped suite's body still runs to collect its tests).
 */
export function needFixtures(name: string): boolean {
	if (haveFixtures) return true;
	if (process.env.CI) throw new Error(`fixtures folder missing: ${FIXTURES} (needed by "${name}")`);
	process.stderr.write(`[notice] skipping "${name}": no fixtures at ${FIXTURES}\n`);
	return false;
}

/**
 * `describe` over the real fixtures, skipped as needFixtures says. Without them `fn` is never
 * called, so its body may read fixtures while collecting (one test per fixture file, say).
 */
export function describeFixtures(name: string, fn: () => void): void {
	if (needFixtures(name)) describe(name, fn);
	else describe.skip(name, () => it.skip(`needs the real dbt artifacts in ${FIXTURES}`, () => {}));
}
