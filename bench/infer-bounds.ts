// A lineage job full of pathological SQL (the security review's finding: eleven such models held
// the one lineage slot of a worker for a minute), before and after the scan before parsing and
// the job's time budget. Each measurement is a fresh child process that starts from the plan, as
// a lineage job starts from the plan stored with the version, with the pool's defaults (one
// thread, 10 s per model). No database: the figures are recorded with PGlite's.
//
//   eleven: the five shapes of the finding (100,000 nested parentheses, a 20,000-column select, a
//           20,000-arm CASE, 3,000 nested subqueries, a 3,000-CTE chain) as eleven distinct models,
//           beside 20 ordinary models;
//   hundred: 100 such models beside the same 20 (--quick: not run).
//
// "Before" is the pool of another checkout when BENCH_INFER_BASE=<checkout> is set (its
// inference pool bundled on its own, given the same plan with its own defaults); otherwise this
// checkout's pool with the scan and the job budget turned off, which parses the same models but
// in its own order (shortest SQL first).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { InferencePlan, PlannedModel } from '../src/lib/lineage/infer/manifest';
import { pathologicalSql } from '../tests/support/pathological-sql';
import { bundleChildren, childJs, metric, OUT, stat, type BenchResult, type Metric, type Row } from './lib';

const QUICK = process.env.BENCH_QUICK === '1';
const BASE = process.env.BENCH_INFER_BASE ? path.resolve(process.env.BENCH_INFER_BASE) : null;
const AFTER_RUNS = QUICK ? 1 : 3;

interface Answer {
	seconds: number;
	cpuSeconds: number;
	budgetSeconds: number | null;
	outcomes: Record<string, number>;
	overBudget: number;
	scanMsMax: number | null;
	scanMsMedian: number | null;
	failures: string[];
	peakRssMb: number;
}

const SOURCE = { node: 'source.p.raw.orders', parts: ['analytics', 'raw', 'orders'], columns: ['id', 'customer_id', 'amount', 'status'], declared: null };

/** `bad` pathological models (the finding's five shapes in turn, each text distinct) and 20 ordinary ones. */
function planOf(bad: number): InferencePlan {
	const shapes = (v: number) => pathologicalSql({ from: 'analytics.raw.orders', variant: v }).filter((p) => p.trips !== 'chars');
	const models: PlannedModel[] = [];
	for (let k = 0; k < bad; k++) {
		const p = shapes(Math.floor(k / 5))[k % 5];
		models.push({ node: `model.p.absurd_${k}`, sql: p.sql, skip: null, outputColumns: null, dependsOn: [SOURCE.node] });
	}
	for (let k = 0; k < 20; k++)
		models.push({ node: `model.p.ok_${k}`, sql: `select id, customer_id, amount * ${k + 1} as amount from analytics.raw.orders where status = 'placed'`, skip: null, outputColumns: null, dependsOn: [SOURCE.node] });
	return { adapterType: 'duckdb', dialect: 'duckdb', dialectWarning: null, relations: [SOURCE], models, notInCatalog: [], catalogWarning: null };
}

async function bundledChild(): Promise<string> {
	const outdir = path.join(OUT, 'infer-bounds-child');
	await bundleChildren({ 'infer-bounds': path.resolve('bench/child/infer-bounds.ts') }, outdir, { splitting: true, tsconfig: path.resolve('tsconfig.json') });
	return path.join(outdir, 'infer-bounds.js');
}

/** The inference pool of the checkout at `root`, as a child answering like bench/child/infer-bounds.ts. */
async function bundledBaseChild(root: string): Promise<string> {
	const entry = path.join(OUT, 'infer-bounds-base-entry.ts');
	const pool = JSON.stringify(path.join(root, 'src/lib/server/inference/pool'));
	writeFileSync(
		entry,
		`import { readFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
import { inferProject } from ${pool};
if (isMainThread) {
	const plan = JSON.parse(readFileSync(process.argv[process.argv.indexOf('--plan') + 1], 'utf8'));
	const t0 = performance.now();
	const cpu0 = process.cpuUsage();
	const r = await inferProject(plan);
	const cpu = process.cpuUsage(cpu0);
	const outcomes = {};
	for (const m of r.models) outcomes[m.outcome] = (outcomes[m.outcome] ?? 0) + 1;
	const failures = [...new Set(r.models.filter((m) => m.outcome === 'failed').map((m) => (m.message ?? '').replace(/\\d+/g, 'N')))];
	process.stdout.write(JSON.stringify({ seconds: (performance.now() - t0) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6, budgetSeconds: null, outcomes, overBudget: 0, scanMsMax: null, scanMsMedian: null, failures, peakRssMb: process.resourceUsage().maxRSS / 1024 }) + '\\n');
}
`
	);
	const outdir = path.join(OUT, 'infer-bounds-base-child');
	await bundleChildren({ 'infer-bounds-base': entry }, outdir, { splitting: true });
	return path.join(outdir, 'infer-bounds-base.js');
}

function writePlan(name: string, bad: number): string {
	const file = path.join(OUT, `infer-bounds-${name}.json`);
	writeFileSync(file, JSON.stringify(planOf(bad)));
	return file;
}

const row = (label: string, a: Answer | { seconds: ReturnType<typeof stat>; rest: Answer }): Row => {
	const one = 'rest' in a ? a.rest : a;
	return {
		case: label,
		seconds: 'rest' in a ? `${a.seconds.median.toFixed(2)} [${a.seconds.min.toFixed(2)}–${a.seconds.max.toFixed(2)}]` : a.seconds.toFixed(1),
		'CPU seconds': one.cpuSeconds.toFixed(1),
		'job budget s': one.budgetSeconds ?? '',
		'scan ms p50 / max': one.scanMsMax === null ? '' : `${one.scanMsMedian!.toFixed(1)} / ${one.scanMsMax.toFixed(1)}`,
		outcomes: JSON.stringify(one.outcomes),
		'over budget': one.overBudget,
		'peak RSS MB': one.peakRssMb.toFixed(0)
	};
};

export async function run(): Promise<BenchResult> {
	const script = await bundledChild();
	const bad = QUICK ? 5 : 11;
	const eleven = writePlan('eleven', bad);
	const before = BASE ? await childJs<Answer>(await bundledBaseChild(BASE), { plan: eleven }) : await childJs<Answer>(script, { plan: eleven, mode: 'before' });
	const beforeLabel = BASE ? `before (${path.basename(BASE)}'s pool)` : 'before (this pool, the scan and the job budget off)';
	const afters: Answer[] = [];
	for (let i = 0; i < AFTER_RUNS; i++) afters.push(await childJs<Answer>(script, { plan: eleven, mode: 'after' }));
	const after = stat(afters.map((a) => a.seconds));
	const hundred = QUICK ? null : writePlan('hundred', 100);
	const hundredAfter = hundred ? await childJs<Answer>(script, { plan: hundred, mode: 'after' }) : null;
	const hundredBudget = hundred ? await childJs<Answer>(script, { plan: hundred, mode: 'budget-only' }) : null;

	const rows: Row[] = [
		row(`${bad} pathological + 20 ordinary models, ${beforeLabel}`, before),
		row(`the same, after (the scan before parsing, the job budget)`, { seconds: after, rest: afters[afters.length - 1] }),
		...(hundredAfter ? [row('100 pathological + 20 ordinary, after', hundredAfter)] : []),
		...(hundredBudget ? [row('100 pathological + 20 ordinary, the job budget alone (no scan)', hundredBudget)] : [])
	];
	const db = 'pglite' as const;
	const metrics: Metric[] = [
		metric(`infer_pathological_${bad}_before_seconds`, before.seconds, 's', db, { note: `${beforeLabel}: every model parsed, each bounded by its 10 s budget only` }),
		metric(`infer_pathological_${bad}_after_seconds`, after, 's', db, { note: 'the scan before parsing marks them too_complex; the 20 ordinary models are parsed' }),
		metric('infer_too_complex_scan_ms_p50', stat(afters.map((a) => a.scanMsMedian ?? 0)), 'ms', db, { goal: 100, note: 'the scan of one pathological model, median of the job (the finding asks for milliseconds)' }),
		metric('infer_too_complex_scan_ms_max', Math.max(...afters.map((a) => a.scanMsMax ?? 0)), 'ms', db, { note: 'the longest scan of one pathological model (the first, before the JIT warms up)' }),
		...(hundredAfter ? [metric('infer_pathological_100_after_seconds', hundredAfter.seconds, 's', db)] : []),
		...(hundredBudget ? [metric('infer_pathological_100_budget_only_seconds', hundredBudget.seconds, 's', db, { note: `no scan: the job budget (${hundredBudget.budgetSeconds} s) ends it` })] : [])
	];
	return {
		name: 'infer-bounds',
		description: 'a lineage job of pathological SQL (the five shapes of the security finding) beside 20 ordinary models, before and after the scan before parsing and the job budget',
		rows,
		ratios: [{ name: `before / after, ${bad} pathological models`, value: before.seconds / after.median, note: 'how much sooner the lineage slot is free again' }],
		environment: { before: before.failures, after: afters[0].failures, hundredBudget: hundredBudget?.failures ?? null },
		metrics
	};
}
