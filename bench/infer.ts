// Column lineage inferred from compiled SQL (issue 15, item 8): a generated project of 3000 models
// (300 with --quick) with realistic compiled SQL and a catalog, inferred on worker threads in a
// fresh process: cold time, ms per model (p50/p99, on its thread, parse included), peak RSS, and a
// redeploy that changes 10 models with the cache warm; then the accuracy on jaffle-shop 1.12
// against the hand-built index. The figures do not depend on the database: they are recorded
// with the PGlite results.
//
// The child is bundled to plain JavaScript first (esbuild, which tsx brings), so it and its
// threads run as in the built app: under tsx every thread would also carry the TypeScript loader.
import { readFileSync, writeFileSync } from 'node:fs';
import { inferencePlan } from '../src/lib/lineage/infer/manifest';
import { readIndexEdges, scoreEdges, type ScoredEdge } from '../tests/support/infer-score';
import { DEFAULT_THREADS, inferProject } from '../src/lib/server/inference/pool';
import { bundleChildren, childJs, FIXTURES_DIR, metric, OUT, stat, type BenchResult, type Metric, type Row } from './lib';
import { inferenceProject } from './projects';
import path from 'node:path';

const QUICK = process.env.BENCH_QUICK === '1';
const SIZE = QUICK ? { models: 300, edges: 10_000 } : { models: 3000, edges: 200_000 };
/** The headline figures use the pool's default; a full run also measures two threads beside it. */
const THREADS = DEFAULT_THREADS;

interface Cold {
	coldSeconds: number;
	/** CPU time of every thread of the child: the cost whatever the machine's load. */
	coldCpuSeconds: number;
	perModelMs: number[];
	peakRssMb: number;
	baselineRssMb: number;
	outcomes: Record<string, number>;
	edges: number;
	failures: string[];
	partials: string[];
}

interface Redeploy extends Cold {
	redeploySeconds: number;
	redeployCpuSeconds: number;
	reinferred: number;
	cacheHits: number;
}

function percentile(xs: number[], p: number): number {
	const s = [...xs].sort((a, b) => a - b);
	return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

async function jaffleScore() {
	const dir = path.join(FIXTURES_DIR, 'jaffle-shop-1.12-duckdb-docs-generate');
	const plan = inferencePlan(JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')), JSON.parse(readFileSync(path.join(dir, 'catalog.json'), 'utf8')));
	const t0 = performance.now();
	const { models } = await inferProject(plan, { threads: 1 });
	const ms = performance.now() - t0;
	const inferred: ScoredEdge[] = models.flatMap((m) => m.edges.map((e) => ({ ...e, toNode: m.node })));
	const expected = await readIndexEdges(readFileSync(path.join(FIXTURES_DIR, 'constructed-index', 'jaffle-shop-1.12', 'index', 'dbt.column_lineage.parquet')));
	return { score: scoreEdges(expected, inferred), ms, analyzed: models.filter((m) => m.outcome === 'analyzed').length, models: models.length };
}

/** bench/child/infer.ts as plain ES modules (the parser's chunk apart, as the app's build splits it). */
async function bundledChild(): Promise<string> {
	const outdir = path.join(OUT, 'infer-child');
	await bundleChildren({ infer: path.resolve('bench/child/infer.ts') }, outdir, { splitting: true });
	return path.join(outdir, 'infer.js');
}

const REDEPLOY_CHANGES = 10;

/**
 * The plans the children start from: the project's, and the same project with 10 models' compiled
 * SQL changed (a comment, which changes a model's digest as any edit does), spread over the DAG.
 */
function writePlans(project: { manifestFile: string; catalogFile: string }): { plan: string; changed: string; planSeconds: number; planMb: number } {
	const t0 = performance.now();
	const manifest = JSON.parse(readFileSync(project.manifestFile, 'utf8'));
	const catalog = JSON.parse(readFileSync(project.catalogFile, 'utf8'));
	const plan = inferencePlan(manifest, catalog);
	const planSeconds = (performance.now() - t0) / 1000;
	const withSql = plan.models.filter((m) => m.sql !== null);
	const step = Math.floor(withSql.length / REDEPLOY_CHANGES);
	const changedNodes = new Set(Array.from({ length: REDEPLOY_CHANGES }, (_, k) => withSql[k * step].node));
	const changed = { ...plan, models: plan.models.map((m) => (changedNodes.has(m.node) ? { ...m, sql: `${m.sql}\n-- changed in the redeploy\n` } : m)) };
	const files = { plan: path.join(OUT, 'infer-plan.json'), changed: path.join(OUT, 'infer-plan-changed.json') };
	const text = JSON.stringify(plan);
	writeFileSync(files.plan, text);
	writeFileSync(files.changed, JSON.stringify(changed));
	return { ...files, planSeconds, planMb: text.length / 1e6 };
}

export async function run(): Promise<BenchResult> {
	const project = await inferenceProject(SIZE.models, SIZE.edges);
	const script = await bundledChild();
	const plans = writePlans(project);
	// One child for the cold run and the redeploy after it (the cold figures are taken before the redeploy).
	const redeploy = await childJs<Redeploy>(script, { plan: plans.plan, redeploy: plans.changed, threads: THREADS });
	const cold: Cold = redeploy;
	const two = QUICK ? null : await childJs<Cold>(script, { plan: plans.plan, threads: 2 });
	const jaffle = await jaffleScore();

	const p50 = percentile(cold.perModelMs, 50);
	const p99 = percentile(cold.perModelMs, 99);
	const spread = stat(cold.perModelMs);
	const rows: Row[] = [
		{
			case: `cold, ${project.models} models, ${THREADS} thread${THREADS === 1 ? '' : 's'}`,
			seconds: cold.coldSeconds.toFixed(1),
			'CPU seconds': cold.coldCpuSeconds.toFixed(1),
			'ms/model p50': p50.toFixed(2),
			'ms/model p99': p99.toFixed(2),
			'ms/model max': spread.max.toFixed(1),
			'peak RSS MB': cold.peakRssMb.toFixed(0),
			outcomes: JSON.stringify(cold.outcomes),
			edges: cold.edges
		},
		...(two
			? [{ case: `cold, ${project.models} models, 2 threads`, seconds: two.coldSeconds.toFixed(1), 'CPU seconds': two.coldCpuSeconds.toFixed(1), 'peak RSS MB': two.peakRssMb.toFixed(0), outcomes: JSON.stringify(two.outcomes) }]
			: []),
		{ case: `plan: manifest + catalog parsed, inferencePlan`, seconds: plans.planSeconds.toFixed(2), 'plan MB': plans.planMb.toFixed(1) },
		{ case: `redeploy changing ${REDEPLOY_CHANGES} models, cache warm`, seconds: redeploy.redeploySeconds.toFixed(2), 'CPU seconds': redeploy.redeployCpuSeconds.toFixed(2), reinferred: redeploy.reinferred, 'cache hits': redeploy.cacheHits },
		{
			case: 'jaffle-shop 1.12 vs the hand-built index',
			precision: jaffle.score.precision.toFixed(3),
			recall: jaffle.score.recall.toFixed(3),
			'kind agreement': jaffle.score.kindAgreement.toFixed(3),
			'analyzed models': `${jaffle.analyzed}/${jaffle.models}`,
			ms: jaffle.ms.toFixed(0)
		}
	];
	const db = 'pglite' as const;
	const metrics: Metric[] = [
		metric('infer_3000_cold_seconds', cold.coldSeconds, 's', db, { goal: QUICK ? null : 60, note: `${project.models} models, ${THREADS} threads` }),
		metric('infer_ms_per_model_p50', p50, 'ms', db),
		metric('infer_ms_per_model_p99', p99, 'ms', db),
		metric('infer_peak_rss_mb', cold.peakRssMb, 'MB', db, { goal: 500 }),
		metric('infer_redeploy_10_seconds', redeploy.redeploySeconds, 's', db, { goal: 5 }),
		metric('infer_jaffle_precision', jaffle.score.precision, 'ratio', db, { goal: 0.99, better: 'higher' }),
		metric('infer_jaffle_recall', jaffle.score.recall, 'ratio', db, { goal: 0.98, better: 'higher' }),
		metric('infer_jaffle_kind_agreement', jaffle.score.kindAgreement, 'ratio', db, { goal: 0.95, better: 'higher' })
	];
	const ratios = [
		{ name: 'redeploy_10 / cold', value: redeploy.redeploySeconds / cold.coldSeconds, note: 'the same process, the cache warm after the cold run' },
		...(two ? [{ name: `cold ${THREADS} thread(s) / 2 threads`, value: cold.coldSeconds / two.coldSeconds, note: 'wall-time speed-up of two threads' }] : []),
		...(two ? [{ name: `peak RSS 2 threads / ${THREADS}`, value: two.peakRssMb / cold.peakRssMb, note: 'what the second parser costs in memory' }] : [])
	];
	return {
		name: 'infer',
		description: `column lineage inferred from compiled SQL: a generated ${project.models}-model project (${project.rewritten.unions} with a UNION ALL, ${project.rewritten.windows} with a window dedup), and jaffle-shop 1.12`,
		rows,
		ratios,
		environment: { models: project.models, threads: THREADS, failures: cold.failures, partials: cold.partials },
		metrics
	};
}
