// One ingest in a fresh process: a generated target/ directory deployed through ingestUpload into
// a fresh database (PGlite in memory, or a new database on BENCH_DATABASE_URL). Prints JSON.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { openDatabase } from '../../src/lib/server/db';
import { readColumnLineage } from '../../src/lib/server/ingest/column-index';
import { ingestUpload } from '../../src/lib/server/ingest/deploy';
import { parseManifest } from '../../src/lib/server/ingest/manifest';
import { insertAccount } from '../../src/lib/server/repo/accounts';
import { upsertWarehouse } from '../../src/lib/server/repo/warehouses';
import { createWorkspace } from '../../src/lib/server/repo/workspaces';

const { values } = parseArgs({ options: { target: { type: 'string' }, db: { type: 'string' }, mode: { type: 'string' }, lineage: { type: 'string' } } });
const target = values.target!;
const read = (f: string) => new Uint8Array(readFileSync(path.join(target, f)));
const rss = () => process.resourceUsage().maxRSS / 1024;

if (values.mode === 'decode') {
	// The parquet decode alone: rows per second and memory, against the nodes the manifest keeps.
	const manifest = parseManifest(readFileSync(path.join(target, 'manifest.json'), 'utf8'), { defaultDatabase: 'warehouse' });
	const kept = new Set(manifest.nodes.map((n) => n.uniqueId));
	const baseline = rss();
	const t0 = performance.now();
	const r = await readColumnLineage(read(values.lineage ?? 'index/dbt.column_lineage.parquet'), { fileName: 'dbt.column_lineage.parquet', keptNodes: kept });
	const ms = performance.now() - t0;
	process.stdout.write(`${JSON.stringify({ ms, rows: r.stats.rowsDecoded, stored: r.edges.length, stopped: r.stats.decodeStopped, rowsPerSecond: (r.stats.rowsDecoded / ms) * 1000, peakRssMb: rss(), baselineRssMb: baseline })}\n`);
	process.exit(0);
}

let h;
let drop: (() => Promise<void>) | null = null;
if (values.db === 'postgres') {
	const url = process.env.BENCH_DATABASE_URL!;
	const name = `tributary_bench_${process.pid}`;
	const admin = postgres(url, { max: 1, onnotice: () => {} });
	await admin.unsafe(`create database ${name}`);
	const u = new URL(url);
	u.pathname = `/${name}`;
	h = await openDatabase({ url: u.toString() });
	drop = async () => {
		await h!.close();
		await admin.unsafe(`drop database ${name} with (force)`);
		await admin.end();
	};
} else {
	h = await openDatabase({ dataDir: 'memory://' });
}
await insertAccount(h, { id: 'a', username: 'bench', passwordHash: null, instanceAdmin: true });
await createWorkspace(h, { id: 'bench', name: 'Bench', creator: { accountId: 'a', username: 'bench' } });
await upsertWarehouse(h, 'bench', { name: 'main', defaultDatabase: 'warehouse', settings: {} });
const files = {
	manifest: { name: 'manifest.json', bytes: read('manifest.json') },
	columnLineage: { name: 'dbt.column_lineage.parquet', bytes: read(values.lineage ?? 'index/dbt.column_lineage.parquet') },
	nodeColumns: { name: 'dbt.node_columns.parquet', bytes: read('index/dbt.node_columns.parquet') }
};
const baseline = rss();
const t0 = performance.now();
const a = await ingestUpload(h, { workspace: 'bench', path: 'f/bench/project', kind: 'deploy', username: 'bench', ...files });
const ms = performance.now() - t0;
const peak = rss();
if (drop) await drop();
else await h.close();
process.stdout.write(`${JSON.stringify({ ms, nodes: a.nodes, edges: a.edges, columnEdges: a.column_edges, dropped: a.dropped, peakRssMb: peak, baselineRssMb: baseline })}\n`);
