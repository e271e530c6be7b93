// Column lineage in one process against one app database (after its server stopped): the app's
// own read (unpinnedColumnLineage, what the route runs after auth) and the recursive CTE of
// bench/cte.ts, interleaved run by run, with the answers compared edge for edge.
//
// Two states of the same database, in this order:
//   stored   — as the app leaves it. PGlite runs no autovacuum and the app never runs ANALYZE,
//              so the planner has no statistics. The CTE runs once per relation (it can take
//              minutes), smallest component first, and the rest are skipped once one run has
//              taken longer than --cte-budget-s.
//   analyzed — after ANALYZE (what autovacuum does on Postgres a minute after a deploy): the
//              strongest baseline, measured --runs times after --warmup runs.
// Prints JSON.
import { sql } from 'drizzle-orm';
import { parseArgs } from 'node:util';
import type { Principal } from '../../src/lib/server/access';
import { openDatabase } from '../../src/lib/server/db';
import { unpinnedColumnLineage } from '../../src/lib/server/lineage-api';
import { compareAnswers, runCte, type CteForm, type CteKey, type EdgeTuple } from '../cte';

const { values } = parseArgs({
	options: {
		url: { type: 'string' },
		'data-dir': { type: 'string' },
		key: { type: 'string' },
		paths: { type: 'string' },
		runs: { type: 'string' },
		warmup: { type: 'string' },
		'stored-runs': { type: 'string' },
		'cte-budget-s': { type: 'string' },
		forms: { type: 'string' }
	}
});
const key = JSON.parse(values.key!) as CteKey;
const paths = JSON.parse(values.paths!) as string[];
const runs = Number(values.runs ?? 5);
const warmup = Number(values.warmup ?? 1);
const storedRuns = Number(values['stored-runs'] ?? 0);
const budgetMs = Number(values['cte-budget-s'] ?? 60) * 1000;
const forms = (values.forms ?? 'lateral').split(',') as CteForm[];

const h = await openDatabase(values.url ? { url: values.url, migrate: false } : { dataDir: values['data-dir']!, migrate: false });
const principal: Principal = {
	workspace: key.workspace,
	username: 'bench',
	accountId: 'bench',
	isAdmin: true,
	instanceAdmin: true,
	groups: [],
	readFolders: new Set(),
	writeFolders: new Set(),
	scopes: null,
	via: 'session'
};

async function app(assetPath: string): Promise<{ ms: number; edges: EdgeTuple[]; truncated: boolean }> {
	const t0 = performance.now();
	const a = await unpinnedColumnLineage(h, principal, [assetPath], null);
	return { ms: performance.now() - t0, edges: a.edges as EdgeTuple[], truncated: a.truncated };
}

interface Phase {
	app: number[];
	/** Per CTE form: run times; null when skipped over the budget. */
	cte: Record<string, number[] | null>;
}
interface PathOut {
	path: string;
	stored: Phase | null;
	analyzed: Phase;
	appEdges: number;
	truncated: boolean;
	cteEdges: Record<string, number>;
	equal: Record<string, boolean>;
	mismatch: Record<string, { onlyApp: number; onlyCte: number }>;
	analyzeMs?: number;
}
const out: PathOut[] = paths.map((p) => ({
	path: p,
	stored: null,
	analyzed: { app: [], cte: Object.fromEntries(forms.map((f) => [f, []])) },
	appEdges: 0,
	truncated: false,
	cteEdges: {},
	equal: {},
	mismatch: {}
}));

function check(o: PathOut, a: { edges: EdgeTuple[]; truncated: boolean }, f: CteForm, c: { edges: EdgeTuple[] }) {
	const cmp = compareAnswers(a.edges, c.edges);
	o.appEdges = a.edges.length;
	o.truncated = a.truncated;
	o.cteEdges[f] = cmp.b;
	// Equal in every phase, or it is recorded as unequal.
	o.equal[f] = (o.equal[f] ?? true) && cmp.equal;
	o.mismatch[f] = { onlyApp: Math.max(o.mismatch[f]?.onlyApp ?? 0, cmp.onlyA), onlyCte: Math.max(o.mismatch[f]?.onlyCte ?? 0, cmp.onlyB) };
}

if (storedRuns > 0) {
	let over = false;
	for (const o of out) {
		const phase: Phase = { app: [], cte: {} };
		// The first read of a fresh process pays the cache: one unmeasured read first.
		await app(o.path);
		for (let r = 0; r < storedRuns; r++) phase.app.push((await app(o.path)).ms);
		for (const f of forms) {
			if (over) {
				phase.cte[f] = null;
				continue;
			}
			const c = await runCte(h, key, o.path, f);
			check(o, await app(o.path), f, c);
			phase.cte[f] = [c.ms];
			if (c.ms > budgetMs) over = true;
		}
		o.stored = phase;
	}
}

const t0 = performance.now();
await h.rows(sql`analyze`);
const analyzeMs = performance.now() - t0;

for (let r = 0; r < warmup + runs; r++) {
	for (const o of out) {
		const a = await app(o.path);
		const ctes: Record<string, { ms: number; edges: EdgeTuple[] }> = {};
		for (const f of forms) ctes[f] = await runCte(h, key, o.path, f);
		if (r === 0) for (const f of forms) check(o, a, f, ctes[f]);
		if (r < warmup) continue;
		o.analyzed.app.push(a.ms);
		for (const f of forms) o.analyzed.cte[f]!.push(ctes[f].ms);
	}
}
await h.close();
out[0].analyzeMs = analyzeMs;
process.stdout.write(`${JSON.stringify(out)}\n`);
