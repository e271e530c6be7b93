// Prints vitest's JSON report as the one line CI recognises: "N passed, N failed".
import { existsSync, readFileSync } from 'node:fs';

const file = process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : 'test-results/vitest.json';
// Checks run outside vitest (the quick benchmark gate) are added by .ci/run.
const flag = (name) => {
	const i = process.argv.indexOf(name);
	return i > 0 ? Number(process.argv[i + 1]) || 0 : 0;
};
const extraPassed = flag('--extra-passed');
const extraFailed = flag('--extra-failed');
if (!existsSync(file)) {
	console.log(`${extraPassed} passed, ${1 + extraFailed} failed`);
	console.error(`no test report at ${file}: the suite did not run`);
	process.exit(1);
}
const r = JSON.parse(readFileSync(file, 'utf8'));
// A file that failed to load counts as a failure even though none of its tests ran.
const brokenFiles = (r.testResults ?? []).filter((t) => t.status === 'failed' && (t.assertionResults ?? []).length === 0).length;
const failed = r.numFailedTests + brokenFiles + extraFailed;
console.log(`${r.numPassedTests + extraPassed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
