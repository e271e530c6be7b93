// Ingest at scale: a generated 3000-model project with a 200,000-edge index (scan the
// majority), and the same project with a 4,000,000-row index (the decode bound). Each case runs
// in a fresh process so peak RSS belongs to that case alone; the databases' runs are interleaved.
//
// PGlite runs deploy into an on-disk data dir opened fresh, as `npm start` opens ./data/pglite
// (a copy of one prepared by a setup process, so initdb's own peak is not counted); Postgres
// runs into a new database on BENCH_DATABASE_URL. On PGlite the database's WASM memory lives in
// the measured process; the same ingest against Postgres, in the same run, is ours alone.
//
// The deploy children run bundled (esbuild, as plain JS beside the manifest-parse thread's own
// entry, split into chunks as the app's build is), so a thread starts as it does in `npm start`,
// not through tsx, and a module the app imports lazily is loaded lazily here too.
// BENCH_INGEST_BASE=<another checkout>: its child is bundled too and its deploys are interleaved
// with ours run by run, so before and after are measured side by side in one run.
//
// BENCH_QUICK=1: 300 models / 20,000 edges, one run, no 4,000,000-row cases (metrics carry no
// goal then: they are not the goal's workload).
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generateProject, writeProjectDir } from '../src/lib/server/demo/generator';
import { backends, QUICK } from './app';
import { FIXTURES_DIR, bundleChildren, child, childJs, metric, OUT, stat, type BenchResult, type Metric, type Row, type Stat } from './lib';

const RUNS = Number(process.env.BENCH_RUNS ?? (QUICK ? 1 : 3));
const BASE = process.env.BENCH_INGEST_BASE ? path.resolve(process.env.BENCH_INGEST_BASE) : null;

/**
 * bench/child/ingest.ts of the checkout at `root`, bundled into `outdir` with the manifest-parse
 * thread's entry beside it when that checkout has one (each a whole bundle, as the build makes them).
 */
async function bundledIngestChild(root: string, outdir: string): Promise<string> {
	const entryPoints: Record<string, string> = { ingest: path.join(root, 'bench/child/ingest.ts') };
	const threadEntry = path.join(root, 'src/lib/server/ingest/manifest-thread-main.ts');
	if (existsSync(threadEntry)) entryPoints['manifest-thread'] = threadEntry;
	rmSync(outdir, { recursive: true, force: true });
	// Split as the app's build splits: a dynamic import stays a chunk loaded on first use. Bundled
	// whole, esbuild hoists the lazily imported inference module's SQL parser (@polyglot-sql/sdk,
	// ~76 MB of WASM at start) into the child's start-up, which `npm start` never loads for a deploy.
	await bundleChildren(entryPoints, outdir, { tsconfig: path.join(root, 'tsconfig.json'), splitting: true });
	return path.join(outdir, 'ingest.js');
}
const SIZE = QUICK ? { models: 300, columnEdges: 20_000 } : { models: 3000, columnEdges: 200_000 };

async function ensureProject(dir: string, opts: { models: number; columnEdges: number; indexRows?: number }) {
	if (existsSync(path.join(dir, 'target', 'manifest.json'))) return;
	process.stderr.write(`generating ${path.basename(dir)} …\n`);
	await writeProjectDir(await generateProject({ ...opts, seed: 1 }), dir);
}

interface Phase {
	name: string;
	ms: number;
	rssMb: number;
	/** Absent in a base checkout's child older than the field. */
	peakMb?: number;
}
interface IngestOut {
	ms: number;
	openMs: number;
	nodes: number;
	edges: number;
	columnEdges: number | null;
	columnLineageMb: number;
	peakRssMb: number;
	baselineRssMb: number;
	/** Absent in a base checkout's child older than the field. */
	idleRssMb?: number;
	wasmMb: number;
	dropped: Record<string, number | boolean>;
	phases: Phase[];
}
interface DecodeOut {
	ms: number;
	rows: number;
	stored: number;
	stopped: boolean;
	rowsPerSecond: number;
	peakRssMb: number;
	baselineRssMb: number;
}

type Db = 'pglite' | 'postgres';

/** Phases summed by name within a run, then the median over runs, in first-seen order. */
function phaseRows(db: string, runs: IngestOut[]): Row[] {
	const names: string[] = [];
	const per = runs.map((r) => {
		const m = new Map<string, { ms: number; rssMb: number; peakMb: number | undefined }>();
		for (const p of r.phases) {
			if (!names.includes(p.name)) names.push(p.name);
			const x = m.get(p.name) ?? { ms: 0, rssMb: 0, peakMb: undefined };
			m.set(p.name, { ms: x.ms + p.ms, rssMb: p.rssMb, peakMb: p.peakMb });
		}
		return m;
	});
	return names.map((name) => ({
		case: `  ${db}: ${name}`,
		ms: stat(per.map((m) => m.get(name)?.ms ?? 0)),
		rss_mb_after: stat(per.map((m) => m.get(name)?.rssMb ?? 0)),
		...(per.some((m) => m.get(name)?.peakMb !== undefined) ? { peak_rss_mb_after: stat(per.map((m) => m.get(name)?.peakMb ?? 0)) } : {})
	}));
}

export async function run(): Promise<BenchResult> {
	const main = path.join(OUT, `p${SIZE.models}-${SIZE.columnEdges / 1000}k`);
	await ensureProject(main, SIZE);
	const targetMain = path.join(main, 'target');
	const p4m = path.join(OUT, 'p3000-4m');
	if (!QUICK) await ensureProject(p4m, { models: 3000, columnEdges: 200_000, indexRows: 4_000_000 });
	const target4m = path.join(p4m, 'target');
	const dbs = backends() as Db[];

	// One prepared PGlite data dir; every run deploys into a fresh copy of it.
	const scratch = mkdtempSync(path.join(tmpdir(), 'tributary-bench-ingest-'));
	const template = path.join(scratch, 'template');
	if (dbs.includes('pglite')) await child('ingest', { mode: 'setup', dir: template });
	let n = 0;
	const ours = await bundledIngestChild(process.cwd(), path.join(OUT, 'ingest-child'));
	const base = BASE ? await bundledIngestChild(BASE, path.join(OUT, 'ingest-child-base')) : null;
	const deploy = async (db: Db, target: string, script = ours): Promise<IngestOut> => {
		if (db === 'postgres') return childJs<IngestOut>(script, { target, db });
		const dir = path.join(scratch, `run-${n++}`);
		cpSync(template, dir, { recursive: true });
		try {
			return await childJs<IngestOut>(script, { target, db, dir });
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	};

	const rows: Row[] = [];
	const metrics: Metric[] = [];
	const ratios: BenchResult['ratios'] = [];
	const goal = (g: number) => (QUICK ? null : g);
	const quickNote = QUICK ? `QUICK: ${SIZE.models} models, ${SIZE.columnEdges.toLocaleString('en-US')} edges, ${RUNS} run(s); not the goal's workload` : undefined;

	try {
		const decode = [] as DecodeOut[];
		for (let i = 0; i < RUNS; i++) decode.push(await child<DecodeOut>('ingest', { target: targetMain, mode: 'decode' }));
		rows.push({
			case: `decode ${SIZE.columnEdges.toLocaleString('en-US')}-row index (${SIZE.models} models)`,
			ms: stat(decode.map((d) => d.ms)),
			rows_per_s: stat(decode.map((d) => d.rowsPerSecond)),
			stored: decode[0].stored,
			peak_rss_mb: stat(decode.map((d) => d.peakRssMb))
		});
		let decode4m: DecodeOut[] = [];
		if (!QUICK) {
			for (let i = 0; i < RUNS; i++) decode4m.push(await child<DecodeOut>('ingest', { target: target4m, mode: 'decode' }));
			rows.push({
				case: 'decode 4,000,000-row index to the bound',
				ms: stat(decode4m.map((d) => d.ms)),
				rows_per_s: stat(decode4m.map((d) => d.rowsPerSecond)),
				stored: decode4m[0].stored,
				peak_rss_mb: stat(decode4m.map((d) => d.peakRssMb))
			});
		}

		// The deploys, interleaved across databases (and with the base checkout's) run by run.
		const ingest: Partial<Record<Db, IngestOut[]>> = {};
		const before: Partial<Record<Db, IngestOut[]>> = {};
		for (let i = 0; i < RUNS; i++) {
			for (const db of i % 2 ? [...dbs].reverse() : dbs) {
				if (base && i % 2) (before[db] ??= []).push(await deploy(db, targetMain, base));
				(ingest[db] ??= []).push(await deploy(db, targetMain));
				if (base && !(i % 2)) (before[db] ??= []).push(await deploy(db, targetMain, base));
			}
		}
		for (const db of dbs) {
			const baseRuns = before[db];
			if (baseRuns) {
				rows.push({
					case: `BASE ${path.basename(BASE!)}: deploy ${SIZE.models} models + ${SIZE.columnEdges.toLocaleString('en-US')}-edge index (${db})`,
					ms: stat(baseRuns.map((d) => d.ms)),
					peak_rss_mb: stat(baseRuns.map((d) => d.peakRssMb)),
					db_open_rss_mb: stat(baseRuns.map((d) => d.baselineRssMb))
				});
				rows.push(...phaseRows(`${db} BASE`, baseRuns));
			}
			const runs = ingest[db]!;
			const seconds = stat(runs.map((d) => d.ms / 1000));
			const peak = stat(runs.map((d) => d.peakRssMb));
			const wasm = stat(runs.map((d) => d.wasmMb));
			rows.push({
				case: `deploy ${SIZE.models} models + ${SIZE.columnEdges.toLocaleString('en-US')}-edge index (${db})`,
				ms: stat(runs.map((d) => d.ms)),
				stored: `${runs[0].nodes} nodes, ${runs[0].edges} edges, ${runs[0].columnEdges} column edges`,
				column_lineage_mb: stat(runs.map((d) => d.columnLineageMb)),
				peak_rss_mb: peak,
				db_open_rss_mb: stat(runs.map((d) => d.baselineRssMb)),
				idle_rss_mb: stat(runs.map((d) => d.idleRssMb ?? 0)),
				...(db === 'pglite' ? { pglite_wasm_mb: wasm, peak_minus_wasm_mb: stat(runs.map((d) => d.peakRssMb - d.wasmMb)) } : {}),
				open_ms: stat(runs.map((d) => d.openMs))
			});
			rows.push(...phaseRows(db, runs));
			const rssNote =
				db === 'pglite'
					? `process peak incl. PGlite's WASM memory (median ${wasm.median.toFixed(0)} MB at the end)${ingest.postgres ? `; the same ingest on Postgres peaks at ${stat(ingest.postgres.map((d) => d.peakRssMb)).median.toFixed(0)} MB (ours alone)` : ''}`
					: 'ours alone (the server is another process)';
			// The issue's goals: ≤ 3 s and ≤ 300 MB on Postgres; on PGlite ≤ 5 s, and a peak of at most
			// 1.5 × the process's RSS with its database open (PGlite's memory is in the process).
			const overOpen = stat(runs.map((d) => d.peakRssMb / d.baselineRssMb));
			metrics.push(
				metric('ingest_3000_seconds', seconds, 's', db, { goal: goal(db === 'pglite' ? 5 : 3), better: 'lower', note: quickNote ?? `ingestUpload wall time, median of ${RUNS} fresh processes` }),
				metric('ingest_peak_rss_mb', peak, 'MB', db, { goal: db === 'pglite' ? null : goal(300), better: 'lower', note: quickNote ? `${quickNote}; ${rssNote}` : rssNote }),
				metric('ingest_peak_over_open_rss_ratio', overOpen, 'ratio', db, {
					goal: db === 'pglite' ? goal(1.5) : null,
					better: 'lower',
					note: quickNote ?? 'peak RSS of the deploy over the RSS of the same process with its database open and the upload read'
				}),
				metric('ingest_peak_over_idle_rss_ratio', stat(runs.map((d) => d.peakRssMb / (d.idleRssMb ?? Number.NaN))), 'ratio', db, {
					better: 'lower',
					note: quickNote ?? 'peak RSS of the deploy over the RSS of the same process at rest with its database open, before the upload is read'
				})
			);
			if (baseRuns) {
				ratios.push(
					{ name: `${db}: deploy after / before (time)`, value: seconds.median / stat(baseRuns.map((d) => d.ms / 1000)).median, note: `before: ${path.basename(BASE!)}, interleaved runs` },
					{ name: `${db}: deploy after / before (peak RSS)`, value: peak.median / stat(baseRuns.map((d) => d.peakRssMb)).median, note: `before: ${path.basename(BASE!)}` }
				);
			}
		}

		// Decode figures involve no database: the same figure is reported under each one measured.
		for (const db of dbs) {
			metrics.push(metric('index_decode_rows_per_second', stat(decode.map((d) => d.rowsPerSecond)), 'rows/s', db, { better: 'higher', note: quickNote ?? 'decode only, no database involved' }));
			if (decode4m.length) {
				metrics.push(
					metric('index_4m_decode_seconds', stat(decode4m.map((d) => d.ms / 1000)), 's', db, { better: 'lower', note: 'decode only, no database involved' }),
					metric('index_4m_peak_rss_mb', stat(decode4m.map((d) => d.peakRssMb)), 'MB', db, { better: 'lower', note: 'decode only, no database involved' })
				);
			}
		}

		if (!QUICK && dbs.includes('pglite')) {
			const full4m = [await deploy('pglite', target4m)];
			rows.push({
				case: 'deploy 3000 models + 4,000,000-row index (pglite, 1 run)',
				ms: stat(full4m.map((d) => d.ms)),
				stored: `${full4m[0].columnEdges} column edges; dropped ${JSON.stringify(full4m[0].dropped)}`,
				peak_rss_mb: stat(full4m.map((d) => d.peakRssMb)),
				db_open_rss_mb: stat(full4m.map((d) => d.baselineRssMb))
			});
		}

		const sap = path.join(FIXTURES_DIR, 'fivetran-sap-1.10.10-v12', 'manifest.json');
		if (!QUICK && existsSync(sap)) {
			const sapRow: { ms: number; nodes: number; edges: number; peakRssMb: number; baselineRssMb: number }[] = [];
			for (let i = 0; i < RUNS; i++) sapRow.push(await child('fixture-ingest', { manifest: sap }));
			rows.push({
				case: 'deploy fivetran-sap fixture (4 MB v12 manifest, pglite in memory)',
				ms: stat(sapRow.map((d) => d.ms)),
				stored: `${sapRow[0].nodes} nodes, ${sapRow[0].edges} edges`,
				peak_rss_mb: stat(sapRow.map((d) => d.peakRssMb)),
				db_open_rss_mb: stat(sapRow.map((d) => d.baselineRssMb))
			});
		}

		const med = (s: Stat) => s.median;
		if (decode4m.length) {
			ratios.push(
				{ name: 'decode 4M rows / decode 200k rows (time)', value: med(stat(decode4m.map((d) => d.ms))) / med(stat(decode.map((d) => d.ms))), note: '20× the rows; the bound caps the work' },
				{
					name: 'decode 4M rows / decode 200k rows (peak RSS)',
					value: med(stat(decode4m.map((d) => d.peakRssMb))) / med(stat(decode.map((d) => d.peakRssMb))),
					note: 'memory stays bounded: a row group at a time, at most 2 × 200,000 edges held'
				}
			);
		}
		if (ingest.pglite && ingest.postgres) {
			ratios.push(
				{ name: 'deploy on pglite / deploy on postgres (time)', value: med(stat(ingest.pglite.map((d) => d.ms))) / med(stat(ingest.postgres.map((d) => d.ms))), note: 'same rows; interleaved runs' },
				{
					name: 'deploy on pglite / deploy on postgres (peak RSS)',
					value: med(stat(ingest.pglite.map((d) => d.peakRssMb))) / med(stat(ingest.postgres.map((d) => d.peakRssMb))),
					note: "the difference is PGlite's own memory, in our process"
				}
			);
		}
		return {
			name: 'ingest',
			description: `median [min–max] of ${RUNS} runs, each in a fresh process${QUICK ? ' (QUICK)' : ''}; indented rows are the deploy's phases`,
			rows,
			ratios,
			environment: {},
			metrics
		};
	} finally {
		rmSync(scratch, { recursive: true, force: true });
	}
}
