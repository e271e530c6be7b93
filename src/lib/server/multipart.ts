// A multipart upload read as it streams, each part counted against its own limit: a file over
// its limit is refused (413 naming it and the limit) the moment it crosses it, and the rest of
// the body is never read. request.formData() would hold the whole body first, so even a refused
// catalog would cost the server its whole size in memory and its thread's time.
import Busboy from '@fastify/busboy';
import { ApiError, badRequest } from './api-error';
import { fileTooLarge } from './limits';

export interface FilePartSpec {
	/** The name it is stored and reported under when the part names none (manifest.json). */
	name: string;
	/** The kind of file in messages ("manifest", "catalog"). */
	what: string;
	limit: { bytes: number; env: string };
}

export interface MultipartSpec {
	/** Fields whose value is a file (a text value, as `curl -F manifest=<file` sends, is one too). */
	files: Record<string, FilePartSpec>;
	/** Text fields (a file part is read as its text), each up to TEXT_FIELD_BYTES. */
	fields: readonly string[];
	/** What the form carries, for the message when it is not multipart: "a `manifest` file". */
	what: string;
}

export interface MultipartBody {
	fields: Map<string, string>;
	files: Map<string, { name: string; bytes: Uint8Array }>;
}

/** A text field (path, descriptor, pin) may be this long; its own parser says more when it is less. */
export const TEXT_FIELD_BYTES = 1 << 20;
/** A part the form does not know is read and dropped, up to this much. */
const UNKNOWN_PART_BYTES = 64 * 1024;
const MAX_PARTS = 64;

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** Every part's limit added up, and room for the parts' headers: a declared Content-Length over it is refused unread. */
export function bodyLimit(spec: MultipartSpec): number {
	let total = spec.fields.length * TEXT_FIELD_BYTES + 64 * 1024;
	for (const f of Object.values(spec.files)) total += f.limit.bytes;
	return total;
}

/**
 * The form's fields and files. Throws a 413 (an IngestError naming the file and its limit) as
 * soon as a part crosses its limit, or before reading when the declared Content-Length is over
 * all the limits together; 400 for a body that is not multipart or breaks off. On a refusal the
 * rest of the body is left unread, not cancelled: adapter-node answers a cancelled body by
 * destroying the socket, and the refusal would never reach the caller.
 */
export async function readMultipart(request: Request, spec: MultipartSpec): Promise<MultipartBody> {
	const type = request.headers.get('content-type') ?? '';
	if (!type.startsWith('multipart/form-data') || !request.body) throw badRequest(`the request must be multipart/form-data with ${spec.what}`);
	const declared = Number(request.headers.get('content-length') ?? NaN);
	const limit = bodyLimit(spec);
	if (Number.isFinite(declared) && declared > limit) {
		const each = Object.values(spec.files)
			.map((f) => `${f.name} ${mb(f.limit.bytes)}`)
			.join(', ');
		throw new ApiError(413, `the request body: ${mb(declared)} (Content-Length) is over the ${mb(limit)} its files may weigh together (${each})`);
	}

	let busboy: ReturnType<typeof Busboy>;
	try {
		// Every part is read as a stream and counted here, text fields too.
		busboy = Busboy({ headers: { 'content-type': type }, isPartAFile: () => true, limits: { parts: MAX_PARTS, headerPairs: 100 } });
	} catch (e) {
		throw badRequest(`the multipart body could not be read (${(e as Error).message})`);
	}
	const body: MultipartBody = { fields: new Map(), files: new Map() };
	let failure: Error | null = null;
	const fail = (e: Error) => (failure ??= e);
	const parts: Promise<void>[] = [];
	const seen = new Set<string>();

	busboy.on('file', (field: string, stream: NodeJS.ReadableStream, filename: string | undefined) => {
		const file = spec.files[field];
		const isText = !file && spec.fields.includes(field);
		if (seen.has(field) && (file || isText)) fail(badRequest(`${field}: sent twice; send each field once`));
		seen.add(field);
		const max = file ? file.limit.bytes : isText ? TEXT_FIELD_BYTES : UNKNOWN_PART_BYTES;
		const kept = new Growing();
		let size = 0;
		parts.push(
			new Promise<void>((resolve) => {
				stream.on('data', (chunk: Buffer) => {
					if (failure) return;
					size += chunk.length;
					if (size > max) {
						if (file) fail(fileTooLarge(filename || file.name, file.what, null, file.limit));
						else fail(new ApiError(413, `${field}: over the limit of ${isText ? mb(max) : `${max / 1024} KB`} for ${isText ? 'a text field' : 'a field this upload does not read'}`));
						return;
					}
					if (file || isText) kept.push(chunk);
				});
				stream.on('error', (e: Error) => {
					fail(badRequest(`${field}: the multipart body broke off (${e.message})`));
					resolve();
				});
				stream.on('end', () => {
					if (failure || (!file && !isText)) return resolve();
					kept.bytes().then((bytes) => {
						if (file) body.files.set(field, { name: filename && filename !== 'blob' ? filename : file.name, bytes });
						else body.fields.set(field, Buffer.from(bytes).toString('utf8'));
						resolve();
					}, resolve);
				});
			})
		);
	});
	busboy.on('partsLimit', () => fail(new ApiError(413, `the form has more than ${MAX_PARTS} parts`)));
	const finished = new Promise<void>((resolve) => {
		busboy.on('finish', resolve);
		busboy.on('error', (e: Error) => {
			fail(badRequest(`the multipart body could not be read (${e.message})`));
			resolve();
		});
	});

	const reader = request.body.getReader();
	let ended = false;
	while (!failure) {
		const { value, done } = await reader.read();
		if (done) {
			ended = true;
			busboy.end();
			break;
		}
		await new Promise<void>((resolve) => busboy.write(value, () => resolve()));
	}
	if (ended) {
		await finished;
		await Promise.all(parts);
	}
	if (failure) {
		reader.releaseLock();
		throw failure;
	}
	return body;
}

/** Bytes of the blocks a part is kept in: the first, and the most once it is past its first few. */
const FIRST_BLOCK_BYTES = 64 * 1024;
const BLOCK_BYTES = 8 << 20;

/**
 * A part's bytes, copied out of each chunk as it arrives into blocks that grow to a bounded size,
 * then into one buffer of the exact size at the end, a block per turn of the event loop. Holding
 * the socket's small chunks until the part ended kept thousands of small allocations alive at
 * once, and the allocator kept their memory after the upload; a buffer that doubled as it filled
 * copied everything again at each doubling, the last copy and the final trim each one long
 * stretch of the request thread that every other request waited for.
 */
class Growing {
	private readonly blocks: Uint8Array[] = [];
	private block = new Uint8Array(FIRST_BLOCK_BYTES);
	private used = 0;
	private length = 0;

	push(chunk: Uint8Array): void {
		let at = 0;
		while (at < chunk.length) {
			if (this.used === this.block.length) {
				this.blocks.push(this.block);
				// Each block as big as all before it (at least the first's size), up to BLOCK_BYTES.
				this.block = new Uint8Array(Math.min(BLOCK_BYTES, Math.max(FIRST_BLOCK_BYTES, this.length + at)));
				this.used = 0;
			}
			const n = Math.min(chunk.length - at, this.block.length - this.used);
			this.block.set(chunk.subarray(at, at + n), this.used);
			this.used += n;
			at += n;
		}
		this.length += chunk.length;
	}

	/** The bytes, over an ArrayBuffer of their own (so they can be moved to a parse thread, not copied). */
	async bytes(): Promise<Uint8Array> {
		const blocks = [...this.blocks, this.block.subarray(0, this.used)];
		this.blocks.length = 0;
		this.block = new Uint8Array(0);
		if (blocks.length === 1) return blocks[0].slice();
		const out = new Uint8Array(this.length);
		let at = 0;
		for (const b of blocks) {
			out.set(b, at);
			at += b.length;
			if (b.length >= BLOCK_BYTES) await new Promise<void>((resolve) => setImmediate(resolve));
		}
		return out;
	}
}
