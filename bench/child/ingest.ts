// One ingest in a fresh process, printing JSON on its last line.
//
//   --mode decode  --target T            the parquet decode alone (rows/s, peak RSS)
//   --mode setup   --dir D               create a PGlite data dir ready to deploy into (migrated,
//                                        workspace, account, warehouse), then close it
//   --db pglite    --dir D --target T    deploy T's artifacts through ingestUpload into the data
//                                        dir D (a copy of a setup dir): the app's embedded setup,
//                                        opened fresh as `npm start` opens ./data/pglite
//   --db postgres  --target T            the same into a new database on BENCH_DATABASE_URL
//
// Peak RSS is the process's own (getrusage maxrss): on PGlite it includes the database (its
// WASM memory lives in this process), on Postgres only ours. `wasmMb` is PGlite's WASM memory
// at the end (it only grows), so `peakRssMb - wasmMb` bounds what is ours on PGlite.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { openDatabase, type Database } from '../../src/lib/server/db';
import { readColumnLineage } from '../../src/lib/server/dbt-files/column-index';
import { ingestUpload } from '../../src/lib/server/ingest/deploy';
import { parseManifest } from '../../src/lib/server/ingest/manifest';
import { IngestProfile } from '../../src/lib/server/profile';
import { insertAccount } from '../../src/lib/server/repo/accounts';
import { upsertWarehouse } from '../../src/lib/server/repo/warehouses';
import { createWorkspace } from '../../src/lib/server/repo/workspaces';

const { values } = parseArgs({
	options: { target: { type: 'string' }, db: { type: 'string' }, mode: { type: 'string' }, lineage: { type: 'string' }, dir: { type: 'string' } }
});
const target = values.target ?? '';
const read = (f: string) => new Uint8Array(readFileSync(path.join(target, f)));
const peakRss = () => process.resourceUsage().maxRSS / 1024;
const out = (o: unknown) => process.stdout.write(`${JSON.stringify(o)}\n`);

async function seed(database: Database) {
	await insertAccount(database, { id: 'a', username: 'bench', passwordHash: null, instanceAdmin: true });
	await createWorkspace(database, { id: 'bench', name: 'Bench', creator: { accountId: 'a', username: 'bench' } });
	await upsertWarehouse(database, 'bench', { name: 'main', defaultDatabase: 'warehouse', settings: {} });
}

if (values.mode === 'decode') {
	// The parquet decode alone: rows per second and memory, against the nodes the manifest keeps.
	const manifest = parseManifest(readFileSync(path.join(target, 'manifest.json'), 'utf8'), { defaultDatabase: 'warehouse' });
	const kept = new Set(manifest.nodes.map((n) => n.uniqueId));
	const baseline = peakRss();
	const t0 = performance.now();
	const r = await readColumnLineage(read(values.lineage ?? 'index/dbt.column_lineage.parquet'), { fileName: 'dbt.column_lineage.parquet', keptNodes: kept });
	const ms = performance.now() - t0;
	out({ ms, rows: r.stats.rowsDecoded, stored: r.edges.length, stopped: r.stats.decodeStopped, rowsPerSecond: (r.stats.rowsDecoded / ms) * 1000, peakRssMb: peakRss(), baselineRssMb: baseline });
	process.exit(0);
}

if (values.mode === 'setup') {
	const database = await openDatabase({ dataDir: values.dir! });
	await seed(database);
	await database.close();
	out({ ok: true });
	process.exit(0);
}

let database: Database;
let drop: (() => Promise<void>) | null = null;
const tOpen = performance.now();
if (values.db === 'postgres') {
	const url = process.env.BENCH_DATABASE_URL!;
	const name = `tributary_bench_${process.pid}`;
	const admin = postgres(url, { max: 1, onnotice: () => {} });
	await admin.unsafe(`create database ${name}`);
	const u = new URL(url);
	u.pathname = `/${name}`;
	database = await openDatabase({ url: u.toString() });
	await seed(database);
	drop = async () => {
		await database.close();
		await admin.unsafe(`drop database ${name} with (force)`);
		await admin.end();
	};
} else {
	database = await openDatabase({ dataDir: values.dir! });
}
const openMs = performance.now() - tOpen;
// The process at rest with its database open, before the upload is read (what a restarted app
// holds); `baselineRssMb` is the high-water mark once the upload is read.
const idleRssMb = process.memoryUsage.rss() / 1048576;
const files = {
	manifest: { name: 'manifest.json', bytes: read('manifest.json') },
	columnLineage: { name: 'dbt.column_lineage.parquet', bytes: read(values.lineage ?? 'index/dbt.column_lineage.parquet') },
	nodeColumns: { name: 'dbt.node_columns.parquet', bytes: read('index/dbt.node_columns.parquet') }
};
const baseline = peakRss();
const profile = new IngestProfile();
const t0 = performance.now();
const a = await ingestUpload(database, { workspace: 'bench', path: 'f/bench/project', kind: 'deploy', username: 'bench', ...files, profile });
const ms = performance.now() - t0;
const peak = peakRss();
const wasmMb =
	database.kind === 'pglite'
		? ((database.db as unknown as { session: { client: { Module?: { HEAPU8?: Uint8Array } } } }).session.client.Module?.HEAPU8?.byteLength ?? 0) / 1048576
		: 0;
// The column lineage's bytes on disk (tables, TOAST and indexes): what the storage design decides.
const [size] = await database.rows<{ mb: unknown }>(
	sql`select (pg_total_relation_size('dbt_column_edge') + coalesce(pg_total_relation_size(to_regclass('dbt_graph_column')), 0)) / 1048576.0 as mb`
);
if (drop) await drop();
else await database.close();
out({
	columnLineageMb: Number(size.mb),
	ms,
	openMs,
	nodes: a.nodes,
	edges: a.edges,
	columnEdges: a.column_edges,
	dropped: a.dropped,
	peakRssMb: peak,
	baselineRssMb: baseline,
	idleRssMb,
	wasmMb,
	phases: profile.phases.map((p) => ({ name: p.name, ms: Math.round(p.ms), rssMb: Math.round(p.rssMb), peakMb: Math.round(p.peakMb) }))
});
