// One lineage job's inference of a plan full of pathological SQL, in a fresh process, printing
// JSON on its last line. The plan is what a lineage job reads (bench/infer-bounds.ts writes it).
//
//   --plan P --mode before       every model parsed, no job budget: the pool as it was before the
//                                scan and the budget (each model bounded only by its own budget)
//   --plan P --mode after        as the lineage job runs it now: the scan before parsing, and the
//                                job's time budget for its model count (600 s deadline)
//   --plan P --mode budget-only  no scan, the job's time budget alone
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { isMainThread } from 'node:worker_threads';
import type { InferencePlan } from '../../src/lib/lineage/infer/manifest';
import { inferProject, type ModelLineage } from '../../src/lib/server/inference/pool';
import { jobBudgetMs } from '../../src/lib/server/runner/lineage-job';

const DEADLINE_MS = 600_000;

async function main() {
	const { values } = parseArgs({ options: { plan: { type: 'string' }, mode: { type: 'string' } } });
	const plan = JSON.parse(readFileSync(values.plan!, 'utf8')) as InferencePlan;
	const mode = values.mode ?? 'after';
	const total = plan.models.filter((m) => m.sql !== null).length;
	const budget = mode === 'before' ? undefined : jobBudgetMs(total, DEADLINE_MS);
	const t0 = performance.now();
	const cpu0 = process.cpuUsage();
	const r = await inferProject(plan, { jobBudgetMs: budget, complexityLimits: mode === 'after' ? undefined : null });
	const seconds = (performance.now() - t0) / 1000;
	const cpu = process.cpuUsage(cpu0);
	const outcomes: Record<string, number> = {};
	for (const m of r.models) outcomes[m.outcome] = (outcomes[m.outcome] ?? 0) + 1;
	const scanMs = r.models.filter((m: ModelLineage) => m.outcome === 'too_complex').map((m) => m.ms ?? 0);
	const failures = [...new Set(r.models.filter((m) => m.outcome === 'failed').map((m) => (m.message ?? '').replace(/\d+/g, 'N')))];
	process.stdout.write(
		`${JSON.stringify({ seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, budgetSeconds: budget === undefined ? null : budget / 1000, outcomes, overBudget: r.overBudget, scanMsMax: scanMs.length ? Math.max(...scanMs) : null, scanMsMedian: scanMs.length ? scanMs.sort((x, y) => x - y)[Math.floor(scanMs.length / 2)] : null, failures, peakRssMb: process.resourceUsage().maxRSS / 1024 })}\n`
	);
}

if (isMainThread) await main();
