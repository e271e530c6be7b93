import { sql } from 'drizzle-orm';
import { isActionFailure, isHttpError, isRedirect, type Cookies } from '@sveltejs/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../src/lib/server/auth/authenticate';
import { hashPassword, verifyPassword } from '../../src/lib/server/auth/password';
import {
	hashToken,
	SESSION_COOKIE,
	setSessionCookie,
	deleteSessionCookie
} from '../../src/lib/server/auth/session';
import { bootstrap, workspaceSecret } from '../../src/lib/server/bootstrap';
import { setDatabase, type Database } from '../../src/lib/server/db';
import { setSessionExpiry } from '../../src/lib/server/repo/accounts';
import { actions as loginActions, load as loginLoad } from '../../src/routes/login/+page.server';
import { load as homeLoad } from '../../src/routes/+page.server';
import { load as workspaceLayoutLoad } from '../../src/routes/w/[ws]/+layout.server';
import { ApiClient } from '../support/api';
import { testBackends } from '../support/db';

const DAY = 24 * 60 * 60 * 1000;
const GENERIC = 'invalid username or password';

function withEnv(vars: Record<string, string | undefined>): () => void {
	const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
	for (const [k, v] of Object.entries(vars)) {
		if (v === undefined) delete process.env[k];
		else process.env[k] = v;
	}
	return () => {
		for (const [k, v] of Object.entries(saved)) {
			if (v === undefined) delete process.env[k];
			else process.env[k] = v;
		}
	};
}

describe('password hashing', () => {
	it('verifies the right password only, with a fresh salt each time', async () => {
		const a = await hashPassword('correct horse');
		const b = await hashPassword('correct horse');
		expect(a).not.toBe(b);
		expect(a.startsWith('scrypt$')).toBe(true);
		expect(await verifyPassword('correct horse', a)).toBe(true);
		expect(await verifyPassword('correct horsf', a)).toBe(false);
		expect(await verifyPassword('correct horse', 'garbage')).toBe(false);
		expect(await verifyPassword('correct horse', 'scrypt$1$1$1$$')).toBe(false);
	});
});

describe('session cookie attributes', () => {
	function capture(url: string) {
		const calls: { name: string; value: string; opts: Record<string, unknown> }[] = [];
		const cookies = { set: (name: string, value: string, opts: Record<string, unknown>) => calls.push({ name, value, opts }) };
		return { event: { cookies: cookies as unknown as Cookies, url: new URL(url) }, calls };
	}
	it('is httpOnly, SameSite=Lax, path /, and secure only over https', () => {
		const exp = new Date(Date.now() + DAY);
		const http = capture('http://tributary.internal/login');
		setSessionCookie(http.event, 'tok', exp);
		expect(http.calls[0]).toEqual({
			name: SESSION_COOKIE,
			value: 'tok',
			opts: { httpOnly: true, sameSite: 'lax', path: '/', expires: exp, secure: false }
		});
		// adapter-node builds an https URL when nothing is configured, yet it only speaks http.
		const unconfigured = capture('https://tributary.internal/login');
		setSessionCookie(unconfigured.event, 'tok', exp);
		expect(unconfigured.calls[0].opts.secure).toBe(false);
	});

	it.each([
		{ name: 'ORIGIN', env: { ORIGIN: 'https://tributary.example.com', PROTOCOL_HEADER: undefined } },
		{ name: 'a trusted PROTOCOL_HEADER', env: { ORIGIN: undefined, PROTOCOL_HEADER: 'x-forwarded-proto' } }
	])('is secure when $name says the public origin is https', ({ env }) => {
		const restore = withEnv(env);
		try {
			const exp = new Date(Date.now() + DAY);
			const https = capture('https://tributary.example.com/login');
			setSessionCookie(https.event, 'tok', exp);
			expect(https.calls[0].opts.secure).toBe(true);
			deleteSessionCookie(https.event);
			expect(https.calls[1]).toMatchObject({ name: SESSION_COOKIE, value: '', opts: { maxAge: 0, secure: true } });
		} finally {
			restore();
		}
	});
});

describe.each(testBackends())('auth API on $name', (backend) => {
	let database: Database;
	let restoreEnv: () => void;

	beforeAll(async () => {
		database = await backend.open();
		setDatabase(database);
		restoreEnv = withEnv({ TRIBUTARY_ADMIN_USER: undefined, TRIBUTARY_ADMIN_PASSWORD: undefined, TRIBUTARY_SECRET: undefined });
	});
	afterAll(async () => {
		restoreEnv?.();
		await database?.close();
	});

	const sessionRows = async () =>
		database.rows<{ id: string; account_id: string; expires_at: string }>(sql`select id, account_id, expires_at::text from session`);

	async function signedIn(username: string, password: string): Promise<ApiClient> {
		const c = new ApiClient();
		const r = await c.post('/api/auth/login', { username, password });
		expect(r.status).toBe(200);
		return c;
	}

	describe('bootstrap', () => {
		it('creates `admin` with a random password printed once when no admin is configured', async () => {
			const lines: string[] = [];
			const r = await bootstrap(database, { log: (l) => lines.push(l) });
			expect(r.adminCreated).toBe(true);
			expect(r.generatedPassword).toMatch(/^\S{16,}$/);
			expect(lines).toEqual([`Created instance admin 'admin' with password: ${r.generatedPassword}`]);
			const c = await signedIn('admin', r.generatedPassword!);
			expect((await c.get('/api/whoami')).body).toMatchObject({ username: 'admin', instance_admin: true });
			// Idempotent: a second start creates nothing and prints nothing.
			const again: string[] = [];
			expect(await bootstrap(database, { log: (l) => again.push(l) })).toEqual({ adminCreated: false });
			expect(again).toEqual([]);
		});

		it('creates the configured admin on an empty database, and the share secret once', async () => {
			await database.rows(sql`delete from account`);
			const restore = withEnv({ TRIBUTARY_ADMIN_USER: 'root', TRIBUTARY_ADMIN_PASSWORD: 'root-password-1' });
			try {
				const lines: string[] = [];
				const r = await bootstrap(database, { log: (l) => lines.push(l) });
				expect(r).toEqual({ adminCreated: true });
				expect(lines.join('\n')).not.toContain('root-password-1');
				const secrets = await database.rows<{ value: string }>(sql`select value from instance_setting where key = 'share_secret'`);
				expect(secrets).toHaveLength(1);
				expect(secrets[0].value).toMatch(/^[0-9a-f]{64}$/);
				await bootstrap(database);
				const after = await database.rows<{ value: string }>(sql`select value from instance_setting where key = 'share_secret'`);
				expect(after).toEqual(secrets);
				await signedIn('root', 'root-password-1');
			} finally {
				restore();
			}
		});

		it('derives a stable, distinct secret per workspace, from TRIBUTARY_SECRET when set', async () => {
			const a1 = await workspaceSecret(database, 'a');
			expect(a1).toHaveLength(32);
			expect(await workspaceSecret(database, 'a')).toEqual(a1);
			expect(await workspaceSecret(database, 'b')).not.toEqual(a1);
			const restore = withEnv({ TRIBUTARY_SECRET: 'from-the-environment' });
			try {
				const e = await workspaceSecret(database, 'a');
				expect(e).not.toEqual(a1);
				expect(await workspaceSecret(database, 'a')).toEqual(e);
			} finally {
				restore();
			}
		});
	});

	describe('login', () => {
		it('sets an httpOnly session cookie whose database row is the token hash', async () => {
			const c = new ApiClient();
			const r = await c.post('/api/auth/login', { username: 'root', password: 'root-password-1' });
			expect(r.status).toBe(200);
			expect(r.body).toEqual({ username: 'root' });
			const token = c.jar.values.get(SESSION_COOKIE)!;
			expect(token).toMatch(/^[a-z2-7]{32}$/);
			expect(r.setCookies.some((s) => s.startsWith(`${SESSION_COOKIE}=`) && s.includes('HttpOnly'))).toBe(true);
			const rows = await sessionRows();
			const row = rows.find((s) => s.id === hashToken(token));
			expect(row).toBeDefined();
			expect(rows.some((s) => s.id === token)).toBe(false);
			const days = (new Date(row!.expires_at).getTime() - Date.now()) / DAY;
			expect(days).toBeGreaterThan(29.9);
			expect(days).toBeLessThanOrEqual(30);
		});

		it('answers one generic 401 for a wrong password and for an unknown user', async () => {
			const wrong = await new ApiClient().post('/api/auth/login', { username: 'root', password: 'nope-nope-nope' });
			const unknown = await new ApiClient().post('/api/auth/login', { username: 'nobody', password: 'nope-nope-nope' });
			expect(wrong.status).toBe(401);
			expect(unknown.status).toBe(401);
			expect(wrong.body).toEqual({ error: GENERIC });
			expect(unknown.body).toEqual({ error: GENERIC });
			expect(wrong.setCookies).toEqual([]);
		});

		it.each([
			['not JSON', { raw: { body: 'username=root', contentType: 'application/json' } }],
			['an array', { body: ['root', 'x'] }],
			['no password', { body: { username: 'root' } }],
			['a number for a password', { body: { username: 'root', password: 12345678 } }],
			['empty strings', { body: { username: '', password: '' } }]
		])('answers 400 with a generic message for a malformed body: %s', async (_name, opts) => {
			const r = await new ApiClient().call('POST', '/api/auth/login', opts);
			expect(r.status).toBe(400);
			expect(typeof r.body.error).toBe('string');
			expect(r.body.error).not.toMatch(/root/);
		});

		it('ends the session the browser held before when signing in again', async () => {
			const c = await signedIn('root', 'root-password-1');
			const first = c.jar.values.get(SESSION_COOKIE)!;
			await c.post('/api/auth/login', { username: 'root', password: 'root-password-1' });
			const second = c.jar.values.get(SESSION_COOKIE)!;
			expect(second).not.toBe(first);
			const ids = (await sessionRows()).map((s) => s.id);
			expect(ids).not.toContain(hashToken(first));
			expect(ids).toContain(hashToken(second));
		});
	});

	describe('whoami', () => {
		it('is 401 without credentials or with a bad bearer token, even next to a valid cookie', async () => {
			expect((await new ApiClient().get('/api/whoami')).status).toBe(401);
			expect((await new ApiClient().withBearer('trib_nope').get('/api/whoami')).status).toBe(401);
			const c = await signedIn('root', 'root-password-1');
			const cookie = `${SESSION_COOKIE}=${c.jar.values.get(SESSION_COOKIE)}`;
			const mixed = new ApiClient({ cookie, authorization: 'Bearer trib_nope' });
			expect((await mixed.get('/api/whoami')).status).toBe(401);
			expect((await new ApiClient({ cookie }).get('/api/whoami')).status).toBe(200);
			expect((await new ApiClient({ cookie, authorization: 'Basic abc' }).get('/api/whoami')).status).toBe(401);
		});

		it("lists the caller's workspaces; a token sees only its own workspace", async () => {
			const c = await signedIn('root', 'root-password-1');
			expect((await c.post('/api/workspaces', { id: 'one', name: 'One' })).status).toBe(201);
			expect((await c.post('/api/workspaces', { id: 'two', name: 'Two' })).status).toBe(201);
			const me = await c.get('/api/whoami');
			expect(me.status).toBe(200);
			expect(me.body).toMatchObject({
				username: 'root',
				instance_admin: true,
				workspaces: [
					{ id: 'one', is_admin: true },
					{ id: 'two', is_admin: true }
				]
			});
			const minted = await c.post('/api/w/two/tokens', { label: 'ci' });
			expect(minted.status).toBe(201);
			const viaToken = await new ApiClient().withBearer(minted.body.token).get('/api/whoami');
			expect(viaToken.status).toBe(200);
			expect(viaToken.body).toMatchObject({ username: 'root', instance_admin: true, workspaces: [{ id: 'two', is_admin: true }] });
			expect(viaToken.body.workspaces).toHaveLength(1);
		});
	});

	describe('sessions', () => {
		it('are renewed when fewer than 15 days are left, and not before', async () => {
			const c = await signedIn('root', 'root-password-1');
			const id = hashToken(c.jar.values.get(SESSION_COOKIE)!);
			await setSessionExpiry(database, id, new Date(Date.now() + 20 * DAY));
			const quiet = await c.get('/api/whoami');
			expect(quiet.status).toBe(200);
			expect(quiet.setCookies).toEqual([]);
			await setSessionExpiry(database, id, new Date(Date.now() + 10 * DAY));
			const renewed = await c.get('/api/whoami');
			expect(renewed.status).toBe(200);
			expect(renewed.setCookies.some((s) => s.startsWith(`${SESSION_COOKIE}=`))).toBe(true);
			const row = (await sessionRows()).find((s) => s.id === id)!;
			expect((new Date(row.expires_at).getTime() - Date.now()) / DAY).toBeGreaterThan(29.9);
		});

		it('are refused and deleted once expired', async () => {
			const c = await signedIn('root', 'root-password-1');
			const id = hashToken(c.jar.values.get(SESSION_COOKIE)!);
			await database.rows(sql`update session set expires_at = now() - interval '1 second' where id = ${id}`);
			const r = await c.get('/api/whoami');
			expect(r.status).toBe(401);
			expect(r.setCookies.some((s) => s.startsWith(`${SESSION_COOKIE}=;`))).toBe(true);
			expect((await sessionRows()).some((s) => s.id === id)).toBe(false);
		});

		it('end with logout: the old cookie no longer works', async () => {
			const c = await signedIn('root', 'root-password-1');
			const token = c.jar.values.get(SESSION_COOKIE)!;
			const out = await c.post('/api/auth/logout');
			expect(out.status).toBe(200);
			expect(c.jar.values.has(SESSION_COOKIE)).toBe(false);
			const replay = new ApiClient({ cookie: `${SESSION_COOKIE}=${token}` });
			expect((await replay.get('/api/whoami')).status).toBe(401);
			expect((await sessionRows()).some((s) => s.id === hashToken(token))).toBe(false);
		});

		it('logout needs a session: 401 without one, 400 for a token', async () => {
			expect((await new ApiClient().post('/api/auth/logout')).status).toBe(401);
			const c = await signedIn('root', 'root-password-1');
			const minted = await c.post('/api/w/one/tokens', { label: 'x' });
			const r = await new ApiClient().withBearer(minted.body.token).post('/api/auth/logout');
			expect(r.status).toBe(400);
			expect(r.body.error).toContain('token');
		});
	});

	describe('cross-site requests', () => {
		it('refuses a cookie-authenticated write from another origin, allows same-origin and Origin-less ones', async () => {
			const c = await signedIn('root', 'root-password-1');
			const evil = await c.post('/api/workspaces', { id: 'evil', name: 'Evil' }, { headers: { origin: 'https://evil.example' } });
			expect(evil.status).toBe(403);
			expect(evil.body.error).toMatch(/cross-site/);
			expect((await c.get('/api/whoami')).body.workspaces.map((w: { id: string }) => w.id)).not.toContain('evil');
			const same = await c.post('/api/workspaces', { id: 'same', name: 'Same' }, { headers: { origin: 'http://localhost' } });
			expect(same.status).toBe(201);
			const none = await c.post('/api/workspaces', { id: 'none', name: 'None' });
			expect(none.status).toBe(201);
			// Reads are not writes: a cross-origin GET still answers (the browser keeps the body from the other site).
			expect((await c.get('/api/whoami', { headers: { origin: 'https://evil.example' } })).status).toBe(200);
		});

		it('refuses a cross-site form post even without a session (login CSRF), but not a token call', async () => {
			const form = new FormData();
			form.set('username', 'root');
			form.set('password', 'root-password-1');
			const r = await new ApiClient().call('POST', '/api/auth/login', { form, headers: { origin: 'https://evil.example' } });
			expect(r.status).toBe(403);
			const c = await signedIn('root', 'root-password-1');
			const minted = await c.post('/api/w/one/tokens', { label: 'ci' });
			const viaToken = await new ApiClient()
				.withBearer(minted.body.token)
				.post('/api/w/one/tokens', { label: 'ci-2' }, { headers: { origin: 'https://ci.example' } });
			expect(viaToken.status).toBe(201);
		});
	});

	describe('pages', () => {
		// A minimal page event: kit's loads and actions only use these members here.
		function pageEvent(url: string, opts: { form?: Record<string, string>; cookie?: string; auth?: unknown } = {}) {
			const jar = new Map<string, string>();
			if (opts.cookie) jar.set(SESSION_COOKIE, opts.cookie);
			const u = new URL(url, 'http://localhost');
			let body: FormData | undefined;
			if (opts.form) {
				body = new FormData();
				for (const [k, v] of Object.entries(opts.form)) body.set(k, v);
			}
			const cookies = {
				get: (n: string) => jar.get(n),
				set: (n: string, v: string, o: { maxAge?: number }) => (o.maxAge === 0 ? jar.delete(n) : jar.set(n, v))
			} as unknown as Cookies;
			return {
				jar,
				event: {
					url: u,
					request: new Request(u, body ? { method: 'POST', body } : {}),
					cookies,
					params: Object.fromEntries([...u.pathname.matchAll(/^\/w\/([^/]+)/g)].map((m) => ['ws', m[1]])),
					locals: { auth: opts.auth ?? null },
					getClientAddress: () => '127.0.0.1',
					setHeaders: () => {},
					parent: async () => ({})
				} as never
			};
		}
		async function outcome(p: unknown): Promise<{ redirect?: string; status?: number; data?: unknown }> {
			try {
				const r = await p;
				if (isActionFailure(r)) return { status: r.status, data: r.data };
				return { data: r };
			} catch (e) {
				if (isRedirect(e)) return { redirect: e.location, status: e.status };
				if (isHttpError(e)) return { status: e.status, data: e.body };
				throw e;
			}
		}

		it('the login form signs in and goes to the first workspace, or shows the generic error', async () => {
			const bad = pageEvent('/login', { form: { username: 'root', password: 'wrong-password' } });
			expect(await outcome(loginActions.login(bad.event))).toEqual({ status: 401, data: { username: 'root', error: GENERIC } });
			const unknown = pageEvent('/login', { form: { username: 'ghost', password: 'wrong-password' } });
			expect((await outcome(loginActions.login(unknown.event))).data).toEqual({ username: 'ghost', error: GENERIC });
			const empty = pageEvent('/login', { form: { username: 'root' } });
			expect((await outcome(loginActions.login(empty.event))).status).toBe(400);
			const ok = pageEvent('/login', { form: { username: 'root', password: 'root-password-1' } });
			expect(await outcome(loginActions.login(ok.event))).toEqual({ redirect: '/w/none', status: 303 });
			expect(ok.jar.get(SESSION_COOKIE)).toMatch(/^[a-z2-7]{32}$/);
			const next = pageEvent('/login?next=/w/one/settings', { form: { username: 'root', password: 'root-password-1' } });
			expect((await outcome(loginActions.login(next.event))).redirect).toBe('/w/one/settings');
			const offsite = pageEvent('/login?next=//evil.example', { form: { username: 'root', password: 'root-password-1' } });
			expect((await outcome(loginActions.login(offsite.event))).redirect).toBe('/w/none');
		});

		it('the home page sends a signed-out visitor to /login and lists a member\'s workspaces', async () => {
			expect(await outcome(homeLoad(pageEvent('/').event))).toEqual({ redirect: '/login', status: 303 });
			const c = await signedIn('root', 'root-password-1');
			const auth = await authenticate(pageEvent('/', { cookie: c.jar.values.get(SESSION_COOKIE)! }).event);
			const home = await outcome(homeLoad(pageEvent('/', { auth }).event));
			expect(home.data).toMatchObject({ username: 'root', instanceAdmin: true });
			expect((home.data as { workspaces: { id: string }[] }).workspaces.map((w) => w.id)).toEqual(
				expect.arrayContaining(['one', 'two'])
			);
			expect(await outcome(workspaceLayoutLoad(pageEvent('/w/one', { auth }).event))).toMatchObject({
				data: { workspace: { id: 'one', name: 'One' }, me: { username: 'root', isAdmin: true } }
			});
			expect((await outcome(workspaceLayoutLoad(pageEvent('/w/nowhere', { auth }).event))).status).toBe(404);
			expect(await outcome(workspaceLayoutLoad(pageEvent('/w/one').event))).toEqual({
				redirect: '/login?next=%2Fw%2Fone',
				status: 303
			});
			expect(await outcome(loginLoad(pageEvent('/login', { auth }).event))).toEqual({ redirect: '/', status: 303 });
			// A share link's run page lives under this layout: the layout lets the page decide.
			expect(await outcome(workspaceLayoutLoad(pageEvent('/w/one/run/x?view_token=t').event))).toEqual({
				data: { workspace: { id: 'one', name: 'one' }, me: null }
			});
			expect(await outcome(workspaceLayoutLoad(pageEvent('/w/one/run/x?view_token=t', { auth }).event))).toMatchObject({
				data: { workspace: { id: 'one', name: 'One' }, me: { username: 'root' } }
			});
		});
	});
});
