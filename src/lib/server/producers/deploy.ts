// Deploy of a producer SQL script (DESIGN.md §7, §8): analyse first (on the analysis thread;
// nothing is written while the SQL is read), then write the version, its `deploy` job, its
// lineage rows and (if it is still the newest) its asset usage in ONE transaction, as the dbt
// deploy does.
import { assetUri, columnUri, type AssetRef } from '$lib/lineage/producer-annotations';
import { hashToHex } from '$lib/types/script-hash';
import type { Database } from '../db';
import { appendJobLog, insertJob } from '../repo/jobs';
import { insertProducerLineage, lakeTableColumns, relationColumnCandidates, type ProducerLineageRow } from '../repo/producers';
import { insertScriptVersion, newScriptHash, pruneAssetUsage, publishAssetUsage, type AssetUse } from '../repo/scripts';
import { requireProducerAnnotations, requireProducerBytes } from '../limits';
import { getWarehouse } from '../repo/warehouses';
import { ApiError } from '../api-error';
import type { KnownColumns, ProducerAnalysis } from './analyze';
import { analyzeProducerOffThread, AnalysisThreadError } from './analysis-thread';

/** The warehouse whose relations `schema.name` names (DESIGN.md §8: the default warehouse). */
export const PRODUCER_WAREHOUSE = 'main';

/** Warnings kept in the answer and the log; a script can produce one per line. */
const MAX_WARNINGS = 200;

export interface SqlDeployRequest {
	workspace: string;
	path: string;
	content: string;
	username: string;
	/**
	 * Whether the deployer may read a script path: a `select *` expands only from relations
	 * described by projects the deployer may read (column lists are authored content), and
	 * the same for lake tables and the producers that wrote them.
	 */
	mayReadScript: (scriptPath: string) => boolean;
}

export interface SqlDeployAnswer {
	hash: string;
	job_id: string;
	target: string | null;
	writes: string[];
	reads: string[];
	columns_annotated: number;
	columns_inferred: number;
	/** Rows stored: one per (output column, input column). */
	lineage_edges: number;
	columns: { column: string; source: 'annotation' | 'inferred'; inputs: { column: string; kind: 'copy' | 'mod' | null }[] }[];
	warnings: string[];
	url: string;
}

/** The column lists a deploy may use, loaded once for every asset the script names. */
async function loadCatalog(database: Database, req: SqlDeployRequest, assets: AssetRef[]): Promise<Map<string, KnownColumns>> {
	const out = new Map<string, KnownColumns>();
	const dbt = assets.filter((a) => a.kind === 'dbt').map((a) => a.path);
	for (const c of await relationColumnCandidates(database, req.workspace, dbt)) {
		const key = assetUri({ kind: 'dbt', path: c.assetPath });
		if (out.has(key) || !req.mayReadScript(c.scriptPath)) continue;
		// Declared columns are a set: jsonb keeps no key order, so nothing matches them by position.
		if (c.columnSchema) out.set(key, { columns: c.columnSchema, complete: true });
		else if (c.declared) out.set(key, { columns: c.declared, complete: true, unordered: true });
	}
	const lake = assets.filter((a) => a.kind === 'ducklake').map((a) => a.path);
	for (const c of await lakeTableColumns(database, req.workspace, lake)) {
		if (c.scriptPath === req.path || !req.mayReadScript(c.scriptPath)) continue;
		const key = assetUri({ kind: 'ducklake', path: c.assetPath });
		const prev = out.get(key);
		// Two producers writing one table: what either stored is a column of it.
		const columns = prev ? [...prev.columns, ...c.columns.filter((x) => !prev.columns.includes(x))] : c.columns;
		out.set(key, { columns, complete: false });
	}
	return out;
}

function lineageRows(a: ProducerAnalysis): ProducerLineageRow[] {
	if (!a.target) return [];
	const target = a.target;
	return a.columns.flatMap((c) =>
		c.inputs.map((i) => ({
			outputAssetKind: target.kind,
			outputAssetPath: target.path,
			outputColumn: c.column,
			inputAssetKind: i.asset.kind,
			inputAssetPath: i.asset.path,
			inputColumn: i.column,
			source: c.source,
			lineageKind: i.kind
		}))
	);
}

function capped(warnings: string[]): string[] {
	if (warnings.length <= MAX_WARNINGS) return warnings;
	return [...warnings.slice(0, MAX_WARNINGS), `… and ${warnings.length - MAX_WARNINGS} more warnings`];
}

export async function deploySqlScript(database: Database, req: SqlDeployRequest): Promise<SqlDeployAnswer> {
	// Bounded before anything is parsed (limits.ts; past the parse budget only the head and the
	// annotations of a script are read).
	requireProducerBytes(Buffer.byteLength(req.content));
	requireProducerAnnotations(req.content);
	const wh = await getWarehouse(database, req.workspace, PRODUCER_WAREHOUSE);
	let statements: number;
	let analysis: ProducerAnalysis;
	try {
		({ statements, analysis } = await analyzeProducerOffThread(req.content, { name: PRODUCER_WAREHOUSE, defaultDatabase: wh?.defaultDatabase ?? null }, (assets) =>
			loadCatalog(database, req, assets)
		));
	} catch (e) {
		if (e instanceof AnalysisThreadError) throw new ApiError(422, `content: the script could not be analysed (${e.message}); nothing was stored`);
		throw e;
	}
	const warnings = capped(analysis.warnings);
	const rows = lineageRows(analysis);
	const annotated = analysis.columns.filter((c) => c.source === 'annotation').length;
	const inferred = analysis.columns.length - annotated;
	const uses: AssetUse[] = [
		...analysis.writes.map((a) => ({ assetKind: a.kind, assetPath: a.path, access: 'w' as const })),
		...analysis.reads.map((a) => ({ assetKind: a.kind, assetPath: a.path, access: 'r' as const }))
	];
	const hash = newScriptHash();

	const log: string[] = [
		`${statements} statements; warehouse ${PRODUCER_WAREHOUSE}${wh ? ` (default database ${wh.defaultDatabase ?? 'unknown'})` : ' is not configured: three-part names are qualified by their database'}`,
		`target: ${analysis.target ? assetUri(analysis.target) : 'none'}`,
		`writes: ${analysis.writes.map(assetUri).join(', ') || 'nothing'}`,
		`reads: ${analysis.reads.map(assetUri).join(', ') || 'nothing'}`,
		`columns: ${annotated} annotated, ${inferred} inferred; ${rows.length} lineage edges stored`,
		...warnings.map((w) => `warning: ${w}`)
	];
	const result = {
		target: analysis.target ? assetUri(analysis.target) : null,
		writes: analysis.writes.map(assetUri),
		reads: analysis.reads.map(assetUri),
		columns_annotated: annotated,
		columns_inferred: inferred,
		lineage_edges: rows.length,
		warnings
	};

	const jobId = await database.db.transaction(async (tx) => {
		await insertScriptVersion(tx, { workspace: req.workspace, hash, path: req.path, language: 'sql', content: req.content, createdBy: req.username });
		const id = await insertJob(tx, {
			workspace: req.workspace,
			kind: 'deploy',
			scriptPath: req.path,
			scriptHash: hash,
			createdBy: req.username,
			permissionedAs: `u/${req.username}`,
			status: 'success',
			args: {},
			result,
			logs: ''
		});
		await insertProducerLineage(tx, req.workspace, req.path, hash, rows);
		const published = await publishAssetUsage(database, tx, req.workspace, req.path, hash, uses);
		await pruneAssetUsage(database, req.workspace, req.path, tx);
		log.push(published ? 'published the assets this version reads and writes' : 'a newer version of this path owns its assets');
		// Written last, in the same transaction, so the log describes what committed.
		await appendJobLog(tx, id, log.join('\n') + '\n');
		return id;
	});

	return {
		hash: hashToHex(hash),
		job_id: jobId,
		...result,
		columns: analysis.columns.map((c) => ({
			column: c.column,
			source: c.source,
			inputs: c.inputs.map((i) => ({ column: columnUri({ ...i.asset, column: i.column }), kind: i.kind }))
		})),
		warnings,
		url: `/w/${req.workspace}/run/${jobId}`
	};
}
