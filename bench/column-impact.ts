// The impact list of one column over HTTP (GET assets/column_impact on the BUILT app) for a column
// with 1000 downstream columns in the generated 3000-model project, side by side with the
// column-lineage read of its relation. The project's widest column reaches fewer than 1000 dbt
// columns, so producer scripts reading its downstream columns into lake tables make up the rest:
// the walk crosses into producers as a real one does. See bench/README.md for the method.
import { isDirectKind } from '../src/lib/lineage/kinds';
import { relationAssetPath } from '../src/lib/lineage/relation-path';
import { scaledProjectSpec } from '../src/lib/server/demo/scaled-project';
import { isExecutable } from '../src/lib/server/demo/spec';
import type { ColumnImpactAnswer } from '../src/lib/types/column-impact';
import { backends, Client, freshDatabase, QUICK, setupWorkspace, startApp, uploadTarget } from './app';
import { metric, stat, type BenchResult, type Metric, type Row } from './lib';
import { benchProject } from './projects';

const SIZE = QUICK ? { models: 500, edges: 20_000, target: 500 } : { models: 3000, edges: 200_000, target: 1000 };
const RUNS = Number(process.env.BENCH_RUNS ?? (QUICK ? 5 : 30));
const WS = 'bench';
const SCRIPT = 'f/bench/project';
/** Lake columns per producer script. */
const PER_PRODUCER = 100;

/**
 * The column of the project with the most downstream dbt columns (direct edges), counted from the
 * generator's spec: through ephemeral models, which are not counted (they have no relation).
 */
function widestColumn(models: number, edges: number): { assetPath: string; column: string; downstream: number } {
	const spec = scaledProjectSpec({ seed: 1, models, columnEdges: edges });
	const relations = new Map([...spec.sources, ...spec.nodes.filter(isExecutable)].map((r) => [r.uniqueId, r]));
	const ephemeral = (key: string) => {
		const r = relations.get(key.split('\u0000')[0]);
		return !r || (r.resourceType === 'model' && 'materialized' in r && r.materialized === 'ephemeral');
	};
	const down = new Map<string, string[]>();
	for (const e of spec.lineage) {
		if (!isDirectKind(e.kind)) continue;
		const a = `${e.fromId}\u0000${e.fromColumn}`;
		const list = down.get(a);
		if (list) list.push(`${e.toId}\u0000${e.toColumn}`);
		else down.set(a, [`${e.toId}\u0000${e.toColumn}`]);
	}
	let best = { key: '', n: -1 };
	for (const a of [...down.keys()].sort()) {
		const seen = new Set([a]);
		const stack = [a];
		while (stack.length) for (const m of down.get(stack.pop()!) ?? []) if (!seen.has(m)) seen.add(m) && stack.push(m);
		if (ephemeral(a)) continue;
		const n = [...seen].filter((k) => k !== a && !ephemeral(k)).length;
		if (n > best.n) best = { key: a, n };
	}
	const [uid, column] = best.key.split('\u0000');
	const r = relations.get(uid)!;
	return { assetPath: relationAssetPath({ schema: r.schema, name: r.alias }, { name: 'main' })!, column, downstream: best.n };
}

/** A producer script writing one lake table whose columns each copy one of `inputs`. */
function producerScript(table: string, inputs: { asset_path: string; column: string }[]): string {
	const lines = [`-- Impact benchmark: ${inputs.length} columns of dbt relations copied into a lake table.`, `-- materialize ducklake://main/${table}`];
	inputs.forEach((c, i) => lines.push(`-- column c${i} <- dbt://${c.asset_path}.${c.column}`));
	lines.push('', "ATTACH 'ducklake:lake.ducklake' AS lake;", `CREATE OR REPLACE TABLE lake.${table} AS SELECT 1 AS one;`, '');
	return lines.join('\n');
}

export async function run(): Promise<BenchResult> {
	const project = await benchProject(SIZE.models, SIZE.edges);
	const pick = widestColumn(SIZE.models, SIZE.edges);
	if (pick.downstream >= SIZE.target) throw new Error(`the widest column already reaches ${pick.downstream} columns; the benchmark tops up to ${SIZE.target}`);
	const rows: Row[] = [];
	const ratios: BenchResult['ratios'] = [];
	const metrics: Metric[] = [];
	const environment: Record<string, unknown> = {
		project: `${SIZE.models} models (seed 1), ${SIZE.edges} stored column edges`,
		column: `${pick.assetPath}.${pick.column}`,
		dbt_downstream: pick.downstream,
		runs: RUNS
	};
	const impactQ = `/api/w/${WS}/assets/column_impact?asset_path=${encodeURIComponent(pick.assetPath)}&column=${encodeURIComponent(pick.column)}`;
	const lineageQ = `/api/w/${WS}/assets/column_lineage?asset_path=${encodeURIComponent(pick.assetPath)}`;

	for (const backend of backends()) {
		process.stderr.write(`column-impact: ${backend}: starting the app and deploying …\n`);
		const db = await freshDatabase(backend, 'impact');
		const app = await startApp(db);
		try {
			const client = await Client.login(app.url);
			await setupWorkspace(client, WS, 'bench', project.meta.database);
			await uploadTarget(client, WS, 'deploy', SCRIPT, project.target);
			// dbt's half alone must be what the generator's spec says.
			const dbtOnly = (await client.ok<ColumnImpactAnswer>(impactQ)).body;
			if (dbtOnly.columns.length !== pick.downstream || dbtOnly.truncated) {
				throw new Error(`${backend}: ${dbtOnly.columns.length} downstream columns served (truncated ${dbtOnly.truncated}), the spec says ${pick.downstream}`);
			}
			const need = SIZE.target - pick.downstream;
			const producers = Math.ceil(need / PER_PRODUCER);
			for (let p = 0; p < producers; p++) {
				const n = Math.min(PER_PRODUCER, need - p * PER_PRODUCER);
				const inputs = Array.from({ length: n }, (_, i) => dbtOnly.columns[(p * PER_PRODUCER + i) % dbtOnly.columns.length]);
				await client.post(`/api/w/${WS}/scripts/sql/deploy`, { path: `f/bench/impact_${p}`, content: producerScript(`impact_${p}`, inputs) });
			}
			const whole = (await client.ok<ColumnImpactAnswer>(impactQ)).body;
			const lake = whole.columns.filter((c) => c.kind === 'ducklake').length;
			if (whole.columns.length !== SIZE.target || lake !== need || whole.truncated) {
				throw new Error(`${backend}: ${whole.columns.length} downstream columns (${lake} in lake tables, truncated ${whole.truncated}); expected ${SIZE.target} (${need})`);
			}

			const impact: number[] = [];
			const csv: number[] = [];
			const lineage: number[] = [];
			let impactBytes = 0;
			let lineageEdges = 0;
			// Warm-up, then interleaved so machine-load drift touches every side alike.
			for (let i = -2; i < RUNS; i++) {
				const order = i % 2 === 0 ? ['impact', 'lineage', 'csv'] : ['csv', 'lineage', 'impact'];
				for (const what of order) {
					if (what === 'impact') {
						const t = await client.ok<ColumnImpactAnswer>(impactQ);
						if (t.body.columns.length !== SIZE.target) throw new Error('the impact answer changed between requests');
						impactBytes = t.bytes;
						if (i >= 0) impact.push(t.ms);
					} else if (what === 'csv') {
						const t = await client.ok<string>(`${impactQ}&format=csv`);
						if (String(t.body).split('\r\n').length !== SIZE.target + 2) throw new Error('the CSV answer has the wrong number of rows');
						if (i >= 0) csv.push(t.ms);
					} else {
						const t = await client.ok<{ edges: unknown[] }>(lineageQ);
						lineageEdges = t.body.edges.length;
						if (i >= 0) lineage.push(t.ms);
					}
				}
			}
			rows.push(
				{ case: `${backend} · impact list, ${SIZE.target} downstream columns (JSON)`, http_ms: stat(impact), bytes: impactBytes, producers },
				{ case: `${backend} · impact list as CSV`, http_ms: stat(csv) },
				{ case: `${backend} · column lineage of the relation (${lineageEdges} edges)`, http_ms: stat(lineage) }
			);
			ratios.push({
				name: `${backend}: impact list / column-lineage read of its relation`,
				value: stat(impact).median / stat(lineage).median,
				note: 'HTTP medians, interleaved in one loop; the impact list reads the lineage of every relation it reaches through producers, plus the producers and the tests'
			});
			metrics.push(
				metric(`column_impact_1000_p50_ms`, stat(impact), 'ms', backend, {
					goal: 100,
					note: `${SIZE.target} downstream columns (${pick.downstream} dbt, ${need} lake through ${producers} producers)`
				})
			);
		} finally {
			await app.stop();
			await app.db.drop();
		}
	}
	return {
		name: 'column-impact',
		description: `GET assets/column_impact on the built app for a column with ${SIZE.target} downstream columns, beside GET assets/column_lineage; median [min–max] of ${RUNS} interleaved runs`,
		rows,
		ratios,
		environment,
		metrics
	};
}
