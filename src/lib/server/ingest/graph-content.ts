// manifest.json (+ the optional column-lineage index) → the rows of one stored graph. Shared by
// every writer of a graph: a deploy or preview upload, a run's own snapshot, a recorded run. Pure
// apart from decoding: nothing here touches the database.
import { assignComponents, type ColumnEdgeRow, type GraphContent, type NodeRow } from '../repo/graph';
import type { PlannedInference } from './inference-plan';
import { readColumnLineage, readNodeColumns } from '../dbt-files/column-index';
import { IngestError } from '../dbt-files/errors';
import { requireManifestBytes } from '../limits';
import { GIVEN_UP, parseUploadBytes } from './manifest-thread';
import type { ParsedGraph, ParsedNode, Selection } from './manifest';
import { mark, type IngestProfile } from '../profile';
import type { UploadedFile } from '../dbt-files/uploaded-file';
import { resolveConsumers } from '$lib/lineage/consumers';
import { consumerExprReader } from './consumer-exprs';

export type { UploadedFile } from '../dbt-files/uploaded-file';

export interface GraphInput {
	/** Its bytes may be lent to the parse thread: `manifest.bytes` is then the same bytes in a new view (the catalog's too). */
	manifest: UploadedFile;
	columnLineage?: UploadedFile;
	nodeColumns?: UploadedFile;
	/** catalog.json: one that is not a catalog refuses the upload (IngestError naming it). */
	catalog?: UploadedFile;
	/** The caller needs the manifest's and catalog's bytes no more once they are read: they may end with the parse thread. */
	bytesGivenUp?: boolean;
	/** Plan column-lineage inference where the manifest is parsed (see inference-plan.ts). */
	planInference?: boolean;
	warehouse: string;
	defaultDatabase: string | null;
	selection: Selection;
	/** The descriptor asked for column lineage: only changes what the log says when no index came. */
	columnLineageWanted: boolean;
	profile?: IngestProfile;
	/** The warehouse's adapter (the SQL dialect of semantic-model exprs); the manifest's when absent. */
	adapterType?: string | null;
}

export interface DroppedCounts {
	column_edges_outside_graph: number;
	column_edges_over_cap: number;
	unnamed_columns: number;
	rows_not_decoded: boolean;
}

export interface BuiltGraph {
	parsed: ParsedGraph;
	content: GraphContent;
	typedNodes: number;
	dropped: DroppedCounts;
	/** The manifest's own log line (callers print it before anything about the index). */
	manifestLog: string;
	/** What the index gave or why it gave nothing. */
	indexLog: string[];
	warnings: string[];
	/** Relations of the manifest the catalog does not describe; null without a catalog or with none missing. */
	catalogMissing: { missing: number; relations: number } | null;
	/** The inference plan, when asked for (planInference). */
	inference: PlannedInference | null;
}

const fmt = (n: number) => n.toLocaleString('en-US');

/**
 * Parses the manifest (an IngestError refuses it) and folds in the index, which only ever
 * annotates: an unreadable index file becomes a warning and the graph is built without it.
 */
export async function buildGraphContent(input: GraphInput): Promise<BuiltGraph> {
	const warnings: string[] = [];
	const indexLog: string[] = [];
	const warn = (w: string) => {
		warnings.push(w);
		indexLog.push(`warning: ${w}`);
	};
	const p = input.profile;
	requireManifestBytes(input.manifest.name, input.manifest.bytes.length);
	// The manifest parses (on its thread when big) while this thread decodes the index files;
	// their rows wait for the manifest's node set (column-index.ts, LOOK_AHEAD_ROWS). A refused
	// manifest refuses the upload whatever the index reads gave, so it is awaited first.
	const started = performance.now();
	let parsedAt = started;
	const uploadRead = parseUploadBytes(
		input.manifest.bytes,
		{
			fileName: input.manifest.name,
			warehouse: input.warehouse,
			defaultDatabase: input.defaultDatabase,
			selection: input.selection,
			onParsed: () => (parsedAt = performance.now())
		},
		{ catalog: input.catalog ?? null, plan: input.planInference ?? false },
		undefined,
		// Lent to the thread, not copied; the same bytes come back under the same files, unless
		// nothing reads them again (an unreadable index makes the deploy plan again from them).
		input.bytesGivenUp && !input.columnLineage
			? GIVEN_UP
			: (bytes, catalogBytes) => {
					input.manifest.bytes = bytes;
					if (input.catalog && catalogBytes) input.catalog.bytes = catalogBytes;
				}
	);
	const keptNodes = uploadRead.then((u) => new Set(u.graph.nodes.map((n) => n.uniqueId)) as ReadonlySet<string>);
	// A refused manifest is reported through uploadRead; here its rejection must not go unhandled.
	keptNodes.catch(() => {});
	const cl = input.columnLineage;
	const nc = input.nodeColumns;
	const lineageRead = cl ? settle(readColumnLineage(cl.bytes, { fileName: cl.name, keptNodes })) : null;
	const nodeColumnsRead = nc ? settle(readNodeColumns(nc.bytes, { fileName: nc.name, keptNodes })) : null;
	const upload = await uploadRead;
	const parsed = upload.graph;
	const lineage = lineageRead ? await lineageRead : null;
	const nodeColumns = nodeColumnsRead ? await nodeColumnsRead : null;
	p?.record('manifest: decode + JSON.parse (beside the index decodes)', parsedAt - started);
	mark(p, 'manifest + index decodes');
	const manifestLog =
		`${input.manifest.name}: dbt ${parsed.dbtVersion ?? 'unknown'}, manifest ${parsed.schemaVersion}, ` +
		`${fmt(parsed.nodes.length)} nodes, ${fmt(parsed.edges.length)} edges`;

	let columnEdges: ColumnEdgeRow[] | null = null;
	const dropped: DroppedCounts = { column_edges_outside_graph: 0, column_edges_over_cap: 0, unnamed_columns: 0, rows_not_decoded: false };
	if (cl && lineage) {
		try {
			const r = unsettle(lineage);
			// The component goes onto the decoded rows themselves: no second set of 200,000 objects.
			columnEdges = assignComponents(r.edges as ColumnEdgeRow[]);
			mark(p, 'index: components');
			dropped.column_edges_outside_graph = r.stats.droppedOutsideGraph;
			dropped.column_edges_over_cap = r.stats.droppedOverCap;
			dropped.unnamed_columns = r.stats.droppedUnnamedColumns;
			dropped.rows_not_decoded = r.stats.decodeStopped;
			indexLog.push(
				`${cl.name}: ${fmt(r.stats.rowsDecoded)} rows decoded, ${fmt(r.edges.length)} column edges stored ` +
					`(${Object.entries(r.stats.byKind)
						.map(([k, v]) => `${k || '(empty)'} ${fmt(v)}`)
						.join(', ')})`
			);
			if (r.stats.decodeStopped) warn(`${cl.name}: decoding stopped at ${fmt(r.stats.rowsDecoded)} rows (the limit); later rows were not read`);
			if (dropped.column_edges_over_cap) warn(`${cl.name}: ${fmt(dropped.column_edges_over_cap)} edges over the 200,000-edge cap were dropped (non-direct kinds first)`);
			if (dropped.column_edges_outside_graph) indexLog.push(`${fmt(dropped.column_edges_outside_graph)} column edges dropped: an endpoint is not a node of this graph`);
			if (dropped.unnamed_columns) indexLog.push(`${fmt(dropped.unnamed_columns)} column edges dropped: an empty column name`);
		} catch (e) {
			if (!(e instanceof IngestError)) throw e;
			warn(`${e.message}; the graph is stored without column lineage`);
		}
	} else {
		indexLog.push(
			input.columnLineageWanted
				? 'no column lineage: no dbt.column_lineage.parquet was uploaded (the engine writes it with `dbt compile --static-analysis strict --write-index`)'
				: 'no column lineage: none uploaded, and `column_lineage` is not enabled in the descriptor'
		);
	}

	let schemas: Map<string, { name: string; type?: string }[]> | null = null;
	let catalogMissing: { missing: number; relations: number } | null = null;
	if (nc && nodeColumns) {
		try {
			const r = unsettle(nodeColumns);
			schemas = r.schemas;
			indexLog.push(`${nc.name}: typed columns for ${fmt(r.schemas.size)} nodes`);
		} catch (e) {
			if (!(e instanceof IngestError)) throw e;
			warn(`${e.message}; the graph is stored without typed columns`);
		}
	}

	const cat = input.catalog;
	const catalogColumns = upload.catalogColumns;
	if (cat && catalogColumns && schemas === null) {
		schemas = new Map();
		let missing = 0;
		let relations = 0;
		for (const n of parsed.nodes) {
			const cols = catalogColumns.get(n.uniqueId);
			if (cols) schemas.set(n.uniqueId, cols);
			if (n.assetPath !== null && CATALOGUED.has(n.resourceType)) {
				relations++;
				if (!cols) missing++;
			}
		}
		indexLog.push(`${cat.name}: typed columns for ${fmt(schemas.size)} nodes`);
		if (missing) catalogMissing = { missing, relations };
	} else if (cat) {
		indexLog.push(`${cat.name}: not used for typed columns (the node_columns index gives them)`);
	}
	const nodes: NodeRow[] = parsed.nodes.map((n) => toNodeRow(n, schemas));
	// Never refuses the upload: what does not resolve is stored with a warning naming it.
	const consumers = parsed.consumers;
	if (consumers.length) {
		for (const w of resolveConsumers(consumers, await consumerExprReader(consumers, input.adapterType ?? parsed.adapterType))) warn(w);
		const count = (t: string) => consumers.filter((c) => c.type === t).length;
		indexLog.push(
			`consumers: ${count('exposure')} exposures, ${count('semantic_model')} semantic models, ${count('metric')} metrics, ${count('saved_query')} saved queries`
		);
	}
	return {
		parsed,
		content: { nodes, edges: parsed.edges, columnEdges, consumers: consumers.length ? consumers : null },
		typedNodes: nodes.filter((n) => n.columnSchema && n.columnSchema.length > 0).length,
		dropped,
		manifestLog,
		indexLog,
		warnings,
		catalogMissing,
		inference: upload.inference
	};
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** A promise that never rejects (its failure is read after the manifest's, which wins). */
function settle<T>(p: Promise<T>): Promise<Settled<T>> {
	return p.then(
		(value) => ({ ok: true as const, value }),
		(error: unknown) => ({ ok: false as const, error })
	);
}

function unsettle<T>(s: Settled<T>): T {
	if (!s.ok) throw s.error;
	return s.value;
}

/** The resource types a catalog describes (tests and ephemeral models have no relation in it). */
const CATALOGUED = new Set(['model', 'seed', 'snapshot', 'source']);

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
