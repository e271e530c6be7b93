// The API's error convention: every failure is `{"error": "..."}` with a 4xx/5xx status.
// Routes throw ApiError (or call the helpers below); `handleApi` turns it into the response.
import { json, type RequestEvent } from '@sveltejs/kit';
import { ApiError, badRequest } from './api-error';
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from './db';

export { ApiError, badRequest, unauthorized, forbidden, notFound, gone } from './api-error';

export function errorResponse(status: number, message: string, headers?: Record<string, string>): Response {
	return json({ error: message }, { status, headers });
}

/** Wraps a route handler so that ApiError (and body-parsing failures) become JSON errors. */
export function handleApi<E extends RequestEvent>(fn: (event: E) => Promise<Response>) {
	return async (event: E): Promise<Response> => {
		try {
			return await fn(event);
		} catch (e) {
			if (e instanceof ApiError) return errorResponse(e.status, e.message, e.headers);
			if (isDatabaseUnavailable(e)) return errorResponse(503, DATABASE_UNAVAILABLE_MESSAGE, { 'retry-after': '1' });
			throw e;
		}
	};
}

/** Reads a JSON object body; anything else is a 400 naming the problem. */
export async function readJsonObject(request: Request): Promise<Record<string, unknown>> {
	let body: unknown;
	try {
		body = await request.json();
	} catch {
		throw badRequest('the request body must be a JSON object');
	}
	if (!body || typeof body !== 'object' || Array.isArray(body)) {
		throw badRequest('the request body must be a JSON object');
	}
	return body as Record<string, unknown>;
}

/** JSON with bigint values written as strings (hashes are 64-bit). */
export function jsonSafe(data: unknown, init?: ResponseInit): Response {
	const body = JSON.stringify(data, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
	return new Response(body, {
		...init,
		headers: { 'content-type': 'application/json', ...(init?.headers ?? {}) }
	});
}
