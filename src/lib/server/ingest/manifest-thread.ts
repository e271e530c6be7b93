// Big manifests are parsed on a worker thread: JSON.parse and the node walk of a manifest of
// tens of MB hold a thread for seconds, and on the request thread that stalls every other
// request (issue 14, finding 8). Small ones stay inline, where a thread's start-up would cost
// more than the parse. The thread runs this same module: loaded with the tag in its
// workerData, its top level parses and posts the graph back (structured clone; the bench
// `ingest` records what a deploy pays for it).
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { IngestError } from './errors';
import { parseManifest, type ManifestOptions, type ParsedGraph } from './manifest';

const THREAD_TAG = 'tributary-manifest-parse';

/** Options a thread can receive (no callbacks). */
export type ThreadManifestOptions = Omit<ManifestOptions, 'onParsed'>;

type ThreadAnswer = { ok: true; graph: ParsedGraph } | { ok: false; ingest: { file: string; message: string; field?: string; status: number } | null; message: string };

interface ThreadInput {
	tag: typeof THREAD_TAG;
	bytes: Uint8Array;
	opts: ThreadManifestOptions;
}

/** Manifests at or above this many bytes are parsed off the request thread. */
export function manifestThreadBytes(env: NodeJS.ProcessEnv = process.env): number {
	const mb = Number(env.TRIBUTARY_MANIFEST_THREAD_MB);
	return (Number.isFinite(mb) && mb >= 0 && env.TRIBUTARY_MANIFEST_THREAD_MB !== '' ? mb : 8) * 1024 * 1024;
}

/** UTF-8 text of an uploaded dbt JSON file, or an IngestError naming it. */
export function decodeUtf8Bytes(bytes: Uint8Array, fileName: string): string {
	try {
		return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
	} catch {
		throw new IngestError(fileName, 'is not UTF-8 text (expected dbt JSON)');
	}
}

const fileNameOf = (opts: ManifestOptions) => opts.fileName ?? 'manifest.json';

function answerOf(input: ThreadInput): ThreadAnswer {
	try {
		return { ok: true, graph: parseManifest(decodeUtf8Bytes(input.bytes, fileNameOf(input.opts)), input.opts) };
	} catch (e) {
		if (e instanceof IngestError) {
			// The message is already "<file> (<field>): <problem>"; keep it whole.
			return { ok: false, ingest: { file: e.file, message: e.message, field: e.field, status: e.status }, message: e.message };
		}
		return { ok: false, ingest: null, message: e instanceof Error ? e.message : String(e) };
	}
}

if (!isMainThread && (workerData as ThreadInput | undefined)?.tag === THREAD_TAG) {
	parentPort!.postMessage(answerOf(workerData as ThreadInput));
}

/** An IngestError whose message is already complete (file and field included). */
class ThreadIngestError extends IngestError {
	constructor(file: string, message: string, field: string | undefined, status: number) {
		super(file, '', field, status);
		this.message = message;
	}
}

// Under vitest this module is TypeScript, which a thread cannot load by itself: it is then
// loaded through tsx (a dev dependency; the built app's module is plain JS and loads directly).
function threadOf(input: ThreadInput): Worker {
	const self = new URL(import.meta.url);
	if (!self.pathname.endsWith('.ts')) return new Worker(self, { workerData: input });
	const load = `import('tsx/esm/api').then(({ tsImport }) => tsImport(${JSON.stringify(self.href)}, ${JSON.stringify(self.href)}))`;
	return new Worker(load, { eval: true, workerData: input });
}

/** Parses `bytes` on a worker thread with parseManifest's own errors; IngestErrors keep their status. */
function parseManifestOffThread(bytes: Uint8Array, opts: ThreadManifestOptions): Promise<ParsedGraph> {
	const input: ThreadInput = { tag: THREAD_TAG, bytes, opts };
	return new Promise((resolve, reject) => {
		const worker = threadOf(input);
		let settled = false;
		worker.once('message', (answer: ThreadAnswer) => {
			settled = true;
			if (answer.ok) resolve(answer.graph);
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
	if (bytes.length < threadBytes) return parseManifest(decodeUtf8Bytes(bytes, fileNameOf(opts)), opts);
	const { onParsed, ...threadOpts } = opts;
	const graph = await parseManifestOffThread(bytes, threadOpts);
	onParsed?.();
	return graph;
}
