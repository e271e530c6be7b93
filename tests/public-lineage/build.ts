// Writes the suite's inputs from its cases: a dbt project (manifest.json, catalog.json) per source
// and dialect for the model-form cases, one script per script-form case. `npx tsx
// tests/public-lineage/build.ts`; tests/public-lineage.test.ts fails when the files on disk differ.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadSuite, SUITE_DIR, suiteFiles } from '../support/public-lineage';

rmSync(path.join(SUITE_DIR, 'projects'), { recursive: true, force: true });
rmSync(path.join(SUITE_DIR, 'scripts'), { recursive: true, force: true });
const files = suiteFiles(loadSuite());
for (const [rel, text] of files) {
	const file = path.join(SUITE_DIR, rel);
	mkdirSync(path.dirname(file), { recursive: true });
	writeFileSync(file, text);
}
process.stdout.write(`${files.size} files under ${path.relative(process.cwd(), SUITE_DIR)}\n`);
