// Calls the app's real route handlers in-process, through the real `handle` hook, against the
// database the test opened (setDatabase). No HTTP server: fast enough to run the gate matrix on
// both databases. The browser tests (tests/e2e) cover the real HTTP server.
import { expect } from 'vitest';
import type { Cookies, Handle, RequestEvent } from '@sveltejs/kit';
import { handle } from '../../src/hooks.server';

type Handler = (event: RequestEvent) => Response | Promise<Response>;
type RouteModule = Partial<Record<string, Handler>>;

const modules = import.meta.glob<RouteModule>('/src/routes/**/+server.ts');
const matchers = import.meta.glob<(p: string) => boolean>('/src/params/*.ts', { eager: true, import: 'match' });

/** `[name]` or `[name=matcher]` → the parameter name and whether the value fits. */
function param(seg: string, value: string): { name: string; ok: boolean } {
	const [name, matcher] = seg.slice(1, -1).split('=');
	if (!matcher) return { name, ok: true };
	const m = matchers[`/src/params/${matcher}.ts`];
	return { name, ok: !!m && m(value) };
}

interface Route {
	file: string;
	id: string;
	segments: string[];
	score: number[];
}

const routes: Route[] = Object.keys(modules)
	.map((file) => {
		const id = file.replace(/^\/src\/routes/, '').replace(/\/\+server\.ts$/, '') || '/';
		const segments = id
			.split('/')
			.filter((s) => s && !(s.startsWith('(') && s.endsWith(')')));
		// Static segments outrank parameters, which outrank rest parameters (SvelteKit's order).
		const score = segments.map((s) => (s.startsWith('[...') ? 2 : s.startsWith('[') ? 1 : 0));
		return { file, id, segments, score };
	})
	.sort((a, b) => {
		for (let i = 0; i < Math.max(a.score.length, b.score.length); i++) {
			const d = (a.score[i] ?? -1) - (b.score[i] ?? -1);
			if (d !== 0) return d;
		}
		return 0;
	});

function match(pathname: string): { route: Route; params: Record<string, string> } | null {
	const parts = pathname.split('/').filter(Boolean).map(decodeURIComponent);
	for (const route of routes) {
		const params: Record<string, string> = {};
		let ok = true;
		let i = 0;
		for (const seg of route.segments) {
			if (seg.startsWith('[...')) {
				params[seg.slice(4, -1)] = parts.slice(i).join('/');
				i = parts.length;
				break;
			}
			if (i >= parts.length) {
				ok = false;
				break;
			}
			if (seg.startsWith('[')) {
				const p = param(seg, parts[i]);
				if (!p.ok) {
					ok = false;
					break;
				}
				params[p.name] = parts[i];
			} else if (seg !== parts[i]) {
				ok = false;
				break;
			}
			i++;
		}
		if (ok && i === parts.length) return { route, params };
	}
	return null;
}

class Jar {
	values = new Map<string, string>();
	header(): string {
		return [...this.values].map(([k, v]) => `${k}=${v}`).join('; ');
	}
}

function cookiesFor(jar: Jar, request: Request): { cookies: Cookies; setCookies: string[] } {
	const incoming = new Map<string, string>();
	for (const part of (request.headers.get('cookie') ?? '').split(';')) {
		const [k, ...v] = part.trim().split('=');
		if (k) incoming.set(k, v.join('='));
	}
	const setCookies: string[] = [];
	const cookies = {
		get: (name: string) => incoming.get(name),
		getAll: () => [...incoming].map(([name, value]) => ({ name, value })),
		set: (name: string, value: string, opts: { expires?: Date; maxAge?: number; httpOnly?: boolean }) => {
			const expired = (opts.expires && opts.expires.getTime() <= Date.now()) || opts.maxAge === 0;
			if (expired || value === '') jar.values.delete(name);
			else jar.values.set(name, value);
			setCookies.push(`${name}=${value}${opts.httpOnly ? '; HttpOnly' : ''}`);
		},
		delete: (name: string) => {
			jar.values.delete(name);
			setCookies.push(`${name}=; Max-Age=0`);
		},
		serialize: (name: string, value: string) => `${name}=${value}`
	} as unknown as Cookies;
	return { cookies, setCookies };
}

export interface CallOptions {
	body?: unknown;
	form?: FormData;
	headers?: Record<string, string>;
	/** Raw body with its content type. */
	raw?: { body: BodyInit; contentType: string };
}

export interface ApiResponse<T = any> {
	status: number;
	body: T;
	headers: Headers;
	setCookies: string[];
}

/** A client with its own cookie jar (one signed-in browser, say). */
export class ApiClient {
	jar = new Jar();
	/** What `event.getClientAddress()` answers for this client's requests. */
	clientAddress = '127.0.0.1';
	constructor(readonly defaults: Record<string, string> = {}) {}

	withBearer(token: string): ApiClient {
		return new ApiClient({ ...this.defaults, authorization: `Bearer ${token}` });
	}

	async call<T = any>(method: string, path: string, opts: CallOptions = {}): Promise<ApiResponse<T>> {
		const url = new URL(path, 'http://localhost');
		const headers = new Headers({ ...this.defaults, ...(opts.headers ?? {}) });
		if (this.jar.values.size) headers.set('cookie', this.jar.header());
		let body: BodyInit | undefined;
		if (opts.form) body = opts.form;
		else if (opts.raw) {
			body = opts.raw.body;
			headers.set('content-type', opts.raw.contentType);
		} else if (opts.body !== undefined) {
			body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
			headers.set('content-type', 'application/json');
		}
		const request = new Request(url, { method, headers, body, duplex: 'half' } as RequestInit);
		const found = match(url.pathname);
		const { cookies, setCookies } = cookiesFor(this.jar, request);
		const event = {
			request,
			url,
			params: found?.params ?? {},
			route: { id: found?.route.id ?? null },
			locals: {},
			cookies,
			platform: undefined,
			isDataRequest: false,
			isSubRequest: false,
			getClientAddress: () => this.clientAddress,
			setHeaders: () => {},
			fetch
		} as unknown as RequestEvent;
		const resolve: Parameters<Handle>[0]['resolve'] = async (ev) => {
			if (!found) return new Response(JSON.stringify({ error: 'no such route' }), { status: 404 });
			const mod = await modules[found.route.file]();
			const h = mod[method];
			if (!h) return new Response(JSON.stringify({ error: 'method not allowed' }), { status: 405 });
			return h(ev as RequestEvent);
		};
		const res = await handle({ event, resolve });
		const text = await res.text();
		let parsed: unknown = text;
		try {
			parsed = text ? JSON.parse(text) : null;
		} catch {
			/* not JSON: keep the text */
		}
		return { status: res.status, body: parsed as T, headers: res.headers, setCookies };
	}

	get<T = any>(path: string, opts?: CallOptions) {
		return this.call<T>('GET', path, opts);
	}
	post<T = any>(path: string, body?: unknown, opts: CallOptions = {}) {
		return this.call<T>('POST', path, { ...opts, body });
	}
}

/**
 * Names the instance admin that `bootstrap` creates on an empty database
 * (TRIBUTARY_ADMIN_USER/PASSWORD); returns what puts the previous values back.
 */
export function useInstanceAdmin(admin: { username: string; password: string }): () => void {
	const saved = { TRIBUTARY_ADMIN_USER: process.env.TRIBUTARY_ADMIN_USER, TRIBUTARY_ADMIN_PASSWORD: process.env.TRIBUTARY_ADMIN_PASSWORD };
	process.env.TRIBUTARY_ADMIN_USER = admin.username;
	process.env.TRIBUTARY_ADMIN_PASSWORD = admin.password;
	return () => {
		for (const [name, value] of Object.entries(saved)) {
			if (value === undefined) delete process.env[name];
			else process.env[name] = value;
		}
	};
}

/** Signs in through POST /api/auth/login (the test worlds' passwords are `<name>-password-1`). */
export async function login(username: string, password = `${username}-password-1`): Promise<ApiClient> {
	const c = new ApiClient();
	const r = await c.post('/api/auth/login', { username, password });
	expect(r.status, JSON.stringify(r.body)).toBe(200);
	return c;
}
