// Column lineage in one process against one app database (after its server stopped), in the
// state the app left it: the app's own read (unpinnedColumnLineage, what the route runs after
// auth) and the recursive CTE of bench/cte.ts, interleaved run by run, with the answers compared
// edge for edge. Also says whether the planner had statistics for dbt_column_edge (the deploy
// runs ANALYZE after a big ingest; without it PGlite, which has no autovacuum, has none).
// Prints JSON.
import { sql } from 'drizzle-orm';
import { parseArgs } from 'node:util';
import { openDatabase } from '../../src/lib/server/db';
import { unpinnedColumnLineage } from '../../src/lib/server/api/lineage/reads';
import { compareAnswers, runCte, type CteForm, type CteKey, type EdgeTuple } from '../cte';
import { grantOf } from '../../src/lib/server/access';
import { benchAdmin } from '../lib';

const { values } = parseArgs({
	options: {
		url: { type: 'string' },
		'data-dir': { type: 'string' },
		key: { type: 'string' },
		paths: { type: 'string' },
		runs: { type: 'string' },
		warmup: { type: 'string' },
		forms: { type: 'string' }
	}
});
const key = JSON.parse(values.key!) as CteKey;
const paths = JSON.parse(values.paths!) as string[];
const runs = Number(values.runs ?? 5);
const warmup = Number(values.warmup ?? 1);
const forms = (values.forms ?? 'lateral').split(',') as CteForm[];

const database = await openDatabase(values.url ? { url: values.url, migrate: false } : { dataDir: values['data-dir']!, migrate: false });
const grant = grantOf(benchAdmin(key.workspace));

// pg_statistic rows exist for a table once it has been analyzed.
const [stats] = await database.rows<{ n: unknown }>(sql`select count(*) as n from pg_statistic where starelid = 'dbt_column_edge'::regclass`);
const hasStatistics = Number(stats?.n ?? 0) > 0;

async function app(assetPath: string): Promise<{ ms: number; edges: EdgeTuple[]; truncated: boolean }> {
	const t0 = performance.now();
	const a = await unpinnedColumnLineage(grant, database, [assetPath], null);
	return { ms: performance.now() - t0, edges: a.edges as EdgeTuple[], truncated: a.truncated };
}

/** One asked relation's figures, as the parent (bench/column-lineage.ts) reads them. */
export interface PathOut {
	path: string;
	app: number[];
	cte: Record<string, number[]>;
	appEdges: number;
	truncated: boolean;
	cteEdges: Record<string, number>;
	equal: Record<string, boolean>;
	mismatch: Record<string, { onlyApp: number; onlyCte: number }>;
	hasStatistics: boolean;
}
const out: PathOut[] = paths.map((p) => ({
	path: p,
	app: [],
	cte: Object.fromEntries(forms.map((f) => [f, []])),
	appEdges: 0,
	truncated: false,
	cteEdges: {},
	equal: {},
	mismatch: {},
	hasStatistics
}));

for (let r = 0; r < warmup + runs; r++) {
	for (const o of out) {
		const a = await app(o.path);
		const ctes: Record<string, { ms: number; edges: EdgeTuple[] }> = {};
		for (const f of forms) ctes[f] = await runCte(database, key, o.path, f);
		if (r === 0) {
			o.appEdges = a.edges.length;
			o.truncated = a.truncated;
			for (const f of forms) {
				const c = compareAnswers(a.edges, ctes[f].edges);
				o.cteEdges[f] = c.b;
				o.equal[f] = c.equal;
				o.mismatch[f] = { onlyApp: c.onlyA, onlyCte: c.onlyB };
			}
		}
		if (r < warmup) continue;
		o.app.push(a.ms);
		for (const f of forms) o.cte[f].push(ctes[f].ms);
	}
}
await database.close();
process.stdout.write(`${JSON.stringify(out)}\n`);
