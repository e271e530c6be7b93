// Graph storage on both databases: the three provenances, atomic replacement, retention and
// asset-usage ownership. Rows here are built from the named lineage graphs, not from dbt files
// (the fixture-driven ingest tests live in tests/ingest-*.test.ts).
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directComponents } from '../src/lib/lineage/components';
import { namedGraphs } from './support/test-graphs';
import type { Database } from '../src/lib/server/db';
import {
	analyzeGraphTables,
	dumpGraph,
	graphCounts,
	graphDigest,
	pruneGraphs,
	replaceGraph,
	stageGraph,
	storeRunSnapshot,
	versionKey,
	type GraphContent,
	type GraphKey,
	type NodeRow
} from '../src/lib/server/repo/graph';
import { insertJob } from '../src/lib/server/repo/jobs';
import { assetUsageOf, dropPendingVersion, insertScriptVersion, newestVersion, pruneAssetUsage, publishAssetUsage, settlePendingVersion, stageAssetUsage } from '../src/lib/server/repo/scripts';
import { script, workspace } from '../src/lib/server/schema';
import { testBackends } from './support/db';
import { nodeRow } from './support/graph-rows';

function node(uniqueId: string, extra: Partial<NodeRow> = {}): NodeRow {
	const name = uniqueId.split('.').pop()!;
	return nodeRow(uniqueId, {
		assetPath: `analytics/${name}`,
		rawCode: `select 1 as ${uniqueId.replace(/\W/g, '_')}`,
		originalFilePath: `models/${uniqueId}.sql`,
		...extra
	});
}

/** A graph from a named lineage shape: its models, ref edges, and column edges. */
function graphFrom(name: string, withColumns = true): GraphContent {
	const g = namedGraphs.find((x) => x.name === name)!;
	const ids = new Set<string>();
	const edges = new Map<string, { parent: string; child: string }>();
	for (const e of g.edges) {
		ids.add(e.parentUniqueId).add(e.childUniqueId);
		if (e.parentUniqueId !== e.childUniqueId) edges.set(`${e.parentUniqueId}>${e.childUniqueId}`, { parent: e.parentUniqueId, child: e.childUniqueId });
	}
	const comps = directComponents(g.edges);
	return {
		nodes: [...ids].sort().map((id) => node(id)),
		edges: [...edges.values()],
		columnEdges: withColumns ? g.edges.map((e, i) => ({ ...e, component: comps[i] })) : null
	};
}

async function store(database: Database, key: GraphKey, g: GraphContent, by = 'u/alice') {
	await database.db.transaction(async (tx) => {
		await replaceGraph(database, tx, key, g, { digest: graphDigest(g), permissionedAs: by });
	});
}

describe.each(testBackends())('graph storage on $name', (backend) => {
	let database: Database;
	const ws = 'acme';
	beforeAll(async () => {
		database = await backend.open();
		await database.db.insert(workspace).values({ id: ws, name: 'Acme' });
	});
	afterAll(async () => {
		await database?.close();
	});

	async function version(path: string, createdAt?: Date): Promise<bigint> {
		const hash = BigInt(Math.floor(Math.random() * 2 ** 52));
		await insertScriptVersion(database.db, { workspace: ws, hash, path, language: 'dbt', content: '', createdBy: 'alice' });
		if (createdAt) await database.db.update(script).set({ createdAt }).where(sql`hash = ${hash.toString()}::bigint`);
		return hash;
	}

	/** A preview's job (a preview graph whose job is missing is swept as a dead deploy's). */
	const previewJob = (path: string, by = 'alice') =>
		insertJob(database.db, { workspace: ws, kind: 'preview', scriptPath: path, scriptHash: null, createdBy: by, permissionedAs: `u/${by}`, status: 'success' });

	it.each(['diamond', 'cycle', 'self-loop', 'fan-out', 'disconnected families'])(
		'stores and reads back the %s graph row for row',
		async (name) => {
			const g = graphFrom(name);
			const key = versionKey(ws, `f/shapes/${name.replace(/\W/g, '_')}`, await version(`f/shapes/${name.replace(/\W/g, '_')}`));
			await store(database, key, g);
			const d = await dumpGraph(database.db, key);
			expect(d.nodes.map((n) => n.uniqueId)).toEqual(g.nodes.map((n) => n.uniqueId));
			expect(d.edges).toHaveLength(g.edges.length);
			expect(d.columnEdges).toHaveLength(g.columnEdges!.length);
			expect(d.marker?.digest).toBe(graphDigest(g));
			// Scan edges carry no component; direct ones carry the one computed at ingest.
			for (const c of d.columnEdges) expect(c.comp === null).toBe(c.k !== 'copy' && c.k !== 'mod');
		}
	);

	it('statistics after a bulk load: every column of the edge tables, the filtered columns of dbt_node, not its SQL and docs', async () => {
		const key = versionKey(ws, 'f/stats/project', await version('f/stats/project'));
		await store(database, key, graphFrom('fan-out'));
		await analyzeGraphTables(database);
		const stats = async (table: string) =>
			new Set((await database.rows<{ attname: string }>(sql`select attname from pg_stats where schemaname = 'public' and tablename = ${table}`)).map((r) => r.attname));
		const node = await stats('dbt_node');
		for (const column of ['workspace', 'script_path', 'job_id', 'unique_id', 'resource_type', 'asset_path', 'attached_node', 'digest']) expect(node, column).toContain(column);
		for (const column of ['raw_code', 'description', 'columns', 'column_schema', 'test_args']) expect(node, column).not.toContain(column);
		expect([...(await stats('dbt_column_edge'))].sort()).toEqual(['child_col', 'component', 'graph_id', 'lineage_kind', 'parent_col', 'provenance']);
		expect(await stats('dbt_graph_column')).toContain('column_name');
		expect(await stats('dbt_edge')).toContain('child_unique_id');
	});

	it('keeps the three provenances apart: version, run snapshot, preview', async () => {
		const path = 'f/prov/project';
		const hash = await version(path);
		const runJob = randomUUID();
		const previewJob = randomUUID();
		const v = versionKey(ws, path, hash);
		const run: GraphKey = { ...v, jobId: runJob };
		const preview: GraphKey = { workspace: ws, scriptPath: path, scriptHash: null, jobId: previewJob };
		await store(database, v, graphFrom('diamond'));
		await store(database, run, graphFrom('fan-out'));
		await store(database, preview, graphFrom('cycle'));
		expect(await graphCounts(database.db, v)).toEqual({ nodes: 4, edges: 4, columnEdges: 4 });
		expect(await graphCounts(database.db, run)).toEqual({ nodes: 5, edges: 4, columnEdges: 4 });
		expect(await graphCounts(database.db, preview)).toEqual({ nodes: 3, edges: 3, columnEdges: 3 });
		// Replacing the preview touches nothing else.
		await store(database, preview, graphFrom('self-loop'));
		expect(await graphCounts(database.db, preview)).toEqual({ nodes: 2, edges: 1, columnEdges: 2 });
		expect(await graphCounts(database.db, v)).toEqual({ nodes: 4, edges: 4, columnEdges: 4 });
		expect(await graphCounts(database.db, run)).toEqual({ nodes: 5, edges: 4, columnEdges: 4 });
		// Deleting the version cascades its own and its run's rows; the preview survives.
		await database.db.delete(script).where(sql`hash = ${hash.toString()}::bigint`);
		expect(await graphCounts(database.db, v)).toEqual({ nodes: 0, edges: 0, columnEdges: 0 });
		expect(await graphCounts(database.db, run)).toEqual({ nodes: 0, edges: 0, columnEdges: 0 });
		expect(await graphCounts(database.db, preview)).toEqual({ nodes: 2, edges: 1, columnEdges: 2 });
	});

	it('a run snapshot equal to its version graph is not stored; a different one is', async () => {
		const path = 'f/snap/project';
		const hash = await version(path);
		await store(database, versionKey(ws, path, hash), graphFrom('diamond'));
		const same = { workspace: ws, scriptPath: path, scriptHash: hash, jobId: randomUUID() };
		const other = { workspace: ws, scriptPath: path, scriptHash: hash, jobId: randomUUID() };
		const stored = await database.db.transaction(async (tx) => [
			await storeRunSnapshot(database, tx, same, graphFrom('diamond'), 'u/alice'),
			await storeRunSnapshot(database, tx, other, graphFrom('fan-out'), 'u/alice')
		]);
		expect(stored).toEqual([false, true]);
		expect((await dumpGraph(database.db, same)).marker).toBeNull();
		expect((await graphCounts(database.db, other)).nodes).toBe(5);
	});

	it('a failed replacement leaves the previous graph exactly as it was', async () => {
		const path = 'f/atomic/project';
		const key = versionKey(ws, path, await version(path));
		await store(database, key, graphFrom('diamond'));
		const before = await dumpGraph(database.db, key);
		const bad = graphFrom('fan-out');
		bad.nodes.push(bad.nodes[0]); // a duplicate unique_id violates the unique index mid-insert
		await expect(store(database, key, bad)).rejects.toThrow();
		expect(await dumpGraph(database.db, key)).toEqual(before);
	});

	it('the digest includes column edges only when present', () => {
		const withCols = graphFrom('diamond');
		const without = graphFrom('diamond', false);
		const empty = { ...withCols, columnEdges: [] };
		expect(graphDigest(withCols)).not.toBe(graphDigest(without));
		expect(graphDigest(empty)).not.toBe(graphDigest(without));
		expect(graphDigest(graphFrom('diamond'))).toBe(graphDigest(withCols));
	});

	it('retention: runs older than 30 days, versions beyond 50, previews beyond 5 per principal', async () => {
		const path = 'f/retention/project';
		const now = new Date();
		const days = (n: number) => new Date(now.getTime() - n * 86_400_000);
		const hashes: bigint[] = [];
		for (let i = 0; i < 53; i++) hashes.push(await version(path, days(60 - i)));
		for (const hash of hashes) await store(database, versionKey(ws, path, hash), graphFrom('self-loop'));
		const newest = hashes[hashes.length - 1];
		const oldRun: GraphKey = { ...versionKey(ws, path, newest), jobId: randomUUID() };
		const freshRun: GraphKey = { ...versionKey(ws, path, newest), jobId: randomUUID() };
		await store(database, oldRun, graphFrom('diamond'));
		await store(database, freshRun, graphFrom('diamond'));
		await database.rows(sql`update dbt_graph_snapshot set ingested_at = ${days(31).toISOString()}::timestamptz where job_id = ${oldRun.jobId}::uuid`);
		const previews: GraphKey[] = [];
		for (let i = 0; i < 7; i++) {
			const k: GraphKey = { workspace: ws, scriptPath: path, scriptHash: null, jobId: await previewJob(path) };
			previews.push(k);
			await store(database, k, graphFrom('cycle'), 'u/alice');
			await database.rows(sql`update dbt_graph_snapshot set ingested_at = ${days(10 - i).toISOString()}::timestamptz where job_id = ${k.jobId}::uuid`);
		}
		const bobPreview: GraphKey = { workspace: ws, scriptPath: path, scriptHash: null, jobId: await previewJob(path, 'bob') };
		await store(database, bobPreview, graphFrom('cycle'), 'u/bob');
		await database.rows(sql`update dbt_graph_snapshot set ingested_at = ${days(20).toISOString()}::timestamptz where job_id = ${bobPreview.jobId}::uuid`);

		const pruned = await database.db.transaction((tx) => pruneGraphs(database, tx, ws, path, now));
		expect(pruned).toMatchObject({ runs: 1, versions: 3, previews: 2 });
		for (const hash of hashes.slice(0, 3)) expect((await graphCounts(database.db, versionKey(ws, path, hash))).nodes).toBe(0);
		for (const hash of hashes.slice(3)) expect((await graphCounts(database.db, versionKey(ws, path, hash))).nodes).toBe(2);
		expect((await graphCounts(database.db, oldRun)).nodes).toBe(0);
		expect((await graphCounts(database.db, freshRun)).nodes).toBe(4);
		// Alice's two oldest previews go; Bob's single older one stays (5 per principal).
		expect((await graphCounts(database.db, previews[0])).nodes).toBe(0);
		expect((await graphCounts(database.db, previews[1])).nodes).toBe(0);
		for (const k of previews.slice(2)) expect((await graphCounts(database.db, k)).nodes).toBe(3);
		expect((await graphCounts(database.db, bobPreview)).nodes).toBe(3);
		// Markers went with their rows.
		const [{ n }] = await database.rows<{ n: number }>(sql`select count(*)::int as n from dbt_graph_snapshot where script_path = ${path}`);
		expect(n).toBe(50 + 1 + 5 + 1);
	}, 180_000);

	it('a staged graph is stored row for row under its pending version, and goes with it', async () => {
		const path = 'f/staged/project';
		const hash = BigInt(Math.floor(Math.random() * 2 ** 52));
		await insertScriptVersion(database.db, { workspace: ws, hash, path, language: 'dbt', content: '', createdBy: 'alice', pending: true });
		const key = versionKey(ws, path, hash);
		const g = graphFrom('diamond');
		await stageGraph(database, key, g, { digest: graphDigest(g), permissionedAs: 'u/alice' });
		// The same rows as one transaction's replace writes.
		const other = versionKey(ws, 'f/staged/other', await version('f/staged/other'));
		await store(database, other, g);
		const [a, b] = [await dumpGraph(database.db, key), await dumpGraph(database.db, other)];
		expect(a.nodes.map(({ scriptPath: _p, scriptHash: _h, ...n }) => n)).toEqual(b.nodes.map(({ scriptPath: _p, scriptHash: _h, ...n }) => n));
		expect(a.edges).toEqual(b.edges);
		expect(a.columnEdges).toEqual(b.columnEdges);
		expect(a.marker).toEqual(b.marker);
		// No live read names a pending version.
		expect((await newestVersion(database.db, ws, path))?.hash).toBeUndefined();
		// A deploy that fails after staging drops the version, and every row of its graph with it.
		expect(await dropPendingVersion(database.db, ws, hash)).toBe(true);
		expect(await graphCounts(database.db, key)).toEqual({ nodes: 0, edges: 0, columnEdges: 0 });
		const [{ n }] = await database.rows<{ n: number }>(sql`select count(*)::int as n from dbt_graph_snapshot where script_path = ${path}`);
		expect(n).toBe(0);
	});

	it('retention: a pending version or a preview graph no job names (a deploy that died while staging) goes after an hour', async () => {
		const path = 'f/staged/orphans';
		const pending = async (minutesAgo: number, withJob: boolean) => {
			const hash = BigInt(Math.floor(Math.random() * 2 ** 52));
			await insertScriptVersion(database.db, { workspace: ws, hash, path, language: 'dbt', content: '', createdBy: 'alice', pending: true });
			await database.db.update(script).set({ createdAt: new Date(Date.now() - minutesAgo * 60_000) }).where(sql`hash = ${hash.toString()}::bigint`);
			if (withJob) await insertJob(database.db, { workspace: ws, kind: 'deploy', scriptPath: path, scriptHash: hash, createdBy: 'alice', permissionedAs: 'u/alice', status: 'queued' });
			const g = graphFrom('fan-out');
			await stageGraph(database, versionKey(ws, path, hash), g, { digest: graphDigest(g), permissionedAs: 'u/alice' });
			return hash;
		};
		const orphan = await pending(61, false);
		const staging = await pending(5, false);
		const pinning = await pending(120, true);
		// A preview staged by a deploy that died before its job was inserted, and one with its job.
		const g = graphFrom('cycle');
		const deadPreview: GraphKey = { workspace: ws, scriptPath: path, scriptHash: null, jobId: randomUUID() };
		const livePreview: GraphKey = { workspace: ws, scriptPath: path, scriptHash: null, jobId: await previewJob(path) };
		for (const k of [deadPreview, livePreview]) {
			await stageGraph(database, k, g, { digest: graphDigest(g), permissionedAs: 'u/alice' });
			await database.rows(sql`update dbt_graph_snapshot set ingested_at = now() - interval '2 hours' where job_id = ${k.jobId}::uuid`);
		}
		await database.db.transaction((tx) => pruneGraphs(database, tx, ws, path));
		expect((await graphCounts(database.db, deadPreview)).nodes).toBe(0);
		expect((await graphCounts(database.db, livePreview)).nodes).toBe(3);
		const left = (await database.rows<{ hash: string }>(sql`select hash::text as hash from script where workspace = ${ws} and path = ${path}`)).map((r) => BigInt(r.hash));
		expect(left.sort()).toEqual([staging, pinning].sort());
		expect((await graphCounts(database.db, versionKey(ws, path, orphan))).nodes).toBe(0);
		expect((await graphCounts(database.db, versionKey(ws, path, staging))).nodes).toBeGreaterThan(0);
	});

	it('asset usage: an older version never takes the path back from a newer one', async () => {
		const path = 'f/usage/project';
		const older = await version(path, new Date(Date.now() - 60_000));
		const newer = await version(path);
		const published = await database.db.transaction((tx) =>
			publishAssetUsage(database, tx, ws, path, newer, [{ assetKind: 'dbt', assetPath: 'analytics/new', access: 'w' }])
		);
		const late = await database.db.transaction((tx) =>
			publishAssetUsage(database, tx, ws, path, older, [{ assetKind: 'dbt', assetPath: 'analytics/old', access: 'w' }])
		);
		expect([published, late]).toEqual([true, false]);
		expect(await assetUsageOf(database.db, ws, path)).toEqual([{ assetKind: 'dbt', assetPath: 'analytics/new', access: 'w' }]);
	});

	it('asset usage: two deploys racing leave the newest version owning', async () => {
		const path = 'f/race/project';
		const deploy = (asset: string, delayMs: number) =>
			database.db.transaction(async (tx) => {
				const hash = BigInt(Math.floor(Math.random() * 2 ** 52));
				await insertScriptVersion(tx, { workspace: ws, hash, path, language: 'dbt', content: asset, createdBy: 'alice' });
				await insertJob(tx, {
					workspace: ws, kind: 'deploy', scriptPath: path, scriptHash: hash, createdBy: 'alice',
					permissionedAs: 'u/alice', status: 'success'
				});
				// Hold the transaction open so the two overlap on Postgres (PGlite serialises them).
				await new Promise((r) => setTimeout(r, delayMs));
				await publishAssetUsage(database, tx, ws, path, hash, [{ assetKind: 'dbt', assetPath: `analytics/${asset}`, access: 'w' }]);
				return hash;
			});
		for (let round = 0; round < 4; round++) {
			// Alternate which deploy starts first and which one publishes first.
			const [a, b] = await Promise.all([deploy(`a${round}`, round % 2 ? 5 : 80), deploy(`b${round}`, round % 2 ? 80 : 5)]);
			const newest = await newestVersion(database.db, ws, path);
			expect([a, b]).toContain(newest!.hash);
			const usage = await assetUsageOf(database.db, ws, path);
			expect(usage).toEqual([{ assetKind: 'dbt', assetPath: `analytics/${newest!.content}`, access: 'w' }]);
		}
	});

	it('asset usage staged outside a transaction: unseen until published, then the only rows; a pending version keeps its own through a prune', async () => {
		const path = 'f/staged/project';
		const rowsOf = async () =>
			(await database.rows<{ hash: string; asset_path: string }>(sql`select script_hash::text as hash, asset_path from asset_usage where workspace = ${ws} and script_path = ${path} order by 2`)).map(
				(r) => `${r.hash}:${r.asset_path}`
			);
		const live = await version(path, new Date(Date.now() - 120_000));
		await database.db.transaction((tx) => publishAssetUsage(database, tx, ws, path, live, [{ assetKind: 'dbt', assetPath: 'analytics/old', access: 'w' }]));
		// A new version, pending while its rows are staged (more than one COPY statement of them).
		const next = BigInt(Math.floor(Math.random() * 2 ** 52));
		await insertScriptVersion(database.db, { workspace: ws, hash: next, path, language: 'dbt', content: '', createdBy: 'alice', pending: true });
		const many = Array.from({ length: 12_000 }, (_, i) => ({ assetKind: 'dbt' as const, assetPath: `analytics/${'m'.repeat(20)}_${i}`, access: 'r' as const }));
		await stageAssetUsage(database, ws, path, next, [...many, { assetKind: 'dbt', assetPath: 'analytics/m_0', access: 'w' }, { assetKind: 'dbt', assetPath: 'analytics/m_0', access: 'r' }]);
		expect(await assetUsageOf(database.db, ws, path)).toEqual([{ assetKind: 'dbt', assetPath: 'analytics/old', access: 'w' }]);
		// Another deploy's prune meanwhile leaves the pending version's rows alone.
		await pruneAssetUsage(database, ws, path);
		expect((await rowsOf()).length).toBe(1 + many.length + 1);
		const published = await database.db.transaction(async (tx) => {
			await settlePendingVersion(tx, ws, next, false);
			return publishAssetUsage(database, tx, ws, path, next);
		});
		expect(published).toBe(true);
		const usage = await assetUsageOf(database.db, ws, path);
		expect(usage).toHaveLength(many.length + 1);
		expect(usage.find((u) => u.assetPath === 'analytics/m_0')).toEqual({ assetKind: 'dbt', assetPath: 'analytics/m_0', access: 'rw' });
		expect(usage.some((u) => u.assetPath === 'analytics/old')).toBe(false);
		// The replaced version's row is pruned, a batch at a time; the published ones stay.
		await pruneAssetUsage(database, ws, path);
		const left = await rowsOf();
		expect(left).toHaveLength(many.length + 1);
		expect(left.every((r) => r.startsWith(`${next}:`))).toBe(true);
	});

	it('asset usage staged by a version that is dropped goes with it; one staged by a version that lost the race is pruned', async () => {
		const path = 'f/staged/dropped';
		const live = await version(path);
		await database.db.transaction((tx) => publishAssetUsage(database, tx, ws, path, live, [{ assetKind: 'dbt', assetPath: 'analytics/kept', access: 'w' }]));
		const dropped = BigInt(Math.floor(Math.random() * 2 ** 52));
		await insertScriptVersion(database.db, { workspace: ws, hash: dropped, path, language: 'dbt', content: '', createdBy: 'alice', pending: true });
		await stageAssetUsage(database, ws, path, dropped, [{ assetKind: 'dbt', assetPath: 'analytics/dropped', access: 'w' }]);
		expect(await dropPendingVersion(database.db, ws, dropped)).toBe(true);
		const count = async (hash: bigint) =>
			(await database.rows<{ n: number }>(sql`select count(*)::int as n from asset_usage where workspace = ${ws} and script_path = ${path} and script_hash = ${hash.toString()}::bigint`))[0].n;
		expect(await count(dropped)).toBe(0);
		// An older version staged, then settled after a newer one had published: it publishes nothing and its rows go.
		const older = BigInt(Math.floor(Math.random() * 2 ** 52));
		await insertScriptVersion(database.db, { workspace: ws, hash: older, path, language: 'dbt', content: '', createdBy: 'alice', pending: true });
		await database.db.update(script).set({ createdAt: new Date(Date.now() - 3_600_000) }).where(sql`hash = ${older.toString()}::bigint`);
		await stageAssetUsage(database, ws, path, older, [{ assetKind: 'dbt', assetPath: 'analytics/late', access: 'w' }]);
		const late = await database.db.transaction(async (tx) => {
			await settlePendingVersion(tx, ws, older, false);
			return publishAssetUsage(database, tx, ws, path, older);
		});
		expect(late).toBe(false);
		await pruneAssetUsage(database, ws, path);
		expect(await count(older)).toBe(0);
		expect(await assetUsageOf(database.db, ws, path)).toEqual([{ assetKind: 'dbt', assetPath: 'analytics/kept', access: 'w' }]);
	});
});
