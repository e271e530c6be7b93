// npm run bench            every benchmark
// npm run bench -- ingest  one (or several) by name
// Each prints a table and merges its figures into bench/results.json.
import { environment, printTable, saveResult, type BenchResult } from './lib';

const registry: Record<string, () => Promise<{ run: () => Promise<BenchResult> }>> = {
	ingest: () => import('./ingest'),
	'column-lineage': () => import('./column-lineage'),
	graph: () => import('./graph'),
	polling: () => import('./polling'),
	canvas: () => import('./canvas')
};

const asked = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const names = asked.length ? asked : Object.keys(registry);
for (const n of names) {
	if (!registry[n]) {
		process.stderr.write(`unknown benchmark "${n}"; known: ${Object.keys(registry).join(', ')}\n`);
		process.exit(2);
	}
}
for (const n of names) {
	const started = Date.now();
	const { run } = await registry[n]();
	const r = await run();
	r.environment = { ...environment(), ...r.environment, seconds: Math.round((Date.now() - started) / 1000) };
	printTable(r);
	saveResult(r);
}
