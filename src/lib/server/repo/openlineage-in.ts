// Every SQL statement of the OpenLineage receiver (docs/openlineage.md): the namespace → folder
// mapping, the jobs it created, the events as received, the runs they build, and the external
// datasets. The export's reads stay in ./openlineage.ts.
import { sql } from 'drizzle-orm';
import type { Database, Tx } from '../db';
import { toBigInt, toNumber } from '../db';
import { DEFAULT_NAMESPACE_KEY, type WarehouseNaming } from '../../lineage/openlineage-in';

// ─── Namespaces ────────────────────────────────────────────────────────────────────────────

export interface NamespaceMapping {
	namespace: string;
	folder: string;
}

export async function listNamespaces(database: Database, ws: string): Promise<NamespaceMapping[]> {
	return database.rows<NamespaceMapping>(sql`select namespace, folder from openlineage_namespace where workspace = ${ws} order by namespace`);
}

/** Maps `namespace` onto `folder` (replacing its mapping); returns whether it is new. */
export async function setNamespace(database: Database, ws: string, m: NamespaceMapping, by: string): Promise<boolean> {
	const [r] = await database.rows<{ created: boolean }>(
		sql`insert into openlineage_namespace (workspace, namespace, folder, created_by) values (${ws}, ${m.namespace}, ${m.folder}, ${by})
		    on conflict (workspace, namespace) do update set folder = excluded.folder
		    returning (xmax = 0) as created`
	);
	return r.created === true || (r.created as unknown) === 't';
}

export async function deleteNamespace(database: Database, ws: string, namespace: string): Promise<boolean> {
	const rows = await database.rows(sql`delete from openlineage_namespace where workspace = ${ws} and namespace = ${namespace} returning 1`);
	return rows.length > 0;
}

// ─── What one event needs to know, in one statement ────────────────────────────────────────

export interface StoredJob {
	scriptPath: string;
	lineageEventTime: Date | null;
	lineageFromComplete: boolean;
	lineageDigest: string | null;
	facetsEventTime: Date | null;
	/** The job's newest live version (null before its first). */
	scriptHash: bigint | null;
}

export interface IngestContext {
	/** The folder the namespace maps to (or the workspace default), null when neither. */
	mappedFolder: string | null;
	job: StoredJob | null;
	/** Every warehouse of the workspace, as dataset matching reads them. */
	warehouses: WarehouseNaming[];
}

const date = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string));

/** The namespace's folder, the job's stored state and the warehouses, read together (one round trip per event). */
export async function ingestContext(database: Database, ws: string, namespace: string, name: string | null, tx?: Tx): Promise<IngestContext> {
	const [r] = await database.rows<{ folder: string | null; job: string | null; warehouses: string | null }>(
		sql`select (select coalesce(json_agg(json_build_array(w.name, w.default_database, w.settings->>'openlineage_namespace') order by w.name), '[]')::text
		              from warehouse w where w.workspace = ${ws}) as warehouses,
		           (select m.folder from openlineage_namespace m
		             where m.workspace = ${ws} and m.namespace in (${namespace}, ${DEFAULT_NAMESPACE_KEY})
		             order by m.namespace = ${DEFAULT_NAMESPACE_KEY} limit 1) as folder,
		           (select json_build_object('p', j.script_path, 't', j.lineage_event_time, 'c', j.lineage_from_complete, 'd', j.lineage_digest,
		                                     'f', j.facets_event_time,
		                                     'h', (select s.hash::text from script s where s.workspace = j.workspace and s.path = j.script_path
		                                            and not s.deleted and not s.archived order by s.created_at desc, s.hash desc limit 1))::text
		              from openlineage_job j where j.workspace = ${ws} and j.namespace = ${namespace} and j.name = ${name ?? ''}) as job`,
		tx
	);
	const j = r?.job ? (JSON.parse(r.job) as { p: string; t: string | null; c: boolean; d: string | null; f: string | null; h: string | null }) : null;
	const warehouses = JSON.parse(r?.warehouses ?? '[]') as [string, string | null, string | null][];
	return {
		warehouses: warehouses.map(([name, db, ns]) => ({ name, defaultDatabase: db, openlineageNamespace: ns && ns.trim() !== '' ? ns : null })),
		mappedFolder: r?.folder ?? null,
		job: j && {
			scriptPath: j.p,
			lineageEventTime: date(j.t),
			lineageFromComplete: j.c,
			lineageDigest: j.d,
			facetsEventTime: date(j.f),
			scriptHash: j.h === null ? null : toBigInt(j.h)
		}
	};
}

/** The job's row locked for this transaction (events of one job apply one at a time). */
export async function lockJob(database: Database, tx: Tx, ws: string, namespace: string, name: string): Promise<StoredJob | null> {
	const [r] = await database.rows<{ script_path: string; t: unknown; c: boolean; d: string | null; f: unknown; hash: string | null }>(
		sql`select j.script_path, j.lineage_event_time as t, j.lineage_from_complete as c, j.lineage_digest as d, j.facets_event_time as f,
		           (select s.hash::text from script s where s.workspace = j.workspace and s.path = j.script_path and not s.deleted and not s.archived
		             order by s.created_at desc, s.hash desc limit 1) as hash
		      from openlineage_job j where j.workspace = ${ws} and j.namespace = ${namespace} and j.name = ${name} for update of j`,
		tx
	);
	if (!r) return null;
	const v = r.hash === null ? null : { hash: r.hash };
	return {
		scriptPath: r.script_path,
		lineageEventTime: date(r.t),
		lineageFromComplete: r.c === true || (r.c as unknown) === 't',
		lineageDigest: r.d,
		facetsEventTime: date(r.f),
		scriptHash: v ? toBigInt(v.hash) : null
	};
}

/** Whether a script or another OpenLineage job holds `path` already. */
export async function pathTaken(database: Database, tx: Tx, ws: string, path: string): Promise<boolean> {
	const [r] = await database.rows<{ taken: boolean }>(
		sql`select exists (select 1 from script where workspace = ${ws} and path = ${path})
		        or exists (select 1 from openlineage_job where workspace = ${ws} and script_path = ${path}) as taken`,
		tx
	);
	return r.taken === true || (r.taken as unknown) === 't';
}

/** Creates the job row; false when another event created it first (the caller re-reads it). */
export async function insertJobRow(database: Database, tx: Tx, ws: string, j: { namespace: string; name: string; scriptPath: string; createdBy: string }): Promise<boolean> {
	const rows = await database.rows(
		sql`insert into openlineage_job (workspace, namespace, name, script_path, created_by)
		    values (${ws}, ${j.namespace}, ${j.name}, ${j.scriptPath}, ${j.createdBy})
		    on conflict do nothing returning 1`,
		tx
	);
	return rows.length > 0;
}

export async function setJobLineage(
	database: Database,
	tx: Tx,
	ws: string,
	j: { namespace: string; name: string },
	l: { eventTime: Date; fromComplete: boolean; digest: string; warnings: string[] }
): Promise<void> {
	await database.rows(
		sql`update openlineage_job set lineage_event_time = ${l.eventTime.toISOString()}::timestamptz, lineage_from_complete = ${l.fromComplete},
		           lineage_digest = ${l.digest}, warnings = ${JSON.stringify(l.warnings)}::jsonb, updated_at = now()
		     where workspace = ${ws} and namespace = ${j.namespace} and name = ${j.name}`,
		tx
	);
}

/** Merges an event's job facets into the job's (the newest event's value of each facet wins). */
export async function mergeJobFacets(database: Database, tx: Tx, ws: string, j: { namespace: string; name: string }, facets: Record<string, unknown>, eventTime: Date): Promise<void> {
	await database.rows(
		sql`update openlineage_job
		       set facets = case when facets_event_time is null or facets_event_time <= ${eventTime.toISOString()}::timestamptz
		                         then facets || ${JSON.stringify(facets)}::jsonb else ${JSON.stringify(facets)}::jsonb || facets end,
		           facets_event_time = greatest(facets_event_time, ${eventTime.toISOString()}::timestamptz), updated_at = now()
		     where workspace = ${ws} and namespace = ${j.namespace} and name = ${j.name}`,
		tx
	);
}

export interface OpenLineageJobRow {
	namespace: string;
	name: string;
	scriptPath: string;
	facets: Record<string, unknown>;
	warnings: string[];
}

/** The OpenLineage jobs drawn at these script paths. */
export async function jobsAtPaths(database: Database, ws: string, paths: readonly string[], tx?: Tx): Promise<OpenLineageJobRow[]> {
	if (paths.length === 0) return [];
	const rows = await database.rows<{ namespace: string; name: string; script_path: string; facets: unknown; warnings: unknown }>(
		sql`select namespace, name, script_path, facets, warnings from openlineage_job
		     where workspace = ${ws} and script_path = any(${sql.param([...paths])}::text[]) order by script_path`,
		tx
	);
	const parse = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);
	return rows.map((r) => ({ namespace: r.namespace, name: r.name, scriptPath: r.script_path, facets: parse(r.facets) ?? {}, warnings: parse(r.warnings) ?? [] }));
}

// ─── Events ────────────────────────────────────────────────────────────────────────────────

export interface EventRow {
	key: string;
	eventType: string | null;
	runId: string | null;
	jobNamespace: string | null;
	jobName: string | null;
	eventTime: Date;
	sentBy: string;
	body: unknown;
}

/** Stores the event; false when the same event (same canonical digest) was stored before. */
export async function insertEvent(database: Database, tx: Tx, ws: string, e: EventRow): Promise<boolean> {
	const rows = await database.rows(
		sql`insert into openlineage_event (workspace, event_key, event_type, run_id, job_namespace, job_name, event_time, sent_by, body)
		    values (${ws}, ${e.key}, ${e.eventType}, ${e.runId}::uuid, ${e.jobNamespace}, ${e.jobName}, ${e.eventTime.toISOString()}::timestamptz,
		            ${e.sentBy}, ${JSON.stringify(e.body)}::jsonb)
		    on conflict (workspace, event_key) do nothing returning 1`,
		tx
	);
	return rows.length > 0;
}

export interface RunEventSummary {
	eventType: string | null;
	eventTime: Date;
	receivedAt: Date;
	sentBy: string;
	errorMessage: unknown;
	parent: unknown;
}

/** What each stored event of a run says about the run's state, in event-time order. */
export async function runEventSummaries(database: Database, tx: Tx, ws: string, runId: string): Promise<RunEventSummary[]> {
	const rows = await database.rows<{ t: string | null; at: unknown; rcv: unknown; by: string; err: unknown; parent: unknown }>(
		sql`select event_type as t, event_time as at, received_at as rcv, sent_by as by,
		           body->'run'->'facets'->'errorMessage' as err, body->'run'->'facets'->'parent' as parent
		      from openlineage_event where workspace = ${ws} and run_id = ${runId}::uuid order by event_time, id`,
		tx
	);
	const parse = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);
	return rows.map((r) => ({ eventType: r.t, eventTime: new Date(r.at as string), receivedAt: new Date(r.rcv as string), sentBy: r.by, errorMessage: parse(r.err), parent: parse(r.parent) }));
}

/** The events of one run as they were sent, in event-time order (the run's page, its export). */
export async function runEventBodies(database: Database, ws: string, runId: string, tx?: Tx): Promise<unknown[]> {
	const rows = await database.rows<{ body: unknown }>(
		sql`select body from openlineage_event where workspace = ${ws} and run_id = ${runId}::uuid order by event_time, id`,
		tx
	);
	return rows.map((r) => (typeof r.body === 'string' ? JSON.parse(r.body) : r.body));
}

export interface RunRow {
	id: string;
	workspace: string;
	scriptPath: string;
	scriptHash: bigint | null;
	createdBy: string;
	parentJob: string | null;
	status: string;
	args: Record<string, unknown>;
	result: Record<string, unknown>;
	createdAt: Date;
	startedAt: Date | null;
	completedAt: Date | null;
}

/** Creates or rewrites an OpenLineage run's job row (only ever a row of kind `openlineage` of this workspace). */
export async function upsertRun(database: Database, tx: Tx, r: RunRow): Promise<void> {
	await upsertRuns(database, tx, [r]);
}

// ─── External datasets ─────────────────────────────────────────────────────────────────────

export interface ExternalDatasetRow {
	assetPath: string;
	namespace: string;
	name: string;
	fields: { name: string; type?: string }[] | null;
}

/** Records external datasets; a schema facet replaces the stored one when its event is not older. */
export async function upsertExternalDatasets(database: Database, tx: Tx, ws: string, rows: readonly ExternalDatasetRow[], eventTime: Date): Promise<void> {
	if (rows.length === 0) return;
	const at = eventTime.toISOString();
	await database.rows(
		sql`insert into openlineage_dataset (workspace, asset_path, namespace, name, fields, fields_event_time)
		    select ${ws}, d.p, d.ns, d.n, d.f::jsonb, case when d.f is null then null else ${at}::timestamptz end
		      from unnest(${sql.param(rows.map((r) => r.assetPath))}::text[], ${sql.param(rows.map((r) => r.namespace))}::text[],
		                  ${sql.param(rows.map((r) => r.name))}::text[], ${sql.param(rows.map((r) => (r.fields ? JSON.stringify(r.fields) : null)))}::text[]) as d(p, ns, n, f)
		    on conflict (workspace, asset_path) do update
		       set fields = case when excluded.fields is not null and (openlineage_dataset.fields_event_time is null or openlineage_dataset.fields_event_time <= excluded.fields_event_time)
		                         then excluded.fields else openlineage_dataset.fields end,
		           fields_event_time = case when excluded.fields is not null then greatest(openlineage_dataset.fields_event_time, excluded.fields_event_time)
		                                    else openlineage_dataset.fields_event_time end,
		           updated_at = now()`,
		tx
	);
}

export async function externalDatasetFields(database: Database, ws: string, assetPaths: readonly string[], tx?: Tx): Promise<Map<string, { name: string; type?: string }[]>> {
	if (assetPaths.length === 0) return new Map();
	const rows = await database.rows<{ p: string; f: unknown }>(
		sql`select asset_path as p, fields as f from openlineage_dataset where workspace = ${ws} and asset_path = any(${sql.param([...assetPaths])}::text[]) and fields is not null`,
		tx
	);
	return new Map(rows.map((r) => [r.p, (typeof r.f === 'string' ? JSON.parse(r.f) : r.f) as { name: string; type?: string }[]]));
}

// ─── Warehouses, retention ─────────────────────────────────────────────────────────────────

/** Every warehouse of the workspace as dataset matching reads it. */
export async function warehouseNamings(database: Database, ws: string, tx?: Tx): Promise<WarehouseNaming[]> {
	const rows = await database.rows<{ name: string; db: string | null; ns: string | null }>(
		sql`select name, default_database as db, settings->>'openlineage_namespace' as ns from warehouse where workspace = ${ws} order by name`,
		tx
	);
	return rows.map((r) => ({ name: r.name, defaultDatabase: r.db, openlineageNamespace: r.ns && r.ns.trim() !== '' ? r.ns : null }));
}

/** Deletes the workspace's stored events received before `before`; returns how many. */
export async function pruneEvents(database: Database, ws: string, before: Date, tx?: Tx): Promise<number> {
	const [r] = await database.rows<{ n: unknown }>(
		sql`with d as (delete from openlineage_event where workspace = ${ws} and received_at < ${before.toISOString()}::timestamptz returning 1)
		    select count(*)::int as n from d`,
		tx
	);
	return toNumber(r?.n);
}

/** The newest run of each of these OpenLineage job paths (runs the caller may read: the caller filters the paths). */
export async function latestOpenLineageRuns(database: Database, ws: string, paths: readonly string[], tx?: Tx): Promise<{ id: string; scriptPath: string; status: string; createdAt: Date }[]> {
	if (paths.length === 0) return [];
	const rows = await database.rows<{ id: string; script_path: string; status: string; created_at: unknown }>(
		sql`select distinct on (script_path) id::text as id, script_path, status, created_at from job
		     where workspace = ${ws} and kind = 'openlineage' and script_path = any(${sql.param([...paths])}::text[])
		     order by script_path, created_at desc, id desc`,
		tx
	);
	return rows.map((r) => ({ id: r.id, scriptPath: r.script_path, status: r.status, createdAt: new Date(r.created_at as string) }));
}

/**
 * The live dbt versions holding the node `uniqueId` (a dbt-ol model event's `dbt_node` facet)
 * at `assetPath`: which deployed project a dbt run made elsewhere belongs to.
 */
export async function dbtNodeOwners(database: Database, ws: string, uniqueId: string, assetPath: string | null, tx?: Tx): Promise<{ scriptPath: string; hash: bigint; assetPath: string }[]> {
	const rows = await database.rows<{ script_path: string; hash: string; asset_path: string }>(
		sql`with live as materialized (
		      select distinct on (s.path) s.path, s.hash from script s
		       where s.workspace = ${ws} and s.language = 'dbt' and not s.deleted and not s.archived
		       order by s.path, s.created_at desc, s.hash desc
		    )
		    select l.path as script_path, l.hash::text as hash, n.asset_path from live l
		      join dbt_node n on n.workspace = ${ws} and n.script_path = l.path and n.script_hash = l.hash
		       and n.job_id = '00000000-0000-0000-0000-000000000000'::uuid and n.unique_id = ${uniqueId}
		     where n.asset_path is not null and (${assetPath}::text is null or n.asset_path = ${assetPath}::text)
		     order by l.path`,
		tx
	);
	return rows.map((r) => ({ scriptPath: r.script_path, hash: toBigInt(r.hash), assetPath: r.asset_path }));
}

/** The script path and version of an OpenLineage run's job row, or null. */
export async function openLineageRunRow(database: Database, tx: Tx, ws: string, id: string): Promise<{ scriptPath: string; scriptHash: bigint | null } | null> {
	const [r] = await database.rows<{ script_path: string; hash: string | null }>(
		sql`select script_path, script_hash::text as hash from job where workspace = ${ws} and id = ${id}::uuid and kind = 'openlineage'`,
		tx
	);
	return r ? { scriptPath: r.script_path, scriptHash: r.hash === null ? null : toBigInt(r.hash) } : null;
}

/** The events of a run and of the runs nested under it (their parent facet names it), as sent, in event-time order. */
export async function runAndChildEventBodies(database: Database, ws: string, runId: string, tx?: Tx): Promise<unknown[]> {
	const rows = await database.rows<{ body: unknown }>(
		sql`select body from openlineage_event
		     where workspace = ${ws}
		       and (run_id = ${runId}::uuid or (run_id is not null and lower(body->'run'->'facets'->'parent'->'run'->>'runId') = ${runId}))
		     order by event_time, id`,
		tx
	);
	return rows.map((r) => (typeof r.body === 'string' ? JSON.parse(r.body) : r.body));
}

/** Progress rows of the workspace's OpenLineage runs last written before `before` (a run snapshot's retention). */
export async function pruneRunProgress(database: Database, ws: string, before: Date, tx?: Tx): Promise<number> {
	const [r] = await database.rows<{ n: unknown }>(
		sql`with d as (delete from dbt_run_progress p where p.workspace = ${ws} and p.updated_at < ${before.toISOString()}::timestamptz
		                and exists (select 1 from job j where j.id = p.job_id and j.kind = 'openlineage') returning 1)
		    select count(*)::int as n from d`,
		tx
	);
	return toNumber(r?.n);
}

/**
 * Versions of one job's path beyond the newest `keep` (a path's versions, as for deploys): their
 * lineage rows go with them (foreign key). The runs that named one keep their row; their page
 * then draws the job without the lineage it had.
 */
export async function pruneJobVersions(database: Database, tx: Tx, ws: string, path: string, keep: number): Promise<number> {
	const [r] = await database.rows<{ n: unknown }>(
		sql`with d as (delete from script where workspace = ${ws} and path = ${path} and language = 'openlineage'
		                and hash not in (select hash from script where workspace = ${ws} and path = ${path}
		                                  order by created_at desc, hash desc limit ${keep})
		               returning 1)
		    select count(*)::int as n from d`,
		tx
	);
	return toNumber(r?.n);
}

// ─── Batches: many events' steady-state work in a few statements (openlineage-in/batch.ts) ──

export interface BatchContext {
	warehouses: WarehouseNaming[];
	/** namespace (or `*`, the default) → folder. */
	folders: Map<string, string>;
	/** `<namespace>\0<name>` → the job's stored state. */
	jobs: Map<string, StoredJob>;
}

export const jobKey = (namespace: string, name: string) => `${namespace}\u0000${name}`;

/** What a batch of events needs to know (ingestContext for many jobs), in one statement. */
export async function batchContext(database: Database, tx: Tx, ws: string, jobs: readonly { namespace: string; name: string }[]): Promise<BatchContext> {
	const namespaces = [...new Set(jobs.map((j) => j.namespace)), DEFAULT_NAMESPACE_KEY];
	// The jobs' rows are locked for the batch's transaction (events of one job apply one at a
	// time, as lockJob does for one event), in key order so two batches never deadlock.
	const [r] = await database.rows<{ warehouses: string | null; folders: string | null; jobs: string | null }>(
		sql`with locked as (
		      select j.* from openlineage_job j
		        join unnest(${sql.param(jobs.map((j) => j.namespace))}::text[], ${sql.param(jobs.map((j) => j.name))}::text[]) as k(ns, n)
		          on j.namespace = k.ns and j.name = k.n
		       where j.workspace = ${ws} order by j.namespace, j.name for update of j
		    )
		    select (select coalesce(json_agg(json_build_array(w.name, w.default_database, w.settings->>'openlineage_namespace') order by w.name), '[]')::text
		              from warehouse w where w.workspace = ${ws}) as warehouses,
		           (select coalesce(json_agg(json_build_array(m.namespace, m.folder)), '[]')::text from openlineage_namespace m
		             where m.workspace = ${ws} and m.namespace = any(${sql.param(namespaces)}::text[])) as folders,
		           (select coalesce(json_agg(json_build_object('ns', j.namespace, 'n', j.name, 'p', j.script_path, 't', j.lineage_event_time,
		                                     'c', j.lineage_from_complete, 'd', j.lineage_digest, 'f', j.facets_event_time,
		                                     'h', (select s.hash::text from script s where s.workspace = j.workspace and s.path = j.script_path
		                                            and not s.deleted and not s.archived order by s.created_at desc, s.hash desc limit 1))), '[]')::text
		              from locked j) as jobs`,
		tx
	);
	const warehouses = JSON.parse(r?.warehouses ?? '[]') as [string, string | null, string | null][];
	const folders = JSON.parse(r?.folders ?? '[]') as [string, string][];
	const stored = JSON.parse(r?.jobs ?? '[]') as { ns: string; n: string; p: string; t: string | null; c: boolean; d: string | null; f: string | null; h: string | null }[];
	return {
		warehouses: warehouses.map(([name, db, ns]) => ({ name, defaultDatabase: db, openlineageNamespace: ns && ns.trim() !== '' ? ns : null })),
		folders: new Map(folders),
		jobs: new Map(
			stored.map((j) => [
				jobKey(j.ns, j.n),
				{ scriptPath: j.p, lineageEventTime: date(j.t), lineageFromComplete: j.c, lineageDigest: j.d, facetsEventTime: date(j.f), scriptHash: j.h === null ? null : toBigInt(j.h) }
			])
		)
	};
}

/** Stores events (keys distinct); returns the keys that were new. */
export async function insertEvents(database: Database, tx: Tx, ws: string, rows: readonly EventRow[]): Promise<Set<string>> {
	if (rows.length === 0) return new Set();
	const got = await database.rows<{ k: string }>(
		sql`insert into openlineage_event (workspace, event_key, event_type, run_id, job_namespace, job_name, event_time, sent_by, body)
		    select ${ws}, e.k, e.t, e.r::uuid, e.ns, e.n, e.at::timestamptz, e.by, e.b::jsonb
		      from unnest(${sql.param(rows.map((r) => r.key))}::text[], ${sql.param(rows.map((r) => r.eventType))}::text[],
		                  ${sql.param(rows.map((r) => r.runId))}::text[], ${sql.param(rows.map((r) => r.jobNamespace))}::text[],
		                  ${sql.param(rows.map((r) => r.jobName))}::text[], ${sql.param(rows.map((r) => r.eventTime.toISOString()))}::text[],
		                  ${sql.param(rows.map((r) => r.sentBy))}::text[], ${sql.param(rows.map((r) => JSON.stringify(r.body)))}::text[])
		           with ordinality as e(k, t, r, ns, n, at, by, b, i)
		     order by e.i
		    on conflict (workspace, event_key) do nothing returning event_key as k`,
		tx
	);
	return new Set(got.map((g) => g.k));
}

/** runEventSummaries of many runs, by run id. */
export async function runsEventSummaries(database: Database, tx: Tx, ws: string, runIds: readonly string[]): Promise<Map<string, RunEventSummary[]>> {
	const out = new Map<string, RunEventSummary[]>();
	if (runIds.length === 0) return out;
	const rows = await database.rows<{ run: string; t: string | null; at: unknown; rcv: unknown; by: string; err: unknown; parent: unknown }>(
		sql`select run_id::text as run, event_type as t, event_time as at, received_at as rcv, sent_by as by,
		           body->'run'->'facets'->'errorMessage' as err, body->'run'->'facets'->'parent' as parent
		      from openlineage_event where workspace = ${ws} and run_id = any(${sql.param([...runIds])}::uuid[]) order by event_time, id`,
		tx
	);
	const parse = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);
	for (const r of rows) {
		let list = out.get(r.run);
		if (!list) out.set(r.run, (list = []));
		list.push({ eventType: r.t, eventTime: new Date(r.at as string), receivedAt: new Date(r.rcv as string), sentBy: r.by, errorMessage: parse(r.err), parent: parse(r.parent) });
	}
	return out;
}

/** Creates or rewrites OpenLineage runs' job rows in one statement (ids distinct; only rows of kind `openlineage` of this workspace). */
export async function upsertRuns(database: Database, tx: Tx, rows: readonly RunRow[]): Promise<void> {
	if (rows.length === 0) return;
	const iso = (d: Date | null) => (d === null ? null : d.toISOString());
	const col = <T>(f: (r: RunRow) => T) => sql.param(rows.map(f));
	await database.rows(
		sql`insert into job (id, workspace, kind, script_path, script_hash, created_by, permissioned_as, parent_job, status, args, result,
		                     created_at, started_at, completed_at)
		    select r.id::uuid, r.ws, 'openlineage', r.p, r.h::bigint, r.by, 'u/' || r.by, r.parent::uuid, r.st, r.a::jsonb, r.res::jsonb,
		           r.c::timestamptz, r.s::timestamptz, r.e::timestamptz
		      from unnest(${col((r) => r.id)}::text[], ${col((r) => r.workspace)}::text[], ${col((r) => r.scriptPath)}::text[],
		                  ${col((r) => (r.scriptHash === null ? null : r.scriptHash.toString()))}::text[], ${col((r) => r.createdBy)}::text[],
		                  ${col((r) => r.parentJob)}::text[], ${col((r) => r.status)}::text[], ${col((r) => JSON.stringify(r.args))}::text[],
		                  ${col((r) => JSON.stringify(r.result))}::text[], ${col((r) => r.createdAt.toISOString())}::text[],
		                  ${col((r) => iso(r.startedAt))}::text[], ${col((r) => iso(r.completedAt))}::text[])
		           as r(id, ws, p, h, by, parent, st, a, res, c, s, e)
		    on conflict (id) do update
		       set script_hash = excluded.script_hash, parent_job = excluded.parent_job, status = excluded.status,
		           args = excluded.args, result = excluded.result, created_at = excluded.created_at,
		           started_at = excluded.started_at, completed_at = excluded.completed_at
		     where job.kind = 'openlineage' and job.workspace = excluded.workspace`,
		tx
	);
}

export interface RunProgressRow {
	jobId: string;
	assetKind: string;
	assetPath: string;
	status: string;
	error: string | null;
}

/** Progress rows of many runs ((run, asset) distinct). */
export async function upsertRunsProgress(database: Database, tx: Tx, ws: string, rows: readonly RunProgressRow[]): Promise<void> {
	if (rows.length === 0) return;
	const col = <T>(f: (r: RunProgressRow) => T) => sql.param(rows.map(f));
	await database.rows(
		sql`insert into dbt_run_progress (workspace, job_id, asset_kind, asset_path, status, row_count, error)
		    select ${ws}, r.j::uuid, r.k, r.p, r.s, null, r.e
		      from unnest(${col((r) => r.jobId)}::text[], ${col((r) => r.assetKind)}::text[], ${col((r) => r.assetPath)}::text[],
		                  ${col((r) => r.status)}::text[], ${col((r) => r.error)}::text[]) as r(j, k, p, s, e)
		    on conflict (workspace, job_id, asset_kind, asset_path) do update
		       set status = excluded.status, row_count = excluded.row_count, error = excluded.error, updated_at = now()`,
		tx
	);
}

/** upsertExternalDatasets with each row's own event time (asset paths distinct). */
export async function upsertExternalDatasetsAt(database: Database, tx: Tx, ws: string, rows: readonly (ExternalDatasetRow & { eventTime: Date })[]): Promise<void> {
	if (rows.length === 0) return;
	await database.rows(
		sql`insert into openlineage_dataset (workspace, asset_path, namespace, name, fields, fields_event_time)
		    select ${ws}, d.p, d.ns, d.n, d.f::jsonb, case when d.f is null then null else d.at::timestamptz end
		      from unnest(${sql.param(rows.map((r) => r.assetPath))}::text[], ${sql.param(rows.map((r) => r.namespace))}::text[],
		                  ${sql.param(rows.map((r) => r.name))}::text[], ${sql.param(rows.map((r) => (r.fields ? JSON.stringify(r.fields) : null)))}::text[],
		                  ${sql.param(rows.map((r) => r.eventTime.toISOString()))}::text[]) as d(p, ns, n, f, at)
		    on conflict (workspace, asset_path) do update
		       set fields = case when excluded.fields is not null and (openlineage_dataset.fields_event_time is null or openlineage_dataset.fields_event_time <= excluded.fields_event_time)
		                         then excluded.fields else openlineage_dataset.fields end,
		           fields_event_time = case when excluded.fields is not null then greatest(openlineage_dataset.fields_event_time, excluded.fields_event_time)
		                                    else openlineage_dataset.fields_event_time end,
		           updated_at = now()`,
		tx
	);
}

/**
 * setJobLineage for jobs whose lineage stays what it is (the same digest): the newer event now
 * stands for it. Guarded by the digest, so a job whose lineage another process changed meanwhile
 * is left alone.
 */
export async function touchJobLineages(
	database: Database,
	tx: Tx,
	ws: string,
	rows: readonly { namespace: string; name: string; eventTime: Date; fromComplete: boolean; digest: string; warnings: string[] }[]
): Promise<void> {
	if (rows.length === 0) return;
	await database.rows(
		sql`update openlineage_job j
		       set lineage_event_time = u.t::timestamptz, lineage_from_complete = u.c::boolean, warnings = u.w::jsonb, updated_at = now()
		      from unnest(${sql.param(rows.map((r) => r.namespace))}::text[], ${sql.param(rows.map((r) => r.name))}::text[],
		                  ${sql.param(rows.map((r) => r.eventTime.toISOString()))}::text[], ${sql.param(rows.map((r) => (r.fromComplete ? 'true' : 'false')))}::text[],
		                  ${sql.param(rows.map((r) => r.digest))}::text[], ${sql.param(rows.map((r) => JSON.stringify(r.warnings)))}::text[]) as u(ns, n, t, c, d, w)
		     where j.workspace = ${ws} and j.namespace = u.ns and j.name = u.n and j.lineage_digest = u.d`,
		tx
	);
}

/** mergeJobFacets for many jobs (jobs distinct in one call). */
export async function mergeJobsFacets(database: Database, tx: Tx, ws: string, rows: readonly { namespace: string; name: string; facets: Record<string, unknown>; eventTime: Date }[]): Promise<void> {
	if (rows.length === 0) return;
	await database.rows(
		sql`update openlineage_job j
		       set facets = case when j.facets_event_time is null or j.facets_event_time <= u.t::timestamptz
		                         then j.facets || u.f::jsonb else u.f::jsonb || j.facets end,
		           facets_event_time = greatest(j.facets_event_time, u.t::timestamptz), updated_at = now()
		      from unnest(${sql.param(rows.map((r) => r.namespace))}::text[], ${sql.param(rows.map((r) => r.name))}::text[],
		                  ${sql.param(rows.map((r) => JSON.stringify(r.facets)))}::text[], ${sql.param(rows.map((r) => r.eventTime.toISOString()))}::text[]) as u(ns, n, f, t)
		     where j.workspace = ${ws} and j.namespace = u.ns and j.name = u.n`,
		tx
	);
}
