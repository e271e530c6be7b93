// The engine's static-analysis index (FORMATS.md §1.4): `dbt.column_lineage.parquet` (column →
// column edges) and `dbt.node_columns.parquet` (every node's ordered, typed columns), in the flat
// index layout or the information-schema-v1 one. Pure: bytes in, rows out.
//
// Both files are read by column NAME (engines add columns between releases) and one row group at
// a time, column arrays only, so a 4,000,000-row index never exists as row objects. What is kept is
// bounded by the caps below whatever the file holds. Every failure is an IngestError naming the
// file: the index only annotates a graph, so the caller turns it into a warning.
import { parquetMetadata, parquetRead, parquetSchema, type AsyncBuffer, type FileMetaData, type SchemaElement } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { isDirectKind } from '$lib/lineage/kinds';
import { IngestError } from './errors';

/** Column edges one graph stores; what the cap gives up is the non-direct kinds (`scan`). */
export const MAX_STORED_COLUMN_EDGES = 200_000;
/** Rows one pass decodes, whatever it keeps: a bound on work for an index quadratic in a wide model. */
export const MAX_DECODED_INDEX_ROWS = 4_000_000;
/** Typed columns one graph stores (one per column of the project; far above any real one). */
export const MAX_STORED_NODE_COLUMNS = 200_000;

export interface ColumnEdge {
	parentUniqueId: string;
	parentColumn: string;
	childUniqueId: string;
	childColumn: string;
	/** The engine's word, verbatim (`copy`, `mod`, `scan`, ...); a NULL kind is stored as `''`. */
	lineageKind: string;
}

export type IndexLayout = 'index' | 'info_schema_v1';

export interface ColumnLineageStats {
	layout: IndexLayout;
	rowsInFile: number;
	rowsDecoded: number;
	/** True when the file holds more rows than `maxDecoded`; the rest were not read. */
	decodeStopped: boolean;
	droppedOutsideGraph: number;
	droppedUnnamedColumns: number;
	droppedOverCap: number;
	duplicates: number;
	/** Stored edges by kind. */
	byKind: Record<string, number>;
}

/**
 * The graph's nodes, or a promise of them: the decode then starts at once (beside the manifest's
 * parse) and holds decoded row groups, up to LOOK_AHEAD_ROWS rows, until they are known.
 */
export type KeptNodes = ReadonlySet<string> | Promise<ReadonlySet<string>>;

/** Rows decoded ahead while the kept nodes are not known yet: the same bound as the edge buffers. */
export const LOOK_AHEAD_ROWS = 2 * MAX_STORED_COLUMN_EDGES;

export interface ColumnLineageOptions {
	fileName: string;
	keptNodes: KeptNodes;
	maxStored?: number;
	maxDecoded?: number;
	/** Rows held while the kept nodes are unknown (LOOK_AHEAD_ROWS unless a test asks less). */
	lookAheadRows?: number;
}

export interface TypedColumn {
	name: string;
	type?: string;
}

export interface NodeColumnsStats {
	layout: IndexLayout;
	rowsInFile: number;
	rowsDecoded: number;
	decodeStopped: boolean;
	droppedOutsideGraph: number;
	droppedUnnamedColumns: number;
	/** Rows with a NULL `column_index`: YAML-only columns the SQL does not produce (possibly stale). */
	droppedUnindexed: number;
	droppedOverCap: number;
	duplicates: number;
	nodes: number;
	columns: number;
}

export interface NodeColumnsOptions {
	fileName: string;
	keptNodes: KeptNodes;
	maxStored?: number;
	maxDecoded?: number;
	/** Rows held while the kept nodes are unknown (LOOK_AHEAD_ROWS unless a test asks less). */
	lookAheadRows?: number;
}

type ColumnKind = 'string' | 'integer';

interface ColumnSpec {
	/** Name in the flat index, then in the information schema v1. */
	names: Record<IndexLayout, string>;
	kind: ColumnKind;
	required: boolean;
}

const LINEAGE_COLUMNS = {
	parent: { names: { index: 'from_node_unique_id', info_schema_v1: 'parent_node_unique_id' }, kind: 'string', required: true },
	parentColumn: { names: { index: 'from_column_name', info_schema_v1: 'parent_column_name' }, kind: 'string', required: true },
	child: { names: { index: 'to_node_unique_id', info_schema_v1: 'child_node_unique_id' }, kind: 'string', required: true },
	childColumn: { names: { index: 'to_column_name', info_schema_v1: 'child_column_name' }, kind: 'string', required: true },
	kind: { names: { index: 'lineage_kind', info_schema_v1: 'evolution' }, kind: 'string', required: true }
} satisfies Record<string, ColumnSpec>;

const NODE_COLUMNS = {
	node: { names: { index: 'unique_id', info_schema_v1: 'node_unique_id' }, kind: 'string', required: true },
	name: { names: { index: 'column_name', info_schema_v1: 'column_name' }, kind: 'string', required: true },
	index: { names: { index: 'column_index', info_schema_v1: 'column_index' }, kind: 'integer', required: true },
	declared: { names: { index: 'declared_type', info_schema_v1: 'data_type_declared' }, kind: 'string', required: false },
	inferred: { names: { index: 'inferred_type', info_schema_v1: 'data_type_inferred' }, kind: 'string', required: false },
	resolved: { names: { index: 'data_type', info_schema_v1: 'data_type' }, kind: 'string', required: false }
} satisfies Record<string, ColumnSpec>;

// ---------------------------------------------------------------------------------------------
// column_lineage

export async function readColumnLineage(
	file: Uint8Array | ArrayBuffer,
	opts: ColumnLineageOptions
): Promise<{ edges: ColumnEdge[]; stats: ColumnLineageStats }> {
	const maxStored = opts.maxStored ?? MAX_STORED_COLUMN_EDGES;
	const maxDecoded = opts.maxDecoded ?? MAX_DECODED_INDEX_ROWS;
	const pq = openParquet(file, opts.fileName);
	const layout = detectLayout(pq, LINEAGE_COLUMNS, opts.fileName);
	const cols = resolveColumns(pq, LINEAGE_COLUMNS, layout, opts.fileName);

	const collector = new EdgeCollector(maxStored);
	let droppedOutsideGraph = 0;
	let droppedUnnamedColumns = 0;
	const kept = keptNodesOf(opts.keptNodes);
	const scan = await scanRowGroups(pq, cols, maxDecoded, opts.fileName, kept, opts.lookAheadRows ?? LOOK_AHEAD_ROWS, (get, n) => {
		const keptNodes = kept.nodes();
		const cell = (v: unknown, key: string) => textCell(v, opts.fileName, cols.get(key as never) ?? key);
		const parents = get('parent');
		const parentColumns = get('parentColumn');
		const children = get('child');
		const childColumns = get('childColumn');
		const kinds = get('kind');
		for (let i = 0; i < n; i++) {
			const parent = text(parents[i]);
			const child = text(children[i]);
			if (!parent || !child || !keptNodes.has(parent) || !keptNodes.has(child)) {
				droppedOutsideGraph++;
				continue;
			}
			const parentColumn = cell(parentColumns[i], 'parentColumn');
			const childColumn = cell(childColumns[i], 'childColumn');
			if (!parentColumn || !childColumn) {
				droppedUnnamedColumns++;
				continue;
			}
			collector.add({ parentUniqueId: parent, parentColumn, childUniqueId: child, childColumn, lineageKind: cell(kinds[i], 'kind') ?? '' });
		}
	});

	const edges = collector.finish();
	const byKind: Record<string, number> = {};
	for (const e of edges) byKind[e.lineageKind] = (byKind[e.lineageKind] ?? 0) + 1;
	return {
		edges,
		stats: {
			layout,
			rowsInFile: scan.rowsInFile,
			rowsDecoded: scan.rowsDecoded,
			decodeStopped: scan.stopped,
			droppedOutsideGraph,
			droppedUnnamedColumns,
			droppedOverCap: collector.droppedOverCap,
			duplicates: collector.duplicates,
			byKind
		}
	};
}

/**
 * Keeps the edges that survive the cap with memory bounded by twice the cap, however many rows
 * arrive: direct and non-direct edges are buffered apart, and whenever the buffers reach twice the
 * cap they are sorted, de-duplicated and cut back to the cap (all direct edges first, then the
 * non-direct ones in sort order). The result is the same set whatever the row order: the smallest
 * edges by sort key win within each class. A row equal to one an earlier cut already dropped is
 * dropped (and counted) again.
 */
class EdgeCollector {
	private direct: ColumnEdge[] = [];
	private other: ColumnEdge[] = [];
	// After a cut, the largest edge each class kept while full: anything sorting after it can never
	// be kept (the cut-offs only fall), so it is dropped on arrival instead of buffered and sorted.
	private directCutoff: ColumnEdge | null = null;
	private otherCutoff: ColumnEdge | null = null;
	private otherFull = false;
	droppedOverCap = 0;
	duplicates = 0;

	constructor(private readonly max: number) {}

	add(e: ColumnEdge): void {
		if (isDirectKind(e.lineageKind)) {
			if (this.directCutoff && compareEdges(e, this.directCutoff) > 0) {
				this.droppedOverCap++;
				return;
			}
			this.direct.push(e);
		} else {
			if (this.otherFull && (!this.otherCutoff || compareEdges(e, this.otherCutoff) > 0)) {
				this.droppedOverCap++;
				return;
			}
			this.other.push(e);
		}
		if (this.direct.length + this.other.length >= 2 * this.max + 1024) this.compact();
	}

	finish(): ColumnEdge[] {
		this.compact();
		const all = this.direct.concat(this.other);
		all.sort(compareEdges);
		this.direct = [];
		this.other = [];
		return all;
	}

	private compact(): void {
		this.direct = this.dedupe(this.direct);
		this.other = this.dedupe(this.other);
		const keepDirect = Math.min(this.direct.length, this.max);
		this.droppedOverCap += this.direct.length - keepDirect;
		if (this.direct.length >= this.max) this.directCutoff = this.direct[keepDirect - 1] ?? null;
		this.direct.length = keepDirect;
		const budget = this.max - keepDirect;
		const keepOther = Math.min(this.other.length, budget);
		this.droppedOverCap += this.other.length - keepOther;
		if (this.other.length >= budget) {
			this.otherFull = true;
			this.otherCutoff = budget > 0 ? this.other[keepOther - 1] : null;
		}
		this.other.length = keepOther;
	}

	private dedupe(edges: ColumnEdge[]): ColumnEdge[] {
		edges.sort(compareEdges);
		const out: ColumnEdge[] = [];
		for (const e of edges) {
			if (out.length && compareEdges(out[out.length - 1], e) === 0) this.duplicates++;
			else out.push(e);
		}
		return out;
	}
}

function compareEdges(a: ColumnEdge, b: ColumnEdge): number {
	return (
		compareStrings(a.parentUniqueId, b.parentUniqueId) ||
		compareStrings(a.parentColumn, b.parentColumn) ||
		compareStrings(a.childUniqueId, b.childUniqueId) ||
		compareStrings(a.childColumn, b.childColumn) ||
		compareStrings(a.lineageKind, b.lineageKind)
	);
}

// ---------------------------------------------------------------------------------------------
// node_columns

export async function readNodeColumns(
	file: Uint8Array | ArrayBuffer,
	opts: NodeColumnsOptions
): Promise<{ schemas: Map<string, TypedColumn[]>; stats: NodeColumnsStats }> {
	const maxStored = opts.maxStored ?? MAX_STORED_NODE_COLUMNS;
	const maxDecoded = opts.maxDecoded ?? MAX_DECODED_INDEX_ROWS;
	const pq = openParquet(file, opts.fileName);
	const layout = detectLayout(pq, NODE_COLUMNS, opts.fileName);
	const cols = resolveColumns(pq, NODE_COLUMNS, layout, opts.fileName);

	const byNode = new Map<string, { name: string; type: string | null; index: number }[]>();
	let held = 0;
	const stats = { droppedOutsideGraph: 0, droppedUnnamedColumns: 0, droppedUnindexed: 0, droppedOverCap: 0, duplicates: 0 };
	const kept = keptNodesOf(opts.keptNodes);
	const scan = await scanRowGroups(pq, cols, maxDecoded, opts.fileName, kept, opts.lookAheadRows ?? LOOK_AHEAD_ROWS, (get, n) => {
		const keptNodes = kept.nodes();
		const cell = (v: unknown, key: string) => textCell(v, opts.fileName, cols.get(key as never) ?? key);
		const nodes = get('node');
		const names = get('name');
		const indexes = get('index');
		const declared = get('declared');
		const inferred = get('inferred');
		const resolved = get('resolved');
		for (let i = 0; i < n; i++) {
			const node = text(nodes[i]);
			if (!node || !keptNodes.has(node)) {
				stats.droppedOutsideGraph++;
				continue;
			}
			const name = cell(names[i], 'name');
			if (!name) {
				stats.droppedUnnamedColumns++;
				continue;
			}
			const index = indexes[i];
			if (index === null || index === undefined) {
				stats.droppedUnindexed++;
				continue;
			}
			if (held >= maxStored) {
				stats.droppedOverCap++;
				continue;
			}
			held++;
			// The author's declared type is what the project calls the column; the analysis's
			// inference otherwise, then whatever type the engine resolved.
			const type = cell(declared[i], 'declared') || cell(inferred[i], 'inferred') || cell(resolved[i], 'resolved') || null;
			const list = byNode.get(node);
			const col = { name, type, index: Number(index) };
			if (list) list.push(col);
			else byNode.set(node, [col]);
		}
	});

	const schemas = new Map<string, TypedColumn[]>();
	let columns = 0;
	for (const node of [...byNode.keys()].sort(compareStrings)) {
		const list = byNode.get(node)!;
		list.sort((a, b) => a.index - b.index || compareStrings(a.name, b.name));
		const seen = new Set<string>();
		const out: TypedColumn[] = [];
		for (const c of list) {
			if (seen.has(c.name)) {
				stats.duplicates++;
				continue;
			}
			seen.add(c.name);
			out.push(c.type ? { name: c.name, type: c.type } : { name: c.name });
		}
		columns += out.length;
		schemas.set(node, out);
	}
	return {
		schemas,
		stats: { layout, rowsInFile: scan.rowsInFile, rowsDecoded: scan.rowsDecoded, decodeStopped: scan.stopped, ...stats, nodes: schemas.size, columns }
	};
}

// ---------------------------------------------------------------------------------------------
// Parquet plumbing

interface OpenParquet {
	buffer: AsyncBuffer;
	metadata: FileMetaData;
	/** Top-level columns by name. */
	columns: Map<string, SchemaElement & { nested: boolean }>;
}

const MAGIC = [0x50, 0x41, 0x52, 0x31]; // "PAR1"

function openParquet(file: Uint8Array | ArrayBuffer, fileName: string): OpenParquet {
	const bytes = file instanceof Uint8Array ? file : new Uint8Array(file);
	const len = bytes.byteLength;
	const magicAt = (offset: number) => MAGIC.every((b, i) => bytes[offset + i] === b);
	if (len === 0) throw new IngestError(fileName, 'is empty (expected a parquet file)');
	if (len < 4 || !magicAt(0)) throw new IngestError(fileName, 'is not a parquet file (it does not start with the PAR1 magic bytes)');
	if (len < 12 || !magicAt(len - 4)) {
		throw new IngestError(fileName, `is truncated: it starts as a parquet file but its footer is missing (${len.toLocaleString('en-US')} bytes)`);
	}
	let metadata: FileMetaData;
	try {
		metadata = parquetMetadata(bytes);
	} catch (e) {
		throw new IngestError(fileName, `has an unreadable parquet footer (${errorText(e)}); the file is damaged or truncated`);
	}
	const columns = new Map<string, SchemaElement & { nested: boolean }>();
	try {
		for (const child of parquetSchema(metadata).children) {
			columns.set(child.element.name, { ...child.element, nested: child.children.length > 0 });
		}
	} catch (e) {
		throw new IngestError(fileName, `has an unreadable parquet schema (${errorText(e)})`);
	}
	// Read through a window on the caller's bytes: a Node Buffer is often a view into a larger pool,
	// and only the requested ranges are copied, never the whole file.
	const base = bytes.byteOffset;
	const buffer: AsyncBuffer = {
		byteLength: len,
		slice: (start, end) => bytes.buffer.slice(base + start, base + Math.min(end ?? len, len)) as ArrayBuffer
	};
	return { buffer, metadata, columns };
}

function detectLayout(pq: OpenParquet, specs: Record<string, ColumnSpec>, fileName: string): IndexLayout {
	const first = Object.values(specs)[0];
	if (pq.columns.has(first.names.index)) return 'index';
	if (pq.columns.has(first.names.info_schema_v1)) return 'info_schema_v1';
	throw new IngestError(
		fileName,
		`lacks the required column \`${first.names.index}\` (\`${first.names.info_schema_v1}\` in the information-schema layout); ` +
			`its columns are: ${[...pq.columns.keys()].join(', ') || 'none'}`,
		first.names.index
	);
}

/** Physical name of each wanted column present in the file; checks presence and type. */
function resolveColumns<K extends string>(
	pq: OpenParquet,
	specs: Record<K, ColumnSpec>,
	layout: IndexLayout,
	fileName: string
): Map<K, string> {
	const out = new Map<K, string>();
	for (const key of Object.keys(specs) as K[]) {
		const spec = specs[key];
		const name = spec.names[layout];
		const el = pq.columns.get(name);
		if (!el) {
			if (spec.required) throw new IngestError(fileName, `lacks the required column \`${name}\``, name);
			continue;
		}
		const ok =
			!el.nested &&
			(spec.kind === 'string' ? el.type === 'BYTE_ARRAY' : el.type === 'INT64' || el.type === 'INT32');
		if (!ok) {
			const found = el.nested ? 'a nested (group) column' : `of type ${el.type ?? 'unknown'}`;
			const expected = spec.kind === 'string' ? 'a string (BYTE_ARRAY)' : 'an integer (INT64 or INT32)';
			throw new IngestError(fileName, `column \`${name}\` is ${found}, expected ${expected}`, name);
		}
		out.set(key, name);
	}
	return out;
}

type Getter<K extends string> = (key: K) => ArrayLike<unknown>;

/** The kept nodes as the decode needs them: the one place that knows whether they are known yet. */
interface KeptNodesState {
	/** Settles when they are known (null: known from the start); rejects with the caller's failure. */
	ready: Promise<void> | null;
	known: () => boolean;
	nodes: () => ReadonlySet<string>;
}

function keptNodesOf(kept: KeptNodes): KeptNodesState {
	if (!(kept instanceof Promise)) return { ready: null, known: () => true, nodes: () => kept };
	let known: ReadonlySet<string> | null = null;
	const ready = kept.then((nodes) => {
		known = nodes;
	});
	// The decode may fail before it waits on `ready`; the kept nodes' own failure is the caller's.
	ready.catch(() => {});
	return {
		ready,
		known: () => known !== null,
		nodes: () => {
			if (!known) throw new Error('column-index: a row group was handed over before the kept nodes were known');
			return known;
		}
	};
}

/**
 * Decode the wanted columns one row group at a time and hand each group's column arrays to
 * `onGroup`. Stops after `maxDecoded` rows. While the kept nodes are not known, decoded groups
 * wait (in order, at most `lookAheadRows` rows) and are handed over once they are; if they fail,
 * the scan rejects with their error.
 */
async function scanRowGroups<K extends string>(
	pq: OpenParquet,
	cols: Map<K, string>,
	maxDecoded: number,
	fileName: string,
	kept: KeptNodesState,
	lookAheadRows: number,
	onGroup: (get: Getter<K>, rows: number) => void
): Promise<{ rowsInFile: number; rowsDecoded: number; stopped: boolean }> {
	const rowsInFile = Number(pq.metadata.num_rows);
	const physical = [...new Set(cols.values())];
	const empty: unknown[] = [];
	let groupStart = 0;
	let decoded = 0;
	let waiting: { arrays: Map<string, unknown[]>; rows: number }[] = [];
	let waitingRows = 0;
	const hand = (arrays: Map<string, unknown[]>, rows: number) =>
		onGroup((key) => {
			const name = cols.get(key);
			return name === undefined ? empty : arrays.get(name)!;
		}, rows);
	const handWaiting = async () => {
		if (!kept.known()) await kept.ready;
		for (const w of waiting) hand(w.arrays, w.rows);
		waiting = [];
		waitingRows = 0;
	};
	for (let g = 0; g < pq.metadata.row_groups.length; g++) {
		const groupRows = Number(pq.metadata.row_groups[g].num_rows);
		const start = groupStart;
		groupStart += groupRows;
		const take = Math.min(groupRows, maxDecoded - decoded);
		if (take <= 0) break;
		const arrays = new Map<string, unknown[]>();
		for (const name of physical) arrays.set(name, new Array(take).fill(null));
		try {
			await parquetRead({
				file: pq.buffer,
				metadata: pq.metadata,
				columns: physical,
				rowStart: start,
				rowEnd: start + take,
				compressors,
				// A chunk may cover rows outside the requested range (whole pages are decoded).
				onChunk: ({ columnName, columnData, rowStart }) => {
					const target = arrays.get(columnName);
					if (!target) return;
					for (let j = 0; j < columnData.length; j++) {
						const at = rowStart + j - start;
						if (at >= 0 && at < take) target[at] = columnData[j];
					}
				}
			});
		} catch (e) {
			throw new IngestError(fileName, `could not be decoded (row group ${g + 1} of ${pq.metadata.row_groups.length}: ${errorText(e)})`);
		}
		decoded += take;
		if (!kept.known() && waitingRows + take <= lookAheadRows) {
			waiting.push({ arrays, rows: take });
			waitingRows += take;
			continue;
		}
		await handWaiting();
		hand(arrays, take);
	}
	await handWaiting();
	return { rowsInFile, rowsDecoded: decoded, stopped: decoded < rowsInFile };
}

const utf8 = new TextDecoder();

function text(v: unknown): string | null {
	if (typeof v === 'string') return v;
	if (v instanceof Uint8Array) return utf8.decode(v);
	return null;
}

/** A string cell; one holding a NUL (which Postgres text refuses) is an IngestError naming the file and column. */
function textCell(v: unknown, fileName: string, column: string): string | null {
	const s = text(v);
	if (s !== null && s.includes('\u0000')) throw new IngestError(fileName, 'a value holds a NUL character (\\u0000), which cannot be stored', column);
	return s;
}

function errorText(e: unknown): string {
	return e instanceof Error ? e.message : String(e);
}

/** Code-unit order: the same on every machine and locale, which the digest needs. */
function compareStrings(a: string, b: string): number {
	return a < b ? -1 : a > b ? 1 : 0;
}
