// Script versions (dbt projects and producer SQL), their archives and asset usage.
import { randomBytes } from 'node:crypto';
import { and, desc, eq, sql } from 'drizzle-orm';
import { copyChunks, copyField, copyRows, type Database, type Tx } from '../db';
import { assetUsage, assetUsageCurrent, script, scriptArchive } from '../schema';

export function newScriptHash(): bigint {
	return randomBytes(8).readBigInt64BE();
}

export interface ScriptVersion {
	workspace: string;
	hash: bigint;
	path: string;
	language: string;
	content: string;
	createdBy: string;
	createdAt: Date;
	deleted: boolean;
	archived: boolean;
	pending: boolean;
	/** The engine this version is pinned to (an EngineLock), null until pinned. */
	lock: unknown;
}

export async function insertScriptVersion(
	tx: Tx,
	v: { workspace: string; hash: bigint; path: string; language: 'dbt' | 'sql' | 'openlineage'; content: string; createdBy: string; pending?: boolean }
): Promise<void> {
	await tx.insert(script).values(v);
}

/** Writes a version's engine lock; `onlyIfUnpinned` leaves an existing lock as it is. Returns whether it wrote. */
export async function setVersionLock(tx: Tx, workspace: string, hash: bigint, lock: object, onlyIfUnpinned = false): Promise<boolean> {
	const where = and(eq(script.workspace, workspace), eq(script.hash, hash), onlyIfUnpinned ? sql`${script.lock} is null` : undefined);
	const r = await tx.update(script).set({ lock }).where(where).returning({ hash: script.hash });
	return r.length > 0;
}

/** A pinned deploy goes live: its lock written and the pending flag cleared. */
export async function makeVersionLive(tx: Tx, workspace: string, hash: bigint, lock: object | null): Promise<boolean> {
	const r = await tx
		.update(script)
		.set(lock ? { pending: false, lock } : { pending: false })
		.where(and(eq(script.workspace, workspace), eq(script.hash, hash), eq(script.pending, true), eq(script.deleted, false)))
		.returning({ hash: script.hash });
	return r.length > 0;
}

/**
 * A version whose graph was stored while it was pending becomes what its deploy made it: live,
 * or still pending until its deploy job pins it. False when it is gone (its path deleted meanwhile).
 */
export async function settlePendingVersion(tx: Tx, workspace: string, hash: bigint, staysPending: boolean): Promise<boolean> {
	const r = await tx
		.update(script)
		.set({ pending: staysPending })
		.where(and(eq(script.workspace, workspace), eq(script.hash, hash), eq(script.pending, true), eq(script.deleted, false)))
		.returning({ hash: script.hash });
	return r.length > 0;
}

/** A pending deploy that failed to pin leaves nothing behind: the version, its archive and graphs go (cascade), and its staged asset usage. */
export async function dropPendingVersion(tx: Tx, workspace: string, hash: bigint): Promise<boolean> {
	const r = await tx
		.delete(script)
		.where(and(eq(script.workspace, workspace), eq(script.hash, hash), eq(script.pending, true)))
		.returning({ path: script.path });
	// Asset usage it staged goes too (it has no foreign key: rows from before versions were kept carry no version).
	if (r.length > 0) await tx.delete(assetUsage).where(and(eq(assetUsage.workspace, workspace), eq(assetUsage.scriptPath, r[0].path), eq(assetUsage.scriptHash, hash)));
	return r.length > 0;
}

export async function storeArchive(tx: Tx, workspace: string, hash: bigint, data: Uint8Array): Promise<void> {
	await tx.insert(scriptArchive).values({ workspace, hash, data });
}

export async function hasArchive(tx: Tx, workspace: string, hash: bigint): Promise<boolean> {
	const r = await tx
		.select({ h: scriptArchive.hash })
		.from(scriptArchive)
		.where(and(eq(scriptArchive.workspace, workspace), eq(scriptArchive.hash, hash)))
		.limit(1);
	return r.length > 0;
}

/** The newest live (not deleted, not archived) version of a path. */
export async function newestVersion(tx: Tx, workspace: string, path: string): Promise<ScriptVersion | null> {
	const r = await tx
		.select()
		.from(script)
		.where(and(eq(script.workspace, workspace), eq(script.path, path), eq(script.deleted, false), eq(script.archived, false), eq(script.pending, false)))
		.orderBy(desc(script.createdAt), desc(script.hash))
		.limit(1);
	return r[0] ?? null;
}

export async function getVersion(tx: Tx, workspace: string, hash: bigint): Promise<ScriptVersion | null> {
	const r = await tx
		.select()
		.from(script)
		.where(and(eq(script.workspace, workspace), eq(script.hash, hash)))
		.limit(1);
	return r[0] ?? null;
}

export interface AssetUse {
	assetKind: 'dbt' | 'ducklake' | 'openlineage';
	assetPath: string;
	access: 'r' | 'w' | 'rw';
}

/**
 * What a pin-after deploy's job publishes once the version goes live (asset usage waits for
 * liveness): stored in the job's result by the deploy, read back by the deploy job.
 */
export interface PendingPublish {
	uses: [path: string, access: AssetUse['access']][];
}

const ASSET_USAGE_COPY_COLUMNS = ['workspace', 'script_path', 'script_hash', 'asset_kind', 'asset_path', 'access'];

/** One row per asset, reads and writes of one asset folded into `rw`. */
function mergedUses(uses: readonly AssetUse[]): AssetUse[] {
	const merged = new Map<string, AssetUse>();
	for (const u of uses) {
		const k = `${u.assetKind}\u0000${u.assetPath}`;
		const prev = merged.get(k);
		merged.set(k, prev && prev.access !== u.access ? { ...u, access: 'rw' } : u);
	}
	return [...merged.values()];
}

/** Data per COPY statement when usage is written outside a transaction: each holds the embedded database for its length only. */
const STAGED_USAGE_STATEMENT_BYTES = 64 * 1024;

async function writeUsageRows(database: Database, tx: Tx, workspace: string, path: string, hash: bigint, uses: readonly AssetUse[], statementBytes?: number): Promise<void> {
	await tx.delete(assetUsage).where(and(eq(assetUsage.workspace, workspace), eq(assetUsage.scriptPath, path), eq(assetUsage.scriptHash, hash)));
	const rows = mergedUses(uses);
	if (rows.length === 0) return;
	// COPY: a 3000-model project's few thousand rows as multi-row inserts cost more than its graph's edges.
	const prefix = `${copyField(workspace)}\t${copyField(path)}\t${copyField(hash)}\t`;
	const lines = copyChunks(rows, (u) => `${prefix}${copyField(u.assetKind)}\t${copyField(u.assetPath)}\t${copyField(u.access)}\n`);
	await copyRows(database, tx, 'asset_usage', ASSET_USAGE_COPY_COLUMNS, lines, { statementBytes });
}

/**
 * Writes a version's asset usage before it is published, outside any transaction: a COPY
 * statement at a time, each committed on its own. Nothing reads these rows until
 * publishAssetUsage names the version (asset_usage_current); a version dropped before that takes
 * them with it (dropPendingVersion), and pruneAssetUsage removes any left over.
 */
export async function stageAssetUsage(database: Database, workspace: string, path: string, hash: bigint, uses: readonly AssetUse[]): Promise<void> {
	await writeUsageRows(database, database.db, workspace, path, hash, uses, STAGED_USAGE_STATEMENT_BYTES);
}

/**
 * Publishes which assets a path reads and writes, but only when `hash` is the newest live
 * version of the path: its rows become the ones every read sees. With `uses`, they are written
 * here, in the caller's transaction; without, they were staged before (stageAssetUsage), and
 * publishing is one row. The transaction-scoped advisory lock on the path serialises two deploys
 * of one path: whichever publishes second sees the other's committed version and decides
 * correctly, so the newest always ends up owning the rows. The previous version's rows stay,
 * unread, until pruneAssetUsage.
 */
export async function publishAssetUsage(
	database: Database,
	tx: Tx,
	workspace: string,
	path: string,
	hash: bigint,
	uses?: readonly AssetUse[]
): Promise<boolean> {
	await database.rows(sql`select pg_advisory_xact_lock(hashtextextended(${`${workspace}:${path}`}, 0))`, tx);
	const newest = await newestVersion(tx, workspace, path);
	if (!newest || newest.hash !== hash) return false;
	if (uses) await writeUsageRows(database, tx, workspace, path, hash, uses);
	await database.rows(
		sql`insert into asset_usage_current (workspace, script_path, script_hash) values (${workspace}, ${path}, ${hash.toString()}::bigint)
		    on conflict (workspace, script_path) do update set script_hash = excluded.script_hash`,
		tx
	);
	return true;
}

/** Rows deleted per statement by pruneAssetUsage outside a transaction. */
const PRUNE_BATCH_ROWS = 2000;

/**
 * Removes a path's usage rows of every version but the published one and the pending ones (what
 * a publish replaced, what a version that lost the race staged). Inside `tx`: one statement. Without:
 * a batch at a time, each its own statement with a turn of the event loop between, so the
 * embedded database answers other requests meanwhile.
 */
export async function pruneAssetUsage(database: Database, workspace: string, path: string, tx?: Tx): Promise<void> {
	// A pending version's rows are being staged, or wait for its pin: they stay.
	const stale = sql`a.workspace = ${workspace} and a.script_path = ${path}
	              and a.script_hash is distinct from (select c.script_hash from asset_usage_current c where c.workspace = ${workspace} and c.script_path = ${path})
	              and not exists (select 1 from script s where s.workspace = ${workspace} and s.hash = a.script_hash and s.pending)`;
	if (tx) {
		await database.rows(sql`delete from asset_usage a where ${stale}`, tx);
		return;
	}
	for (;;) {
		const r = await database.rows<{ n: number }>(
			sql`with gone as (
			      delete from asset_usage where ctid in (select a.ctid from asset_usage a where ${stale} limit ${PRUNE_BATCH_ROWS}) returning 1
			    ) select count(*)::int as n from gone`
		);
		if ((r[0]?.n ?? 0) < PRUNE_BATCH_ROWS) return;
		await new Promise<void>((resolve) => setImmediate(resolve));
	}
}

/** The published asset usage of a path. */
export async function assetUsageOf(tx: Tx, workspace: string, path: string) {
	return tx
		.select({ assetKind: assetUsage.assetKind, assetPath: assetUsage.assetPath, access: assetUsage.access })
		.from(assetUsage)
		.innerJoin(
			assetUsageCurrent,
			and(eq(assetUsageCurrent.workspace, assetUsage.workspace), eq(assetUsageCurrent.scriptPath, assetUsage.scriptPath), eq(assetUsageCurrent.scriptHash, assetUsage.scriptHash))
		)
		.where(and(eq(assetUsage.workspace, workspace), eq(assetUsage.scriptPath, path)))
		.orderBy(assetUsage.assetKind, assetUsage.assetPath);
}

export interface VersionDetail {
	path: string;
	hash: bigint;
	language: string;
	createdBy: string;
	createdAt: Date;
	pending: boolean;
	lock: unknown;
	hasProjectFiles: boolean;
	/** The newest deploy job of the version (the one that pinned it, or is pinning it). */
	deployJob: { id: string; status: string } | null;
}

/** A version as its API answer shows it (deleted ones are gone). */
export async function versionDetail(database: Database, workspace: string, hash: bigint): Promise<VersionDetail | null> {
	const [r] = await database.rows<{ path: string; language: string; created_by: string; created_at: unknown; pending: boolean; lock: unknown; archive: boolean; job_id: string | null; job_status: string | null }>(
		sql`select s.path, s.language, s.created_by, s.created_at, s.pending, s.lock,
		           exists (select 1 from script_archive a where a.workspace = s.workspace and a.hash = s.hash) as archive,
		           j.id::text as job_id, j.status as job_status
		      from script s
		      left join lateral (select id, status from job where workspace = s.workspace and script_hash = s.hash and kind = 'deploy'
		                          order by created_at desc limit 1) j on true
		     where s.workspace = ${workspace} and s.hash = ${hash.toString()}::bigint and not s.deleted`
	);
	if (!r) return null;
	return {
		path: r.path,
		hash,
		language: r.language,
		createdBy: r.created_by,
		createdAt: new Date(r.created_at as string),
		pending: r.pending,
		lock: r.lock,
		hasProjectFiles: r.archive,
		deployJob: r.job_id ? { id: r.job_id, status: r.job_status! } : null
	};
}

// ─── Deleting a project or producer: everything stored under its path ─────────────────────

/** What deleting a path takes away: its versions, the graphs stored for them and its previews, its jobs. */
export interface PathFootprint {
	/** The languages of its versions (dbt, sql, openlineage); empty when nothing is stored there. */
	languages: string[];
	versions: number;
	graphs: number;
	/** Its runs (started, recorded), previews and deploy jobs, with their logs and share links. */
	jobs: number;
	runs: number;
	previews: number;
	/** Jobs of the path still queued or running: a deletion waits for them. */
	active: number;
}

export async function pathFootprint(database: Database, ws: string, path: string, tx?: Tx): Promise<PathFootprint> {
	const [r] = await database.rows<{ languages: string[] | null; versions: number; graphs: number; jobs: number; runs: number; previews: number; active: number }>(
		sql`select (select array_agg(distinct language order by language) from script where workspace = ${ws} and path = ${path}) as languages,
		           (select count(*)::int from script where workspace = ${ws} and path = ${path} and not deleted) as versions,
		           (select count(*)::int from dbt_graph_snapshot where workspace = ${ws} and script_path = ${path}) as graphs,
		           count(*)::int as jobs,
		           (count(*) filter (where kind in ('run', 'recorded', 'openlineage')))::int as runs,
		           (count(*) filter (where kind = 'preview'))::int as previews,
		           (count(*) filter (where status in ('queued', 'running')))::int as active
		      from job where workspace = ${ws} and script_path = ${path}`,
		tx
	);
	return { languages: r?.languages ?? [], versions: r?.versions ?? 0, graphs: r?.graphs ?? 0, jobs: r?.jobs ?? 0, runs: r?.runs ?? 0, previews: r?.previews ?? 0, active: r?.active ?? 0 };
}

/**
 * Deletes everything stored under a path, in one transaction: its jobs (their share links and
 * lineage plans by foreign key) and run progress, its preview graphs, its versions (their
 * archives, graphs and producer lineage by foreign key) and its asset usage. Refused (null) while
 * one of its jobs is queued or running: a worker would write into what is being deleted.
 */
export async function deletePath(database: Database, ws: string, path: string): Promise<PathFootprint | null> {
	return database.db.transaction(async (tx) => {
		// The path's lock, as a deploy publishing its asset usage takes it.
		await database.rows(sql`select pg_advisory_xact_lock(hashtextextended(${`${ws}:${path}`}, 0))`, tx);
		const f = await pathFootprint(database, ws, path, tx);
		if (f.active > 0) return null;
		await database.rows(
			sql`delete from dbt_run_progress where workspace = ${ws} and job_id in (select id from job where workspace = ${ws} and script_path = ${path})`,
			tx
		);
		await database.rows(sql`delete from dbt_edge where workspace = ${ws} and script_path = ${path}`, tx);
		await database.rows(sql`delete from dbt_node where workspace = ${ws} and script_path = ${path}`, tx);
		await database.rows(sql`delete from dbt_graph_snapshot where workspace = ${ws} and script_path = ${path}`, tx);
		await database.rows(sql`delete from job where workspace = ${ws} and script_path = ${path}`, tx);
		await database.rows(sql`delete from script where workspace = ${ws} and path = ${path}`, tx);
		await tx.delete(assetUsage).where(and(eq(assetUsage.workspace, ws), eq(assetUsage.scriptPath, path)));
		await tx.delete(assetUsageCurrent).where(and(eq(assetUsageCurrent.workspace, ws), eq(assetUsageCurrent.scriptPath, path)));
		return f;
	});
}
