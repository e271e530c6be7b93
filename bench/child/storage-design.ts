// One storage design measured in a fresh process (peak RSS is per process), printing JSON.
//
//   --mode setup --dir D                          a migrated PGlite data dir to copy per run
//   --db pglite|postgres --design N --method M --edges F [--dir D] --component C --component-edges K
//
// The app's database is opened as the app opens it (migrated; on PGlite the on-disk data dir),
// the design's tables are created in a scratch schema, and then: load one graph's edges (one
// transaction, as the deploy's store does), sizes, a component read (EXPLAIN ANALYZE and timed),
// a replace (delete + reload of the graph in one transaction), and the script version's delete,
// checked to leave no row of the graph behind. The edges file is the decoded index as the
// ingest holds it (bench/storage-designs.ts writes it once), so decode cost is not in these figures.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { sql } from 'drizzle-orm';
import { openDatabase, toNumber, type Database } from '../../src/lib/server/db';
import { componentReadSql, componentTable, deleteGraphSql, designDdl, designTables, loadGraph, SCHEMA, type BenchEdge, type BenchGraphKey, type DesignName, type LoadMethod } from '../storage-design-tables';

const { values } = parseArgs({
	options: {
		mode: { type: 'string' },
		db: { type: 'string' },
		design: { type: 'string' },
		method: { type: 'string' },
		edges: { type: 'string' },
		dir: { type: 'string' },
		component: { type: 'string' },
		'component-edges': { type: 'string' }
	}
});
const out = (o: unknown) => process.stdout.write(`${JSON.stringify(o)}\n`);

/** VmRSS / VmHWM from /proc (MB). Writing 5 to clear_refs resets VmHWM, so a phase's peak is its own. */
function procMb(field: 'VmRSS' | 'VmHWM'): number {
	const m = readFileSync('/proc/self/status', 'utf8').match(new RegExp(`${field}:\\s+(\\d+) kB`));
	return m ? Number(m[1]) / 1024 : NaN;
}
const resetPeak = () => {
	try {
		writeFileSync('/proc/self/clear_refs', '5');
	} catch {
		// Without it the peak includes reading the edges file; reported as such by `peakReset`.
		return false;
	}
	return true;
};

if (values.mode === 'setup') {
	const database = await openDatabase({ dataDir: values.dir! });
	await database.close();
	out({ ok: true });
	process.exit(0);
}

const design = values.design as DesignName;
const method = (values.method ?? 'copy') as LoadMethod;
const component = Number(values.component);
const componentEdges = Number(values['component-edges']);
const key: BenchGraphKey = { workspace: 'bench', scriptPath: 'f/bench/project', scriptHash: 1n, jobId: '00000000-0000-0000-0000-000000000000' };

let database: Database;
let drop: () => Promise<void>;
if (values.db === 'postgres') {
	const url = process.env.BENCH_DATABASE_URL!;
	const name = `tributary_storage_${process.pid}`;
	const admin = postgres(url, { max: 1, onnotice: () => {} });
	await admin.unsafe(`create database ${name}`);
	const u = new URL(url);
	u.pathname = `/${name}`;
	database = await openDatabase({ url: u.toString() });
	drop = async () => {
		await database.close();
		await admin.unsafe(`drop database ${name} with (force)`);
		await admin.end();
	};
} else {
	database = await openDatabase({ dataDir: values.dir! });
	drop = () => database.close();
}
const exec = (s: string) => database.rows(sql.raw(s));

await exec(`create schema ${SCHEMA}`);
await database.db.transaction(async (tx) => {
	await database.rows(sql.raw(`set local search_path = ${SCHEMA}`), tx);
	for (const ddl of designDdl(design)) await database.rows(sql.raw(ddl), tx);
});
await exec(`insert into ${SCHEMA}.script values ('${key.workspace}', ${key.scriptHash})`);

const edges = JSON.parse(readFileSync(values.edges!, 'utf8')) as BenchEdge[];
const openRssMb = procMb('VmRSS');
const peakReset = resetPeak();

async function load(): Promise<void> {
	await database.db.transaction(async (tx) => {
		await database.rows(sql.raw(`set local search_path = ${SCHEMA}, public`), tx);
		await loadGraph(database, tx, design, method, key, edges);
	});
}

const t0 = performance.now();
await load();
const loadMs = performance.now() - t0;
const loadPeakRssMb = peakReset ? procMb('VmHWM') : process.resourceUsage().maxRSS / 1024;

await exec(`analyze ${designTables(design).map((t) => `${SCHEMA}.${t}`).join(', ')}`);
const count = async (t: string) => toNumber((await exec(`select count(*) as c from ${SCHEMA}.${t}`))[0].c);
const sizes: Record<string, { tableMb: number; indexMb: number; rows: number }> = {};
for (const t of designTables(design)) {
	const [s] = await exec(`select pg_table_size('${SCHEMA}.${t}') as t, pg_indexes_size('${SCHEMA}.${t}') as i`);
	sizes[t] = { tableMb: toNumber(s.t) / 1048576, indexMb: toNumber(s.i) / 1048576, rows: await count(t) };
}

// The component read: its plan's rows on the edge table must be the component's, not the graph's.
const readSql = componentReadSql(design, key, component);
const answer = await exec(readSql);
if (answer.length !== componentEdges) throw new Error(`${design}: the component read gave ${answer.length} edges, expected ${componentEdges}`);
// Warm first: PGlite's first reads after a load run several times slower (WASM tiers, cold pages).
for (let i = 0; i < 10; i++) await exec(readSql);
type PlanNode = { 'Relation Name'?: string; 'Actual Rows'?: number; 'Actual Loops'?: number; 'Node Type'?: string; Plans?: PlanNode[] };
const [explained] = await exec(`explain (analyze, format json) ${readSql}`);
const plan = (typeof explained['QUERY PLAN'] === 'string' ? JSON.parse(explained['QUERY PLAN'] as string) : explained['QUERY PLAN']) as { Plan: PlanNode; 'Execution Time': number }[];
const scans: string[] = [];
let edgeTableRows = 0;
const planSteps: string[] = [];
const walk = (n: PlanNode) => {
	planSteps.push(`${n['Node Type']}${n['Relation Name'] ? ` on ${n['Relation Name']}` : ''} (${(n['Actual Rows'] ?? 0) * (n['Actual Loops'] ?? 1)})`);
	if (n['Relation Name'] === componentTable(design)) {
		edgeTableRows += (n['Actual Rows'] ?? 0) * (n['Actual Loops'] ?? 1);
		scans.push(n['Node Type'] ?? '');
	}
	for (const c of n.Plans ?? []) walk(c);
};
walk(plan[0].Plan);
const readMs: number[] = [];
for (let i = 0; i < 21; i++) {
	const r0 = performance.now();
	await exec(readSql);
	readMs.push(performance.now() - r0);
}
readMs.sort((a, b) => a - b);

// Replace: the previous graph's rows go and the same graph is loaded again, atomically.
let deleteMs = 0;
const r0 = performance.now();
await database.db.transaction(async (tx) => {
	const d0 = performance.now();
	for (const s of deleteGraphSql(design, key)) await database.rows(sql.raw(s), tx);
	deleteMs = performance.now() - d0;
	await database.rows(sql.raw(`set local search_path = ${SCHEMA}, public`), tx);
	await loadGraph(database, tx, design, method, key, edges);
});
const replaceMs = performance.now() - r0;
for (const t of designTables(design)) {
	const n = await count(t);
	if (n !== sizes[t].rows) throw new Error(`${design}: after the replace ${t} holds ${n} rows, ${sizes[t].rows} before`);
}

// A script version going takes its graph with it (FK cascade or the graph trigger).
const c0 = performance.now();
await exec(`delete from ${SCHEMA}.script where workspace = '${key.workspace}' and hash = ${key.scriptHash}`);
const scriptDeleteMs = performance.now() - c0;
const left: Record<string, number> = {};
for (const t of designTables(design)) left[t] = await count(t);
if (Object.values(left).some((n) => n !== 0)) throw new Error(`${design}: deleting the script version left rows ${JSON.stringify(left)}`);

const wasmMb =
	database.kind === 'pglite' ? ((database.db as unknown as { session: { client: { Module?: { HEAPU8?: Uint8Array } } } }).session.client.Module?.HEAPU8?.byteLength ?? 0) / 1048576 : 0;
await drop();
out({
	design,
	method,
	db: values.db,
	edges: edges.length,
	loadMs,
	openRssMb,
	loadPeakRssMb,
	peakReset,
	wasmMb,
	sizes,
	read: { rows: answer.length, edgeTableRows, scans, planSteps, executionMs: plan[0]['Execution Time'], medianMs: readMs[10], minMs: readMs[0] },
	replaceMs,
	deleteMs,
	scriptDeleteMs
});
