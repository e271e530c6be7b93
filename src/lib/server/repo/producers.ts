// Every SQL statement of producer scripts (DESIGN.md §8): a version's column lineage, the column
// lists a deploy expands `select *` from, and the published lineage the asset graph shows.
import { sql } from 'drizzle-orm';
import type { Database, Tx } from '../db';
import { producerColumnLineage, ZERO_UUID } from '../schema';

const textArray = (xs: readonly string[]) => sql`${sql.param([...xs])}::text[]`;

export interface ProducerLineageRow {
	outputAssetKind: string;
	outputAssetPath: string;
	outputColumn: string;
	inputAssetKind: string;
	inputAssetPath: string;
	inputColumn: string;
	source: 'annotation' | 'inferred';
	lineageKind: 'copy' | 'mod' | null;
}

/**
 * Stores one producer version's lineage. Rows are inserted in the order given (output columns
 * in the order the script produces them), which lakeTableColumns reads back as column order.
 */
export async function insertProducerLineage(tx: Tx, workspace: string, scriptPath: string, scriptHash: bigint, rows: ProducerLineageRow[]): Promise<void> {
	const values = rows.map((r) => ({ workspace, scriptPath, scriptHash, ...r }));
	// 11 parameters a row: 1000 rows stay far below the 65,535 bind parameters of one statement.
	for (let i = 0; i < values.length; i += 1000) await tx.insert(producerColumnLineage).values(values.slice(i, i + 1000));
}

/** One version's stored lineage, in stored order. */
export async function producerLineageOfVersion(database: Database, workspace: string, scriptHash: bigint, tx?: Tx): Promise<ProducerLineageRow[]> {
	const rows = await database.rows<Record<string, string>>(
		sql`select output_asset_kind, output_asset_path, output_column, input_asset_kind, input_asset_path, input_column, source, lineage_kind
		      from producer_column_lineage
		     where workspace = ${workspace} and script_hash = ${scriptHash.toString()}::bigint
		     order by id`,
		tx
	);
	return rows.map(toRow);
}

const toRow = (r: Record<string, string>): ProducerLineageRow => ({
	outputAssetKind: r.output_asset_kind,
	outputAssetPath: r.output_asset_path,
	outputColumn: r.output_column,
	inputAssetKind: r.input_asset_kind,
	inputAssetPath: r.input_asset_path,
	inputColumn: r.input_column,
	source: r.source === 'annotation' ? 'annotation' : 'inferred',
	lineageKind: r.lineage_kind === 'copy' || r.lineage_kind === 'mod' ? r.lineage_kind : null
});

/** A relation's columns as one project version describes them (who describes it decides who may see them). */
export interface RelationColumnsCandidate {
	assetPath: string;
	scriptPath: string;
	resourceType: string;
	/** The analyzed, typed columns in order (`column_schema`), else null. */
	columnSchema: string[] | null;
	/** The declared column names (`columns`), else null. */
	declared: string[] | null;
}

/**
 * For each asked dbt asset path, how every project that describes it describes it, in
 * preference order: a model/seed/snapshot before a source (the one that builds the relation
 * knows it best), then the newest version. Only each project's NEWEST live version graph counts
 * (a simple rule: "the newest version graph of any path that has this asset_path"); run
 * snapshots and previews never do. The caller picks the first candidate it may read.
 */
export async function relationColumnCandidates(database: Database, workspace: string, assetPaths: string[], tx?: Tx): Promise<RelationColumnsCandidate[]> {
	if (assetPaths.length === 0) return [];
	const rows = await database.rows<{ asset_path: string; script_path: string; resource_type: string; column_schema: unknown; columns: unknown }>(
		sql`select n.asset_path, n.script_path, n.resource_type, n.column_schema, n.columns
		      from dbt_node n
		      join lateral (
		        select s.hash, s.created_at from script s
		         where s.workspace = n.workspace and s.path = n.script_path and not s.deleted and not s.archived and not s.pending
		         order by s.created_at desc, s.hash desc limit 1
		      ) v on v.hash = n.script_hash
		     where n.workspace = ${workspace} and n.asset_path = any(${textArray(assetPaths)})
		       and n.job_id = ${ZERO_UUID}::uuid and n.script_hash is not null
		       and n.resource_type in ('model', 'seed', 'snapshot', 'source')
		     order by n.asset_path, (n.resource_type = 'source'), v.created_at desc, n.script_path`,
		tx
	);
	return rows.map((r) => ({
		assetPath: r.asset_path,
		scriptPath: r.script_path,
		resourceType: r.resource_type,
		columnSchema: schemaNames(r.column_schema),
		declared: declaredNames(r.columns)
	}));
}

function schemaNames(v: unknown): string[] | null {
	if (!Array.isArray(v) || v.length === 0) return null;
	const names = v.map((c) => (c && typeof c === 'object' && typeof (c as { name?: unknown }).name === 'string' ? (c as { name: string }).name : null));
	return names.every((n): n is string => n !== null && n !== '') ? names : null;
}

function declaredNames(v: unknown): string[] | null {
	if (!v || typeof v !== 'object' || Array.isArray(v)) return null;
	const names = Object.keys(v);
	return names.length ? names : null;
}

/** A lake table's columns as the producers that write it stored them. */
export interface LakeColumnsCandidate {
	assetPath: string;
	scriptPath: string;
	/** Output columns with at least one input, in the order the producer produced them. */
	columns: string[];
}

/**
 * The output columns other producers stored for these lake tables: the newest live version of
 * each producer path that publishes a write of the table. A column that reads no input (a
 * count(*), a literal) has no stored row, so these lists are never known to be complete.
 */
export async function lakeTableColumns(database: Database, workspace: string, assetPaths: string[], tx?: Tx): Promise<LakeColumnsCandidate[]> {
	if (assetPaths.length === 0) return [];
	const rows = await database.rows<{ asset_path: string; script_path: string; output_column: string }>(
		sql`select p.output_asset_path as asset_path, p.script_path, p.output_column
		      from asset_usage u
		      join asset_usage_current c on c.workspace = u.workspace and c.script_path = u.script_path and c.script_hash = u.script_hash
		      join lateral (
		        select s.hash from script s
		         where s.workspace = u.workspace and s.path = u.script_path and not s.deleted and not s.archived and not s.pending
		         order by s.created_at desc, s.hash desc limit 1
		      ) v on true
		      join producer_column_lineage p
		        on p.workspace = u.workspace and p.script_hash = v.hash
		       and p.output_asset_kind = u.asset_kind and p.output_asset_path = u.asset_path
		     where u.workspace = ${workspace} and u.asset_kind = 'ducklake' and u.asset_path = any(${textArray(assetPaths)})
		       and u.access in ('w', 'rw')
		     group by p.output_asset_path, p.script_path, p.output_column
		     order by p.output_asset_path, p.script_path, min(p.id)`,
		tx
	);
	const out = new Map<string, LakeColumnsCandidate>();
	for (const r of rows) {
		const k = `${r.asset_path}\u0000${r.script_path}`;
		let c = out.get(k);
		if (!c) out.set(k, (c = { assetPath: r.asset_path, scriptPath: r.script_path, columns: [] }));
		c.columns.push(r.output_column);
	}
	return [...out.values()];
}
