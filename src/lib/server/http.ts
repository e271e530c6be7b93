// The API's error convention: every failure is `{"error": "..."}` with a 4xx/5xx status.
// Routes throw ApiError (or call the helpers below); `handleApi` turns it into the response.
import { json, type RequestEvent } from '@sveltejs/kit';
import { ApiError, badRequest } from './api-error';
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from './db';

export { ApiError, badRequest, unauthorized, forbidden, notFound, conflict, gone } from './api-error';

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
	const nul = nulPath(body, '$');
	if (nul !== null) throw badRequest(`${nul}: contains a NUL character (\\u0000), which cannot be stored`);
	return body as Record<string, unknown>;
}

/**
 * Where a NUL character sits in a parsed JSON value (a key or a string), as a JSON path; null
 * when there is none. Postgres text and jsonb refuse U+0000, so it is a 400 here rather than a
 * failed insert later. Iterative: a body may nest deeper than the call stack.
 */
export function nulPath(root: unknown, at: string): string | null {
	// Each entry: the value, its parent entry, and its step from there; the path is spelled only on a hit.
	type Entry = { v: unknown; parent: Entry | null; step: string };
	const spell = (e: Entry | null): string => {
		const steps: string[] = [];
		for (let x = e; x; x = x.parent) steps.push(x.step);
		return at + steps.reverse().join('');
	};
	const stack: Entry[] = [{ v: root, parent: null, step: '' }];
	while (stack.length > 0) {
		const e = stack.pop()!;
		const v = e.v;
		if (typeof v === 'string') {
			if (v.includes('\u0000')) return spell(e);
		} else if (Array.isArray(v)) {
			for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], parent: e, step: `[${i}]` });
		} else if (v && typeof v === 'object') {
			for (const [k, x] of Object.entries(v)) {
				const child = { v: x, parent: e, step: `.${k.replaceAll('\u0000', '\\u0000')}` };
				if (k.includes('\u0000')) return spell(child);
				stack.push(child);
			}
		}
	}
	return null;
}

/** JSON with bigint values written as strings (hashes are 64-bit). */
export function jsonSafe(data: unknown, init?: ResponseInit): Response {
	const body = JSON.stringify(data, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
	return new Response(body, {
		...init,
		headers: { 'content-type': 'application/json', ...(init?.headers ?? {}) }
	});
}
