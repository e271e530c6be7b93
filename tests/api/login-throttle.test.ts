// Issue 14, finding 5: sign-in is throttled. Through the real routes (API and form) with the
// process's real throttle, then with a throttle on an injected clock to walk through time.
import { isActionFailure } from '@sveltejs/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptLogin, checkCredentials, setLoginThrottle } from '../../src/lib/server/auth/authenticate';
import { dummyPasswordHash, hashPassword } from '../../src/lib/server/auth/password';
import { DEFAULT_THROTTLE, LoginThrottle } from '../../src/lib/server/auth/throttle';
import { bootstrap } from '../../src/lib/server/bootstrap';
import { setDatabase, type Database } from '../../src/lib/server/db';
import { actions as loginActions } from '../../src/routes/login/+page.server';
import { ApiClient, type ApiResponse, useInstanceAdmin } from '../support/api';
import { testBackends } from '../support/db';

const ROOT = { username: 'root', password: 'root-password-1' };

describe.each(testBackends())('login throttling on $name', (backend) => {
	let database: Database;
	let restoreAdmin: (() => void) | undefined;

	beforeAll(async () => {
		database = await backend.open();
		setDatabase(database);
		restoreAdmin = useInstanceAdmin(ROOT);
		await bootstrap(database);
		const root = new ApiClient();
		expect((await root.post('/api/auth/login', ROOT)).status).toBe(200);
		expect((await root.post('/api/workspaces', { id: 'acme', name: 'Acme' })).status).toBe(201);
	});
	afterAll(async () => {
		restoreAdmin?.();
		await database?.close();
	});

	it('refuses repeated wrong passwords with 429 and Retry-After, the right one included, before checking it', async () => {
		// A fresh throttle on the real clock, so this test's waits stay out of the others' way.
		const previous = setLoginThrottle(new LoginThrottle());
		try {
			const c = new ApiClient();
			const statuses: number[] = [];
			const checked: number[] = [];
			let refused: ApiResponse | null = null;
			for (let i = 0; i < 30 && !refused; i++) {
				const t0 = performance.now();
				const r = await c.post('/api/auth/login', { username: ROOT.username, password: `guess-${i}-xxxx` });
				statuses.push(r.status);
				if (r.status === 429) refused = r;
				else checked.push(performance.now() - t0);
			}
			expect(refused, `statuses: ${statuses.join(',')}`).not.toBeNull();
			expect(statuses.slice(0, DEFAULT_THROTTLE.pair.free)).toEqual(Array(DEFAULT_THROTTLE.pair.free).fill(401));
			expect(statuses.slice(0, -1).every((s) => s === 401)).toBe(true);
			expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
			expect(refused!.body.error).toMatch(/too many failed sign-ins; try again in \d+ seconds?/);
			const t0 = performance.now();
			const again = await c.post('/api/auth/login', ROOT);
			expect(again.status).toBe(429);
			expect(again.setCookies).toEqual([]);
			// No scrypt was spent on it: far quicker than any checked attempt.
			expect(performance.now() - t0).toBeLessThan(Math.min(...checked) / 2);
		} finally {
			setLoginThrottle(previous);
		}
	});

	describe('on an injected clock', () => {
		let now = 0;
		let previous: LoginThrottle;
		// The default policy, with a username cap small enough to reach in a few scrypt checks.
		const policy = { ...DEFAULT_THROTTLE, username: { ...DEFAULT_THROTTLE.username, max: 6 } };
		beforeAll(() => {
			previous = setLoginThrottle(new LoginThrottle(policy, () => now));
		});
		afterAll(() => {
			setLoginThrottle(previous);
		});
		const from = (address: string) => {
			const c = new ApiClient();
			c.clientAddress = address;
			return c;
		};
		const tryLogin = (c: ApiClient, password: string, username = ROOT.username) => c.post('/api/auth/login', { username, password });

		it('lets the right password in once the wait is over, and another address is not slowed meanwhile', async () => {
			now = 1_000_000;
			const attacker = from('203.0.113.7');
			for (let i = 0; i < DEFAULT_THROTTLE.pair.free; i++) expect((await tryLogin(attacker, `wrong-${i}-xxxx`)).status).toBe(401);
			const refused = await tryLogin(attacker, ROOT.password);
			expect(refused.status).toBe(429);
			expect(refused.headers.get('retry-after')).toBe('1');
			// The real user, elsewhere, signs in at once.
			expect((await tryLogin(from('198.51.100.2'), ROOT.password)).status).toBe(200);
			now += 1000;
			expect((await tryLogin(attacker, ROOT.password)).status).toBe(200);
		});

		it('caps one username over many addresses for a window, except where the account signed in before', async () => {
			now = 10_000_000;
			const home = from('198.51.100.9');
			expect((await tryLogin(home, ROOT.password)).status).toBe(200);
			for (let i = 0; i < policy.username.max; i++) {
				expect((await tryLogin(from(`2001:db8:${i.toString(16)}::1`), 'a-wrong-guess')).status).toBe(401);
			}
			const fresh = await tryLogin(from('192.0.2.44'), ROOT.password);
			expect(fresh.status).toBe(429);
			expect(Number(fresh.headers.get('retry-after'))).toBe(policy.username.windowMs / 1000);
			expect((await tryLogin(home, ROOT.password)).status).toBe(200);
			now += policy.username.windowMs;
			expect((await tryLogin(from('192.0.2.44'), ROOT.password)).status).toBe(200);
		});

		it('the login form shows the refusal and sends Retry-After', async () => {
			now = 20_000_000;
			const headers: Record<string, string> = {};
			const submit = async (password: string) => {
				const body = new FormData();
				body.set('username', ROOT.username);
				body.set('password', password);
				const url = new URL('http://localhost/login?/login');
				const event = {
					url,
					request: new Request(url, { method: 'POST', body }),
					locals: { auth: null },
					cookies: { get: () => undefined, set: () => {} },
					getClientAddress: () => '203.0.113.99',
					setHeaders: (h: Record<string, string>) => Object.assign(headers, h)
				};
				const r = await loginActions.login(event as never);
				return isActionFailure(r) ? { status: r.status, data: r.data } : r;
			};
			for (let i = 0; i < DEFAULT_THROTTLE.pair.free; i++) {
				expect(await submit(`wrong-${i}-xxxx`)).toEqual({ status: 401, data: { username: ROOT.username, error: 'invalid username or password' } });
			}
			expect(await submit(ROOT.password)).toEqual({
				status: 429,
				data: { username: ROOT.username, error: 'too many failed sign-ins; try again in 1 second' }
			});
			expect(headers).toEqual({ 'retry-after': '1' });
		});
	});

	it('checks an unknown username against a dummy hash made with the same parameters, costing the same', async () => {
		const params = (hash: string) => hash.split('$').slice(0, 4);
		expect(params(await dummyPasswordHash())).toEqual(params(await hashPassword('x')));
		const median = async (f: () => Promise<unknown>) => {
			const times: number[] = [];
			for (let i = 0; i < 5; i++) {
				const t0 = performance.now();
				await f();
				times.push(performance.now() - t0);
			}
			return times.sort((a, b) => a - b)[2];
		};
		const known = await median(() => checkCredentials(ROOT.username, 'a-wrong-password'));
		const unknown = await median(() => checkCredentials('no-such-user', 'a-wrong-password'));
		// Loose bounds: a loaded machine skews single timings, but an unknown username answered
		// without scrypt would be a thousand times cheaper than a known one.
		expect(unknown / known).toBeGreaterThan(0.25);
		expect(unknown / known).toBeLessThan(4);
		// And through the gate: an unknown username is throttled like a known one.
		const t = setLoginThrottle(new LoginThrottle({ ...DEFAULT_THROTTLE, pair: { ...DEFAULT_THROTTLE.pair, free: 1 } }));
		try {
			const ev = { getClientAddress: () => '192.0.2.200' };
			await expect(attemptLogin(ev, 'no-such-user', 'x-xxxxxxx')).rejects.toMatchObject({ status: 401 });
			await expect(attemptLogin(ev, 'no-such-user', 'x-xxxxxxx')).rejects.toMatchObject({ status: 429 });
		} finally {
			setLoginThrottle(t);
		}
	});
});
