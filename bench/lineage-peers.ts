// Column lineage against the peers, on the same inputs in one run (bench/README.md,
// "lineage-peers"): the public suite (tests/public-lineage/) scored for us, sqlglot's `lineage`,
// sqllineage and dbt-colibri per dialect, and the seconds of the generated 3000-model project
// (300 with --quick) for us and for sqlglot, each cold in one process.
//
// The peers run in a virtualenv this benchmark makes itself from the Python package index, at
// pinned versions, cached under bench/out/peers-venv (git-ignored); bench/peers/peers.py calls them.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
	addTally,
	emptyTally,
	loadSuite,
	prf,
	projectOf,
	scoreRun,
	SUITE_DIR,
	suiteRuns,
	TARGET_DIALECTS,
	type CaseRun,
	type Tally,
	type ToolEdge
} from '../tests/support/public-lineage';
import { runOurs } from '../tests/support/public-lineage-ours';
import { bundleChildren, metric, OUT, type BenchResult, type Metric, type Row } from './lib';
import { inferenceProject } from './projects';

const QUICK = process.env.BENCH_QUICK === '1';
const SIZE = QUICK ? { models: 300, edges: 10_000 } : { models: 3000, edges: 200_000 };

export const PEER_VERSIONS = { sqlglot: '30.30.0', sqllineage: '1.5.9', 'dbt-colibri': '0.3.7' } as const;
const VENV = path.join(OUT, 'peers-venv');
const PY = path.join(VENV, 'bin', 'python');
const PEERS_PY = path.resolve('bench/peers/peers.py');

/** The virtualenv with the peers at their pinned versions; made (or brought to them) when it is not. */
function ensureVenv(): string {
	const wanted = Object.entries(PEER_VERSIONS).map(([p, v]) => `${p}==${v}`);
	const have = existsSync(PY)
		? spawnSync(PY, ['-m', 'pip', 'freeze'], { encoding: 'utf8' })
				.stdout.split('\n')
				.map((l) => l.trim().toLowerCase())
		: [];
	if (wanted.every((w) => have.includes(w.toLowerCase()))) return PY;
	process.stderr.write(`installing ${wanted.join(', ')} into ${path.relative(process.cwd(), VENV)} …\n`);
	if (!existsSync(PY)) execFileSync('python3', ['-m', 'venv', VENV], { stdio: 'inherit' });
	execFileSync(PY, ['-m', 'pip', 'install', '--quiet', ...wanted], { stdio: 'inherit' });
	return PY;
}

type Tool = 'tributary' | keyof typeof PEER_VERSIONS;
const TOOLS: Tool[] = ['tributary', 'sqlglot', 'sqllineage', 'dbt-colibri'];

interface PeerAnswer {
	edges: ToolEdge[];
	error?: string;
	seconds: number;
}

function runPeersOnSuite(py: string, runs: (CaseRun & { id: string })[]): Record<string, Record<string, PeerAnswer>> {
	mkdirSync(OUT, { recursive: true });
	const job = path.join(OUT, 'peers-job.json');
	const answers = path.join(OUT, 'peers-answers.json');
	const cases = [...new Map(runs.map((r) => [r.c.id, r.c])).values()];
	writeFileSync(
		job,
		JSON.stringify({
			suite_dir: SUITE_DIR,
			cases,
			runs: runs.map((r) => ({ id: r.id, case: r.c.id, dialect: r.dialect, project: r.c.form === 'model' ? projectOf(r.source, r.c) : null }))
		})
	);
	const p = spawnSync(py, [PEERS_PY, 'suite', job, answers], { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
	if (p.status !== 0) throw new Error(`peers.py suite exited ${p.status}: ${p.stderr.slice(-3000)}`);
	return JSON.parse(readFileSync(answers, 'utf8'));
}

/** Wall seconds of a process from its start to its exit, and its last line as JSON (empty when it
 * prints nothing: sqlglot's speed run writes its figures to a file). */
function timedProcess(cmd: string, args: string[]): { wall: number; out: Record<string, number> } {
	const t0 = performance.now();
	const p = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
	const wall = (performance.now() - t0) / 1000;
	if (p.status !== 0) throw new Error(`${path.basename(args[0])} exited ${p.status}: ${p.stderr.slice(-2000)}`);
	const last = p.stdout.trim().split('\n').pop();
	return { wall, out: last ? JSON.parse(last) : {} };
}

export async function run(): Promise<BenchResult> {
	const py = ensureVenv();
	const suite = loadSuite();
	const runs = suiteRuns(suite).map((r, k) => ({ ...r, id: `r${k}` }));

	// The suite: every run by every tool, scored the same way.
	const t0 = performance.now();
	const ours = new Map(runs.map((r) => [r.id, runOurs(r).edges]));
	const oursSeconds = (performance.now() - t0) / 1000;
	const peers = runPeersOnSuite(py, runs);
	const answerOf = (tool: Tool, r: (typeof runs)[number]): ToolEdge[] | null => (tool === 'tributary' ? ours.get(r.id)! : (peers[tool]?.[r.id]?.edges ?? null));

	type Agg = { all: Tally; models: Tally; runs: number; modelRuns: number; errors: number };
	const table = new Map<string, Agg>();
	const agg = (k: string) => table.get(k) ?? table.set(k, { all: emptyTally(), models: emptyTally(), runs: 0, modelRuns: 0, errors: 0 }).get(k)!;
	for (const r of runs)
		for (const tool of TOOLS) {
			const edges = answerOf(tool, r);
			// dbt-colibri reads dbt projects only: a script scores as nothing found.
			const score = scoreRun(r.c, edges ?? []);
			for (const group of [r.group, 'ALL', ...(r.heldOut ? ['held-out'] : ['tuned'])]) {
				const a = agg(`${tool}|${group}`);
				a.all = addTally(a.all, score);
				a.runs++;
				if (r.c.form === 'model') {
					a.models = addTally(a.models, score);
					a.modelRuns++;
				}
				if (tool !== 'tributary' && peers[tool]?.[r.id]?.error) a.errors++;
			}
		}
	const f1 = (tool: Tool, group: string, which: 'all' | 'models' = 'all') => prf(table.get(`${tool}|${group}`)![which]).f1;

	const groups = ['ALL', ...TARGET_DIALECTS, 'other', 'tuned', 'held-out'];
	const rows: Row[] = groups.map((g) => ({
		dialect: g,
		runs: table.get(`tributary|${g}`)?.runs ?? 0,
		...Object.fromEntries(TOOLS.map((t) => [`${t} F1`, table.has(`${t}|${g}`) ? f1(t, g).toFixed(3) : '–'])),
		...Object.fromEntries(TOOLS.map((t) => [`${t} F1 (dbt models)`, table.has(`${t}|${g}`) ? f1(t, g, 'models').toFixed(3) : '–'])),
		'peer errors': TOOLS.slice(1)
			.map((t) => `${t}: ${table.get(`${t}|${g}`)?.errors ?? 0}`)
			.join(', ')
	}));

	// Speed: the generated project, cold, one process each.
	const project = await inferenceProject(SIZE.models, SIZE.edges);
	const childDir = path.join(OUT, 'lineage-speed-child');
	await bundleChildren({ 'lineage-speed': path.resolve('bench/child/lineage-speed.ts') }, childDir, { splitting: true });
	const oursSpeed = timedProcess(process.execPath, [path.join(childDir, 'lineage-speed.js'), '--manifest', project.manifestFile, '--catalog', project.catalogFile, '--threads', '1']);
	const sqlglotOut = path.join(OUT, 'sqlglot-speed.json');
	const sqlglotSpeed = timedProcess(py, [PEERS_PY, 'speed', project.manifestFile, project.catalogFile, sqlglotOut]);
	const sqlglotFigures = JSON.parse(readFileSync(sqlglotOut, 'utf8'));
	const speedup = sqlglotSpeed.wall / oursSpeed.wall;
	// CPU seconds of each process (threads included), as each measures itself: beside the wall ratio, one the machine's load moves less.
	const cpuRatio = sqlglotFigures.cpu_seconds && oursSpeed.out.cpuSeconds ? sqlglotFigures.cpu_seconds / oursSpeed.out.cpuSeconds : null;
	rows.push(
		{ dialect: `${project.models} models: tributary (1 thread, process wall)`, runs: oursSpeed.out.models, 'tributary F1': `${oursSpeed.wall.toFixed(1)} s`, 'sqlglot F1': `edges ${oursSpeed.out.edges}, failed ${oursSpeed.out.failed}, CPU ${oursSpeed.out.cpuSeconds?.toFixed(1)} s` },
		{ dialect: `${project.models} models: sqlglot lineage (process wall)`, runs: sqlglotFigures.models, 'tributary F1': `${sqlglotSpeed.wall.toFixed(1)} s`, 'sqlglot F1': `edges ${sqlglotFigures.edges}, failed ${sqlglotFigures.failures}, CPU ${sqlglotFigures.cpu_seconds?.toFixed(1)} s` }
	);

	const db = 'pglite' as const;
	const minDialect = Math.min(...TARGET_DIALECTS.map((d) => f1('tributary', d)));
	const metrics: Metric[] = [
		metric('cll_public_suite_f1', f1('tributary', 'ALL'), 'ratio', db, { goal: 0.97, better: 'higher', note: 'all four sources, held-out included' }),
		metric('cll_public_suite_f1_min_dialect', minDialect, 'ratio', db, { goal: 0.95, better: 'higher', note: `the lowest of ${TARGET_DIALECTS.join(', ')}` }),
		metric('cll_public_suite_f1_held_out', f1('tributary', 'held-out'), 'F1', db, { better: 'higher', note: 'OpenLineage (held out: no convention set by it)' }),
		metric('cll_speedup_over_sqlglot_3000', speedup, '×', db, {
			goal: QUICK ? null : 50,
			better: 'higher',
			note: `${project.models} models, cold, one process each: sqlglot ${sqlglotSpeed.wall.toFixed(1)} s / ours ${oursSpeed.wall.toFixed(1)} s${cpuRatio === null ? '' : ` (CPU ${sqlglotFigures.cpu_seconds.toFixed(1)} s / ${oursSpeed.out.cpuSeconds.toFixed(1)} s = ${cpuRatio.toFixed(1)}×)`}`
		}),
		metric('cll_3000_seconds_tributary', oursSpeed.wall, 's', db, { note: `${project.models} models, 1 thread, process wall` }),
		metric('cll_3000_seconds_sqlglot', sqlglotSpeed.wall, 's', db, { note: `${project.models} models, sqlglot ${PEER_VERSIONS.sqlglot}, process wall` })
	];
	for (const t of TOOLS)
		for (const g of ['ALL', ...TARGET_DIALECTS]) metrics.push(metric(`cll_public_f1_${t.replace('-', '_')}_${g.toLowerCase()}`, f1(t, g), 'F1', db, { note: `per-peer table: ${t} on ${g}` }));
	const bestPeer = (g: string) => Math.max(...TOOLS.slice(1).map((t) => f1(t, g)));
	return {
		name: 'lineage-peers',
		description: `column lineage vs sqlglot ${PEER_VERSIONS.sqlglot}, sqllineage ${PEER_VERSIONS.sqllineage}, dbt-colibri ${PEER_VERSIONS['dbt-colibri']}: the public suite (${runs.length} runs) per dialect, and ${project.models} models cold`,
		rows,
		ratios: [
			{ name: 'sqlglot seconds / ours', value: speedup, note: `${project.models} models, cold, one process each` },
			...(cpuRatio === null ? [] : [{ name: 'sqlglot CPU seconds / ours', value: cpuRatio, note: `${project.models} models, each process's CPU, its threads included` }]),
			...['ALL', ...TARGET_DIALECTS].map((g) => ({ name: `F1 ours − best peer (${g})`, value: f1('tributary', g) - bestPeer(g), note: 'positive: ours is higher' }))
		],
		environment: { oursSuiteSeconds: oursSeconds, peerVersions: PEER_VERSIONS, models: project.models, cpuSeconds: { tributary: oursSpeed.out.cpuSeconds ?? null, sqlglot: sqlglotFigures.cpu_seconds ?? null } },
		metrics
	};
}
