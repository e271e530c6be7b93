// Bounds on what one request may ask of the server: the
// layout endpoint's work, and the size of what one upload may store. A request over a bound is
// refused with 413 and a message naming the bound and the value found, before the work starts.
// The upload bounds are read from the environment on each use (docs/operating.md, "Upload
// limits"), far above the largest real project measured.
import type { LevelInput } from '$lib/lineage/canvas-sizes';
import { ApiError } from './api-error';
import { IngestError } from './dbt-files/errors';

/** 413 naming what was over which limit: `what: <found> is over the limit of <limit>`. */
export class LimitError extends ApiError {
	constructor(
		readonly limitName: string,
		message: string
	) {
		super(413, message);
	}
}

const fmt = (n: number) => n.toLocaleString('en-US');

function envNumber(name: string, fallback: number): number {
	const raw = process.env[name];
	if (raw === undefined || raw.trim() === '') return fallback;
	const v = Number(raw);
	return Number.isFinite(v) && v > 0 ? v : fallback;
}

// ---------------------------------------------------------------------------------------------
// Uploads

/**
 * Well above the largest real projects and the generator's 3000-model project, so only an
 * abusive upload meets them (the sizes measured: docs/operating.md, "Upload limits").
 */
export function manifestLimits() {
	return {
		bytes: envNumber('TRIBUTARY_MAX_MANIFEST_MB', 128) * 1024 * 1024,
		nodes: envNumber('TRIBUTARY_MAX_MANIFEST_NODES', 30_000)
	};
}

/**
 * Producer scripts are small, with a handful of annotations. Annotations (`materialize` and
 * `column` lines) are counted before they are parsed, because reading them runs on the
 * request's thread and its cost grows with their number.
 */
export function producerLimits() {
	return {
		bytes: envNumber('TRIBUTARY_MAX_PRODUCER_KB', 2048) * 1024,
		annotations: envNumber('TRIBUTARY_MAX_PRODUCER_ANNOTATIONS', 5000)
	};
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/**
 * catalog.json: far above the real catalogs (docs/operating.md, "Upload limits"); a relation may
 * be as wide as BigQuery allows.
 */
export function catalogLimits() {
	return {
		bytes: envNumber('TRIBUTARY_MAX_CATALOG_MB', 64) * 1024 * 1024,
		relations: envNumber('TRIBUTARY_MAX_CATALOG_RELATIONS', 30_000),
		relationColumns: envNumber('TRIBUTARY_MAX_CATALOG_RELATION_COLUMNS', 10_000),
		columns: envNumber('TRIBUTARY_MAX_CATALOG_COLUMNS', 500_000)
	};
}

/** The files of a deploy, preview or recorded run, and what each may weigh. */
export type UploadFileKind = 'manifest' | 'catalog' | 'column_lineage' | 'node_columns' | 'run_results' | 'project' | 'log';

/**
 * Each file of an upload is counted as it streams in and refused past its limit (the rest of
 * the body is never read). Each default sits far above the real files of its kind; a project
 * archive is its source without target/ (unpacked size bounded in project-archive.ts).
 */
export function uploadFileLimit(kind: UploadFileKind): { bytes: number; env: string } {
	const limit = (env: string, megabytes: number) => ({ bytes: envNumber(env, megabytes) * 1024 * 1024, env });
	switch (kind) {
		case 'manifest':
			return { bytes: manifestLimits().bytes, env: 'TRIBUTARY_MAX_MANIFEST_MB' };
		case 'catalog':
			return { bytes: catalogLimits().bytes, env: 'TRIBUTARY_MAX_CATALOG_MB' };
		case 'column_lineage':
		case 'node_columns':
			return limit('TRIBUTARY_MAX_INDEX_MB', 128);
		case 'run_results':
			return limit('TRIBUTARY_MAX_RUN_RESULTS_MB', 128);
		case 'project':
			return limit('TRIBUTARY_MAX_PROJECT_MB', 128);
		case 'log':
			return limit('TRIBUTARY_MAX_LOG_MB', 256);
	}
}

/** 413 naming the file and its limit; `bytes` null when only "more than the limit" is known (it was not read on). */
export function fileTooLarge(file: string, what: string, bytes: number | null, limit: { bytes: number; env: string }): IngestError {
	if (bytes === null) {
		return new IngestError(file, `more than ${mb(limit.bytes)}, over the ${what} size limit of ${mb(limit.bytes)} (${limit.env}); refused there, the rest of the upload unread`, undefined, 413);
	}
	return new IngestError(file, `${mb(bytes)} is over the ${what} size limit of ${mb(limit.bytes)} (${limit.env})`, undefined, 413);
}

/** A catalog.json already in memory (a run's own, or one read before the streaming bound). */
export function requireCatalogBytes(file: string, bytes: number): void {
	const limit = uploadFileLimit('catalog');
	if (bytes > limit.bytes) throw fileTooLarge(file, 'catalog', bytes, limit);
}

/**
 * Right after the catalog's JSON.parse, before its columns are read: the relation count, then
 * each relation's columns and their sum (counted without reading a column).
 */
export function requireCatalogShape(file: string, groups: readonly [section: string, tables: Record<string, unknown>][]): void {
	const limits = catalogLimits();
	let relations = 0;
	for (const [, tables] of groups) relations += Object.keys(tables).length;
	if (relations > limits.relations) {
		throw new IngestError(file, `${fmt(relations)} relations is over the limit of ${fmt(limits.relations)} relations (TRIBUTARY_MAX_CATALOG_RELATIONS)`, undefined, 413);
	}
	let columns = 0;
	for (const [section, tables] of groups) {
		for (const [uid, table] of Object.entries(tables)) {
			const cols = typeof table === 'object' && table !== null ? (table as { columns?: unknown }).columns : null;
			if (typeof cols !== 'object' || cols === null) continue;
			const n = Array.isArray(cols) ? cols.length : Object.keys(cols).length;
			if (n > limits.relationColumns) {
				throw new IngestError(
					file,
					`${uid} has ${fmt(n)} columns, over the limit of ${fmt(limits.relationColumns)} columns per relation (TRIBUTARY_MAX_CATALOG_RELATION_COLUMNS)`,
					`${section}.${uid}.columns`,
					413
				);
			}
			columns += n;
		}
	}
	if (columns > limits.columns) {
		throw new IngestError(file, `${fmt(columns)} columns in all is over the limit of ${fmt(limits.columns)} columns (TRIBUTARY_MAX_CATALOG_COLUMNS)`, undefined, 413);
	}
}

/** Before the manifest is decoded (an ingest refusal: 413, naming the file). */
export function requireManifestBytes(file: string, bytes: number): void {
	const limit = uploadFileLimit('manifest');
	if (bytes > limit.bytes) throw fileTooLarge(file, 'manifest', bytes, limit);
}

/** Right after JSON.parse, before any per-node work: `nodes`, `sources` and `unit_tests` entries. */
export function requireManifestNodes(file: string, nodes: number): void {
	const { nodes: limit } = manifestLimits();
	if (nodes > limit) throw new IngestError(file, `${fmt(nodes)} nodes is over the limit of ${fmt(limit)} nodes (TRIBUTARY_MAX_MANIFEST_NODES)`, undefined, 413);
}

// What parseProducerAnnotations reads as an annotation line, counted without parsing it (an
// upper bound: a line inside a block comment counts too).
const ANNOTATION_LINE = /^[ \t]*(?:--|\/\/)[ \t]*(?:materialize|column)(?![\w])/gim;

export function countAnnotationLines(sql: string): number {
	return sql.match(ANNOTATION_LINE)?.length ?? 0;
}

export function requireProducerBytes(bytes: number): void {
	const { bytes: limit } = producerLimits();
	if (bytes > limit) {
		throw new LimitError('TRIBUTARY_MAX_PRODUCER_KB', `content: ${fmt(Math.ceil(bytes / 1024))} KB is over the producer script limit of ${fmt(limit / 1024)} KB (TRIBUTARY_MAX_PRODUCER_KB)`);
	}
}

/** Before the JSON body is read: a JSON string may escape every character, so 6× the script. */
export function requireProducerBody(bodyBytes: number): void {
	const { bytes: limit } = producerLimits();
	if (bodyBytes > limit * 6) {
		throw new LimitError('TRIBUTARY_MAX_PRODUCER_KB', `the request body: ${fmt(Math.ceil(bodyBytes / 1024))} KB is over 6× the producer script limit of ${fmt(limit / 1024)} KB (TRIBUTARY_MAX_PRODUCER_KB)`);
	}
}

export function requireProducerAnnotations(sql: string): void {
	const { annotations: limit } = producerLimits();
	const annotations = countAnnotationLines(sql);
	if (annotations > limit) {
		throw new LimitError(
			'TRIBUTARY_MAX_PRODUCER_ANNOTATIONS',
			`content: ${fmt(annotations)} annotations is over the limit of ${fmt(limit)} (TRIBUTARY_MAX_PRODUCER_ANNOTATIONS)`
		);
	}
}

// ---------------------------------------------------------------------------------------------
// Layout

/**
 * dagre runs on the request's thread, so one request's layout is bounded before it starts.
 * nodes × edges bounds the long-edge dummies dagre adds (each edge spans fewer ranks than there
 * are nodes); `spans` is their count estimated from longest-path ranks, which is what the cost
 * follows: a few densely linked children can be slow while nodes × edges stays small. Real
 * levels sit far below both bounds; grouped levels are smaller still. The time budget is checked
 * between connected components, so no request runs much past it.
 */
export const LAYOUT_LIMITS = {
	levels: 500,
	perLevel: 500,
	children: 3000,
	edges: 20_000,
	perLevelNodesTimesEdges: 60_000,
	nodesTimesEdges: 120_000,
	perLevelSpans: 800,
	spans: 1600,
	timeMs: 1500
} as const;

/**
 * Edge segments dagre lays out once long edges are split at every rank they cross, under
 * longest-path ranking (dagre's tight-tree starts from it): Σ over edges of the ranks spanned.
 * Cycles (a client may send any indexes) are broken at the back edges of a depth-first walk.
 */
export function rankSpans(n: number, edges: readonly (readonly [number, number])[]): number {
	const out: number[][] = Array.from({ length: n }, () => []);
	for (const [a, b] of edges) if (a !== b) out[a].push(b);
	// Depth-first post-order, iteratively: reversed, it is a topological order of the forward edges.
	const state = new Uint8Array(n);
	const order: number[] = [];
	for (let s = 0; s < n; s++) {
		if (state[s]) continue;
		const stack: [number, number][] = [[s, 0]];
		state[s] = 1;
		while (stack.length) {
			const top = stack[stack.length - 1];
			const [v, i] = top;
			if (i < out[v].length) {
				top[1]++;
				const w = out[v][i];
				if (!state[w]) {
					state[w] = 1;
					stack.push([w, 0]);
				}
			} else {
				state[v] = 2;
				order.push(v);
				stack.pop();
			}
		}
	}
	const position = new Int32Array(n);
	order.reverse().forEach((v, i) => (position[v] = i));
	const rank = new Int32Array(n);
	for (const v of order) for (const w of out[v]) if (position[w] > position[v]) rank[w] = Math.max(rank[w], rank[v] + 1);
	let spans = 0;
	for (const [a, b] of edges) spans += Math.max(1, Math.abs(rank[b] - rank[a]));
	return spans;
}

/** Refuses a layout request over any of LAYOUT_LIMITS' work bounds (its shape already checked). */
export function requireLayoutWork(levels: readonly LevelInput[]): void {
	let product = 0;
	let spans = 0;
	for (const l of levels) {
		const p = l.children.length * l.edges.length;
		if (p > LAYOUT_LIMITS.perLevelNodesTimesEdges) {
			throw new LimitError(
				'perLevelNodesTimesEdges',
				`level ${l.id}: ${fmt(l.children.length)} children × ${fmt(l.edges.length)} edges = ${fmt(p)}, over the limit of ${fmt(LAYOUT_LIMITS.perLevelNodesTimesEdges)} per level`
			);
		}
		product += p;
		if (product > LAYOUT_LIMITS.nodesTimesEdges) {
			throw new LimitError('nodesTimesEdges', `levels: children × edges add up to more than the limit of ${fmt(LAYOUT_LIMITS.nodesTimesEdges)} per request`);
		}
		const s = rankSpans(l.children.length, l.edges);
		if (s > LAYOUT_LIMITS.perLevelSpans) {
			throw new LimitError('perLevelSpans', `level ${l.id}: its edges span ${fmt(s)} ranks, over the limit of ${fmt(LAYOUT_LIMITS.perLevelSpans)} per level`);
		}
		spans += s;
		if (spans > LAYOUT_LIMITS.spans) {
			throw new LimitError('spans', `levels: their edges span more than the limit of ${fmt(LAYOUT_LIMITS.spans)} ranks per request`);
		}
	}
}

/** A deadline for layoutLevels' `shouldStop`: the budget spent, the request is refused. */
export function layoutDeadline(budgetMs: number = LAYOUT_LIMITS.timeMs): () => boolean {
	const end = performance.now() + budgetMs;
	return () => performance.now() > end;
}

export function layoutTimeout(budgetMs: number = LAYOUT_LIMITS.timeMs): LimitError {
	return new LimitError('timeMs', `levels: the layout took longer than the limit of ${fmt(budgetMs)} ms`);
}

// ---------------------------------------------------------------------------------------------
// Column lineage

/**
 * `include=scan` on the column-lineage reads: at most this many `scan` edges per answer. A scan
 * edge joins every key a model reads to every column it outputs, so one wide model has
 * thousands; the lens shows the asked relations' own, and says when it was cut.
 */
export const SCAN_EDGE_LIMIT = 2000;

// ---------------------------------------------------------------------------------------------
// OpenLineage in

/**
 * The receiver's bounds: the body (compressed, and again decompressed) before it is parsed; the
 * column edges one event may store (more are cut, with a warning on the job); the events a token
 * may send per second, sustained (`rate`) and at once (`burst`).
 */
export function openLineageLimits() {
	const rate = envNumber('TRIBUTARY_OPENLINEAGE_RATE', 1000);
	return {
		bytes: envNumber('TRIBUTARY_OPENLINEAGE_MAX_BYTES', 5 * 1024 * 1024),
		edges: envNumber('TRIBUTARY_OPENLINEAGE_MAX_EDGES', 10_000),
		rate,
		burst: envNumber('TRIBUTARY_OPENLINEAGE_BURST', rate)
	};
}

export function openLineageTooLarge(what: string, bytes: number | null, limit: number): LimitError {
	const found = bytes === null ? 'more than that' : `${fmt(bytes)} bytes`;
	return new LimitError('TRIBUTARY_OPENLINEAGE_MAX_BYTES', `${what}: ${found} is over the limit of ${fmt(limit)} bytes (TRIBUTARY_OPENLINEAGE_MAX_BYTES)`);
}
