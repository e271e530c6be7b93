// Which SQL parser infers dbt column lineage (issue 15, item 4), measured on every real fixture with
// compiled SQL, and the coverage of the inference (inferProject) on the same fixtures (item 9).
//
//   npx tsx bench/sql-parsers.ts
//
// Candidates are looked for in the project's node_modules, then in SQL_PARSERS_DIR (a scratch
// folder with `npm install @polyglot-sql/sdk @pondpilot/flowscope-core` in it, so the losers need
// not be project dependencies); a candidate found in neither is skipped with a notice. The machine
// is shared, so timings are reported as ratios to the fastest candidate, measured interleaved
// (candidate by candidate on each model) in one run.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const FIXTURES = path.resolve(process.env.TRIBUTARY_FIXTURES ?? path.join(process.cwd(), '..', 'shared', 'fixtures'));
const FIXTURE_DIRS = [
	'jaffle-shop-1.12-duckdb-docs-generate',
	'jaffle-shop-1.9-bigquery-build',
	'dbt-bouncer-1.11.2-build',
	'fivetran-shopify-holistic-1.8.6-v12',
	'fivetran-sap-1.10.10-v12',
	// Not in the issue's list: Snowflake projects, a check that inference is not tuned to the five.
	'tuva-1.3.1-snowflake-build-with-warn',
	'tuva-1.4.9-snowflake-large-v8'
];
const ROUNDS = Number(process.env.BENCH_RUNS ?? 3);
const SEARCH = [process.cwd(), process.env.SQL_PARSERS_DIR ?? '/tmp/parsers'];

interface Candidate {
	name: string;
	/** Parses one statement; throws or returns an error message when it does not parse. */
	parse(sql: string, adapter: string): Promise<string | null> | string | null;
}

function packageDir(name: string): string | null {
	for (const root of SEARCH) {
		const dir = path.join(root, 'node_modules', name);
		if (existsSync(path.join(dir, 'package.json'))) return dir;
	}
	return null;
}

async function loadCandidates(): Promise<Candidate[]> {
	const out: Candidate[] = [];
	const nsp = packageDir('node-sql-parser');
	if (nsp) {
		const req = createRequire(path.join(nsp, 'package.json'));
		const { Parser } = req(nsp);
		const parser = new Parser();
		// The grammars node-sql-parser has for each adapter; DuckDB has none, and Snowflake's reads
		// most of its SELECT syntax (as the producers used it before the one engine), with PostgreSQL as the fallback.
		const grammars: Record<string, string[]> = {
			duckdb: ['Snowflake', 'PostgreSQL'],
			postgres: ['PostgreSQL'],
			redshift: ['Redshift', 'PostgreSQL'],
			snowflake: ['Snowflake'],
			bigquery: ['BigQuery'],
			databricks: ['Hive'],
			spark: ['Hive']
		};
		out.push({
			name: 'node-sql-parser',
			parse(sql, adapter) {
				let first: string | null = null;
				for (const database of grammars[adapter] ?? ['PostgreSQL']) {
					try {
						parser.astify(sql, { database });
						return null;
					} catch (e) {
						first ??= String((e as Error).message).split('\n')[0].slice(0, 120);
					}
				}
				return first;
			}
		});
	} else process.stderr.write('[notice] node-sql-parser not installed: skipped\n');

	const poly = packageDir('@polyglot-sql/sdk');
	if (poly) {
		const mod = await import(pathToFileURL(path.join(poly, 'dist', 'index.node.js')).href);
		if (typeof mod.init === 'function') await mod.init();
		const dialects: Record<string, string> = { postgres: 'postgresql', databricks: 'databricks', spark: 'spark' };
		out.push({
			name: '@polyglot-sql/sdk',
			parse(sql, adapter) {
				const r = mod.parse(sql, dialects[adapter] ?? adapter);
				return r.success ? null : String(r.error ?? 'error').slice(0, 120);
			}
		});
	} else process.stderr.write('[notice] @polyglot-sql/sdk not installed: skipped\n');

	const flow = packageDir('@pondpilot/flowscope-core');
	if (flow) {
		const mod = await import(pathToFileURL(path.join(flow, 'dist', 'index.js')).href);
		await mod.initWasm?.();
		const dialects: Record<string, string> = { spark: 'databricks' };
		out.push({
			name: '@pondpilot/flowscope-core',
			async parse(sql, adapter) {
				const r = await mod.analyzeSql({ sql, dialect: dialects[adapter] ?? adapter });
				const err = (r.issues ?? []).find((i: { severity: string; code: string }) => i.severity === 'error' && i.code === 'PARSE_ERROR');
				return err ? String(err.message).slice(0, 120) : null;
			}
		});
	} else process.stderr.write('[notice] @pondpilot/flowscope-core not installed: skipped\n');
	return out;
}

interface FixtureModels {
	dir: string;
	adapter: string;
	sqls: string[];
}

function readFixture(dir: string): FixtureModels & { manifest: any; catalog: any } {
	const manifest = JSON.parse(readFileSync(path.join(FIXTURES, dir, 'manifest.json'), 'utf8'));
	const catalogPath = path.join(FIXTURES, dir, 'catalog.json');
	const catalog = existsSync(catalogPath) ? JSON.parse(readFileSync(catalogPath, 'utf8')) : null;
	const sqls = Object.values(manifest.nodes as Record<string, any>)
		.filter((n) => n.resource_type === 'model' && n.language !== 'python' && typeof n.compiled_code === 'string' && n.compiled_code.trim() !== '')
		.map((n) => n.compiled_code as string);
	return { dir, adapter: manifest.metadata.adapter_type, sqls, manifest, catalog };
}

function installSize(name: string): string {
	const dir = packageDir(name);
	if (!dir) return '–';
	let bytes = 0;
	const walk = (d: string) => {
		for (const e of readdirSync(d, { withFileTypes: true })) {
			const p = path.join(d, e.name);
			if (e.isDirectory()) walk(p);
			else bytes += statSync(p).size;
		}
	};
	walk(dir);
	return `${(bytes / 1e6).toFixed(1)} MB`;
}

async function main() {
	if (!existsSync(FIXTURES)) {
		process.stderr.write(`[notice] no fixtures at ${FIXTURES}: nothing to measure\n`);
		return;
	}
	const fixtures = FIXTURE_DIRS.filter((d) => existsSync(path.join(FIXTURES, d))).map(readFixture);
	const candidates = process.env.SKIP_PARSERS ? [] : await loadCandidates();

	// Parse success, and time per candidate interleaved model by model.
	const ok = new Map<string, Map<string, number>>();
	const firstErrors = new Map<string, Map<string, string[]>>();
	// Per candidate, each round's total time; the fastest round is reported (least disturbed by the shared machine).
	const ms = new Map<string, number[]>();
	let models = 0;
	for (const c of candidates) {
		ok.set(c.name, new Map());
		firstErrors.set(c.name, new Map());
		ms.set(c.name, Array(ROUNDS).fill(0));
	}
	for (let round = 0; round < ROUNDS; round++) {
		for (const f of fixtures) {
			for (const sql of f.sqls) {
				if (round === 0) models++;
				for (const c of candidates) {
					const t0 = performance.now();
					let error: string | null;
					try {
						error = await c.parse(sql, f.adapter);
					} catch (e) {
						error = String((e as Error).message ?? e).slice(0, 120);
					}
					ms.get(c.name)![round] += performance.now() - t0;
					if (round > 0) continue;
					const perFixture = ok.get(c.name)!;
					perFixture.set(f.dir, (perFixture.get(f.dir) ?? 0) + (error === null ? 1 : 0));
					if (error !== null) {
						const errs = firstErrors.get(c.name)!;
						errs.set(f.dir, [...(errs.get(f.dir) ?? []), error]);
					}
				}
			}
		}
	}
	const perModel = new Map([...ms].map(([k, v]) => [k, Math.min(...v) / models]));
	const fastest = Math.min(...perModel.values());
	if (candidates.length) console.log(`\n## Parse success (share of models whose compiled SQL parses), ${models} models, ${ROUNDS} rounds\n`);
	console.log(`| candidate | ${fixtures.map((f) => `${f.dir} (${f.adapter}, ${f.sqls.length})`).join(' | ')} | ms/model, fastest round (ratio to fastest) | install size |`);
	console.log(`|---|${fixtures.map(() => '---|').join('')}---|---|`);
	for (const c of candidates) {
		const cells = fixtures.map((f) => {
			const n = ok.get(c.name)!.get(f.dir) ?? 0;
			return `${n}/${f.sqls.length} (${((100 * n) / f.sqls.length).toFixed(0)}%)`;
		});
		const pm = perModel.get(c.name)!;
		console.log(`| ${c.name} | ${cells.join(' | ')} | ${pm.toFixed(2)} (${(pm / fastest).toFixed(1)}×) | ${installSize(c.name)} |`);
	}
	for (const c of candidates) {
		for (const [dir, errs] of firstErrors.get(c.name)!) {
			console.log(`- ${c.name} on ${dir}: ${errs.length} failures, e.g. ${[...new Set(errs)].slice(0, 2).join(' / ')}`);
		}
	}

	// Coverage of the inference, as deploy runs it: inferProject (DAG order, one thread, a generous
	// budget so that the shared machine's load does not decide outcomes). The time is each model's
	// on its thread, parse included, the fastest of the rounds per model.
	if (process.env.SKIP_COVERAGE) return;
	const { inferencePlan } = await import('../src/lib/lineage/infer/manifest');
	const { inferProject } = await import('../src/lib/server/inference/pool');
	console.log('\n## Inference coverage (inferProject)\n');
	console.log('| fixture | adapter | models | analyzed | partial | failed | skipped | analyzed of not skipped | ms/model (median) | top reasons (models) |');
	console.log('|---|---|---|---|---|---|---|---|---|---|');
	const skipNotes: string[] = [];
	for (const f of fixtures) {
		const plan = inferencePlan(f.manifest, f.catalog);
		const rounds: Awaited<ReturnType<typeof inferProject>>['models'][] = [];
		for (let round = 0; round < ROUNDS; round++) rounds.push((await inferProject(plan, { budgetMs: 20_000 })).models);
		const models = rounds[0];
		const counts = { analyzed: 0, partial: 0, failed: 0, skipped: 0 };
		const reasons = new Map<string, number>();
		for (const m of models) {
			counts[m.outcome]++;
			// A model counts once, under its first untraced column's innermost cause.
			const why = m.outcome === 'failed' ? m.message : m.outcome === 'partial' ? m.untraced[0].reason : null;
			if (why) reasons.set(reasonClass(why), (reasons.get(reasonClass(why)) ?? 0) + 1);
		}
		const fastest = models
			.map((m, k) => Math.min(...rounds.map((r) => r[k].ms ?? Infinity)))
			.filter(Number.isFinite)
			.sort((a, b) => a - b);
		const median = fastest.length ? fastest[Math.floor(fastest.length / 2)] : 0;
		const total = models.length;
		const timed = total - counts.skipped;
		const pct = (n: number) => `${n} (${((100 * n) / total).toFixed(0)}%)`;
		const top = [...reasons].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([w, n]) => `${w} (${n})`).join('; ');
		const skips = new Map<string, number>();
		for (const m of plan.models) if (m.skip) skips.set(m.skip, (skips.get(m.skip) ?? 0) + 1);
		const analyzedShare = `${((100 * counts.analyzed) / Math.max(timed, 1)).toFixed(0)}%`;
		console.log(
			`| ${f.dir} | ${f.adapter} | ${total} | ${pct(counts.analyzed)} | ${pct(counts.partial)} | ${pct(counts.failed)} | ${pct(counts.skipped)} | ${analyzedShare} | ${median.toFixed(2)} | ${top || '–'} |`
		);
		skipNotes.push(`- ${f.dir} skipped: ${[...skips].map(([w, n]) => `${w} (${n})`).join('; ') || 'none'}; ${plan.catalogWarning ?? 'catalog complete'}`);
	}
	console.log(`\n${skipNotes.join('\n')}`);
}

/** A reason's innermost cause, without the model-specific names. */
function reasonClass(s: string): string {
	const inner = s.split(': ').pop()!;
	return inner
		.replace(/line \d+, column \d+/g, 'line L, column C')
		.replace(/[\w$-]+(\.[\w$-]+)+/g, 'R')
		.replace(/^cannot tell which of .* has .*/, 'a column unqualified over two inputs the catalog lacks')
		.replace(/^[\w$]+ (is in several inputs|is not a column of)/, 'C $1')
		.slice(0, 100);
}

main().catch((e) => {
	console.error(e);
	process.exit(1);
});
