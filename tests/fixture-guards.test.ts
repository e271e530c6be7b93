// `npm test` must pass on a bare clone: a test file that reads the real fixtures, directly or
// through a world built from them, declares it (describeFixtures or needFixtures), so that
// without ../shared it skips with a notice and in CI it fails. `.ci/run`'s bare-clone check
// catches a read at import; this catches one in a hook or a test, without running them.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** Support modules whose worlds deploy real fixture files. */
const FIXTURE_WORLDS = ['lineage-world', 'runner-world', 'sandbox-inputs'];
const READS_FIXTURES = [/\bfixture\(/, /\bFIXTURES\b/, ...FIXTURE_WORLDS.map((m) => new RegExp(`from '[./]*/?(support/)?${m}'`))];
const GUARDED = /\b(describeFixtures|needFixtures)\(/;

function testFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(full);
		return entry.name.endsWith('.test.ts') ? [full] : [];
	});
}

const files = ['src', 'tests', 'bench'].flatMap((dir) => testFiles(dir)).filter((f) => f !== path.join('tests', 'fixture-guards.test.ts'));

describe('test files that read the real fixtures declare it', () => {
	it('finds the test files', () => expect(files.length).toBeGreaterThan(50));
	it.each(files.filter((f) => READS_FIXTURES.some((re) => re.test(readFileSync(f, 'utf8')))))('%s', (file) => {
		expect(GUARDED.test(readFileSync(file, 'utf8')), `${file} reads fixtures without describeFixtures/needFixtures`).toBe(true);
	});
});
