// Our column lineage of a whole project, cold, in this fresh process: the manifest and catalog
// read, the inference plan made, every model inferred (`--threads`, 1 by default: one process,
// one parser, as sqlglot runs). Prints JSON on its last line.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { isMainThread } from 'node:worker_threads';
import { inferencePlan } from '../../src/lib/lineage/infer/manifest';
import { inferProject } from '../../src/lib/server/inference/pool';

async function main() {
	const { values } = parseArgs({ options: { manifest: { type: 'string' }, catalog: { type: 'string' }, threads: { type: 'string' } } });
	const t0 = performance.now();
	const plan = inferencePlan(JSON.parse(readFileSync(values.manifest!, 'utf8')), JSON.parse(readFileSync(values.catalog!, 'utf8')));
	const r = await inferProject(plan, { threads: Number(values.threads ?? 1) });
	const edges = r.models.reduce((n, m) => n + m.edges.filter((e) => e.kind !== 'scan').length, 0);
	const failed = r.models.filter((m) => m.outcome === 'failed').length;
	// The process's CPU (its threads included), from its start: a figure the machine's load moves less than wall time.
	const cpu = process.cpuUsage();
	process.stdout.write(`${JSON.stringify({ seconds: (performance.now() - t0) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6, models: r.models.length, edges, failed })}\n`);
}

// Bundled, this file is also the inference threads' module: only the main thread measures.
if (isMainThread) await main();
