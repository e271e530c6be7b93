// Prints vitest's JSON report as the one line CI recognises: "N passed, N failed".
import { existsSync, readFileSync } from 'node:fs';

const file = process.argv[2] ?? 'test-results/vitest.json';
if (!existsSync(file)) {
	console.log('0 passed, 1 failed');
	console.error(`no test report at ${file}: the suite did not run`);
	process.exit(1);
}
const r = JSON.parse(readFileSync(file, 'utf8'));
// A file that failed to load counts as a failure even though none of its tests ran.
const brokenFiles = (r.testResults ?? []).filter((t) => t.status === 'failed' && (t.assertionResults ?? []).length === 0).length;
const failed = r.numFailedTests + brokenFiles;
console.log(`${r.numPassedTests} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
