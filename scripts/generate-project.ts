// Generates a dbt project with its build artifacts (manifest, run_results, index parquet, JSON
// log) into a directory, for benchmarks and manual testing:
//   npx tsx scripts/generate-project.ts --models 3000 --column-edges 200000 --out /tmp/x [--seed 1] [--index-rows 4000000]
// Without --models it writes the demo project. Prints what it made, the time and the peak RSS.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { generateProject, projectTarGz, writeProjectDir } from '../src/lib/server/demo/generator';

const { values } = parseArgs({
	options: {
		models: { type: 'string' },
		'column-edges': { type: 'string' },
		out: { type: 'string' },
		seed: { type: 'string', default: '1' },
		'index-rows': { type: 'string' },
		name: { type: 'string' },
		failures: { type: 'boolean', default: false },
		change: { type: 'boolean', default: false },
		tar: { type: 'boolean', default: false },
		help: { type: 'boolean', short: 'h', default: false }
	}
});

if (values.help || !values.out) {
	console.log(
		'usage: generate-project.ts --out DIR [--models N --column-edges E] [--seed S] [--index-rows R] [--name NAME] [--failures] [--change] [--tar]'
	);
	process.exit(values.help ? 0 : 2);
}

const int = (s: string | undefined, flag: string) => {
	if (s === undefined) return undefined;
	const n = Number(s.replace(/_/g, ''));
	if (!Number.isInteger(n) || n < 0) {
		console.error(`--${flag} must be a non-negative integer, got ${s}`);
		process.exit(2);
	}
	return n;
};

const started = performance.now();
const project = await generateProject({
	models: int(values.models, 'models'),
	columnEdges: int(values['column-edges'], 'column-edges'),
	seed: int(values.seed, 'seed'),
	indexRows: int(values['index-rows'], 'index-rows'),
	name: values.name,
	failures: values.failures,
	change: values.change
});
const generated = performance.now();
const out = path.resolve(values.out);
await writeProjectDir(project, out);
if (values.tar) await writeFile(path.join(out, 'project.tar.gz'), await projectTarGz(project));
const written = performance.now();

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
console.log(JSON.stringify(project.meta, null, 2));
console.log(`wrote ${out}`);
console.log(`  manifest.json            ${mb(Buffer.byteLength(JSON.stringify(project.manifest)))}`);
console.log(`  dbt.column_lineage.parquet ${mb(project.columnLineageParquet.length)} (${project.meta.indexRows} rows)`);
console.log(`  dbt.node_columns.parquet ${mb(project.nodeColumnsParquet.length)} (${project.meta.nodeColumnRows} rows)`);
console.log(`  logs/dbt.log             ${mb(Buffer.byteLength(project.eventLog))}`);
console.log(`  project files            ${project.projectFiles.size}`);
console.log(`generate ${((generated - started) / 1000).toFixed(2)} s, write ${((written - generated) / 1000).toFixed(2)} s`);
console.log(`peak RSS ${mb(process.resourceUsage().maxRSS * 1024)}`);
