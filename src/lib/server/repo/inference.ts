// Storage of column-lineage inference: a queued lineage job's plan, the per-workspace
// cache of per-model results, the lineage state a relation's details pane reads, and the job's
// progress. Every statement of the lineage job lives here or in graph.ts.
import { gunzipSync } from 'node:zlib';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { JobStatus } from '../../types/jobs';
import type { Database, Tx } from '../db';
import { toNumber } from '../db';
import { dbtGraphSnapshot, inferCache, job, lineagePlan } from '../schema';
import type { GraphKey, StoredModelOutcome } from './graph-key';

/** Cache entries unused for this many days are dropped by the retention sweep. */
export const INFER_CACHE_DAYS = 30;

/** `gz`: the serialized plan, gzip (ingest/inference-plan.ts makes it where the manifest is parsed). */
export async function storeLineagePlan(tx: Tx, workspace: string, jobId: string, gz: Uint8Array): Promise<void> {
	await tx.insert(lineagePlan).values({ jobId, workspace, data: gz });
}

/** The plan of a lineage job, or null when it is gone (the job already ended). */
export async function readLineagePlan<T>(database: Database, jobId: string): Promise<T | null> {
	const [r] = await database.db.select({ data: lineagePlan.data }).from(lineagePlan).where(eq(lineagePlan.jobId, jobId)).limit(1);
	return r ? (JSON.parse(gunzipSync(Buffer.from(r.data)).toString('utf8')) as T) : null;
}

export async function deleteLineagePlan(database: Database, jobId: string, tx?: Tx): Promise<void> {
	await (tx ?? database.db).delete(lineagePlan).where(eq(lineagePlan.jobId, jobId));
}

/** Plans whose job is no longer queued or running (a reaped or canceled job leaves its plan behind). */
export async function deleteEndedPlans(database: Database, workspace: string, tx?: Tx): Promise<number> {
	const rows = await database.rows<{ n: unknown }>(
		sql`with d as (delete from lineage_plan p using job j
		                where p.workspace = ${workspace} and j.id = p.job_id and j.status not in ('queued', 'running') returning 1)
		    select count(*)::int as n from d`,
		tx
	);
	return toNumber(rows[0]?.n);
}

/** Cached per-model results by key; the hits are marked used (what the retention sweep reads). */
export async function cacheGet<T>(database: Database, workspace: string, keys: readonly string[]): Promise<Map<string, T>> {
	const out = new Map<string, T>();
	const unique = [...new Set(keys)];
	for (let i = 0; i < unique.length; i += 5000) {
		const part = unique.slice(i, i + 5000);
		const rows = await database.rows<{ k: string; d: unknown }>(
			sql`update infer_cache set used_at = now() where workspace = ${workspace} and cache_key = any(${sql.param(part)}::text[])
			 returning cache_key as k, data::text as d`
		);
		for (const r of rows) out.set(r.k, JSON.parse(String(r.d)) as T);
	}
	return out;
}

export async function cachePut(database: Database, workspace: string, entries: readonly { key: string; value: unknown }[]): Promise<void> {
	const byKey = new Map(entries.map((e) => [e.key, JSON.stringify(e.value)]));
	const keys = [...byKey.keys()];
	for (let i = 0; i < keys.length; i += 2000) {
		const part = keys.slice(i, i + 2000);
		await database.rows(
			sql`insert into infer_cache (workspace, cache_key, data, used_at)
			    select ${workspace}, k, d::jsonb, now() from unnest(${sql.param(part)}::text[], ${sql.param(part.map((k) => byKey.get(k)!))}::text[]) as u(k, d)
			    on conflict (workspace, cache_key) do update set data = excluded.data, used_at = now()`
		);
	}
}

/** The retention sweep's part: cache entries of the workspace unused for INFER_CACHE_DAYS. */
export async function pruneInferCache(database: Database, tx: Tx, workspace: string, now: Date = new Date()): Promise<number> {
	const cutoff = new Date(now.getTime() - INFER_CACHE_DAYS * 86_400_000).toISOString();
	const rows = await database.rows<{ n: unknown }>(
		sql`with d as (delete from infer_cache where workspace = ${workspace} and used_at < ${cutoff}::timestamptz returning 1)
		    select count(*)::int as n from d`,
		tx
	);
	return toNumber(rows[0]?.n);
}

export interface LineageProgress {
	done: number;
	total: number;
	/** Every model is inferred and the edges are being written. */
	storing?: boolean;
}

/** A running lineage job's progress, in its result (what jobs/get/{id} shows), while this worker holds it. */
export async function setLineageProgress(database: Database, jobId: string, workerId: string, progress: LineageProgress): Promise<void> {
	await database.rows(
		sql`update job set result = coalesce(result, '{}'::jsonb) || jsonb_build_object('progress', ${JSON.stringify(progress)}::jsonb)
		     where id = ${jobId}::uuid and worker_id = ${workerId} and status = 'running'`
	);
}

/** What one stored graph says about its column lineage: the marker's lineage job and its state. */
export interface GraphLineageState {
	/** stats.column_edges of the marker: null when the graph has no column lineage at all. */
	columnEdges: number | null;
	job: { id: string; status: JobStatus; done: number | null; total: number | null; error: string | null } | null;
}

export async function graphLineageState(database: Database, key: GraphKey, tx?: Tx): Promise<GraphLineageState | null> {
	const where =
		key.scriptHash === null
			? and(eq(dbtGraphSnapshot.workspace, key.workspace), eq(dbtGraphSnapshot.jobId, key.jobId), sql`${dbtGraphSnapshot.scriptHash} is null`)
			: and(
					eq(dbtGraphSnapshot.workspace, key.workspace),
					eq(dbtGraphSnapshot.scriptPath, key.scriptPath),
					eq(dbtGraphSnapshot.scriptHash, key.scriptHash),
					eq(dbtGraphSnapshot.jobId, key.jobId)
				);
	const [m] = await (tx ?? database.db)
		.select({ stats: dbtGraphSnapshot.stats, lineageJobId: dbtGraphSnapshot.lineageJobId })
		.from(dbtGraphSnapshot)
		.where(where)
		.limit(1);
	if (!m) return null;
	const stats = (m.stats ?? {}) as Record<string, unknown>;
	const columnEdges = typeof stats.column_edges === 'number' ? stats.column_edges : null;
	if (!m.lineageJobId) return { columnEdges, job: null };
	const [j] = await (tx ?? database.db)
		.select({ id: job.id, status: job.status, result: job.result })
		.from(job)
		.where(and(eq(job.workspace, key.workspace), eq(job.id, m.lineageJobId)))
		.limit(1);
	if (!j) return { columnEdges, job: null };
	const result = (j.result ?? {}) as Record<string, unknown>;
	const progress = (result.progress ?? null) as LineageProgress | null;
	return {
		columnEdges,
		job: {
			id: j.id,
			status: j.status as JobStatus,
			done: progress ? toNumber(progress.done) : null,
			total: progress ? toNumber(progress.total) : null,
			error: typeof result.error === 'string' ? result.error : null
		}
	};
}

/** The stored inference outcome of these nodes of one graph. */
export async function nodeOutcomes(database: Database, key: GraphKey, uniqueIds: readonly string[], tx?: Tx): Promise<Map<string, StoredModelOutcome>> {
	if (uniqueIds.length === 0) return new Map();
	const where =
		key.scriptHash === null
			? sql`workspace = ${key.workspace} and job_id = ${key.jobId}::uuid and script_hash is null`
			: sql`workspace = ${key.workspace} and script_path = ${key.scriptPath} and script_hash = ${key.scriptHash.toString()}::bigint and job_id = ${key.jobId}::uuid`;
	const rows = await database.rows<{ u: string; o: unknown }>(
		sql`select unique_id as u, column_lineage::text as o from dbt_node
		     where ${where} and unique_id = any(${sql.param([...uniqueIds])}::text[]) and column_lineage is not null`,
		tx
	);
	return new Map(rows.map((r) => [r.u, JSON.parse(String(r.o)) as StoredModelOutcome]));
}

/** Lineage jobs' ids among these (for the reaper's clean-up). */
export async function lineageJobsAmong(database: Database, ids: readonly string[]): Promise<string[]> {
	if (ids.length === 0) return [];
	const rows = await database.db.select({ id: job.id }).from(job).where(and(inArray(job.id, [...ids]), eq(job.kind, 'lineage')));
	return rows.map((r) => r.id);
}

/** Every unique_id of one stored graph. */
export async function graphNodeIds(database: Database, key: GraphKey, tx?: Tx): Promise<Set<string>> {
	const where =
		key.scriptHash === null
			? sql`workspace = ${key.workspace} and job_id = ${key.jobId}::uuid and script_hash is null`
			: sql`workspace = ${key.workspace} and script_path = ${key.scriptPath} and script_hash = ${key.scriptHash.toString()}::bigint and job_id = ${key.jobId}::uuid`;
	const rows = await database.rows<{ u: string }>(sql`select unique_id as u from dbt_node where ${where}`, tx);
	return new Set(rows.map((r) => r.u));
}
