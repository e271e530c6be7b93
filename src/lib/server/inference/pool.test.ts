// inferProject: worker threads, DAG order, a per-model budget, crashes contained, the cache, the
// scan before parsing and the job's time budget.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pathologicalSql } from '../../../../tests/support/pathological-sql';
import { COMPLEXITY_LIMITS, tooComplex } from '../../lineage/infer/complexity';
import type { InferencePlan, PlannedModel, PlannedRelation } from '../../lineage/infer/index';
import { MAX_SQL_CHARS } from '../../lineage/infer/infer';
import { inferProject, type InferCache, type ModelLineage } from './pool';

const rel = (node: string, parts: string[], columns: string[] | null, declared: string[] | null = null): PlannedRelation => ({ node, parts, columns, declared });
const model = (node: string, sql: string | null, dependsOn: string[], outputColumns: string[] | null = null, skip: string | null = null): PlannedModel => ({
	node,
	sql,
	skip: sql === null ? (skip ?? 'no compiled SQL') : null,
	outputColumns,
	dependsOn
});

function planOf(relations: PlannedRelation[], models: PlannedModel[]): InferencePlan {
	return { adapterType: 'duckdb', dialect: 'duckdb', dialectWarning: null, relations, models, notInCatalog: relations.filter((r) => r.columns === null).map((r) => r.node), catalogWarning: null };
}

const SOURCE = rel('source.p.raw.orders', ['db', 'raw', 'orders'], ['id', 'customer_id', 'amount', 'status']);

/** A chain a ← b ← c where only the source is in the catalog: c's `select *` needs b's inferred columns. */
function chainPlan(): InferencePlan {
	return planOf(
		[SOURCE, rel('model.p.a', ['db', 'main', 'a'], null), rel('model.p.b', ['db', 'main', 'b'], null), rel('model.p.c', ['db', 'main', 'c'], null)],
		[
			model('model.p.c', 'select * from db.main.b', ['model.p.b']),
			model('model.p.b', 'select id, total * 2 as doubled from db.main.a', ['model.p.a']),
			model('model.p.a', 'select id, amount as total from db.raw.orders where status = 1', ['source.p.raw.orders']),
			model('model.p.py', null, [], null, 'a Python model')
		]
	);
}

const byNode = (ms: ModelLineage[]) => new Map(ms.map((m) => [m.node, m]));

describe('inferProject', () => {
	it('infers in DAG order: a select * over a model the catalog lacks expands to its inferred columns', async () => {
		const progress: number[] = [];
		const r = await inferProject(chainPlan(), { threads: 2, onProgress: (p) => progress.push(p.done) });
		expect(r.models.map((m) => m.node)).toEqual(['model.p.c', 'model.p.b', 'model.p.a', 'model.p.py']);
		const m = byNode(r.models);
		expect(m.get('model.p.c')!.outcome).toBe('analyzed');
		expect(m.get('model.p.c')!.outputColumns).toEqual(['id', 'doubled']);
		expect(m.get('model.p.c')!.edges.filter((e) => e.kind !== 'scan')).toEqual([
			{ fromNode: 'model.p.b', fromColumn: 'id', toColumn: 'id', kind: 'copy' },
			{ fromNode: 'model.p.b', fromColumn: 'doubled', toColumn: 'doubled', kind: 'copy' }
		]);
		expect(m.get('model.p.b')!.edges).toContainEqual({ fromNode: 'model.p.a', fromColumn: 'total', toColumn: 'doubled', kind: 'mod' });
		expect(m.get('model.p.a')!.edges).toContainEqual({ fromNode: 'source.p.raw.orders', fromColumn: 'status', toColumn: 'total', kind: 'scan' });
		expect(m.get('model.p.py')).toMatchObject({ outcome: 'skipped', message: 'a Python model', cacheKey: null });
		expect(progress.at(-1)).toBe(4);
		expect(progress).toEqual([...progress].sort((x, y) => x - y));
	});

	it('without the DAG order the same select * could not be expanded (the order is what lifts it)', async () => {
		const plan = chainPlan();
		// c no longer says it depends on b: it does not wait, and b's columns are unknown when it runs.
		plan.models[0] = { ...plan.models[0], dependsOn: [] };
		const r = await inferProject(plan, { threads: 1 });
		expect(byNode(r.models).get('model.p.c')!.outcome).toBe('partial');
	});

	it('spreads a big project over two threads when asked', async () => {
		const models = Array.from({ length: 450 }, (_, k) => model(`model.p.m${k}`, `select id, amount + ${k} as amount from db.raw.orders`, [SOURCE.node]));
		const r = await inferProject(planOf([SOURCE], models), { threads: 2 });
		expect(r.models.filter((m) => m.outcome === 'analyzed')).toHaveLength(450);
		expect(r.models[449].edges).toContainEqual({ fromNode: SOURCE.node, fromColumn: 'amount', toColumn: 'amount', kind: 'mod' });
	});

	it('waits through an ephemeral parent for the model it reads, whose columns the catalog lacks', async () => {
		const plan = planOf(
			[SOURCE, rel('model.p.a', ['db', 'main', 'a'], null)],
			[
				model('model.p.c', 'with __dbt__cte__eph as (select * from db.main.a) select * from __dbt__cte__eph', ['model.p.eph']),
				model('model.p.eph', null, ['model.p.a'], null, 'ephemeral'),
				model('model.p.a', 'select id, amount from db.raw.orders', [SOURCE.node])
			]
		);
		const c = byNode((await inferProject(plan, { threads: 1 })).models).get('model.p.c')!;
		expect(c.outcome).toBe('analyzed');
		expect(c.edges).toEqual([
			{ fromNode: 'model.p.a', fromColumn: 'id', toColumn: 'id', kind: 'copy' },
			{ fromNode: 'model.p.a', fromColumn: 'amount', toColumn: 'amount', kind: 'copy' }
		]);
	});

	it('a depends_on cycle does not hang: its models run with what is known', async () => {
		const plan = planOf(
			[SOURCE, rel('model.p.x', ['db', 'main', 'x'], null), rel('model.p.y', ['db', 'main', 'y'], null)],
			[model('model.p.x', 'select * from db.main.y', ['model.p.y']), model('model.p.y', 'select * from db.main.x', ['model.p.x']), model('model.p.z', 'select id from db.raw.orders', [])]
		);
		const r = await inferProject(plan, { threads: 1 });
		expect(r.models.map((m) => m.outcome)).toEqual(['partial', 'partial', 'analyzed']);
	});

	it('passes the plan warnings through', async () => {
		const plan = { ...chainPlan(), dialectWarning: 'dialect w', catalogWarning: 'catalog w' };
		expect((await inferProject(plan, { threads: 1 })).warnings).toEqual(['dialect w', 'catalog w']);
	});

	it('stops when aborted', async () => {
		const ctl = new AbortController();
		ctl.abort();
		await expect(inferProject(chainPlan(), { signal: ctl.signal })).rejects.toThrow(/abort/i);
		const late = new AbortController();
		const running = inferProject(chainPlan(), { signal: late.signal, onProgress: (p) => p.done === 2 && late.abort() });
		await expect(running).rejects.toThrow(/abort/i);
	});
});

describe('inferProject on bad input: bounded per model, the others unaffected', () => {
	const good = 'select id, amount from db.raw.orders';
	const nested = `select ${'('.repeat(500)}amount${')'.repeat(500)} as x from db.raw.orders`;
	const union = Array.from({ length: 200 }, (_, k) => `select id, amount + ${k} as amount from db.raw.orders`).join('\nunion all\n');
	const columns = Array.from({ length: 4000 }, (_, k) => `amount + ${k} as c${k}`).join(',\n  ');
	// A megabyte, just under MAX_SQL_CHARS (past it a model fails before parsing): the budget bounds it.
	const huge = `select ${columns}\nfrom db.raw.orders\n${'-- padding so the model is a megabyte of SQL\n'.repeat(Math.floor((MAX_SQL_CHARS - columns.length - 30) / 45))}`;
	const cases: { name: string; sql: string; outcome: string[]; message?: RegExp }[] = [
		{ name: 'SQL that does not parse', sql: 'select id,, from db.raw.orders where', outcome: ['failed'], message: /./ },
		{ name: '500 nested parentheses', sql: nested, outcome: ['too_complex'], message: /^too complex to analyse: brackets or CASE expressions nested 500 deep, over the limit of 100 \(checked before parsing\)$/ },
		// Either within the budget or over it, depending on the machine: never a crash, never unbounded.
		{ name: 'a 200-branch UNION', sql: union, outcome: ['analyzed', 'failed'] },
		{ name: 'a 1 MB compiled model', sql: huge, outcome: ['analyzed', 'failed'] }
	];

	it('the megabyte model is under every limit of the scan: the parser and the budget are what bound it', () => {
		expect(tooComplex(huge, 'duckdb')).toBeNull();
	});

	it.each(cases)('$name', async ({ sql, outcome, message }) => {
		const plan = planOf([SOURCE], [model('model.p.before', good, []), model('model.p.bad', sql, []), model('model.p.after', good, [])]);
		// How long this takes belongs in bench/: here only what each model ends as.
		const r = await inferProject(plan, { threads: 1, budgetMs: 2_000 });
		const m = byNode(r.models);
		expect(sql.length).toBeLessThanOrEqual(MAX_SQL_CHARS);
		expect(outcome).toContain(m.get('model.p.bad')!.outcome);
		if (m.get('model.p.bad')!.outcome !== 'analyzed') expect(m.get('model.p.bad')!.message).toMatch(message ?? /too complex to analyse/);
		expect([m.get('model.p.before')!.outcome, m.get('model.p.after')!.outcome]).toEqual(['analyzed', 'analyzed']);
	});

	it('a parse error carries the parser’s message, line and column', async () => {
		const r = await inferProject(planOf([SOURCE], [model('model.p.bad', 'select id\nfrom db.raw.orders\nwhere (amount > ', [])]), { threads: 1 });
		const bad = r.models[0];
		expect(bad.outcome).toBe('failed');
		expect(bad.message).not.toBe('');
		expect(bad.line).toBe(3);
		expect(bad.column).toBeGreaterThan(0);
	});

	it('a model over the budget fails as too complex, its thread is replaced, and the rest go on', async () => {
		// The megabyte model takes 345–735 ms to parse on an idle machine of this kind (more under
		// load), over 150 ms; a one-line model takes under 1 ms. (At an 800 ms budget it passed on a
		// loaded machine and failed on an idle one.)
		const plan = planOf([SOURCE], [model('model.p.slow', huge, []), ...Array.from({ length: 4 }, (_, k) => model(`model.p.ok${k}`, good, []))]);
		const r = await inferProject(plan, { threads: 1, budgetMs: 150 });
		const m = byNode(r.models);
		expect(m.get('model.p.slow')).toMatchObject({ outcome: 'failed', cacheKey: null, message: 'too complex to analyse: over the 150 ms budget, twice' });
		expect(r.models.filter((x) => x.node.startsWith('model.p.ok')).map((x) => x.outcome)).toEqual(['analyzed', 'analyzed', 'analyzed', 'analyzed']);
	});

	it('a thread out of memory fails only its model, and a fresh thread takes the rest', async () => {
		// 20 000 select items make a syntax tree far over a 16 MB heap; a one-column model fits it.
		// The scan before parsing would stop this model first: it is off, so the parser sees it.
		const wide = `select ${Array.from({ length: 20_000 }, (_, k) => `amount + ${k} as c${k}`).join(', ')} from db.raw.orders`;
		const plan = planOf([SOURCE], [model('model.p.wide', wide, []), model('model.p.after', good, [])]);
		const r = await inferProject(plan, { threads: 1, threadHeapMb: 16, budgetMs: 30_000, complexityLimits: null });
		const m = byNode(r.models);
		expect(m.get('model.p.wide')).toMatchObject({ outcome: 'failed', cacheKey: null });
		expect(m.get('model.p.wide')!.message).toMatch(/too complex to analyse: out of memory/);
		expect(m.get('model.p.after')!.outcome).toBe('analyzed');
		// Two threads start through tsx here: on a loaded 2-core machine that alone nears 30 s.
	}, 120_000);
});

/** A cache in a Map, counting what it is asked. */
class MapCache implements InferCache {
	entries = new Map<string, ModelLineage>();
	asked = 0;
	put_ = 0;
	async get(keys: string[]) {
		this.asked += keys.length;
		return new Map(keys.filter((k) => this.entries.has(k)).map((k) => [k, this.entries.get(k)!]));
	}
	async put(entries: ModelLineage[]) {
		this.put_ += entries.length;
		for (const e of entries) this.entries.set(e.cacheKey!, e);
	}
}

describe('inferProject with a cache', () => {
	// 40 models in 4 layers; none in the catalog, so each layer's `select *` depends on the one above.
	function layered(change: Set<string> = new Set(), widen = new Set<string>()): InferencePlan {
		const relations: PlannedRelation[] = [SOURCE];
		const models: PlannedModel[] = [];
		for (let layer = 0; layer < 4; layer++)
			for (let k = 0; k < 10; k++) {
				const node = `model.p.m${layer}_${k}`;
				relations.push(rel(node, ['db', 'main', `m${layer}_${k}`], null));
				const parent = layer === 0 ? 'db.raw.orders' : `db.main.m${layer - 1}_${k}`;
				const extra = widen.has(node) ? ', 1 as added' : '';
				const filter = change.has(node) ? ' where id > 0' : '';
				models.push(model(node, `select *${extra} from ${parent}${filter}`, [layer === 0 ? SOURCE.node : `model.p.m${layer - 1}_${k}`]));
			}
		return planOf(relations, models);
	}

	it('a re-run hits for every model; 10 changed models re-infer only those, and their children when their columns change', async () => {
		const cache = new MapCache();
		const first = await inferProject(layered(), { threads: 2, cache });
		expect(first.cacheHits).toBe(0);
		expect(first.models.every((m) => m.outcome === 'analyzed' && m.cacheKey)).toBe(true);
		expect(cache.put_).toBe(40);

		const again = await inferProject(layered(), { threads: 2, cache });
		expect(again.cacheHits).toBe(40);
		// Models with the same SQL and parents share an entry: only the time may be another's.
		const timeless = (ms: ModelLineage[]) => ms.map((m) => ({ ...m, ms: null }));
		expect(timeless(again.models)).toEqual(timeless(first.models));

		// Ten changed models whose columns stay the same (a new filter): only those re-infer.
		const filtered = new Set(Array.from({ length: 10 }, (_, k) => `model.p.m${k % 4}_${k}`));
		const r1 = await inferProject(layered(filtered), { threads: 2, cache });
		expect(r1.cacheHits).toBe(30);

		// Ten changed models that gain a column: they re-infer, and so do their children (and theirs).
		const widened = new Set(Array.from({ length: 10 }, (_, k) => `model.p.m2_${k}`));
		const r2 = await inferProject(layered(new Set(), widened), { threads: 2, cache });
		expect(r2.cacheHits).toBe(20);
		const m3 = byNode(r2.models).get('model.p.m3_4')!;
		expect(m3.outputColumns).toEqual(['id', 'customer_id', 'amount', 'status', 'added']);
	});
});

describe('the scan before parsing', () => {
	const good = (k: number) => `select id, amount + ${k} as amount from db.raw.orders`;

	it('marks every pathological shape too_complex with the figure that tripped, uncached; the other models are analysed', async () => {
		// Five of each shape, each a distinct model, between ordinary ones.
		const bad = Array.from({ length: 5 }, (_, v) => pathologicalSql({ variant: v }).map((p, i) => ({ ...p, node: `model.p.bad_${i}_${v}` }))).flat();
		const models = bad.flatMap((b, k) => [model(b.node, b.sql, [SOURCE.node]), model(`model.p.ok${k}`, good(k), [SOURCE.node])]);
		const cache = new MapCache();
		const r = await inferProject(planOf([SOURCE], models), { threads: 1, cache });
		const m = byNode(r.models);
		for (const b of bad) {
			const got = m.get(b.node)!;
			expect(got).toMatchObject({ outcome: 'too_complex', edges: [], cacheKey: null, message: tooComplex(b.sql, 'duckdb')!.message });
			expect(got.message).toMatch(new RegExp(`over the limit of ${COMPLEXITY_LIMITS[b.trips].toLocaleString('en-US')} \\(checked before parsing\\)$`));
		}
		expect(r.models.filter((x) => x.node.startsWith('model.p.ok')).map((x) => x.outcome)).toEqual(bad.map(() => 'analyzed'));
		expect(r.overBudget).toBe(0);
		// Only the analysed models are cached: a verdict of the scan costs less than a lookup.
		expect(cache.put_).toBe(bad.length);
	});

	it('a model waiting for a too_complex parent is released and analysed with what is known', async () => {
		const [parens] = pathologicalSql();
		const plan = planOf(
			[SOURCE, rel('model.p.a', ['db', 'main', 'a'], null)],
			[model('model.p.child', 'select * from db.main.a', ['model.p.a']), model('model.p.a', parens.sql, [SOURCE.node])]
		);
		const r = byNode((await inferProject(plan, { threads: 1 })).models);
		expect(r.get('model.p.a')!.outcome).toBe('too_complex');
		expect(r.get('model.p.child')!.outcome).toBe('partial');
	});
});

describe("the job's time budget", () => {
	it('when it runs out, the models not yet inferred fail with the reason and the rest is answered', async () => {
		const ok = (k: number) => model(`model.p.ok${k}`, `select id, amount + ${k} as amount from db.raw.orders`, [SOURCE.node]);
		const cache = new MapCache();
		await inferProject(planOf([SOURCE], [ok(1), ok(2)]), { threads: 1, cache });
		expect(cache.entries.size).toBe(2);
		const [parens, wide] = pathologicalSql();
		// Limits that let the 20,000-column select through to the parser, which takes seconds on it;
		// ok1 and ok2 come from the cache, the nested parentheses from the scan: none of them needs a
		// thread. `after` waits for the wide model's columns (the catalog lacks them).
		const plan = planOf(
			[SOURCE, rel('model.p.wide', ['db', 'main', 'wide'], null)],
			[
				ok(1),
				model('model.p.parens', parens.sql, []),
				model('model.p.wide', wide.sql, []),
				model('model.p.after', 'select * from db.main.wide', ['model.p.wide']),
				ok(2),
				model('model.p.py', null, [], null, 'a Python model')
			]
		);
		const r = await inferProject(plan, { threads: 1, cache, budgetMs: 120_000, jobBudgetMs: 300, complexityLimits: { ...COMPLEXITY_LIMITS, tokens: 1_000_000 } });
		const m = byNode(r.models);
		expect(r.models.map((x) => [x.node, x.outcome])).toEqual([
			['model.p.ok1', 'analyzed'],
			['model.p.parens', 'too_complex'],
			['model.p.wide', 'failed'],
			['model.p.after', 'failed'],
			['model.p.ok2', 'analyzed'],
			['model.p.py', 'skipped']
		]);
		for (const node of ['model.p.wide', 'model.p.after'])
			expect(m.get(node)).toMatchObject({ cacheKey: null, message: "not analysed: the lineage job's time budget of 0.3 s ran out first (the next deploy tries it again)" });
		expect(r.overBudget).toBe(2);
		expect(r.cacheHits).toBe(2);
	});

	it('models ready together are inferred shortest SQL first, so a budget cut leaves the most analysed', async () => {
		const union = Array.from({ length: 50 }, (_, k) => `select id, amount + ${k} as amount from db.raw.orders`).join('\nunion all\n');
		const plan = planOf([SOURCE], [model('model.p.long', union, []), model('model.p.short', 'select id from db.raw.orders', []), model('model.p.mid', 'select id, amount from db.raw.orders', [])]);
		const cache = new MapCache();
		const order: string[] = [];
		cache.put = async (entries) => {
			order.push(...entries.map((e) => e.node));
		};
		await inferProject(plan, { threads: 1, cache });
		// One thread answers in the order it was given the models; the cache is written in that order.
		expect(order).toEqual(['model.p.short', 'model.p.mid', 'model.p.long']);
	});
});

describe('the parser stays off the caller’s thread', () => {
	// polyglot-sql costs ~120 MB per isolate: only the threads may load it (through a dynamic import).
	const staticImports = (file: string) =>
		[...readFileSync(new URL(file, import.meta.url), 'utf8').matchAll(/^(?:import|export)(?! type)[^;]*? from '([^']+)';/gms)].map((m) => m[1]);
	it.each([
		['./pool.ts', '../../lineage/infer/manifest'],
		['../../lineage/infer/index.ts', './manifest'],
		['../../lineage/infer/manifest.ts', './dialect']
	])('%s imports neither the walker nor the parser (it does import %s)', (file, expected) => {
		const imports = staticImports(file);
		expect(imports).toContain(expected);
		expect(imports.filter((i) => i.endsWith('/infer') || i === './infer' || i.includes('polyglot'))).toEqual([]);
	});
});
