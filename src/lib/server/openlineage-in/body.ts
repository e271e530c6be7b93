// The body of a POST to the OpenLineage receiver as the standard HTTP transport sends it: JSON,
// gzip when the client compresses. Bounded before anything is parsed: the bytes received, then
// the bytes a gzip body decompresses to (a gzip bomb stops at the bound), both 413.
import { gunzipSync } from 'node:zlib';
import { ApiError, badRequest } from '../api-error';
import { openLineageLimits, openLineageTooLarge } from '../limits';

async function readBounded(request: Request, limit: number): Promise<Uint8Array> {
	const declared = request.headers.get('content-length');
	if (declared !== null && Number(declared) > limit) throw openLineageTooLarge('the request body', Number(declared), limit);
	if (!request.body) return new Uint8Array(0);
	const reader = request.body.getReader();
	const parts: Uint8Array[] = [];
	let size = 0;
	for (;;) {
		const { done, value } = await reader.read();
		if (done) break;
		size += value.byteLength;
		if (size > limit) {
			await reader.cancel().catch(() => {});
			throw openLineageTooLarge('the request body', null, limit);
		}
		parts.push(value);
	}
	return parts.length === 1 ? parts[0] : Buffer.concat(parts);
}

/** The event's JSON text: 415 for another content type or encoding, 413 over the bounds, 400 for broken gzip or UTF-8. */
export async function readEventText(request: Request): Promise<string> {
	const type = (request.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
	if (type !== 'application/json') {
		throw new ApiError(415, `Content-Type must be application/json (an OpenLineage event), not ${type === '' ? 'none' : JSON.stringify(type.slice(0, 60))}`);
	}
	const encoding = (request.headers.get('content-encoding') ?? 'identity').trim().toLowerCase();
	if (!['identity', 'gzip', 'x-gzip'].includes(encoding)) {
		throw new ApiError(415, `Content-Encoding ${JSON.stringify(encoding.slice(0, 40))} is not accepted: send the body as it is, or gzip`);
	}
	const { bytes: limit } = openLineageLimits();
	let body = await readBounded(request, limit);
	if (encoding !== 'identity') {
		try {
			body = gunzipSync(body, { maxOutputLength: limit });
		} catch (e) {
			if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError) throw openLineageTooLarge('the decompressed body', null, limit);
			throw badRequest(`the body is not valid gzip: ${(e as Error).message}`);
		}
	}
	try {
		return new TextDecoder('utf-8', { fatal: true }).decode(body);
	} catch {
		throw badRequest('the body is not UTF-8 text');
	}
}
