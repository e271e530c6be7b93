// Producer analysis before and after the one SQL-lineage engine, side by side in one run
// (`npm run bench -- producer-engine`): the time to analyse each script of the producer corpus
// (tests/support/producer-corpus.ts) and of the demo's producers (src/lib/server/demo/producers.ts),
// the parse and the inference as the deploy runs them, and whether both answer the same.
//
//   before: the producers' own analysis (node-sql-parser + producer-lineage.ts) as it was at
//           BENCH_PRODUCER_BASE_REV (default 5b3fb39, the last commit with it), taken from git
//           with `git archive` into the system's temporary folder and bundled with esbuild;
//           node-sql-parser is resolved from the project's node_modules, then from
//           SQL_PARSERS_DIR (default /tmp/parsers, a scratch folder with `npm install
//           node-sql-parser@5.4.0` in it). Without it only the engine is measured, with a notice.
//   after:  analyzeProducer (src/lib/server/producers/analyze.ts) in this process, and the
//           deploy's own path, the analysis thread (analysis-thread.ts): its first script pays
//           for the thread's start and the parser's compilation, the next ones do not.
//
// Both run interleaved in the same process, round by round (BENCH_RUNS, default 15; 2 quick), the
// order alternating, after one untimed pass each; each figure is the median of the rounds with its
// range. Neither needs a database: the figures are recorded with the PGlite ones
// (bench/results.json).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { demoProducers, roasteryProducers } from '../src/lib/server/demo/producers';
import { CORPUS, CORPUS_CATALOG, CORPUS_WAREHOUSE } from '../tests/support/producer-corpus';
import { environment, fmtMs, metric, stat, type BenchResult, type Metric, type Row, type Stat } from './lib';

const QUICK = process.env.BENCH_QUICK === '1';
const ROUNDS = Number(process.env.BENCH_RUNS ?? (QUICK ? 2 : 15));
const BASE_REV = process.env.BENCH_PRODUCER_BASE_REV ?? '5b3fb39';
const PARSERS_DIR = path.resolve(process.env.SQL_PARSERS_DIR ?? '/tmp/parsers');

interface Analysis {
	target: { kind: string; path: string } | null;
	reads: { kind: string; path: string }[];
	writes: { kind: string; path: string }[];
	columns: { column: string; source: string; inputs: { asset: { kind: string; path: string }; column: string; kind: string | null }[] }[];
	warnings: string[];
}
type Known = { columns: string[]; complete: boolean; unordered?: boolean };
type Analyze = (sql: string, warehouse: typeof CORPUS_WAREHOUSE, catalog: (a: { kind: string; path: string }) => Known | null) => Analysis;

const catalog = (a: { kind: string; path: string }) => CORPUS_CATALOG[`${a.kind}://${a.path}`] ?? null;

const SETS: { name: string; scripts: { name: string; sql: string }[] }[] = [
	{ name: 'producer corpus', scripts: CORPUS.map((c) => ({ name: c.name, sql: c.sql })) },
	{ name: "the demo's producers", scripts: [...demoProducers, ...roasteryProducers].map((p) => ({ name: p.path, sql: p.content })) }
];

/** The base checkout's analyzeProducer, bundled; null (with a notice) when it cannot be built. */
async function baseAnalyze(): Promise<{ analyze: Analyze; loadMs: number } | null> {
	// Outside the checkout: the base's own test files must not join this checkout's test run.
	const dir = path.join(tmpdir(), 'tributary-producer-engine-base');
	const src = path.join(dir, 'src');
	const nodePaths = [path.resolve('node_modules'), path.join(PARSERS_DIR, 'node_modules')];
	if (!nodePaths.some((p) => existsSync(path.join(p, 'node-sql-parser', 'package.json')))) {
		process.stderr.write(`[notice] producer-engine: node-sql-parser is in neither node_modules nor ${PARSERS_DIR}: the analysis before the engine is not measured\n`);
		return null;
	}
	try {
		rmSync(dir, { recursive: true, force: true });
		mkdirSync(dir, { recursive: true });
		const tar = execFileSync('git', ['archive', '--format=tar', BASE_REV, 'src/lib'], { maxBuffer: 256 * 1024 * 1024 });
		execFileSync('tar', ['-x', '-C', dir], { input: tar });
	} catch (e) {
		process.stderr.write(`[notice] producer-engine: cannot take src/lib at ${BASE_REV} from git (${(e as Error).message.split('\n')[0]}): the analysis before the engine is not measured\n`);
		return null;
	}
	const outfile = path.join(dir, 'analyze.mjs');
	await build({
		entryPoints: [path.join(src, 'lib/server/producers/analyze.ts')],
		bundle: true,
		format: 'esm',
		platform: 'node',
		target: 'node20',
		outfile,
		nodePaths,
		logLevel: 'warning',
		// node-sql-parser's builds are CommonJS: give them a require inside the ES module.
		banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
		plugins: [
			{
				name: 'base-lib',
				setup(b) {
					b.onResolve({ filter: /^\$lib\// }, (args) => ({ path: `${path.join(src, 'lib', args.path.slice('$lib/'.length))}.ts` }));
				}
			}
		]
	});
	const started = performance.now();
	const mod = (await import(pathToFileURL(outfile).href)) as { analyzeProducer: Analyze };
	return { analyze: mod.analyzeProducer, loadMs: performance.now() - started };
}

/** What a deploy stores, in a form to compare: target, reads, writes, each column's inputs. */
function lineageOf(a: Analysis): string {
	const uri = (x: { kind: string; path: string }) => `${x.kind}://${x.path}`;
	return JSON.stringify({
		target: a.target ? uri(a.target) : null,
		reads: a.reads.map(uri).sort(),
		writes: a.writes.map(uri).sort(),
		columns: a.columns.map((c) => `${c.column} <- ${c.inputs.map((i) => `${uri(i.asset)}.${i.column}:${i.kind ?? c.source}`).sort().join(', ')}`).sort()
	});
}

function timeSet(analyze: Analyze, scripts: { sql: string }[]): number {
	const started = performance.now();
	for (const s of scripts) analyze(s.sql, CORPUS_WAREHOUSE, catalog);
	return performance.now() - started;
}

export async function run(): Promise<BenchResult> {
	const base = await baseAnalyze();
	const loadStarted = performance.now();
	const ours = await import('../src/lib/server/producers/analyze');
	const oursLoadMs = performance.now() - loadStarted;
	const oursAnalyze = ours.analyzeProducer as unknown as Analyze;

	// First analyses (the parsers' own start-up: polyglot-sql compiles its WASM on the first parse).
	const first = SETS[1].scripts[0].sql;
	const firstOf = (f: Analyze) => {
		const t = performance.now();
		f(first, CORPUS_WAREHOUSE, catalog);
		return performance.now() - t;
	};
	const baseFirstMs = base ? firstOf(base.analyze) : null;
	const oursFirstMs = firstOf(oursAnalyze);

	const rows: Row[] = [];
	const metrics: Metric[] = [];
	const db = 'pglite' as const;
	for (const set of SETS) {
		const times = { base: [] as number[], ours: [] as number[] };
		// One untimed pass each first: the rounds measure code the JIT has already compiled.
		if (base) timeSet(base.analyze, set.scripts);
		timeSet(oursAnalyze, set.scripts);
		for (let k = 0; k < ROUNDS; k++) {
			const order = k % 2 === 0 ? (['base', 'ours'] as const) : (['ours', 'base'] as const);
			for (const who of order) {
				if (who === 'base' && base) times.base.push(timeSet(base.analyze, set.scripts));
				if (who === 'ours') times.ours.push(timeSet(oursAnalyze, set.scripts));
			}
		}
		const n = set.scripts.length;
		const oursStat = stat(times.ours);
		const baseStat = base ? stat(times.base) : null;
		let same = 0;
		const differs: string[] = [];
		let baseUnparsed = 0;
		let oursUnparsed = 0;
		for (const s of set.scripts) {
			const o = oursAnalyze(s.sql, CORPUS_WAREHOUSE, catalog);
			oursUnparsed += o.warnings.filter((w) => w.includes('could not parse')).length;
			if (!base) continue;
			const b = base.analyze(s.sql, CORPUS_WAREHOUSE, catalog);
			baseUnparsed += b.warnings.filter((w) => w.includes('could not parse')).length;
			if (lineageOf(b) === lineageOf(o)) same++;
			else differs.push(s.name);
		}
		const key = set.name === 'producer corpus' ? 'corpus' : 'demo';
		const perScript = (s: Stat) => `${(s.median / n).toFixed(2)} ms`;
		rows.push({
			case: `${set.name} (${n} scripts): one pass`,
			'before (node-sql-parser)': baseStat ? fmtMs(baseStat) : 'not measured',
			'after (the engine)': fmtMs(oursStat),
			'per script before / after': `${baseStat ? perScript(baseStat) : '–'} / ${perScript(oursStat)}`,
			'after / before': baseStat ? (oursStat.median / baseStat.median).toFixed(2) : '–',
			'statements not parsed before / after': `${base ? baseUnparsed : '–'} / ${oursUnparsed}`,
			'same lineage': base ? `${same}/${n}` : '–',
			'lineage differs in': differs.join('; ')
		});
		metrics.push(metric(`producer_analysis_${key}_ms`, oursStat, 'ms', db, { note: `${n} scripts, one pass, the engine` }));
		if (baseStat) {
			metrics.push(metric(`producer_analysis_${key}_before_ms`, baseStat, 'ms', db, { note: `${n} scripts, one pass, node-sql-parser at ${BASE_REV}` }));
			metrics.push(metric(`producer_analysis_${key}_after_over_before`, oursStat.median / baseStat.median, 'ratio', db, { note: 'same run, interleaved' }));
		}
	}

	// The deploy's path: the analysis thread, started by the first script, reused by the next.
	const { analyzeProducerOffThread } = await import('../src/lib/server/producers/analysis-thread');
	const loadColumns = async (assets: { kind: string; path: string }[]) => new Map(assets.flatMap((a) => (catalog(a) ? [[`${a.kind}://${a.path}`, catalog(a)!] as const] : [])));
	const demo = SETS[1].scripts;
	const threadFirst = performance.now();
	await analyzeProducerOffThread(demo[0].sql, CORPUS_WAREHOUSE, loadColumns);
	const threadFirstMs = performance.now() - threadFirst;
	const warm: number[] = [];
	for (let k = 0; k < ROUNDS; k++)
		for (const s of demo) {
			const t = performance.now();
			await analyzeProducerOffThread(s.sql, CORPUS_WAREHOUSE, loadColumns);
			warm.push(performance.now() - t);
		}
	const warmStat = stat(warm);
	rows.push(
		{
			case: 'first script in a process (loads the parser)',
			'before (node-sql-parser)': base ? `${(base.loadMs + baseFirstMs!).toFixed(0)} ms (module ${base.loadMs.toFixed(0)} ms)` : 'not measured',
			'after (the engine)': `${(oursLoadMs + oursFirstMs).toFixed(0)} ms (module ${oursLoadMs.toFixed(0)} ms)`
		},
		{ case: "the deploy's path: the analysis thread, first script (starts the thread)", 'after (the engine)': `${threadFirstMs.toFixed(0)} ms` },
		{ case: "the deploy's path: the analysis thread, a demo script on the running thread", 'after (the engine)': fmtMs(warmStat) }
	);
	metrics.push(
		metric('producer_analysis_thread_first_ms', threadFirstMs, 'ms', db, { note: "thread start, parser compiled, one demo script: a deploy's first analysis" }),
		metric('producer_analysis_thread_warm_ms', warmStat, 'ms', db, { note: 'one demo script on the running thread' })
	);
	return {
		name: 'producer-engine',
		description: `producer analysis before (node-sql-parser at ${BASE_REV}) and after (the one SQL-lineage engine), interleaved, ${ROUNDS} rounds`,
		rows,
		ratios: [],
		environment: environment(),
		metrics
	};
}
