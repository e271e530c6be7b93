// Storage designs for column edges, measured side by side before one is chosen (issue 18, item
// 2): today's text rows against a surrogate graph id + per-graph column dictionary + integer
// edges, with and without per-row FKs, and with direct edges packed per component
// (bench/storage-design-tables.ts). Each case runs in a fresh process (bench/child/
// storage-design.ts) so its peak RSS is its own; cases are interleaved across designs and
// databases, round by round, with the order rotated so no design always runs first.
//
// The edges are the 3000-model / 200,000-edge project's index decoded and given components as
// the ingest does (graph-content.ts), written once to a JSON file every case reads; so these
// figures are the store's, not the decode's (bench/ingest.ts measures the whole deploy).
//
// Standalone (a full run takes minutes, too slow for the CI quick gate):
//   npx tsx bench/storage-designs.ts [--quick]
// BENCH_QUICK=1 / --quick: 300 models / 20,000 edges, one round. The table is printed and, on a
// full run, saved under "storage-designs" in bench/details.json.
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { directComponents } from '../src/lib/lineage/components';
import { readColumnLineage } from '../src/lib/server/dbt-files/column-index';
import { parseManifest } from '../src/lib/server/ingest/manifest';
import { backends, QUICK } from './app';
import { child, environment, printTable, stat, type BenchResult, type Row } from './lib';
import { benchProject } from './projects';
import { type BenchEdge, type DesignName, type LoadMethod } from './storage-design-tables';

const ROUNDS = Number(process.env.BENCH_RUNS ?? (QUICK ? 1 : 3));
const SIZE = QUICK ? { models: 300, columnEdges: 20_000 } : { models: 3000, columnEdges: 200_000 };
/** The component size the read is measured at (the 100-edge component). */
const READ_COMPONENT_EDGES = 100;

type Db = 'pglite' | 'postgres';
interface Case {
	db: Db;
	design: DesignName;
	method: LoadMethod;
}

// Today's load is the case every ratio is against: COPY on Postgres, batched unnest inserts on
// PGlite (what replaceGraph runs). PGlite gets both methods for the text and int designs, since
// which is faster there is the question for each.
const CASES: Record<Db, Case[]> = {
	postgres: (['text', 'int-fk', 'int', 'packed'] as const).map((design) => ({ db: 'postgres', design, method: 'copy' })),
	pglite: [
		{ db: 'pglite', design: 'text', method: 'unnest' },
		{ db: 'pglite', design: 'text', method: 'copy' },
		{ db: 'pglite', design: 'int-fk', method: 'copy' },
		{ db: 'pglite', design: 'int', method: 'copy' },
		{ db: 'pglite', design: 'int', method: 'unnest' },
		{ db: 'pglite', design: 'packed', method: 'copy' }
	]
};
const TODAY: Record<Db, Case> = { postgres: CASES.postgres[0], pglite: CASES.pglite[0] };
const caseName = (c: Case) => `${c.design} (${c.method})`;

interface CaseOut {
	loadMs: number;
	openRssMb: number;
	loadPeakRssMb: number;
	peakReset: boolean;
	wasmMb: number;
	sizes: Record<string, { tableMb: number; indexMb: number; rows: number }>;
	read: { rows: number; edgeTableRows: number; scans: string[]; planSteps: string[]; executionMs: number; medianMs: number; minMs: number };
	replaceMs: number;
	deleteMs: number;
	scriptDeleteMs: number;
}

/** The decoded index with components, exactly as the ingest stores it, cached beside the project. */
async function edgesFile(dir: string, target: string): Promise<string> {
	const file = path.join(dir, 'storage-edges.json');
	if (existsSync(file)) return file;
	const manifest = parseManifest(readFileSync(path.join(target, 'manifest.json'), 'utf8'), { defaultDatabase: 'warehouse' });
	const r = await readColumnLineage(new Uint8Array(readFileSync(path.join(target, 'index', 'dbt.column_lineage.parquet'))), {
		fileName: 'dbt.column_lineage.parquet',
		keptNodes: new Set(manifest.nodes.map((n) => n.uniqueId))
	});
	const comps = directComponents(r.edges);
	const edges: BenchEdge[] = r.edges.map((e, i) => [e.parentUniqueId, e.parentColumn, e.childUniqueId, e.childColumn, e.lineageKind, comps[i]]);
	writeFileSync(file, JSON.stringify(edges));
	return file;
}

/** The component whose direct-edge count is closest to `want` (lowest id on a tie). */
function componentNear(edges: readonly BenchEdge[], want: number): { component: number; edges: number } {
	const counts = new Map<number, number>();
	for (const e of edges) if (e[5] !== null) counts.set(e[5], (counts.get(e[5]) ?? 0) + 1);
	let best = { component: -1, edges: 0 };
	for (const [component, n] of [...counts].sort((a, b) => a[0] - b[0])) {
		if (best.component < 0 || Math.abs(n - want) < Math.abs(best.edges - want)) best = { component, edges: n };
	}
	return best;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/**
 * The median over rounds of (case / today's case) within each round: the machine's load moves
 * between rounds far more than the designs differ, and cases of one round ran minutes apart.
 */
function pairedRatio(rs: CaseOut[], today: CaseOut[], figure: (r: CaseOut) => number): number {
	return stat(rs.map((r, i) => figure(r) / figure(today[i]))).median;
}

export async function run(): Promise<BenchResult> {
	const project = await benchProject(SIZE.models, SIZE.columnEdges);
	const file = await edgesFile(project.dir, project.target);
	const edges = JSON.parse(readFileSync(file, 'utf8')) as BenchEdge[];
	const pick = componentNear(edges, READ_COMPONENT_EDGES);
	const kinds: Record<string, number> = {};
	for (const e of edges) kinds[e[4]] = (kinds[e[4]] ?? 0) + 1;

	const dbs = backends() as Db[];
	const scratch = mkdtempSync(path.join(tmpdir(), 'tributary-bench-storage-'));
	const template = path.join(scratch, 'template');
	if (dbs.includes('pglite')) await child('storage-design', { mode: 'setup', dir: template });
	let n = 0;
	const measure = async (c: Case): Promise<CaseOut> => {
		const args = { db: c.db, design: c.design, method: c.method, edges: file, component: pick.component, 'component-edges': pick.edges };
		if (c.db === 'postgres') return child<CaseOut>('storage-design', args);
		const dir = path.join(scratch, `run-${n++}`);
		cpSync(template, dir, { recursive: true });
		try {
			return await child<CaseOut>('storage-design', { ...args, dir });
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	};

	const results = new Map<Case, CaseOut[]>();
	const loadAverages: number[] = [];
	try {
		const all = dbs.flatMap((db) => CASES[db]);
		for (let round = 0; round < ROUNDS; round++) {
			// Rotate the order each round, and alternate the databases, so drift on a shared
			// machine does not always land on the same design.
			const order = all.map((_, i) => all[(i + round * 3) % all.length]);
			const sorted = round % 2 ? order.reverse() : order;
			for (const c of sorted) {
				process.stderr.write(`storage-designs round ${round + 1}/${ROUNDS}: ${c.db} ${caseName(c)} …\n`);
				const r = await measure(c);
				(results.get(c) ?? results.set(c, []).get(c)!).push(r);
				process.stderr.write(`  load ${r.loadMs.toFixed(0)} ms, peak ${r.loadPeakRssMb.toFixed(0)} MB (open ${r.openRssMb.toFixed(0)}), replace ${r.replaceMs.toFixed(0)} ms\n`);
				loadAverages.push(Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]));
			}
		}
	} finally {
		rmSync(scratch, { recursive: true, force: true });
	}

	const rows: Row[] = [];
	const plans: Record<string, string> = {};
	const ratios: BenchResult['ratios'] = [];
	for (const db of dbs) {
		const today = results.get(TODAY[db])!;
		for (const c of CASES[db]) {
			const rs = results.get(c)!;
			const sizes = rs[0].sizes;
			const tableMb = sum(Object.values(sizes).map((s) => s.tableMb));
			const indexMb = sum(Object.values(sizes).map((s) => s.indexMb));
			rows.push({
				case: `${db}: ${caseName(c)}`,
				load_ms: stat(rs.map((r) => r.loadMs)),
				load_over_today: pairedRatio(rs, today, (r) => r.loadMs).toFixed(2),
				replace_over_today: pairedRatio(rs, today, (r) => r.replaceMs).toFixed(2),
				table_mb: tableMb.toFixed(1),
				index_mb: indexMb.toFixed(1),
				open_rss_mb: stat(rs.map((r) => r.openRssMb)),
				load_peak_rss_mb: stat(rs.map((r) => r.loadPeakRssMb)),
				read_component_us: stat(rs.map((r) => r.read.medianMs * 1000)),
				read_component_min_us: stat(rs.map((r) => r.read.minMs * 1000)),
				read_plan_us: stat(rs.map((r) => r.read.executionMs * 1000)),
				read_edge_table_rows: `${rs[0].read.edgeTableRows} (${[...new Set(rs[0].read.scans)].join(', ')})`,
				replace_ms: stat(rs.map((r) => r.replaceMs)),
				delete_ms: stat(rs.map((r) => r.deleteMs)),
				script_delete_ms: stat(rs.map((r) => r.scriptDeleteMs)),
				rows: Object.entries(sizes)
					.map(([t, s]) => `${t} ${s.rows}`)
					.join(', ')
			});
			plans[`${db}: ${caseName(c)}`] = rs[0].read.planSteps.join(' → ');
			if (c === TODAY[db]) continue;
			ratios.push(
				{ name: `${db}: ${caseName(c)} / ${caseName(TODAY[db])} (load time)`, value: pairedRatio(rs, today, (r) => r.loadMs), note: 'median of per-round ratios' },
				{ name: `${db}: ${caseName(c)} / ${caseName(TODAY[db])} (replace time)`, value: pairedRatio(rs, today, (r) => r.replaceMs), note: 'median of per-round ratios' }
			);
		}
	}
	return {
		name: 'storage-designs',
		description: `${SIZE.columnEdges.toLocaleString('en-US')} column edges of the ${SIZE.models}-model project, median [min–max] of ${ROUNDS} round(s), each case a fresh process${QUICK ? ' (QUICK)' : ''}`,
		rows,
		ratios,
		environment: { ...environment(), edges: edges.length, kinds, read_component: pick, plans, loadavg_during: stat(loadAverages), quick: QUICK }
	};
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
	const r = await run();
	printTable(r);
	for (const [c, plan] of Object.entries(r.environment.plans as Record<string, string>)) process.stdout.write(`plan ${c}: ${plan}\n`);
	process.stdout.write(`${JSON.stringify({ read_component: r.environment.read_component, kinds: r.environment.kinds, loadavg_during: r.environment.loadavg_during })}\n`);
	if (!QUICK) {
		const file = path.resolve('bench/details.json');
		const all = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
		all[r.name] = { ...r, measured_at: new Date().toISOString() };
		writeFileSync(file, `${JSON.stringify(all, null, 2)}\n`);
	}
}
