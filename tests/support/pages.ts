// Runs a page's load or form action as one client (its cookie or bearer token), authenticated
// the way the hook does it, for tests comparing what a page serves with what the API answers.
import { isActionFailure, isHttpError, isRedirect, type Cookies, type RequestEvent } from '@sveltejs/kit';
import { authenticate } from '../../src/lib/server/auth/authenticate';
import type { ApiClient } from './api';

/** A page event for `url` carrying the client's credentials; `params` as the route names them. */
export async function pageEventOf(
	client: ApiClient,
	url: string,
	params: Record<string, string>,
	form?: Record<string, string | string[]>,
	opts: { setCookies?: boolean } = {}
): Promise<RequestEvent> {
	const u = new URL(url, 'http://localhost');
	const headers = new Headers(client.defaults);
	const cookie = client.jar.header();
	if (cookie) headers.set('cookie', cookie);
	let body: FormData | undefined;
	if (form) {
		body = new FormData();
		for (const [k, v] of Object.entries(form)) for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
	}
	// With setCookies, what the action sets lands in the client's jar (a sign-in's new session, say).
	const cookies = {
		get: (n: string) => client.jar.values.get(n),
		set: (n: string, v: string, o: { maxAge?: number }) => {
			if (!opts.setCookies) return;
			if (v === '' || o?.maxAge === 0) client.jar.values.delete(n);
			else client.jar.values.set(n, v);
		},
		delete: () => {}
	} as unknown as Cookies;
	const event = {
		url: u,
		request: new Request(u, body ? { method: 'POST', body, headers } : { headers }),
		cookies,
		params,
		locals: {} as App.Locals,
		depends: () => {},
		parent: async () => ({}),
		setHeaders: () => {},
		getClientAddress: () => client.clientAddress
	} as unknown as RequestEvent;
	event.locals.auth = await authenticate(event);
	return event;
}

/** What a load or action came to: its data (status 200), a failure's status and data, a redirect or an error. */
export async function pageOutcome(p: unknown): Promise<{ status: number; data?: any; redirect?: string }> {
	try {
		const r = await p;
		if (isActionFailure(r)) return { status: r.status, data: r.data };
		return { status: 200, data: r };
	} catch (e) {
		if (isRedirect(e)) return { status: e.status, redirect: e.location };
		if (isHttpError(e)) return { status: e.status, data: e.body };
		throw e;
	}
}
