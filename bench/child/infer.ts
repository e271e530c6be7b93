// Column lineage inference of a whole project in a fresh process (peak RSS is per process, and
// worker threads are part of it), printing JSON on its last line. It starts from the inference
// plan (JSON, as a lineage job would read it stored with the version), not from the manifest:
// parsing the manifest is the deploy's cost, measured by the ingest benchmark.
//
//   --plan P [--threads N]             a cold inference (no cache)
//   --plan P --redeploy P2             the same into an in-memory cache (the cold figures are taken
//                                      before going on), then plan P2 (the same project with 10
//                                      models changed) with the cache warm
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { isMainThread } from 'node:worker_threads';
import type { InferencePlan } from '../../src/lib/lineage/infer/manifest';
import { inferProject, type InferCache, type ModelLineage } from '../../src/lib/server/inference/pool';

// Bundled, this file is also the inference threads' module (pool.ts lives in it): only the main thread measures.
class MapCache implements InferCache {
	entries = new Map<string, ModelLineage>();
	async get(keys: string[]) {
		return new Map(keys.filter((k) => this.entries.has(k)).map((k) => [k, this.entries.get(k)!]));
	}
	async put(entries: ModelLineage[]) {
		for (const e of entries) this.entries.set(e.cacheKey!, e);
	}
}

const counts = (ms: ModelLineage[]) => {
	const c: Record<string, number> = { analyzed: 0, partial: 0, failed: 0, skipped: 0, too_complex: 0 };
	for (const m of ms) c[m.outcome]++;
	return c;
};

async function main() {
	const { values } = parseArgs({ options: { plan: { type: 'string' }, threads: { type: 'string' }, redeploy: { type: 'string' }, heap: { type: 'string' } } });
	const threads = values.threads ? Number(values.threads) : undefined;
	const threadHeapMb = values.heap ? Number(values.heap) : undefined;
	const peakRss = () => process.resourceUsage().maxRSS / 1024;
	const out = (o: unknown) => process.stdout.write(`${JSON.stringify(o)}\n`);
	const cache = values.redeploy ? new MapCache() : undefined;
	const baselineRssMb = peakRss();

	const t0 = performance.now();
	const cpu0 = process.cpuUsage();
	const cold = await inferProject(JSON.parse(readFileSync(values.plan!, 'utf8')) as InferencePlan, { threads, cache, threadHeapMb });
	const coldSeconds = (performance.now() - t0) / 1000;
	const cpu = process.cpuUsage(cpu0);
	// Every thread's CPU time: what the inference costs whatever else the machine is doing.
	const coldCpuSeconds = (cpu.user + cpu.system) / 1e6;
	const perModelMs = cold.models.filter((m) => m.ms !== null).map((m) => m.ms!);
	const failures = cold.models.filter((m) => m.outcome === 'failed').map((m) => `${m.node}: ${m.message}`);
	const partials = cold.models.filter((m) => m.outcome === 'partial').slice(0, 5).map((m) => `${m.node}: ${m.untraced[0]?.column}: ${m.untraced[0]?.reason}`);
	const edges = cold.models.reduce((n, m) => n + m.edges.length, 0);
	const coldFigures = { coldSeconds, coldCpuSeconds, perModelMs, peakRssMb: peakRss(), mainThread: process.memoryUsage(), baselineRssMb, outcomes: counts(cold.models), edges, failures, partials };
	if (!values.redeploy) return out(coldFigures);

	const t1 = performance.now();
	const cpu1 = process.cpuUsage();
	const again = await inferProject(JSON.parse(readFileSync(values.redeploy, 'utf8')) as InferencePlan, { threads, cache, threadHeapMb });
	const redeploySeconds = (performance.now() - t1) / 1000;
	const cpuAgain = process.cpuUsage(cpu1);
	const redeployCpuSeconds = (cpuAgain.user + cpuAgain.system) / 1e6;
	const inferredAgain = again.models.filter((m) => m.outcome !== 'skipped').length - again.cacheHits;
	out({ ...coldFigures, redeploySeconds, redeployCpuSeconds, reinferred: inferredAgain, cacheHits: again.cacheHits, redeployOutcomes: counts(again.models) });
}

if (isMainThread) await main();
