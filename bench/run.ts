// npm run bench                      every benchmark, full size
// npm run bench -- ingest graph      some, by name
// npm run bench -- --quick           every benchmark at small size (CI): fails when a ratio regresses
// Each prints a table; the named figures go to bench/results.json (PGlite) and
// bench/results.postgres.json, the full tables to bench/details.json. Quick runs write under
// bench/out/ and leave the recorded figures alone.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { environment, printTable, type BenchResult, type Metric } from './lib';
import { quickGate, readDocument, resultsFile, saveMetrics } from './results';

const quick = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';
if (quick) process.env.BENCH_QUICK = '1';

const registry: Record<string, () => Promise<{ run: () => Promise<BenchResult> }>> = {
	ingest: () => import('./ingest'),
	'column-lineage': () => import('./column-lineage'),
	'column-impact': () => import('./column-impact'),
	graph: () => import('./graph'),
	polling: () => import('./polling'),
	canvas: () => import('./canvas'),
	openlineage: () => import('./openlineage'),
	'openlineage-ingest': () => import('./openlineage-ingest'),
	infer: () => import('./infer'),
	'infer-bounds': () => import('./infer-bounds'),
	diff: () => import('./diff'),
	'canvas-columns': () => import('./canvas-columns'),
	'producer-engine': () => import('./producer-engine'),
	'real-dbt': () => import('./real-dbt'),
	'lineage-peers': () => import('./lineage-peers'),
	fork: () => import('./fork'),
	mcp: () => import('./mcp'),
	'upload-latency': () => import('./upload-latency')
};

const asked = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const names = asked.length ? asked : Object.keys(registry);
for (const n of names) {
	if (!registry[n]) {
		process.stderr.write(`unknown benchmark "${n}"; known: ${Object.keys(registry).join(', ')}\n`);
		process.exit(2);
	}
}

function saveDetails(r: BenchResult): void {
	const file = path.resolve('bench/details.json');
	const all = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
	all[r.name] = { ...r, measured_at: new Date().toISOString() };
	writeFileSync(file, `${JSON.stringify(all, null, 2)}\n`);
}

function printMetrics(ms: Metric[]): void {
	if (ms.length === 0) return;
	process.stdout.write('\nname | database | value | goal | met\n');
	for (const m of ms) {
		const spread = m.min !== undefined ? ` [${m.min.toFixed(2)}–${m.max!.toFixed(2)}]` : '';
		const goal = m.goal === null ? '' : `${m.better === 'lower' ? '≤' : '≥'} ${m.goal}`;
		process.stdout.write(`${m.name} | ${m.database} | ${m.value.toFixed(2)} ${m.unit}${spread} | ${goal} | ${m.met === null ? '' : m.met ? 'yes' : 'NO'}\n`);
	}
}

const all: Metric[] = [];
let broken = 0;
const started0 = Date.now();
for (const n of names) {
	const started = Date.now();
	let r: BenchResult;
	try {
		r = await (await registry[n]()).run();
	} catch (e) {
		broken++;
		process.stderr.write(`benchmark ${n} failed: ${(e as Error).stack ?? e}\n`);
		continue;
	}
	r.environment = { ...environment(), ...r.environment, quick, seconds: Math.round((Date.now() - started) / 1000) };
	printTable(r);
	const metrics = r.metrics ?? [];
	if (metrics.length === 0) process.stderr.write(`benchmark ${n} reported no named metrics\n`);
	printMetrics(metrics);
	all.push(...metrics);
	const files = saveMetrics(metrics, n, quick);
	if (!quick) saveDetails(r);
	process.stdout.write(`→ ${files.map((f) => path.relative(process.cwd(), f)).join(', ') || '(no metrics)'}\n`);
}

let status = broken ? 1 : 0;
if (quick) {
	const recorded = (name: string, database: 'pglite' | 'postgres') => readDocument(resultsFile(database, false))?.results.find((x) => x.name === name);
	const failures = quickGate(all, recorded);
	for (const f of failures) process.stdout.write(`REGRESSION ${f.database} ${f.name}: ${f.why}\n`);
	if (failures.length) status = 1;
	process.stdout.write(`quick benchmarks: ${names.length - broken}/${names.length} ran, ${failures.length} ratio regression(s) in ${Math.round((Date.now() - started0) / 1000)} s\n`);
}
process.exit(status);
