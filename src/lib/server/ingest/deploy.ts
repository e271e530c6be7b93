// Deploy and preview of a dbt project from its artifacts: parse everything first (a refusal
// stores nothing), then write the version, its job and its graph in ONE transaction, so a
// failure leaves the previously stored graph exactly as it was.
import { directComponents } from '$lib/lineage/components';
import { hashToHex } from '$lib/types/script-hash';
import type { Database } from '../db';
import { ZERO_UUID } from '../schema';
import {
	graphDigest,
	pruneGraphs,
	replaceGraph,
	type ColumnEdgeRow,
	type GraphContent,
	type GraphKey,
	type NodeRow
} from '../repo/graph';
import { appendJobLog, insertJob } from '../repo/jobs';
import { insertScriptVersion, newScriptHash, publishAssetUsage, storeArchive, type AssetUse } from '../repo/scripts';
import { getWarehouse } from '../repo/warehouses';
import { readColumnLineage, readNodeColumns } from './column-index';
import { parseDescriptor } from './descriptor';
import { IngestError } from './errors';
import { parseManifest, type ParsedNode } from './manifest';
import { inspectProjectArchive } from './project-archive';

export interface UploadedFile {
	name: string;
	bytes: Uint8Array;
}

export interface UploadRequest {
	workspace: string;
	path: string;
	kind: 'deploy' | 'preview';
	username: string;
	descriptor?: string;
	manifest: UploadedFile;
	columnLineage?: UploadedFile;
	nodeColumns?: UploadedFile;
	runResults?: UploadedFile;
	project?: UploadedFile;
}

export interface DeployAnswer {
	hash: string | null;
	job_id: string;
	nodes: number;
	edges: number;
	column_edges: number | null;
	typed_nodes: number;
	dropped: {
		column_edges_outside_graph: number;
		column_edges_over_cap: number;
		unnamed_columns: number;
		rows_not_decoded: boolean;
	};
	warnings: string[];
	warehouse: string;
	default_database: string | null;
	has_project_files: boolean;
	url: string;
}

const WRITTEN = new Set(['model', 'seed', 'snapshot']);

/** Which assets the project writes (its models, seeds, snapshots) and reads (sources, anchors). */
function assetUses(nodes: ParsedNode[]): AssetUse[] {
	const out: AssetUse[] = [];
	for (const n of nodes) {
		if (!n.assetPath) continue;
		if (n.resourceType === 'source' || n.anchorOnly) out.push({ assetKind: 'dbt', assetPath: n.assetPath, access: 'r' });
		else if (WRITTEN.has(n.resourceType)) out.push({ assetKind: 'dbt', assetPath: n.assetPath, access: 'w' });
	}
	return out;
}

const fmt = (n: number) => n.toLocaleString('en-US');

export async function ingestUpload(h: Database, req: UploadRequest): Promise<DeployAnswer> {
	const log: string[] = [];
	const warnings: string[] = [];
	const warn = (w: string) => {
		warnings.push(w);
		log.push(`warning: ${w}`);
	};

	const descriptor = parseDescriptor(req.descriptor ?? '');
	for (const w of descriptor.warnings) warn(`descriptor: ${w}`);
	const wh = (await getWarehouse(h, req.workspace, descriptor.warehouse)) ?? { defaultDatabase: null };
	if (!('name' in wh)) {
		warn(
			`warehouse "${descriptor.warehouse}" is not configured in this workspace: its default database is unknown, ` +
				'so every relation that names a database is stored under <database>.<schema>'
		);
	}
	const manifestText = decodeUtf8(req.manifest);
	const parsed = parseManifest(manifestText, {
		fileName: req.manifest.name,
		warehouse: descriptor.warehouse,
		defaultDatabase: wh.defaultDatabase,
		selection: { select: descriptor.select, exclude: descriptor.exclude, selector: descriptor.selector }
	});
	log.push(
		`${req.manifest.name}: dbt ${parsed.dbtVersion ?? 'unknown'}, manifest ${parsed.schemaVersion}, ` +
			`${fmt(parsed.nodes.length)} nodes, ${fmt(parsed.edges.length)} edges`
	);

	if (req.project) {
		const s = await inspectProjectArchive(req.project.bytes, req.project.name);
		log.push(`${req.project.name}: ${fmt(s.files)} project files (${fmt(s.unpackedBytes)} bytes unpacked)`);
	} else if (req.kind === 'deploy') {
		log.push('no project files uploaded: this version can be browsed but not run');
	}

	const kept = new Set(parsed.nodes.map((n) => n.uniqueId));
	let columnEdges: ColumnEdgeRow[] | null = null;
	const dropped = { column_edges_outside_graph: 0, column_edges_over_cap: 0, unnamed_columns: 0, rows_not_decoded: false };
	if (req.columnLineage) {
		try {
			const r = await readColumnLineage(req.columnLineage.bytes, { fileName: req.columnLineage.name, keptNodes: kept });
			const comps = directComponents(r.edges);
			columnEdges = r.edges.map((e, i) => ({ ...e, component: comps[i] }));
			dropped.column_edges_outside_graph = r.stats.droppedOutsideGraph;
			dropped.column_edges_over_cap = r.stats.droppedOverCap;
			dropped.unnamed_columns = r.stats.droppedUnnamedColumns;
			dropped.rows_not_decoded = r.stats.decodeStopped;
			log.push(
				`${req.columnLineage.name}: ${fmt(r.stats.rowsDecoded)} rows decoded, ${fmt(r.edges.length)} column edges stored ` +
					`(${Object.entries(r.stats.byKind)
						.map(([k, v]) => `${k || '(empty)'} ${fmt(v)}`)
						.join(', ')})`
			);
			if (r.stats.decodeStopped) warn(`${req.columnLineage.name}: decoding stopped at ${fmt(r.stats.rowsDecoded)} rows (the limit); later rows were not read`);
			if (dropped.column_edges_over_cap) warn(`${req.columnLineage.name}: ${fmt(dropped.column_edges_over_cap)} edges over the 200,000-edge cap were dropped (non-direct kinds first)`);
			if (dropped.column_edges_outside_graph) log.push(`${fmt(dropped.column_edges_outside_graph)} column edges dropped: an endpoint is not a node of this graph`);
			if (dropped.unnamed_columns) log.push(`${fmt(dropped.unnamed_columns)} column edges dropped: an empty column name`);
		} catch (e) {
			if (!(e instanceof IngestError)) throw e;
			warn(`${e.message}; the graph is stored without column lineage`);
		}
	} else {
		log.push(
			descriptor.columnLineage
				? 'no column lineage: no dbt.column_lineage.parquet was uploaded (the engine writes it with `dbt compile --static-analysis strict --write-index`)'
				: 'no column lineage: none uploaded, and `column_lineage` is not enabled in the descriptor'
		);
	}

	let schemas: Map<string, { name: string; type?: string }[]> | null = null;
	if (req.nodeColumns) {
		try {
			const r = await readNodeColumns(req.nodeColumns.bytes, { fileName: req.nodeColumns.name, keptNodes: kept });
			schemas = r.schemas;
			log.push(`${req.nodeColumns.name}: typed columns for ${fmt(r.schemas.size)} nodes`);
		} catch (e) {
			if (!(e instanceof IngestError)) throw e;
			warn(`${e.message}; the graph is stored without typed columns`);
		}
	}

	const nodes: NodeRow[] = parsed.nodes.map((n) => toNodeRow(n, schemas));
	const content: GraphContent = {
		nodes,
		edges: parsed.edges,
		columnEdges
	};
	const digest = graphDigest(content);
	const typedNodes = nodes.filter((n) => n.columnSchema && n.columnSchema.length > 0).length;
	const hash = req.kind === 'deploy' ? newScriptHash() : null;
	const stats = {
		nodes: nodes.length,
		edges: parsed.edges.length,
		column_edges: columnEdges?.length ?? null,
		typed_nodes: typedNodes,
		dropped,
		dbt_version: parsed.dbtVersion,
		has_project_files: !!req.project
	};

	const jobId = await h.db.transaction(async (tx) => {
		if (hash !== null) {
			await insertScriptVersion(tx, {
				workspace: req.workspace,
				hash,
				path: req.path,
				language: 'dbt',
				content: req.descriptor ?? '',
				createdBy: req.username
			});
			if (req.project) await storeArchive(tx, req.workspace, hash, req.project.bytes);
		}
		const id = await insertJob(tx, {
			workspace: req.workspace,
			kind: req.kind,
			scriptPath: req.path,
			scriptHash: hash,
			createdBy: req.username,
			permissionedAs: `u/${req.username}`,
			status: 'success',
			args: {},
			result: { ...stats, warnings },
			logs: ''
		});
		const key: GraphKey = { workspace: req.workspace, scriptPath: req.path, scriptHash: hash, jobId: hash === null ? id : ZERO_UUID };
		await replaceGraph(h, tx, key, content, { digest, permissionedAs: `u/${req.username}`, stats });
		if (hash !== null) {
			const published = await publishAssetUsage(h, tx, req.workspace, req.path, hash, assetUses(parsed.nodes));
			log.push(published ? 'published the relations this version reads and writes' : 'a newer version of this path owns its relations');
		}
		const pruned = await pruneGraphs(h, tx, req.workspace, req.path);
		const prunedTotal = pruned.runs + pruned.versions + pruned.previews;
		if (prunedTotal) log.push(`retention: removed ${pruned.runs} run snapshots, ${pruned.versions} old version graphs, ${pruned.previews} old previews`);
		log.push(`stored graph ${digest.slice(0, 12)}`);
		// The log is written last, inside the same transaction, so it describes what committed.
		await appendJobLog(tx, id, log.join('\n') + '\n');
		return id;
	});

	return {
		hash: hash === null ? null : hashToHex(hash),
		job_id: jobId,
		nodes: nodes.length,
		edges: parsed.edges.length,
		column_edges: columnEdges?.length ?? null,
		typed_nodes: typedNodes,
		dropped,
		warnings,
		warehouse: descriptor.warehouse,
		default_database: wh.defaultDatabase,
		has_project_files: !!req.project,
		url: `/w/${req.workspace}/run/${jobId}`
	};
}

function decodeUtf8(f: UploadedFile): string {
	try {
		return new TextDecoder('utf-8', { fatal: true }).decode(f.bytes);
	} catch {
		throw new IngestError(f.name, 'is not UTF-8 text (expected dbt JSON)');
	}
}

function toNodeRow(n: ParsedNode, schemas: Map<string, { name: string; type?: string }[]> | null): NodeRow {
	return {
		uniqueId: n.uniqueId,
		resourceType: n.resourceType,
		name: n.name,
		assetPath: n.assetPath,
		materialized: n.materialized,
		materializeStrategy: n.materializeStrategy,
		uniqueKey: n.uniqueKey,
		tags: n.tags,
		description: n.description,
		testKind: n.testKind,
		testColumn: n.testColumn,
		testArgs: n.testArgs,
		severity: n.severity,
		attachedNode: n.attachedNode,
		columns: n.columns,
		columnSchema: schemas?.get(n.uniqueId) ?? null,
		freshness: n.freshness,
		rawCode: n.rawCode,
		originalFilePath: n.originalFilePath
	};
}
