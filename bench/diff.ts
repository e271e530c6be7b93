// The lineage diff (GET dbt/diff) through the real route of the BUILT app: a 3000-model version
// storing 200,000 column edges, against three previews of it that change 3, 30 and 300 models
// (each changed model's SQL edited and its first column retyped, so every change is walked for
// its downstream impact). Timed in one interleaved loop after a warm-up, so load drift touches
// the three sizes alike. Named metrics: diff_<n>_30_changed_p50_ms (goal ≤ 500 ms at 3000) and
// diff_300_over_3_changed_ratio (the cost follows the changed models: at most linear in them).
// BENCH_QUICK: 300 models / 10,000 column edges changing 1, 10 and 100 of them, 3 runs.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { indexRows, writeColumns } from '../tests/support/index-parquet';
import { backends, Client, freshDatabase, QUICK, setupWorkspace, startApp, uploadTarget } from './app';
import { metric, stat, type BenchResult, type Metric, type Row } from './lib';
import { benchProject, type BenchProject } from './projects';

const SIZE = QUICK ? { models: 300, edges: 10_000 } : { models: 3000, edges: 200_000 };
// Quick: a tenth of the changed models of a tenth-size project (the same shape of comparison).
const CHANGED = QUICK ? ([1, 10, 100] as const) : ([3, 30, 300] as const);
const [FEW, MID, MANY] = CHANGED;
const RUNS = Number(process.env.BENCH_RUNS ?? (QUICK ? 3 : 15));
const WS = 'bench';
const SCRIPT = 'f/bench/project';

interface Variant {
	changed: number;
	target: string;
}

/** A copy of the project's target with `n` models changed: their SQL edited, their first column retyped. */
async function changedTarget(p: BenchProject, n: number): Promise<Variant> {
	const dir = path.join(p.dir, `diff-changed-${n}`, 'target');
	mkdirSync(path.join(dir, 'index'), { recursive: true });
	const manifest = JSON.parse(readFileSync(path.join(p.target, 'manifest.json'), 'utf8')) as { nodes: Record<string, { resource_type: string; raw_code?: string }> };
	const models = Object.keys(manifest.nodes)
		.filter((k) => manifest.nodes[k].resource_type === 'model')
		.sort();
	const step = Math.max(1, Math.floor(models.length / n));
	const picked = new Set(models.filter((_, i) => i % step === 0).slice(0, n));
	if (picked.size !== n) throw new Error(`only ${picked.size} models to change, asked ${n}`);
	for (const id of picked) manifest.nodes[id].raw_code = `${manifest.nodes[id].raw_code ?? ''}\n-- reviewed change`;
	writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
	const cols = await indexRows(new Uint8Array(readFileSync(path.join(p.target, 'index', 'dbt.node_columns.parquet'))));
	const retyped = new Set<string>();
	for (const r of cols) {
		const id = String(r.unique_id);
		if (picked.has(id) && !retyped.has(id)) {
			retyped.add(id);
			r.declared_type = 'VARCHAR(7)';
		}
	}
	writeFileSync(path.join(dir, 'index', 'dbt.node_columns.parquet'), writeColumns(cols));
	writeFileSync(path.join(dir, 'index', 'dbt.column_lineage.parquet'), readFileSync(path.join(p.target, 'index', 'dbt.column_lineage.parquet')));
	return { changed: n, target: dir };
}

interface DiffAnswer {
	models: { modified: unknown[]; added: unknown[]; removed: unknown[] };
	columns?: { retyped: { impact: unknown[] | null }[] };
}

export async function run(): Promise<BenchResult> {
	const project = await benchProject(SIZE.models, SIZE.edges);
	const variants: Variant[] = [];
	for (const n of CHANGED) variants.push(await changedTarget(project, n));
	const rows: Row[] = [];
	const ratios: BenchResult['ratios'] = [];
	const metrics: Metric[] = [];
	const environment: Record<string, unknown> = { project: `${SIZE.models} models (seed 1), ${SIZE.edges} stored column edges`, changed: CHANGED, runs: RUNS };

	for (const backend of backends()) {
		process.stderr.write(`diff: ${backend}: deploying the project and three previews …\n`);
		const db = await freshDatabase(backend, 'diff');
		const app = await startApp(db);
		try {
			const client = await Client.login(app.url);
			await setupWorkspace(client, WS, 'bench', project.meta.database);
			const base = await uploadTarget(client, WS, 'deploy', SCRIPT, project.target);
			if (base.column_edges !== SIZE.edges) throw new Error(`the project stored ${base.column_edges} column edges, expected ${SIZE.edges}`);
			const previews = new Map<number, string>();
			for (const v of variants) previews.set(v.changed, (await uploadTarget(client, WS, 'preview', SCRIPT, v.target)).job_id);
			const times = new Map<number, number[]>(CHANGED.map((n) => [n, [] as number[]]));
			const answers = new Map<number, DiffAnswer>();
			for (let i = -2; i < RUNS; i++) {
				const order = i % 2 === 0 ? [...CHANGED] : [...CHANGED].reverse();
				for (const n of order) {
					const t = await client.ok<DiffAnswer>(`/api/w/${WS}/dbt/diff?path=${SCRIPT}&from=${base.hash}&to=${previews.get(n)}`, 120_000);
					if (t.body.models.modified.length !== n) throw new Error(`the ${n}-changed diff lists ${t.body.models.modified.length} modified models`);
					answers.set(n, t.body);
					if (i >= 0) times.get(n)!.push(t.ms);
				}
			}
			const s = new Map(CHANGED.map((n) => [n, stat(times.get(n)!)]));
			for (const n of CHANGED) {
				const a = answers.get(n)!;
				const walked = a.columns?.retyped.reduce((sum, c) => sum + (c.impact?.length ?? 0), 0) ?? 0;
				rows.push({ case: `${backend}: ${n} of ${SIZE.models} models changed`, 'GET dbt/diff (ms)': s.get(n)!, retyped: a.columns?.retyped.length ?? 0, 'impact entries': walked });
			}
			const ratio = s.get(MANY)!.median / s.get(FEW)!.median;
			ratios.push({ name: `${backend} ${MANY} over ${FEW} changed`, value: ratio, note: `${MANY / FEW}× the changed models, the same project` });
			metrics.push(
				metric(`diff_${SIZE.models}_${MID}_changed_p50_ms`, s.get(MID)!, 'ms', backend, { goal: SIZE.models === 3000 ? 500 : null, note: `${SIZE.edges} stored column edges` }),
				metric(`diff_${MANY}_over_${FEW}_changed_ratio`, ratio, 'ratio', backend, { goal: MANY / FEW, note: 'at most linear in the changed models' })
			);
		} finally {
			await app.stop();
			await db.drop();
		}
	}
	return {
		name: 'diff',
		description: `GET dbt/diff of a ${SIZE.models}-model version and previews changing ${CHANGED.join(', ')} models (built app)`,
		rows,
		ratios,
		environment,
		metrics
	};
}
