// A workspace fork: a new workspace carrying the source's configuration and every path's newest
// live version with its stored graph, copied row for row by INSERT … SELECT in one transaction.
// The copy keeps script hashes, graph and node digests as they are, so the fork's reads answer
// what the source's did and a redeploy compares against the same digests.
import { sql, type SQL } from 'drizzle-orm';
import { getTableConfig, type PgTable } from 'drizzle-orm/pg-core';
import type { Database, Tx } from '../db';
import { toNumber } from '../db';
import * as schema from '../schema';
import { ZERO_UUID } from '../schema';

/**
 * What a fork carries, table by table; every table of the schema is in exactly one of the two
 * lists (a test holds the schema to that), so a new table must say whether a fork copies it.
 * Tables keyed by the graph key (workspace, script_path, script_hash, job_id) or by a graph's
 * marker id copy through `copyGraphKeyed` / `copyGraphIdRows` below: a new per-graph table (the
 * consumer layer: exposures, semantic models, metrics) is one more line there.
 */
export const FORK_COPIED = [
	'workspace',
	'member',
	'group',
	'group_member',
	'folder',
	'warehouse',
	'script',
	'script_archive',
	'asset_usage',
	'asset_usage_current',
	'producer_column_lineage',
	'dbt_node',
	'dbt_edge',
	'dbt_graph_snapshot',
	'dbt_graph_column',
	'dbt_column_edge',
	'infer_cache',
	'openlineage_namespace',
	'openlineage_job',
	'openlineage_dataset'
] as const;

/** Not carried: runs and their traces, previews, share links, credentials, instance-wide tables. */
export const FORK_NOT_COPIED = [
	'instance_setting',
	'account',
	'session',
	// A token belongs to one workspace and was shown once: the fork's members mint their own.
	'api_token',
	'job',
	'share_link',
	'worker_presence',
	'dbt_run_progress',
	'lineage_plan',
	'openlineage_event',
	// Values derived from the rows above (canvases, first cuts): the fork's first reads rebuild them.
	'derived_cache'
] as const;

/**
 * The stored value of a secret a fork did not carry: the key stays listed (masked, so the admin
 * sees what to set) and the runner refuses it by name (repo/warehouses.ts) until it is set.
 */
export const FORK_UNSET_SECRET = 'tributary:fork:unset';

export interface ForkInput {
	source: string;
	id: string;
	name: string;
	/** The caller: admin of the fork whatever it was in the source. */
	caller: { accountId: string; username: string };
}

export interface ForkAnswer {
	id: string;
	name: string;
	forked_from: string;
	copied: {
		members: number;
		groups: number;
		folders: number;
		warehouses: number;
		/** Warehouses whose secrets must be set again before the fork's runs can use them. */
		warehouses_needing_secrets: string[];
		scripts: number;
		graphs: number;
		nodes: number;
		column_edges: number;
		producer_lineage: number;
	};
}

/** Column names of a table as stored, less the identity (the copy gets fresh ids) and `workspace`. */
function copyColumns(t: PgTable, skip: readonly string[] = []): string[] {
	return getTableConfig(t)
		.columns.map((c) => c.name)
		.filter((n) => n !== 'id' && n !== 'workspace' && !skip.includes(n));
}

const ident = (n: string) => sql.raw(`"${n}"`);
const list = (cols: readonly string[], prefix = '') => sql.raw(cols.map((c) => `${prefix}"${c}"`).join(', '));

/**
 * INSERT INTO t (workspace, cols…) SELECT <new>, cols… FROM t src WHERE src.workspace = <source>
 * AND <where>; `override` replaces a column's select expression. Answers the rows copied.
 */
async function copyRowsOf(
	database: Database,
	tx: Tx,
	t: PgTable,
	f: ForkInput,
	opts: { where?: SQL; override?: Record<string, SQL>; skip?: string[] } = {}
): Promise<number> {
	const name = getTableConfig(t).name;
	const cols = copyColumns(t, opts.skip);
	const select = sql.join(
		cols.map((c) => opts.override?.[c] ?? sql.raw(`src."${c}"`)),
		sql`, `
	);
	const rows = await database.rows<{ n: unknown }>(
		sql`with ins as (
		      insert into ${ident(name)} (workspace, ${list(cols)})
		      select ${f.id}, ${select} from ${ident(name)} src
		       where src.workspace = ${f.source} ${opts.where ? sql`and ${opts.where}` : sql``}
		      returning 1)
		    select count(*) as n from ins`,
		tx
	);
	return toNumber(rows[0]?.n);
}

/**
 * The versions a fork carries: per path the newest that is live (not pending, deleted or
 * archived), as `newestVersion` picks it. A temp table, read by every later statement of the
 * transaction; the transaction's one snapshot makes it what was live when the fork began.
 */
async function pickVersions(database: Database, tx: Tx, f: ForkInput): Promise<number> {
	await database.rows(
		sql`create temp table fork_version on commit drop as
		    select distinct on (path) hash, path from script
		     where workspace = ${f.source} and not deleted and not archived and not pending
		     order by path, created_at desc, hash desc`,
		tx
	);
	await database.rows(sql`alter table fork_version add primary key (hash)`, tx);
	const [r] = await database.rows<{ n: unknown }>(sql`select count(*) as n from fork_version`, tx);
	return toNumber(r.n);
}

const inVersions = sql`(src.script_hash, src.script_path) in (select hash, path from fork_version)`;
const ownGraph = sql`src.job_id = ${ZERO_UUID}::uuid and ${inVersions}`;

/** Rows keyed by the graph key (nodes, ref edges): the versions' own graphs, never runs or previews. */
async function copyGraphKeyed(database: Database, tx: Tx, f: ForkInput): Promise<{ nodes: number }> {
	const nodes = await copyRowsOf(database, tx, schema.dbtNode, f, { where: ownGraph });
	await copyRowsOf(database, tx, schema.dbtEdge, f, { where: ownGraph });
	return { nodes };
}

/**
 * The graphs' markers get new ids; their columns and column edges (stored by marker id) follow
 * through a map old → new made while inserting, ordered so a marker's rows are one scan each.
 */
async function copyGraphIdRows(database: Database, tx: Tx, f: ForkInput): Promise<{ graphs: number; columnEdges: number }> {
	const markerCols = copyColumns(schema.dbtGraphSnapshot, ['lineage_job_id']);
	await database.rows(
		sql`create temp table fork_graph on commit drop as
		    select src.id as old_id, nextval(pg_get_serial_sequence('dbt_graph_snapshot', 'id')) as new_id
		      from dbt_graph_snapshot src
		     where src.workspace = ${f.source} and ${ownGraph}`,
		tx
	);
	// The lineage job stays in the source: a marker naming it would point at another workspace's job.
	await database.rows(
		sql`insert into dbt_graph_snapshot (id, workspace, ${list(markerCols)}, lineage_job_id) overriding system value
		    select m.new_id, ${f.id}, ${list(markerCols, 'src.')}, null
		      from fork_graph m join dbt_graph_snapshot src on src.id = m.old_id`,
		tx
	);
	await database.rows(
		sql`insert into dbt_graph_column (graph_id, column_id, unique_id, column_name)
		    select m.new_id, c.column_id, c.unique_id, c.column_name
		      from fork_graph m join dbt_graph_column c on c.graph_id = m.old_id`,
		tx
	);
	const [e] = await database.rows<{ n: unknown }>(
		sql`with ins as (
		      insert into dbt_column_edge (graph_id, parent_col, child_col, lineage_kind, provenance, component)
		      select m.new_id, e.parent_col, e.child_col, e.lineage_kind, e.provenance, e.component
		        from fork_graph m join dbt_column_edge e on e.graph_id = m.old_id
		      returning 1)
		    select count(*) as n from ins`,
		tx
	);
	const [g] = await database.rows<{ n: unknown }>(sql`select count(*) as n from fork_graph`, tx);
	return { graphs: toNumber(g.n), columnEdges: toNumber(e.n) };
}

/** Forks `source` into the new workspace `id`; null when that id is taken (nothing is written). */
export async function forkWorkspace(database: Database, f: ForkInput): Promise<ForkAnswer | null> {
	return database.db.transaction(async (tx) => {
		// One snapshot for every statement: a deploy committing meanwhile is in none of them.
		await database.rows(sql`set transaction isolation level repeatable read`, tx);
		const [ws] = await database.rows<{ id: string }>(
			sql`insert into workspace (id, name, created_by) values (${f.id}, ${f.name}, ${f.caller.username})
			    on conflict (id) do nothing returning id`,
			tx
		);
		if (!ws) return null;
		const members = await copyRowsOf(database, tx, schema.member, f, {
			override: { is_admin: sql`src.is_admin or src.account_id = ${f.caller.accountId}`, created_at: sql`now()` }
		});
		const groups = await copyRowsOf(database, tx, schema.group, f);
		await copyRowsOf(database, tx, schema.groupMember, f);
		const folders = await copyRowsOf(database, tx, schema.folder, f);
		const warehouses = await copyRowsOf(database, tx, schema.warehouse, f, {
			override: {
				secrets: sql`coalesce((select jsonb_object_agg(k, ${FORK_UNSET_SECRET}::text) from jsonb_object_keys(src.secrets) k), '{}'::jsonb)`
			}
		});
		const needing = await database.rows<{ name: string }>(
			sql`select name from warehouse where workspace = ${f.source} and secrets <> '{}'::jsonb order by name`,
			tx
		);
		await copyRowsOf(database, tx, schema.openlineageNamespace, f);

		const scripts = await pickVersions(database, tx, f);
		await copyRowsOf(database, tx, schema.script, f, { where: sql`(src.hash, src.path) in (select hash, path from fork_version)` });
		await copyRowsOf(database, tx, schema.scriptArchive, f, { where: sql`src.hash in (select hash from fork_version)` });
		// Asset usage as published (each path's rows are its newest live version's): all of it, so
		// every read of the fork, the counts of what it withholds included, answers as the source's.
		// Rows staged for a version not published yet, or not pruned yet, stay behind.
		await copyRowsOf(database, tx, schema.assetUsageCurrent, f);
		await copyRowsOf(database, tx, schema.assetUsage, f, {
			where: sql`exists (select 1 from asset_usage_current c where c.workspace = src.workspace and c.script_path = src.script_path and c.script_hash = src.script_hash)`
		});
		const producerLineage = await copyRowsOf(database, tx, schema.producerColumnLineage, f, { where: inVersions });
		const { nodes } = await copyGraphKeyed(database, tx, f);
		const { graphs, columnEdges } = await copyGraphIdRows(database, tx, f);
		// Inferred lineage by SQL digest: a redeploy of an unchanged project into the fork infers nothing again.
		await copyRowsOf(database, tx, schema.inferCache, f);
		await copyRowsOf(database, tx, schema.openlineageJob, f, { where: sql`src.script_path in (select path from fork_version)` });
		await copyRowsOf(database, tx, schema.openlineageDataset, f);
		// Hook: the consumer layer's tables (exposures, semantic models, metrics) are copied here with the graphs.
		return {
			id: f.id,
			name: f.name,
			forked_from: f.source,
			copied: {
				members,
				groups,
				folders,
				warehouses,
				warehouses_needing_secrets: needing.map((r) => r.name),
				scripts,
				graphs,
				nodes,
				column_edges: columnEdges,
				producer_lineage: producerLineage
			}
		};
	});
}
