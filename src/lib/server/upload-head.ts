// The head of an upload: the path it writes, known before its files are read, so the write gate
// refuses a caller before a gigabyte arrives. The path comes from the
// query (`?path=`) or from the multipart's text fields before its first file part (the CLI and
// the curl in docs/deploying.md send it first); the rest of the body stays unread until the gate passed.
import { badRequest } from './http';

/** Text fields before the first file may take this much of the body, no more. */
export const MAX_HEAD_BYTES = 1 << 20;

export interface UploadHead {
	/** `?path=`, else the `path` field before the first file part; null when neither. */
	path: string | null;
	/** The text fields read before the first file part (or the end of the body). */
	fields: Map<string, string>;
	/** The same request, its body whole again (what was read, then the rest): for formData(). */
	request: Request;
}

const CRLF = Buffer.from('\r\n');
const HEADERS_END = Buffer.from('\r\n\r\n');

function boundaryOf(contentType: string): string | null {
	const m = /;\s*boundary=(?:"([^"]+)"|([^\s;]+))/i.exec(contentType);
	return m ? (m[1] ?? m[2]) : null;
}

type Parsed = { done: boolean; fields: Map<string, string> };

/**
 * The text fields at the start of `buf`, a multipart body's first bytes: done when a file part
 * (a part with a filename) or the closing delimiter was reached, so no later field can come.
 */
export function leadingFields(buf: Buffer, boundary: string): Parsed {
	const fields = new Map<string, string>();
	const delimiter = Buffer.from(`--${boundary}`);
	let at = buf.indexOf(delimiter);
	if (at < 0) return { done: false, fields };
	for (;;) {
		at += delimiter.length;
		if (buf.length < at + 2) return { done: false, fields };
		if (buf[at] === 0x2d && buf[at + 1] === 0x2d) return { done: true, fields };
		const headersEnd = buf.indexOf(HEADERS_END, at);
		if (headersEnd < 0) return { done: false, fields };
		const headers = buf.subarray(at, headersEnd).toString('utf8');
		const disposition = /^content-disposition:(.*)$/im.exec(headers)?.[1] ?? '';
		if (/;\s*filename\*?=/i.test(disposition)) return { done: true, fields };
		const name = /;\s*name="([^"]*)"/i.exec(disposition)?.[1] ?? /;\s*name=([^\s;]+)/i.exec(disposition)?.[1];
		const valueStart = headersEnd + HEADERS_END.length;
		const next = buf.indexOf(Buffer.concat([CRLF, delimiter]), valueStart);
		if (next < 0) return { done: false, fields };
		if (name !== undefined && !fields.has(name)) fields.set(name, buf.subarray(valueStart, next).toString('utf8'));
		at = next + CRLF.length;
	}
}

/** Reads no more of `request`'s body than its leading text fields (at most MAX_HEAD_BYTES). */
export async function readUploadHead(request: Request, url: URL, what: string): Promise<UploadHead> {
	const type = request.headers.get('content-type') ?? '';
	const boundary = type.startsWith('multipart/form-data') ? boundaryOf(type) : null;
	if (!boundary || !request.body) {
		throw badRequest(`the request must be multipart/form-data with ${what} and a \`path\` field`);
	}
	const reader = request.body.getReader();
	const chunks: Uint8Array[] = [];
	let size = 0;
	let parsed: Parsed = { done: false, fields: new Map() };
	let ended = false;
	while (!parsed.done && size <= MAX_HEAD_BYTES) {
		const { value, done } = await reader.read();
		if (done) {
			ended = true;
			break;
		}
		chunks.push(value);
		size += value.length;
		parsed = leadingFields(Buffer.concat(chunks), boundary);
	}
	if (chunks.length > 1) chunks.splice(0, chunks.length, Buffer.concat(chunks));
	const replay = new ReadableStream<Uint8Array>({
		pull: async (controller) => {
			const held = chunks.shift();
			if (held) return controller.enqueue(held);
			if (ended) return controller.close();
			const { value, done } = await reader.read();
			if (done) controller.close();
			else controller.enqueue(value);
		},
		cancel: (reason) => reader.cancel(reason)
	});
	const fromQuery = url.searchParams.get('path');
	return {
		path: fromQuery ?? parsed.fields.get('path') ?? null,
		fields: parsed.fields,
		request: new Request(request.url, { method: request.method, headers: request.headers, body: replay, duplex: 'half' } as RequestInit)
	};
}

/**
 * The path an upload writes, before its files: `?path=`, else the first fields. A form whose
 * `path` comes after a file is refused, since answering it would mean reading every file first.
 */
export function requireHeadPath(head: UploadHead): string {
	if (head.path === null) {
		throw badRequest('path: send it in the query (?path=…) or as a form field before the first file');
	}
	const inForm = head.fields.get('path');
	if (inForm !== undefined && inForm !== head.path) throw badRequest(`path: the query names ${head.path} but the form names ${inForm}`);
	return head.path;
}

/**
 * Runs the route's gate on the head's path. A refusal leaves the rest of the body unread, not
 * cancelled: adapter-node answers a cancelled body by destroying the socket, and the refusal
 * would never reach the caller.
 */
export function gateUpload(head: UploadHead, gate: (path: string) => void): string {
	const path = requireHeadPath(head);
	gate(path);
	return path;
}
