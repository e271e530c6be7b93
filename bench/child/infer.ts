// Column lineage inference of a whole project in a fresh process (peak RSS is per process, and
// worker threads are part of it), printing JSON on its last line.
//
//   --manifest M --catalog C [--threads N]          a cold inference (no cache)
//   --manifest M --catalog C --redeploy 10          a cold inference into an in-memory cache, then
//                                                   the same manifest with 10 models' compiled SQL
//                                                   changed: plan + inference with the cache warm
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { isMainThread } from 'node:worker_threads';
import { inferencePlan } from '../../src/lib/lineage/infer/manifest';
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

if (isMainThread) {
	const { values } = parseArgs({ options: { manifest: { type: 'string' }, catalog: { type: 'string' }, threads: { type: 'string' }, redeploy: { type: 'string' } } });
	const threads = values.threads ? Number(values.threads) : undefined;
	const peakRss = () => process.resourceUsage().maxRSS / 1024;
	const out = (o: unknown) => process.stdout.write(`${JSON.stringify(o)}\n`);

	const counts = (ms: ModelLineage[]) => {
		const c: Record<string, number> = { analyzed: 0, partial: 0, failed: 0, skipped: 0 };
		for (const m of ms) c[m.outcome]++;
		return c;
	};

	const manifestText = readFileSync(values.manifest!, 'utf8');
	const catalogText = readFileSync(values.catalog!, 'utf8');
	const baselineRssMb = peakRss();
	const cache = values.redeploy ? new MapCache() : undefined;

	const t0 = performance.now();
	const plan = inferencePlan(JSON.parse(manifestText), JSON.parse(catalogText));
	const cold = await inferProject(plan, { threads, cache });
	const coldSeconds = (performance.now() - t0) / 1000;
	const perModelMs = cold.models.filter((m) => m.ms !== null).map((m) => m.ms!);
	const failures = cold.models.filter((m) => m.outcome === 'failed').slice(0, 5).map((m) => `${m.node}: ${m.message}`);
	const partials = cold.models.filter((m) => m.outcome === 'partial').slice(0, 5).map((m) => `${m.node}: ${m.untraced[0]?.column}: ${m.untraced[0]?.reason}`);
	const edges = cold.models.reduce((n, m) => n + m.edges.length, 0);

	if (!values.redeploy) {
		out({ coldSeconds, perModelMs, peakRssMb: peakRss(), baselineRssMb, outcomes: counts(cold.models), edges, failures, partials });
		process.exit(0);
	}

	// The redeploy: the same project with N models' compiled SQL changed (a comment, which changes the
	// digest as any edit does), read, planned and inferred again as a lineage job would.
	const changes = Number(values.redeploy);
	const manifest = JSON.parse(manifestText);
	const withSql = Object.keys(manifest.nodes)
		.filter((id) => manifest.nodes[id].resource_type === 'model' && typeof manifest.nodes[id].compiled_code === 'string' && manifest.nodes[id].config?.materialized !== 'ephemeral')
		.sort();
	const step = Math.floor(withSql.length / changes);
	for (let k = 0; k < changes; k++) manifest.nodes[withSql[k * step]].compiled_code += `\n-- changed in redeploy ${k}\n`;
	const changedText = JSON.stringify(manifest);
	const t1 = performance.now();
	const again = await inferProject(inferencePlan(JSON.parse(changedText), JSON.parse(catalogText)), { threads, cache });
	const redeploySeconds = (performance.now() - t1) / 1000;
	out({ coldSeconds, redeploySeconds, reinferred: again.models.filter((m) => m.outcome !== 'skipped').length - again.cacheHits, cacheHits: again.cacheHits, peakRssMb: peakRss(), outcomes: counts(again.models) });
}
