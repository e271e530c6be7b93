// The whole data model (DESIGN.md §4). Migrations in drizzle/ are generated from this file with
// `npm run db:generate`; never edit a generated migration by hand.
import { sql } from 'drizzle-orm';
import {
	bigint,
	boolean,
	customType,
	foreignKey,
	index,
	integer,
	jsonb,
	pgTable,
	primaryKey,
	text,
	timestamp,
	uniqueIndex,
	uuid
} from 'drizzle-orm/pg-core';

const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
	dataType: () => 'bytea'
});

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const createdAt = () => ts('created_at').notNull().defaultNow();

/** Key/value settings of the instance (the generated share-link secret lives here). */
export const instanceSetting = pgTable('instance_setting', {
	key: text('key').primaryKey(),
	value: text('value').notNull()
});

// ─── Auth and tenancy ─────────────────────────────────────────────────────────────────────

export const account = pgTable('account', {
	id: text('id').primaryKey(),
	username: text('username').notNull().unique(),
	passwordHash: text('password_hash'),
	instanceAdmin: boolean('instance_admin').notNull().default(false),
	createdAt: createdAt()
});

export const session = pgTable(
	'session',
	{
		// SHA-256 (hex) of the cookie token: a database leak does not leak live sessions.
		id: text('id').primaryKey(),
		accountId: text('account_id')
			.notNull()
			.references(() => account.id, { onDelete: 'cascade' }),
		expiresAt: ts('expires_at').notNull()
	},
	(t) => [index('session_account_idx').on(t.accountId)]
);

export const workspace = pgTable('workspace', {
	id: text('id').primaryKey(),
	name: text('name').notNull(),
	createdBy: text('created_by'),
	createdAt: createdAt()
});

export const member = pgTable(
	'member',
	{
		workspace: text('workspace')
			.notNull()
			.references(() => workspace.id, { onDelete: 'cascade' }),
		username: text('username').notNull(),
		accountId: text('account_id')
			.notNull()
			.references(() => account.id, { onDelete: 'cascade' }),
		isAdmin: boolean('is_admin').notNull().default(false),
		createdAt: createdAt()
	},
	(t) => [
		primaryKey({ columns: [t.workspace, t.username] }),
		index('member_account_idx').on(t.accountId)
	]
);

export const group = pgTable(
	'group',
	{
		workspace: text('workspace')
			.notNull()
			.references(() => workspace.id, { onDelete: 'cascade' }),
		name: text('name').notNull()
	},
	(t) => [primaryKey({ columns: [t.workspace, t.name] })]
);

export const groupMember = pgTable(
	'group_member',
	{
		workspace: text('workspace').notNull(),
		groupName: text('group_name').notNull(),
		username: text('username').notNull()
	},
	(t) => [
		primaryKey({ columns: [t.workspace, t.groupName, t.username] }),
		foreignKey({
			columns: [t.workspace, t.groupName],
			foreignColumns: [group.workspace, group.name]
		}).onDelete('cascade'),
		index('group_member_user_idx').on(t.workspace, t.username)
	]
);

export const folder = pgTable(
	'folder',
	{
		workspace: text('workspace')
			.notNull()
			.references(() => workspace.id, { onDelete: 'cascade' }),
		name: text('name').notNull(),
		// Principals as written in the API: `u/<username>` or `g/<group>`.
		readers: text('readers').array().notNull().default(sql`'{}'::text[]`),
		writers: text('writers').array().notNull().default(sql`'{}'::text[]`)
	},
	(t) => [primaryKey({ columns: [t.workspace, t.name] })]
);

export const apiToken = pgTable(
	'api_token',
	{
		id: text('id').primaryKey(),
		// SHA-256 (hex) of the bearer token; the token itself is shown once.
		hash: text('hash').notNull().unique(),
		workspace: text('workspace')
			.notNull()
			.references(() => workspace.id, { onDelete: 'cascade' }),
		owner: text('owner').notNull(),
		label: text('label').notNull(),
		scopes: text('scopes').array().notNull().default(sql`'{}'::text[]`),
		expiresAt: ts('expires_at'),
		createdAt: createdAt(),
		lastUsedAt: ts('last_used_at')
	},
	(t) => [index('api_token_owner_idx').on(t.workspace, t.owner)]
);

// ─── Scripts, jobs, warehouses ────────────────────────────────────────────────────────────

export const script = pgTable(
	'script',
	{
		workspace: text('workspace')
			.notNull()
			.references(() => workspace.id, { onDelete: 'cascade' }),
		hash: bigint('hash', { mode: 'bigint' }).notNull(),
		path: text('path').notNull(),
		language: text('language').notNull(),
		content: text('content').notNull(),
		createdBy: text('created_by').notNull(),
		createdAt: createdAt(),
		deleted: boolean('deleted').notNull().default(false),
		archived: boolean('archived').notNull().default(false),
		// A deploy pinned before it goes live (its engine resolved, its packages installed, or its
		// manifest made by `dbt parse`) waits here, invisible to every read of the live versions.
		pending: boolean('pending').notNull().default(false),
		// The engine this version runs on (EngineLock): written once, when it is pinned.
		lock: jsonb('lock')
	},
	(t) => [
		primaryKey({ columns: [t.workspace, t.hash] }),
		index('script_path_idx').on(t.workspace, t.path, t.createdAt)
	]
);

/** The project files of a dbt version (tar.gz), kept apart so listing scripts never reads them. */
export const scriptArchive = pgTable(
	'script_archive',
	{
		workspace: text('workspace').notNull(),
		hash: bigint('hash', { mode: 'bigint' }).notNull(),
		data: bytea('data').notNull()
	},
	(t) => [
		primaryKey({ columns: [t.workspace, t.hash] }),
		foreignKey({ columns: [t.workspace, t.hash], foreignColumns: [script.workspace, script.hash] }).onDelete(
			'cascade'
		)
	]
);

export const job = pgTable(
	'job',
	{
		id: uuid('id').primaryKey(),
		workspace: text('workspace')
			.notNull()
			.references(() => workspace.id, { onDelete: 'cascade' }),
		kind: text('kind').notNull(),
		scriptPath: text('script_path'),
		scriptHash: bigint('script_hash', { mode: 'bigint' }),
		createdBy: text('created_by').notNull(),
		permissionedAs: text('permissioned_as').notNull(),
		parentJob: uuid('parent_job'),
		status: text('status').notNull().default('queued'),
		args: jsonb('args').notNull().default({}),
		result: jsonb('result'),
		logs: text('logs').notNull().default(''),
		timeoutS: integer('timeout_s'),
		workerId: text('worker_id'),
		heartbeatAt: ts('heartbeat_at'),
		cancelRequested: boolean('cancel_requested').notNull().default(false),
		createdAt: createdAt(),
		startedAt: ts('started_at'),
		completedAt: ts('completed_at')
	},
	(t) => [
		index('job_ws_created_idx').on(t.workspace, t.createdAt),
		index('job_ws_path_idx').on(t.workspace, t.scriptPath, t.createdAt),
		index('job_queue_idx').on(t.status, t.createdAt),
		index('job_parent_idx').on(t.parentJob),
		// The fair claim of lineage jobs asks when each waiting workspace last had one claimed.
		index('job_lineage_claimed_idx').on(t.workspace, t.startedAt).where(sql`kind = 'lineage'`)
	]
);

// Every share link minted since links could be revoked: the token names its row (see share.ts),
// and the row says whether it still opens anything. Links minted before carry no row and stay
// valid, as they were, until the instance secret changes.
export const shareLink = pgTable(
	'share_link',
	{
		id: uuid('id').primaryKey(),
		workspace: text('workspace')
			.notNull()
			.references(() => workspace.id, { onDelete: 'cascade' }),
		jobId: uuid('job_id')
			.notNull()
			.references(() => job.id, { onDelete: 'cascade' }),
		/** The audience: member or public (ShareDomain). */
		kind: text('kind').notNull(),
		createdBy: text('created_by').notNull(),
		createdAt: createdAt(),
		expiresAt: ts('expires_at'),
		revokedAt: ts('revoked_at'),
		revokedBy: text('revoked_by'),
		lastUsedAt: ts('last_used_at')
	},
	(t) => [index('share_link_job_idx').on(t.workspace, t.jobId, t.createdAt)]
);

// Each worker process says it is alive here (upserted as it polls, deleted when it stops), so an
// instance admin can see how many are alive even while the queue is empty (GET /api/admin/stats).
export const workerPresence = pgTable('worker_presence', {
	workerId: text('worker_id').primaryKey(),
	host: text('host').notNull(),
	pid: integer('pid').notNull(),
	slots: integer('slots').notNull(),
	running: integer('running').notNull(),
	startedAt: ts('started_at').notNull().defaultNow(),
	beatAt: ts('beat_at').notNull().defaultNow()
});

export const warehouse = pgTable(
	'warehouse',
	{
		workspace: text('workspace')
			.notNull()
			.references(() => workspace.id, { onDelete: 'cascade' }),
		name: text('name').notNull(),
		defaultDatabase: text('default_database'),
		settings: jsonb('settings').notNull().default({}),
		// Write-only: no API returns these; they reach dbt as environment variables only.
		secrets: jsonb('secrets').notNull().default({})
	},
	(t) => [primaryKey({ columns: [t.workspace, t.name] })]
);

// ─── The dbt graph ────────────────────────────────────────────────────────────────────────
// Every graph table carries the same key: (workspace, script_path, script_hash, job_id).
// A version's own graph has job_id = the zero uuid; a run snapshot has its job's id; a
// preview has script_hash NULL. Uniqueness is two partial indexes because NULL never equals
// NULL; the surrogate id keeps the primary key total.

export const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

const graphKey = () => ({
	id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
	workspace: text('workspace').notNull(),
	scriptPath: text('script_path').notNull(),
	scriptHash: bigint('script_hash', { mode: 'bigint' }),
	jobId: uuid('job_id').notNull()
});

export const dbtNode = pgTable(
	'dbt_node',
	{
		...graphKey(),
		uniqueId: text('unique_id').notNull(),
		resourceType: text('resource_type').notNull(),
		name: text('name').notNull(),
		assetPath: text('asset_path'),
		materialized: text('materialized'),
		materializeStrategy: text('materialize_strategy'),
		uniqueKey: text('unique_key'),
		tags: text('tags').array().notNull().default(sql`'{}'::text[]`),
		description: text('description'),
		testKind: text('test_kind'),
		testColumn: text('test_column'),
		testArgs: jsonb('test_args'),
		severity: text('severity'),
		attachedNode: text('attached_node'),
		columns: jsonb('columns'),
		columnSchema: jsonb('column_schema'),
		freshness: jsonb('freshness'),
		rawCode: text('raw_code'),
		originalFilePath: text('original_file_path'),
		// The column-lineage inference's outcome for this model ({outcome, message, line, column,
		// untraced}); NULL when no inference has finished for its graph (engine lineage, none yet).
		columnLineage: jsonb('column_lineage'),
		// SHA-256 of the node's stored fields, written with it: the lineage diff compares these
		// instead of the fields. NULL for rows stored before it existed.
		digest: text('digest'),
		ingestedAt: ts('ingested_at').notNull().defaultNow()
	},
	(t) => [
		uniqueIndex('dbt_node_version_uq')
			.on(t.workspace, t.scriptPath, t.scriptHash, t.jobId, t.uniqueId)
			.where(sql`script_hash IS NOT NULL`),
		uniqueIndex('dbt_node_preview_uq')
			.on(t.workspace, t.jobId, t.uniqueId)
			.where(sql`script_hash IS NULL`),
		foreignKey({ columns: [t.workspace, t.scriptHash], foreignColumns: [script.workspace, script.hash] }).onDelete(
			'cascade'
		),
		index('dbt_node_asset_idx').on(t.workspace, t.assetPath),
		index('dbt_node_job_idx').on(t.jobId),
		index('dbt_node_ingested_idx').on(t.ingestedAt)
	]
);

export const dbtEdge = pgTable(
	'dbt_edge',
	{
		...graphKey(),
		parentUniqueId: text('parent_unique_id').notNull(),
		childUniqueId: text('child_unique_id').notNull()
	},
	(t) => [
		uniqueIndex('dbt_edge_version_uq')
			.on(t.workspace, t.scriptPath, t.scriptHash, t.jobId, t.parentUniqueId, t.childUniqueId)
			.where(sql`script_hash IS NOT NULL`),
		uniqueIndex('dbt_edge_preview_uq')
			.on(t.workspace, t.jobId, t.parentUniqueId, t.childUniqueId)
			.where(sql`script_hash IS NULL`),
		foreignKey({ columns: [t.workspace, t.scriptHash], foreignColumns: [script.workspace, script.hash] }).onDelete(
			'cascade'
		),
		index('dbt_edge_job_idx').on(t.jobId)
	]
);

// Column lineage is stored by id: a graph's rows carry its marker's id (dbt_graph_snapshot.id)
// instead of repeating the 4-part key, and name columns by integer ids from the graph's own
// column dictionary (bench/README.md "storage-designs": a third of the bytes, a fifth of the
// replace time). Neither table has a foreign key to the marker: a per-row check cost most of the
// gain, so the statement trigger `dbt_graph_rows_cascade` (drizzle/0006; drizzle's schema cannot
// declare it) deletes a graph's rows when its marker goes, by a delete, a retention sweep or the
// script → marker cascade.

/** A graph's columns that its column edges name: ids dense from 0 in (unique_id, column) order, so one node's columns are an id range. */
export const dbtGraphColumn = pgTable(
	'dbt_graph_column',
	{
		graphId: bigint('graph_id', { mode: 'number' }).notNull(),
		columnId: integer('column_id').notNull(),
		uniqueId: text('unique_id').notNull(),
		columnName: text('column_name').notNull()
	},
	(t) => [
		primaryKey({ name: 'dbt_graph_column_pk', columns: [t.graphId, t.columnId] }),
		uniqueIndex('dbt_graph_column_name_uq').on(t.graphId, t.uniqueId, t.columnName)
	]
);

export const dbtColumnEdge = pgTable(
	'dbt_column_edge',
	{
		graphId: bigint('graph_id', { mode: 'number' }).notNull(),
		parentCol: integer('parent_col').notNull(),
		childCol: integer('child_col').notNull(),
		// The index's word (copy, mod, scan; another word is kept, never served), as text: unknown
		// words survive, and the bytes it adds over a smallint code were within the noise.
		lineageKind: text('lineage_kind').notNull(),
		// 'engine' (the uploaded index) or 'inferred' (from the compiled SQL, by a lineage job).
		provenance: text('provenance').notNull().default('engine'),
		// Connected component of the DIRECT (copy/mod) edges, computed at ingest, so a
		// column-lineage read fetches one component by index instead of walking the project.
		// NULL for scan and other non-direct kinds, which are never served.
		component: integer('component')
	},
	(t) => [
		uniqueIndex('dbt_column_edge_uq').on(t.graphId, t.parentCol, t.childCol, t.lineageKind),
		index('dbt_column_edge_component_idx').on(t.graphId, t.component).where(sql`component IS NOT NULL`),
		index('dbt_column_edge_child_idx').on(t.graphId, t.childCol)
	]
);

export const dbtGraphSnapshot = pgTable(
	'dbt_graph_snapshot',
	{
		...graphKey(),
		digest: text('digest').notNull(),
		relationRootAtLastIngest: text('relation_root_at_last_ingest'),
		permissionedAs: text('permissioned_as').notNull(),
		// What the ingest stored and dropped, so a page can explain a graph without re-reading it.
		stats: jsonb('stats').notNull().default({}),
		// The lineage job inferring this graph's column lineage from the compiled SQL; NULL when
		// the lineage is the engine's index or there is none (stats.column_edges tells which).
		// Kept after the job ends: its status explains the graph.
		lineageJobId: uuid('lineage_job_id'),
		// The graph's exposures, semantic models, metrics and saved queries (types/consumers.ts),
		// each mapped down to the columns it reads; NULL when the manifest has none.
		consumers: jsonb('consumers'),
		ingestedAt: ts('ingested_at').notNull().defaultNow()
	},
	(t) => [
		uniqueIndex('dbt_graph_snapshot_version_uq')
			.on(t.workspace, t.scriptPath, t.scriptHash, t.jobId)
			.where(sql`script_hash IS NOT NULL`),
		uniqueIndex('dbt_graph_snapshot_preview_uq')
			.on(t.workspace, t.jobId)
			.where(sql`script_hash IS NULL`),
		foreignKey({ columns: [t.workspace, t.scriptHash], foreignColumns: [script.workspace, script.hash] }).onDelete(
			'cascade'
		),
		index('dbt_graph_snapshot_path_idx').on(t.workspace, t.scriptPath, t.ingestedAt),
		index('dbt_graph_snapshot_job_idx').on(t.jobId),
		index('dbt_graph_snapshot_ingested_idx').on(t.ingestedAt)
	]
);

export const dbtRunProgress = pgTable(
	'dbt_run_progress',
	{
		workspace: text('workspace').notNull(),
		jobId: uuid('job_id').notNull(),
		assetKind: text('asset_kind').notNull(),
		assetPath: text('asset_path').notNull(),
		status: text('status').notNull(),
		rowCount: bigint('row_count', { mode: 'number' }),
		error: text('error'),
		updatedAt: ts('updated_at').notNull().defaultNow()
	},
	(t) => [
		primaryKey({ columns: [t.workspace, t.jobId, t.assetKind, t.assetPath] }),
		index('dbt_run_progress_updated_idx').on(t.updatedAt)
	]
);

// The assets each path reads and writes, per version: a version's rows are written before it is
// published (a large project's are tens of thousands, too many for the one short transaction
// that publishes it on the embedded database's only connection), and asset_usage_current names
// the version whose rows every read sees. Rows of other versions are invisible and pruned after
// the publish. Rows from before versions were kept here carry script_hash 0.
export const assetUsage = pgTable(
	'asset_usage',
	{
		workspace: text('workspace').notNull(),
		assetKind: text('asset_kind').notNull(),
		assetPath: text('asset_path').notNull(),
		access: text('access').notNull(),
		scriptPath: text('script_path').notNull(),
		scriptHash: bigint('script_hash', { mode: 'bigint' }).notNull().default(sql`0`)
	},
	(t) => [
		primaryKey({ columns: [t.workspace, t.scriptPath, t.scriptHash, t.assetKind, t.assetPath] }),
		index('asset_usage_asset_idx').on(t.workspace, t.assetKind, t.assetPath)
	]
);

/** Per path, the version whose asset_usage rows are published (the only ones reads see). */
export const assetUsageCurrent = pgTable(
	'asset_usage_current',
	{
		workspace: text('workspace').notNull(),
		scriptPath: text('script_path').notNull(),
		scriptHash: bigint('script_hash', { mode: 'bigint' }).notNull()
	},
	(t) => [primaryKey({ columns: [t.workspace, t.scriptPath] })]
);

export const producerColumnLineage = pgTable(
	'producer_column_lineage',
	{
		id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
		workspace: text('workspace').notNull(),
		scriptPath: text('script_path').notNull(),
		scriptHash: bigint('script_hash', { mode: 'bigint' }).notNull(),
		outputAssetKind: text('output_asset_kind').notNull(),
		outputAssetPath: text('output_asset_path').notNull(),
		outputColumn: text('output_column').notNull(),
		inputAssetKind: text('input_asset_kind').notNull(),
		inputAssetPath: text('input_asset_path').notNull(),
		inputColumn: text('input_column').notNull(),
		source: text('source').notNull(),
		// copy (the value passes through, renamed or not) or mod (an expression); NULL when an
		// annotation names the input without saying how it is used.
		lineageKind: text('lineage_kind')
	},
	(t) => [
		foreignKey({ columns: [t.workspace, t.scriptHash], foreignColumns: [script.workspace, script.hash] }).onDelete(
			'cascade'
		),
		index('producer_column_lineage_version_idx').on(t.workspace, t.scriptHash),
		index('producer_column_lineage_input_idx').on(t.workspace, t.inputAssetKind, t.inputAssetPath),
		index('producer_column_lineage_output_idx').on(t.workspace, t.outputAssetKind, t.outputAssetPath)
	]
);

// ─── Column-lineage inference ──────────────────────────────────────────────────

/** A queued lineage job's input: the serialized InferencePlan (gzip JSON), deleted when the job ends. */
export const lineagePlan = pgTable(
	'lineage_plan',
	{
		jobId: uuid('job_id')
			.primaryKey()
			.references(() => job.id, { onDelete: 'cascade' }),
		workspace: text('workspace').notNull(),
		data: bytea('data').notNull(),
		createdAt: createdAt()
	},
	(t) => [index('lineage_plan_ws_idx').on(t.workspace)]
);

/**
 * One model's inferred lineage by its cache key (a digest of its compiled SQL, dialect and its
 * parents' columns), per workspace: a redeploy re-infers only what changed. Entries unused for
 * INFER_CACHE_DAYS are dropped by the retention sweep.
 */
export const inferCache = pgTable(
	'infer_cache',
	{
		workspace: text('workspace')
			.notNull()
			.references(() => workspace.id, { onDelete: 'cascade' }),
		cacheKey: text('cache_key').notNull(),
		data: jsonb('data').notNull(),
		usedAt: ts('used_at').notNull().defaultNow()
	},
	(t) => [primaryKey({ columns: [t.workspace, t.cacheKey] }), index('infer_cache_used_idx').on(t.workspace, t.usedAt)]
);

// ─── OpenLineage in ───────────────────────────────────────────────────────────────────────
// Events sent by other tools' OpenLineage clients. A job becomes a producer script (language
// `openlineage`) in the folder its namespace maps to, so every lineage read sees it through
// asset_usage and producer_column_lineage; a run is a `job` row of kind `openlineage`.

/** Which folder an OpenLineage job namespace writes into; namespace `*` is the workspace default. */
export const openlineageNamespace = pgTable(
	'openlineage_namespace',
	{
		workspace: text('workspace')
			.notNull()
			.references(() => workspace.id, { onDelete: 'cascade' }),
		namespace: text('namespace').notNull(),
		folder: text('folder').notNull(),
		createdBy: text('created_by').notNull(),
		createdAt: createdAt()
	},
	(t) => [primaryKey({ columns: [t.workspace, t.namespace] })]
);

/** One OpenLineage job (namespace, name): the producer script it is drawn as, and whose event set its lineage. */
export const openlineageJob = pgTable(
	'openlineage_job',
	{
		workspace: text('workspace')
			.notNull()
			.references(() => workspace.id, { onDelete: 'cascade' }),
		namespace: text('namespace').notNull(),
		name: text('name').notNull(),
		scriptPath: text('script_path').notNull(),
		// The event whose datasets are the job's lineage now: the newest COMPLETE, or before any
		// COMPLETE the newest event naming datasets. A later one of the same standing replaces it.
		lineageEventTime: ts('lineage_event_time'),
		lineageFromComplete: boolean('lineage_from_complete').notNull().default(false),
		lineageDigest: text('lineage_digest'),
		// The job facets of its newest event (sql, jobType, documentation, ...): authored.
		facets: jsonb('facets').notNull().default({}),
		facetsEventTime: ts('facets_event_time'),
		// What was cut or could not be placed, for the job's page (column edges over the cap, ...).
		warnings: jsonb('warnings').notNull().default([]),
		createdBy: text('created_by').notNull(),
		createdAt: createdAt(),
		updatedAt: ts('updated_at').notNull().defaultNow()
	},
	(t) => [primaryKey({ columns: [t.workspace, t.namespace, t.name] }), uniqueIndex('openlineage_job_path_uq').on(t.workspace, t.scriptPath)]
);

/** Every accepted event as it was sent (idempotent by its canonical digest), kept for the run's page and retention. */
export const openlineageEvent = pgTable(
	'openlineage_event',
	{
		id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
		workspace: text('workspace').notNull(),
		eventKey: text('event_key').notNull(),
		eventType: text('event_type'),
		runId: uuid('run_id'),
		jobNamespace: text('job_namespace'),
		jobName: text('job_name'),
		eventTime: ts('event_time').notNull(),
		receivedAt: ts('received_at').notNull().defaultNow(),
		sentBy: text('sent_by').notNull(),
		body: jsonb('body').notNull()
	},
	(t) => [
		uniqueIndex('openlineage_event_key_uq').on(t.workspace, t.eventKey),
		index('openlineage_event_run_idx').on(t.workspace, t.runId),
		index('openlineage_event_received_idx').on(t.workspace, t.receivedAt)
	]
);

/** A dataset no known relation matched (`openlineage://<namespace>/<name>`): its identity and last schema. */
export const openlineageDataset = pgTable(
	'openlineage_dataset',
	{
		workspace: text('workspace')
			.notNull()
			.references(() => workspace.id, { onDelete: 'cascade' }),
		assetPath: text('asset_path').notNull(),
		namespace: text('namespace').notNull(),
		name: text('name').notNull(),
		// The schema facet's fields of the newest event that carried one ([{name, type}]).
		fields: jsonb('fields'),
		fieldsEventTime: ts('fields_event_time'),
		updatedAt: ts('updated_at').notNull().defaultNow()
	},
	(t) => [primaryKey({ columns: [t.workspace, t.assetPath] })]
);

// ─── Derived answers kept across restarts ─────────────────────────────────────────────────

/**
 * What the app derived from stored rows and would otherwise rebuild after every restart (a
 * folder's asset graph, a canvas's laid-out first cut), as bytes under a key naming everything
 * they were derived from (derived-cache.ts). Never a source of truth: a row whose key no
 * request computes any more is dead weight, pruned least recently used past a byte budget.
 */
export const derivedCache = pgTable(
	'derived_cache',
	{
		key: text('key').primaryKey(),
		workspace: text('workspace')
			.notNull()
			.references(() => workspace.id, { onDelete: 'cascade' }),
		body: bytea('body').notNull(),
		bytes: integer('bytes').notNull(),
		usedAt: ts('used_at').notNull().defaultNow()
	},
	(t) => [index('derived_cache_used_idx').on(t.usedAt)]
);
