// Migration 0006 (column edges by id) on a database that holds graphs stored the old way: the
// real jaffle-shop 1.12 manifest and engine index, built by the ingest and written as text rows
// under the schema of migrations 0000–0005 (a version, a preview and a run snapshot, the three
// provenances of a graph key), then migrated. Every edge must come back row for row, the dictionary
// must name exactly the edges' ends, and the graphs' rows must still go with their marker.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/lib/server/db';
import { buildGraphContent } from '../src/lib/server/ingest/graph-content';
import { dumpGraph, graphCounts, graphDigest, versionKey, type GraphContent, type GraphKey } from '../src/lib/server/repo/graph';
import { describeFixtures, fixture } from './support/fixtures';

const MIGRATIONS = path.resolve('drizzle');
const BEFORE = '0005_node_digest';

/** A copy of the migrations folder that stops at `lastTag` (the journal cut there). */
function migrationsUpTo(lastTag: string): string {
	const dir = mkdtempSync(path.join(tmpdir(), 'tributary-migrations-'));
	cpSync(MIGRATIONS, dir, { recursive: true });
	const journalPath = path.join(dir, 'meta', '_journal.json');
	const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] };
	const last = journal.entries.findIndex((e) => e.tag === lastTag);
	expect(last).toBeGreaterThan(0);
	journal.entries = journal.entries.slice(0, last + 1);
	writeFileSync(journalPath, JSON.stringify(journal));
	return dir;
}

interface Place {
	name: 'pglite' | 'postgres';
	/** Opens the same database again, migrating with the given folder. */
	open(migrationsFolder?: string): Promise<Database>;
	drop(): Promise<void>;
}

function places(): Place[] {
	const list: Place[] = [];
	const dataDir = mkdtempSync(path.join(tmpdir(), 'tributary-pglite-migration-'));
	list.push({
		name: 'pglite',
		open: (migrationsFolder) => openDatabase({ dataDir, migrationsFolder }),
		drop: async () => rmSync(dataDir, { recursive: true, force: true })
	});
	const url = process.env.TEST_DATABASE_URL;
	if (url) {
		const name = `tributary_mig_${randomBytes(6).toString('hex')}`;
		const u = new URL(url);
		u.pathname = `/${name}`;
		let created = false;
		const admin = () => postgres(url, { max: 1, onnotice: () => {} });
		list.push({
			name: 'postgres',
			open: async (migrationsFolder) => {
				if (!created) {
					const a = admin();
					await a.unsafe(`CREATE DATABASE ${name}`);
					await a.end({ timeout: 1 });
					created = true;
				}
				return openDatabase({ url: u.toString(), migrationsFolder });
			},
			drop: async () => {
				const a = admin();
				await a.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
				await a.end({ timeout: 1 });
			}
		});
	} else if (process.env.CI) throw new Error('TEST_DATABASE_URL must be set in CI: database tests run on PGlite and Postgres');
	return list;
}

async function jaffle(): Promise<GraphContent> {
	const dir = fixture('constructed-index', 'jaffle-shop-1.12');
	const file = (p: string) => ({ name: path.basename(p), bytes: new Uint8Array(readFileSync(p)) });
	const built = await buildGraphContent({
		manifest: file(fixture('jaffle-shop-1.12-duckdb-docs-generate', 'manifest.json')),
		columnLineage: file(path.join(dir, 'index', 'dbt.column_lineage.parquet')),
		warehouse: 'duckdb',
		defaultDatabase: null,
		selection: {},
		columnLineageWanted: true
	});
	return built.content;
}

type EdgeDump = { pu: string; pc: string; cu: string; cc: string; k: string; comp: number | null };
const edgeOrder = (e: EdgeDump) => [e.pu, e.pc, e.cu, e.cc, e.k].join('\u0000');
const sorted = (xs: EdgeDump[]) => [...xs].sort((a, b) => (edgeOrder(a) < edgeOrder(b) ? -1 : edgeOrder(a) > edgeOrder(b) ? 1 : 0));

/** One graph written as the 0000–0005 schema stores it: its marker, then its edges as text rows. */
async function storeTheOldWay(database: Database, key: GraphKey, g: GraphContent, provenance: 'engine' | 'inferred'): Promise<void> {
	const ce = g.columnEdges!;
	const hash = key.scriptHash === null ? sql`null::bigint` : sql`${key.scriptHash.toString()}::bigint`;
	await database.db.transaction(async (tx) => {
		await database.rows(
			sql`insert into dbt_graph_snapshot (workspace, script_path, script_hash, job_id, digest, permissioned_as)
			    values (${key.workspace}, ${key.scriptPath}, ${hash}, ${key.jobId}::uuid, ${graphDigest(g)}, 'u/admin')`,
			tx
		);
		await database.rows(
			sql`insert into dbt_column_edge (workspace, script_path, script_hash, job_id, parent_unique_id, parent_column,
			                                 child_unique_id, child_column, lineage_kind, component, provenance)
			    select ${key.workspace}, ${key.scriptPath}, ${hash}, ${key.jobId}::uuid, pu, pc, cu, cc, k, comp, ${provenance}
			      from unnest(${sql.param(ce.map((e) => e.parentUniqueId))}::text[], ${sql.param(ce.map((e) => e.parentColumn))}::text[],
			                  ${sql.param(ce.map((e) => e.childUniqueId))}::text[], ${sql.param(ce.map((e) => e.childColumn))}::text[],
			                  ${sql.param(ce.map((e) => e.lineageKind))}::text[], ${sql.param(ce.map((e) => e.component))}::int[]) as u(pu, pc, cu, cc, k, comp)`,
			tx
		);
	});
}

describeFixtures('migration 0006: column edges by id, over graphs stored as text', () => {
	describe.each(places())('on $name', (place) => {
		let database: Database;
		let g: GraphContent;
		const ws = 'legacy';
		const hash = 0x1234_5678_9abc_defn;
		const keys: { label: string; key: GraphKey; provenance: 'engine' | 'inferred' }[] = [
			{ label: 'version', key: versionKey(ws, 'f/analytics/jaffle', hash), provenance: 'engine' },
			{ label: 'run snapshot', key: { workspace: ws, scriptPath: 'f/analytics/jaffle', scriptHash: hash, jobId: randomUUID() }, provenance: 'inferred' },
			{ label: 'preview', key: { workspace: ws, scriptPath: 'f/analytics/jaffle', scriptHash: null, jobId: randomUUID() }, provenance: 'engine' }
		];

		beforeAll(async () => {
			g = await jaffle();
			expect(g.columnEdges!.length).toBeGreaterThan(50);
			const old = await place.open(migrationsUpTo(BEFORE));
			await old.rows(sql`insert into workspace (id, name) values (${ws}, 'Legacy')`);
			await old.rows(
				sql`insert into script (workspace, hash, path, language, content, created_by) values (${ws}, ${hash.toString()}::bigint, 'f/analytics/jaffle', 'dbt', '', 'admin')`
			);
			for (const k of keys) await storeTheOldWay(old, k.key, g, k.provenance);
			await old.close();
			database = await place.open();
		}, 180_000);

		afterAll(async () => {
			await database?.close();
			await place.drop();
		});

		it.each(keys)('keeps every edge of the $label, row for row, with its provenance and component', async ({ key, provenance }) => {
			const dump = await database.db.transaction((tx) => dumpGraph(tx, key));
			const expected = g.columnEdges!.map((e) => ({ pu: e.parentUniqueId, pc: e.parentColumn, cu: e.childUniqueId, cc: e.childColumn, k: e.lineageKind, comp: e.component }));
			expect(sorted(dump.columnEdges)).toEqual(sorted(expected));
			expect(dump.marker?.digest).toBe(graphDigest(g));
			const [pv] = await database.rows<{ n: number; p: string }>(
				sql`select count(*)::int as n, min(e.provenance) as p from dbt_column_edge e join dbt_graph_snapshot s on s.id = e.graph_id
				     where s.workspace = ${ws} and s.job_id = ${key.jobId}::uuid and s.script_hash is not distinct from ${key.scriptHash === null ? null : key.scriptHash.toString()}::bigint`
			);
			expect(pv).toEqual({ n: g.columnEdges!.length, p: provenance });
		});

		it("names exactly the edges' ends in each graph's dictionary, ids dense from 0", async () => {
			const ends = new Set(g.columnEdges!.flatMap((e) => [`${e.parentUniqueId}.${e.parentColumn}`, `${e.childUniqueId}.${e.childColumn}`]));
			const rows = await database.rows<{ n: number; lo: number; hi: number }>(
				sql`select count(*)::int as n, min(column_id)::int as lo, max(column_id)::int as hi from dbt_graph_column group by graph_id`
			);
			expect(rows).toEqual(keys.map(() => ({ n: ends.size, lo: 0, hi: ends.size - 1 })));
		});

		it('the old text table is gone and its rows went nowhere else', async () => {
			const [t] = await database.rows<{ n: number }>(sql`select count(*)::int as n from information_schema.columns where table_name = 'dbt_column_edge' and column_name = 'parent_unique_id'`);
			expect(t.n).toBe(0);
			const [e] = await database.rows<{ n: number }>(sql`select count(*)::int as n from dbt_column_edge`);
			expect(e.n).toBe(3 * g.columnEdges!.length);
		});

		it("a graph's rows go with its marker: the preview's delete leaves the others, the script's cascade takes the rest", async () => {
			const preview = keys[2].key;
			await database.rows(sql`delete from dbt_graph_snapshot where workspace = ${ws} and job_id = ${preview.jobId}::uuid and script_hash is null`);
			expect((await database.db.transaction((tx) => graphCounts(tx, keys[0].key))).columnEdges).toBe(g.columnEdges!.length);
			const [left] = await database.rows<{ e: number; c: number }>(
				sql`select (select count(*)::int from dbt_column_edge) as e, (select count(distinct graph_id)::int from dbt_graph_column) as c`
			);
			expect(left).toEqual({ e: 2 * g.columnEdges!.length, c: 2 });
			await database.rows(sql`delete from script where workspace = ${ws} and hash = ${hash.toString()}::bigint`);
			const [none] = await database.rows<{ e: number; c: number }>(
				sql`select (select count(*)::int from dbt_column_edge) as e, (select count(*)::int from dbt_graph_column) as c`
			);
			expect(none).toEqual({ e: 0, c: 0 });
		});
	});
});
