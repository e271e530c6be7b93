// Big manifests are parsed on a worker thread: JSON.parse and the node walk of a manifest of
// tens of MB hold a thread for seconds, and on the request thread that stalls every other
// request. Small ones stay inline, where a thread's start-up would cost
// more than the parse. The thread loads the smallest module that parses: the build's own entry
// `manifest-thread.js` (manifest-thread-main.ts, beside build/worker.js) when there is one, and
// otherwise this module, which answers when loaded with the tag in its workerData. Loading the
// server chunk this module is bundled into costs the thread more than the parse itself
// (bench/README.md, "ingest"); the answer comes back by structured clone.
import { getPriority, setPriority } from 'node:os';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { parseCatalog } from './catalog';
import { findBuildEntry } from '../thread-entry';
import { IngestError } from '../dbt-files/errors';
import { planInference, type PlannedInference } from './inference-plan';
import { parseManifestFile, type ManifestOptions, type ParsedEdge, type ParsedGraph, type ParsedNode } from './manifest';

const THREAD_TAG = 'tributary-manifest-parse';

/** Options a thread can receive (no callbacks). */
export type ThreadManifestOptions = Omit<ManifestOptions, 'onParsed'>;

/** What an upload reads beside its manifest, in the same place (inline or on the thread). */
export interface UploadExtras {
	/** catalog.json: refused (IngestError naming it) when not a catalog; its columns by unique_id. */
	catalog?: { name: string; bytes: Uint8Array } | null;
	/** Plan column-lineage inference from the manifest (and catalog). */
	plan?: boolean;
}

export interface ParsedUpload {
	graph: ParsedGraph;
	/** unique_id → columns (name, type) in catalog order; null without a catalog. */
	catalogColumns: Map<string, { name: string; type?: string }[]> | null;
	inference: PlannedInference | null;
}

/**
 * A ParsedUpload as the thread sends it: its big lists as JSON text in slices. Structured clone
 * rebuilds every object of a message in one go on the receiving thread (a 30,000-node graph held
 * the request thread for a third of a second there); strings cross as bytes, and the request
 * thread parses one slice per turn of its event loop, answering other requests in between.
 */
interface SlicedUpload {
	graph: Omit<ParsedGraph, 'nodes' | 'edges'>;
	nodes: string[];
	edges: string[];
	/** JSON of [unique_id, columns][] slices. */
	catalogColumns: string[] | null;
	inference: PlannedInference | null;
}

type ThreadAnswer = { ok: true; upload: SlicedUpload } | { ok: false; ingest: { file: string; message: string; field?: string; status: number } | null; message: string };

/** Nodes per slice, and the edges or catalog columns that weigh about as much. */
const SLICE_NODES = 500;
const SLICE_ITEMS = 10_000;

function slices<T>(items: readonly T[], weight: (t: T) => number, budget: number): string[] {
	const out: string[] = [];
	let part: T[] = [];
	let used = 0;
	for (const t of items) {
		part.push(t);
		used += weight(t);
		if (used >= budget) {
			out.push(JSON.stringify(part));
			part = [];
			used = 0;
		}
	}
	if (part.length) out.push(JSON.stringify(part));
	return out;
}

/** JSON text a node slice holds at most: a node carries its SQL and docs, so 500 of them can weigh megabytes. */
const SLICE_NODE_BYTES = 256 * 1024;

/** Nodes as JSON array slices of at most SLICE_NODES nodes or SLICE_NODE_BYTES of text. */
function nodeSlices(nodes: readonly ParsedNode[]): string[] {
	const out: string[] = [];
	let part: string[] = [];
	let used = 0;
	for (const n of nodes) {
		const text = JSON.stringify(n);
		part.push(text);
		used += text.length;
		if (part.length >= SLICE_NODES || used >= SLICE_NODE_BYTES) {
			out.push(`[${part.join(',')}]`);
			part = [];
			used = 0;
		}
	}
	if (part.length) out.push(`[${part.join(',')}]`);
	return out;
}

function sliced(u: ParsedUpload): SlicedUpload {
	const { nodes, edges, ...graph } = u.graph;
	return {
		graph,
		nodes: nodeSlices(nodes),
		edges: slices(edges, () => 1, SLICE_ITEMS),
		catalogColumns: u.catalogColumns ? slices([...u.catalogColumns], ([, cols]) => 1 + cols.length, SLICE_ITEMS) : null,
		inference: u.inference
	};
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The thread's answer whole again, a slice per turn of the event loop. */
async function unsliced(s: SlicedUpload): Promise<ParsedUpload> {
	const nodes: ParsedNode[] = [];
	const edges: ParsedEdge[] = [];
	for (const part of s.nodes) {
		for (const n of JSON.parse(part) as ParsedNode[]) nodes.push(n);
		await nextTurn();
	}
	for (const part of s.edges) {
		for (const e of JSON.parse(part) as ParsedEdge[]) edges.push(e);
		await nextTurn();
	}
	let catalogColumns: ParsedUpload['catalogColumns'] = null;
	if (s.catalogColumns) {
		catalogColumns = new Map();
		for (const part of s.catalogColumns) {
			for (const [id, cols] of JSON.parse(part) as [string, { name: string; type?: string }[]][]) catalogColumns.set(id, cols);
			await nextTurn();
		}
	}
	return { graph: { ...s.graph, nodes, edges }, catalogColumns, inference: s.inference };
}

interface ThreadInput {
	tag: typeof THREAD_TAG;
	bytes: Uint8Array;
	/** The bytes were moved to the thread, not copied. */
	lent: boolean;
	/** Lent bytes go back with the answer; else they end with the thread (its caller gave them up). */
	giveBack: boolean;
	/** The same for the catalog's bytes (extras.catalog). */
	catalogLent: boolean;
	opts: ThreadManifestOptions;
	extras: UploadExtras;
}

/**
 * Takes back bytes lent to the parse thread: the caller's Uint8Array is detached while the thread
 * holds them (moved, not copied: a copy of a big manifest was a visible part of the deploy's
 * peak RSS, bench/README.md "ingest"), and this receives the same bytes when it answers.
 * A thread that dies before answering keeps them; the upload has failed then anyway.
 */
export type TakeBack = (bytes: Uint8Array, catalog?: Uint8Array) => void;

/**
 * Instead of a TakeBack: the bytes are lent and never come back, so they are freed with the
 * thread when it ends rather than whenever the request thread's collector gets to them (a large
 * manifest taken back stayed in the server's memory for minutes after its upload).
 */
export const GIVEN_UP = 'given up';
export type Lend = TakeBack | typeof GIVEN_UP;

/** Bytes that can be moved to a thread: a view of a whole, unshared ArrayBuffer. */
const movable = (bytes: Uint8Array) => bytes.buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;

/** Uploads whose manifest and catalog together reach this many bytes are parsed off the request thread. */
export function manifestThreadBytes(env: NodeJS.ProcessEnv = process.env): number {
	const mb = Number(env.TRIBUTARY_MANIFEST_THREAD_MB);
	return (Number.isFinite(mb) && mb >= 0 && env.TRIBUTARY_MANIFEST_THREAD_MB !== '' ? mb : 8) * 1024 * 1024;
}

/**
 * The catalog first (a bad one refuses the upload before the manifest's work), then the manifest,
 * then the plan. Only the columns of the graph's own nodes are answered: a catalog describing
 * the whole warehouse would otherwise come back whole, to be copied onto the request thread.
 */
function parseUploadInline(bytes: Uint8Array, opts: ManifestOptions, extras: UploadExtras): ParsedUpload {
	const catalog = extras.catalog ? parseCatalog(extras.catalog) : null;
	let doc: unknown = null;
	const graph = parseManifestFile(bytes, { ...opts, onDocument: (d) => (doc = d) });
	let catalogColumns: ParsedUpload['catalogColumns'] = null;
	if (catalog) {
		catalogColumns = new Map();
		for (const n of graph.nodes) {
			const cols = catalog.columns.get(n.uniqueId);
			if (cols) catalogColumns.set(n.uniqueId, cols);
		}
	}
	return {
		graph,
		catalogColumns,
		inference: extras.plan ? planInference(doc, catalog?.json ?? null) : null
	};
}

function answerOf(input: ThreadInput): ThreadAnswer {
	try {
		return { ok: true, upload: sliced(parseUploadInline(input.bytes, input.opts, input.extras)) };
	} catch (e) {
		if (e instanceof IngestError) {
			// The message is already "<file> (<field>): <problem>"; keep it whole.
			return { ok: false, ingest: { file: e.file, message: e.message, field: e.field, status: e.status }, message: e.message };
		}
		return { ok: false, ingest: null, message: e instanceof Error ? e.message : String(e) };
	}
}

/**
 * The parse thread's nice value. On Linux it is the calling thread's own (not the process's): on a
 * machine with few cores the parse gives way to the request thread, so other requests are answered
 * while a big upload parses.
 */
export const THREAD_NICE = 10;

/** A parse thread's whole work: answer its workerData, if it is ours. */
export function answerThreadInput(): void {
	if (!isMainThread && (workerData as ThreadInput | undefined)?.tag === THREAD_TAG) {
		const input = workerData as ThreadInput;
		try {
			if (process.platform === 'linux') setPriority(Math.max(getPriority(), THREAD_NICE));
		} catch {
			// Not allowed here: the parse runs at the process's priority.
		}
		const answer = answerOf(input);
		const back: { bytes?: Uint8Array; catalogBytes?: Uint8Array } = {};
		const moved: ArrayBuffer[] = [];
		if (input.lent && input.giveBack) {
			back.bytes = input.bytes;
			moved.push(input.bytes.buffer as ArrayBuffer);
		}
		if (input.catalogLent && input.giveBack && input.extras.catalog) {
			back.catalogBytes = input.extras.catalog.bytes;
			moved.push(input.extras.catalog.bytes.buffer as ArrayBuffer);
		}
		parentPort!.postMessage({ ...answer, ...back }, moved);
	}
}

answerThreadInput();

/** An IngestError whose message is already complete (file and field included). */
class ThreadIngestError extends IngestError {
	constructor(file: string, message: string, field: string | undefined, status: number) {
		super(file, '', field, status);
		this.message = message;
	}
}

const THREAD_ENTRY = 'manifest-thread.js';
let builtEntry: URL | null | undefined;

/**
 * The build's thread entry, searched upward from the folder of `moduleUrl` (build/worker.js sits
 * beside it; the app's chunks are a few folders below); null when there is none.
 */
export function findBuiltThreadEntry(moduleUrl: URL): URL | null {
	return findBuildEntry(moduleUrl, THREAD_ENTRY);
}

// Under vitest this module is TypeScript, which a thread cannot load by itself: it is then
// loaded through tsx (a dev dependency; the built app's module is plain JS and loads directly).
function threadOf(input: ThreadInput, entry?: URL): Worker {
	const transferList: ArrayBuffer[] = [];
	if (input.lent) transferList.push(input.bytes.buffer as ArrayBuffer);
	if (input.catalogLent) transferList.push(input.extras.catalog!.bytes.buffer as ArrayBuffer);
	if (entry) return new Worker(entry, { workerData: input, transferList });
	const self = new URL(import.meta.url);
	if (!self.pathname.endsWith('.ts')) {
		if (builtEntry === undefined) builtEntry = findBuiltThreadEntry(self);
		return new Worker(builtEntry ?? self, { workerData: input, transferList });
	}
	const load = `import('tsx/esm/api').then(({ tsImport }) => tsImport(${JSON.stringify(self.href)}, ${JSON.stringify(self.href)}))`;
	return new Worker(load, { eval: true, workerData: input, transferList });
}

/**
 * Parses `bytes` on a worker thread with parseManifest's own errors; IngestErrors keep their
 * status. `entry`: the module the thread runs (tests of the build's entry); found otherwise.
 * With `takeBack`, bytes that can be moved are lent to the thread instead of copied (TakeBack),
 * or given up with it (GIVEN_UP).
 */
export function parseManifestOffThread(
	bytes: Uint8Array,
	opts: ThreadManifestOptions,
	extras: UploadExtras,
	entry?: URL,
	takeBack?: Lend
): Promise<ParsedUpload> {
	const catalog = extras.catalog?.bytes;
	const input: ThreadInput = {
		tag: THREAD_TAG,
		bytes,
		lent: takeBack !== undefined && movable(bytes),
		giveBack: takeBack !== GIVEN_UP,
		catalogLent: takeBack !== undefined && catalog !== undefined && catalog.buffer !== bytes.buffer && movable(catalog),
		opts,
		extras
	};
	return new Promise((resolve, reject) => {
		const worker = threadOf(input, entry);
		let settled = false;
		worker.once('message', (answer: ThreadAnswer & { bytes?: Uint8Array; catalogBytes?: Uint8Array }) => {
			settled = true;
			if ((answer.bytes || answer.catalogBytes) && typeof takeBack === 'function') takeBack(answer.bytes ?? bytes, answer.catalogBytes);
			if (answer.ok) unsliced(answer.upload).then(resolve, reject);
			else if (answer.ingest) reject(new ThreadIngestError(answer.ingest.file, answer.ingest.message, answer.ingest.field, answer.ingest.status));
			else reject(new Error(answer.message));
			void worker.terminate();
		});
		worker.once('error', (e) => {
			settled = true;
			reject(e);
		});
		worker.once('exit', (code) => {
			if (!settled) reject(new Error(`the manifest parse thread exited with code ${code} before answering`));
		});
	});
}

/** parseManifest inline for small manifests, on a thread for big ones. */
export async function parseManifestBytes(bytes: Uint8Array, opts: ManifestOptions, threadBytes = manifestThreadBytes()): Promise<ParsedGraph> {
	return (await parseUploadBytes(bytes, opts, {}, threadBytes)).graph;
}

/**
 * An upload's manifest with what is read beside it (the catalog, the inference plan), inline for
 * small manifests and on a thread for big ones: on the generated 3000-model project the plan and
 * the catalog would otherwise hold the request thread as long again as the manifest's parse.
 */
export async function parseUploadBytes(
	bytes: Uint8Array,
	opts: ManifestOptions,
	extras: UploadExtras,
	threadBytes = manifestThreadBytes(),
	takeBack?: Lend
): Promise<ParsedUpload> {
	if (bytes.length + (extras.catalog?.bytes.length ?? 0) < threadBytes) return parseUploadInline(bytes, opts, extras);
	const { onParsed, onDocument: _doc, ...threadOpts } = opts;
	const upload = await parseManifestOffThread(bytes, threadOpts, extras, undefined, takeBack);
	onParsed?.();
	return upload;
}

/**
 * The inference plan alone, read where an upload of this size is parsed (on the thread when big):
 * the deploy's second look when an uploaded index proved unreadable.
 */
export async function planUploadInference(
	manifest: { name: string; bytes: Uint8Array },
	catalog: { name: string; bytes: Uint8Array } | undefined,
	threadBytes = manifestThreadBytes()
): Promise<PlannedInference | null> {
	const upload = await parseUploadBytes(manifest.bytes, { fileName: manifest.name }, { catalog: catalog ?? null, plan: true }, threadBytes, (bytes, catalogBytes) => {
		manifest.bytes = bytes;
		if (catalog && catalogBytes) catalog.bytes = catalogBytes;
	});
	return upload.inference;
}
