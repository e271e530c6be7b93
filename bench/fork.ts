// A workspace fork at scale: the 3000-model project with its 200,000-edge index deployed into a
// workspace (with folders, groups, a warehouse with secrets and 20 producers beside it), then
// forked RUNS times into new workspaces, timing forkWorkspace in process (the route adds one
// membership lookup). PGlite on an on-disk data dir as `npm start` opens it; Postgres in a new
// database on BENCH_DATABASE_URL. Each fork's copy is checked: as many column edges and nodes as
// the source's graph.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { openDatabase, type Database } from '../src/lib/server/db';
import { ingestUpload } from '../src/lib/server/ingest/deploy';
import { insertAccount } from '../src/lib/server/repo/accounts';
import { forkWorkspace } from '../src/lib/server/repo/fork';
import { insertScriptVersion, newScriptHash, publishAssetUsage } from '../src/lib/server/repo/scripts';
import { upsertWarehouse } from '../src/lib/server/repo/warehouses';
import { createWorkspace } from '../src/lib/server/repo/workspaces';
import { producerColumnLineage } from '../src/lib/server/schema';
import { backends, QUICK } from './app';
import { metric, stat, type BenchResult, type Metric, type Row } from './lib';
import { benchProject } from './projects';

const SIZE = QUICK ? { models: 500, edges: 20_000 } : { models: 3000, edges: 200_000 };
const RUNS = Number(process.env.BENCH_RUNS ?? (QUICK ? 2 : 5));
const WS = 'bench';
const SCRIPT = 'f/bench/project';

async function open(backend: 'pglite' | 'postgres'): Promise<{ database: Database; drop: () => Promise<void> }> {
	if (backend === 'pglite') {
		const dir = mkdtempSync(path.join(tmpdir(), 'tributary-bench-fork-'));
		const database = await openDatabase({ dataDir: path.join(dir, 'pglite') });
		return { database, drop: async () => { await database.close(); rmSync(dir, { recursive: true, force: true }); } };
	}
	const base = process.env.BENCH_DATABASE_URL!;
	const name = `tributary_bench_fork_${process.pid}`;
	const admin = postgres(base, { max: 1, onnotice: () => {} });
	await admin.unsafe(`drop database if exists ${name} with (force)`);
	await admin.unsafe(`create database ${name}`);
	const u = new URL(base);
	u.pathname = `/${name}`;
	const database = await openDatabase({ url: u.toString() });
	return {
		database,
		drop: async () => {
			await database.close();
			await admin.unsafe(`drop database if exists ${name} with (force)`);
			await admin.end();
		}
	};
}

async function seed(database: Database, target: string): Promise<{ nodes: number; columnEdges: number }> {
	await insertAccount(database, { id: 'a', username: 'bench', passwordHash: null, instanceAdmin: true });
	await createWorkspace(database, { id: WS, name: 'Bench', creator: { accountId: 'a', username: 'bench' } });
	await upsertWarehouse(database, WS, { name: 'main', defaultDatabase: 'warehouse', settings: {}, secrets: { password: 'not-a-secret' } });
	await database.rows(sql`insert into folder (workspace, name, readers, writers) values (${WS}, 'bench', '{g/readers}', '{u/bench}')`);
	await database.rows(sql`insert into "group" (workspace, name) values (${WS}, 'readers')`);
	const read = (f: string) => ({ name: path.basename(f), bytes: new Uint8Array(readFileSync(path.join(target, f))) });
	const d = await ingestUpload(database, {
		workspace: WS,
		path: SCRIPT,
		kind: 'deploy',
		username: 'bench',
		manifest: read('manifest.json'),
		columnLineage: read('index/dbt.column_lineage.parquet'),
		nodeColumns: read('index/dbt.node_columns.parquet')
	});
	// Producers beside the project: each reads a model and writes a lake table, with column lineage.
	const [models] = [await database.rows<{ p: string }>(sql`select asset_path as p from dbt_node where workspace = ${WS} and resource_type = 'model' order by unique_id limit 20`)];
	for (const [i, m] of models.entries()) {
		const hash = newScriptHash();
		const p = `f/bench/producer_${i}`;
		await database.db.transaction(async (tx) => {
			await insertScriptVersion(tx, { workspace: WS, hash, path: p, language: 'sql', content: `select * from ${m.p}`, createdBy: 'bench' });
			await publishAssetUsage(database, tx, WS, p, hash, [
				{ assetKind: 'dbt', assetPath: m.p, access: 'r' },
				{ assetKind: 'ducklake', assetPath: `main/lake_${i}`, access: 'w' }
			]);
			await tx.insert(producerColumnLineage).values({
				workspace: WS, scriptPath: p, scriptHash: hash, outputAssetKind: 'ducklake', outputAssetPath: `main/lake_${i}`, outputColumn: 'id',
				inputAssetKind: 'dbt', inputAssetPath: m.p, inputColumn: 'id', source: 'inferred', lineageKind: 'copy'
			});
		});
	}
	return { nodes: d.nodes, columnEdges: d.column_edges ?? 0 };
}

export async function run(): Promise<BenchResult> {
	const project = await benchProject(SIZE.models, SIZE.edges);
	const rows: Row[] = [];
	const metrics: Metric[] = [];
	for (const backend of backends()) {
		process.stderr.write(`fork: ${backend}: deploying ${SIZE.models} models …\n`);
		const { database, drop } = await open(backend);
		try {
			const src = await seed(database, project.target);
			if (src.columnEdges !== SIZE.edges) throw new Error(`the project stored ${src.columnEdges} column edges, expected ${SIZE.edges}`);
			const times: number[] = [];
			for (let i = 0; i < RUNS; i++) {
				const t0 = performance.now();
				const a = await forkWorkspace(database, { source: WS, id: `fork-${i}`, name: `Fork ${i}`, caller: { accountId: 'a', username: 'bench' } });
				const s = (performance.now() - t0) / 1000;
				if (!a || a.copied.column_edges !== src.columnEdges || a.copied.nodes !== src.nodes || a.copied.scripts !== 21) {
					throw new Error(`fork ${i} copied ${JSON.stringify(a?.copied)}, expected ${src.nodes} nodes, ${src.columnEdges} column edges, 21 scripts`);
				}
				times.push(s);
				process.stderr.write(`  fork ${i}: ${s.toFixed(2)} s\n`);
			}
			const st = stat(times);
			rows.push({ case: `fork of ${SIZE.models} models / ${SIZE.edges.toLocaleString('en-US')} column edges (${backend})`, value: `${st.median.toFixed(2)} s [${st.min.toFixed(2)}–${st.max.toFixed(2)}]` } as Row);
			const goal = QUICK ? null : backend === 'postgres' ? 10 : 20;
			metrics.push(
				metric(backend === 'postgres' ? 'fork_3000_seconds_pg' : 'fork_3000_seconds_pglite', st, 's', backend, {
					goal,
					note: QUICK ? `quick: ${SIZE.models} models, no goal` : `forkWorkspace wall time in process, median of ${RUNS} forks of one source`
				})
			);
		} finally {
			await drop();
		}
	}
	return {
		name: 'fork',
		description: `A workspace fork: ${SIZE.models} models, ${SIZE.edges} column edges, 20 producers, copied by INSERT … SELECT in one transaction`,
		rows,
		ratios: [],
		environment: { models: SIZE.models, column_edges: SIZE.edges, runs: RUNS },
		metrics
	};
}
