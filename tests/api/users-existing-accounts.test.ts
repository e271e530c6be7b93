// Issue 14, findings 4 and 13: adding an account that already exists. A workspace admin must not
// be able to test guesses of another account's password, learn which accounts exist elsewhere
// (beyond what creating a username tells anyone), or add an account to a workspace without an
// instance admin; an instance admin's password reset ends the account's sessions AND tokens.
import { isActionFailure } from '@sveltejs/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap } from '../../src/lib/server/bootstrap';
import { setDatabase, type Database } from '../../src/lib/server/db';
import { findAccountByUsername } from '../../src/lib/server/repo/accounts';
import { actions as settingsActions } from '../../src/routes/w/[ws]/settings/+page.server';
import { ApiClient, login, useInstanceAdmin } from '../support/api';
import { testBackends } from '../support/db';

const ROOT = { username: 'root', password: 'root-password-1' };

describe.each(testBackends())('adding existing accounts on $name', (backend) => {
	let database: Database;
	let root: ApiClient;
	let wanda: ApiClient;
	let restoreAdmin: (() => void) | undefined;

	const loginStatus = async (username: string, password: string) =>
		(await new ApiClient().post('/api/auth/login', { username, password })).status;
	const membersOf = async (ws: string) =>
		((await root.get(`/api/w/${ws}/users`)).body as { username: string }[]).map((m) => m.username);

	beforeAll(async () => {
		database = await backend.open();
		setDatabase(database);
		restoreAdmin = useInstanceAdmin(ROOT);
		await bootstrap(database);
		root = await login(ROOT.username, ROOT.password);
		for (const id of ['acme', 'other']) expect((await root.post('/api/workspaces', { id, name: id })).status).toBe(201);
		// wanda administers acme only; vic lives in other.
		expect((await root.post('/api/w/acme/users', { username: 'wanda', password: 'wanda-password-1', is_admin: true })).status).toBe(201);
		expect((await root.post('/api/w/acme/users', { username: 'mem', password: 'mem-password-1' })).status).toBe(201);
		expect((await root.post('/api/w/other/users', { username: 'vic', password: 'vic-password-1' })).status).toBe(201);
		wanda = await login('wanda', 'wanda-password-1');
	});
	afterAll(async () => {
		restoreAdmin?.();
		await database?.close();
	});

	it("a workspace admin's guess of another account's password gets the same refusal, right or wrong", async () => {
		// vic is an account of another workspace; root, the instance admin, is a member of acme.
		for (const [victim, field] of [
			[{ username: 'vic', password: 'vic-password-1' }, 'username'],
			[{ username: 'root', password: ROOT.password }, 'password']
		] as const) {
			const right = await wanda.post('/api/w/acme/users', victim);
			const wrong = await wanda.post('/api/w/acme/users', { username: victim.username, password: 'a-wrong-guess' });
			expect(right.status).toBe(409);
			expect(right.body).toEqual(wrong.body);
			expect(right.body.error).toMatch(new RegExp(`^${field}\\b`));
			if (victim.username === 'vic') expect(await membersOf('acme')).not.toContain('vic');
			expect(await loginStatus(victim.username, victim.password)).toBe(200);
		}
	});

	it('a workspace admin cannot add an account that exists elsewhere, and cannot tell it exists', async () => {
		const existing = await wanda.post('/api/w/acme/users', { username: 'vic' });
		const unknown = await wanda.post('/api/w/acme/users', { username: 'nobody-yet' });
		expect(existing.status).toBe(400);
		expect(existing.body).toEqual(unknown.body);
		expect(existing.body.error).toMatch(/^password\b/);
		expect(await membersOf('acme')).not.toContain('vic');
		expect(await findAccountByUsername(database, 'nobody-yet')).toBeNull();
		expect(await membersOf('acme')).toEqual(['mem', 'root', 'wanda']);
	});

	it("the settings page's member form applies the same rule", async () => {
		const account = (await findAccountByUsername(database, 'wanda'))!;
		const submit = async (fields: Record<string, string>) => {
			const body = new FormData();
			for (const [k, v] of Object.entries(fields)) body.set(k, v);
			const url = new URL('http://localhost/w/acme/settings?/addMember');
			const r = await settingsActions.addMember({
				url,
				params: { ws: 'acme' },
				request: new Request(url, { method: 'POST', body }),
				locals: { auth: { accountId: account.id, username: 'wanda', instanceAdmin: false, via: 'session' } }
			} as never);
			return isActionFailure(r) ? { status: r.status, data: r.data } : { status: 200, data: r };
		};
		const right = await submit({ username: 'vic', password: 'vic-password-1' });
		const wrong = await submit({ username: 'vic', password: 'a-wrong-guess' });
		expect(right.status).toBe(409);
		expect(right).toEqual(wrong);
		const existing = await submit({ username: 'vic' });
		const unknown = await submit({ username: 'nobody-yet' });
		expect(existing.status).toBe(400);
		expect(existing).toEqual(unknown);
		expect(await membersOf('acme')).not.toContain('vic');
	});

	it('a workspace admin creates new accounts and updates its own members, never their passwords', async () => {
		const created = await wanda.post('/api/w/acme/users', { username: 'newbie', password: 'newbie-password-1' });
		expect(created.status).toBe(201);
		expect(created.body).toEqual({ username: 'newbie', is_admin: false, account_created: true });
		expect(await loginStatus('newbie', 'newbie-password-1')).toBe(200);
		const promoted = await wanda.post('/api/w/acme/users', { username: 'mem', is_admin: true });
		expect(promoted.status).toBe(200);
		expect(promoted.body).toEqual({ username: 'mem', is_admin: true, account_created: false });
		for (const password of ['mem-password-1', 'taken-over-now']) {
			const r = await wanda.post('/api/w/acme/users', { username: 'mem', password });
			expect(r.status).toBe(409);
			expect(r.body.error).toMatch(/^password\b/);
		}
		expect(await loginStatus('mem', 'mem-password-1')).toBe(200);
		expect(await loginStatus('mem', 'taken-over-now')).toBe(401);
	});

	it('an instance admin adds an existing account without touching its password', async () => {
		const r = await root.post('/api/w/acme/users', { username: 'vic' });
		expect(r.status).toBe(201);
		expect(r.body).toEqual({ username: 'vic', is_admin: false, account_created: false });
		expect(await membersOf('acme')).toContain('vic');
		expect(await loginStatus('vic', 'vic-password-1')).toBe(200);
	});

	it("an instance admin's password resets the account: its sessions and its API tokens end, in every workspace", async () => {
		const vic = await login('vic', 'vic-password-1');
		const minted = await Promise.all(
			['acme', 'other'].map(async (ws) => {
				const m = await vic.post(`/api/w/${ws}/tokens`, { label: `ci-${ws}` });
				expect(m.status).toBe(201);
				return new ApiClient().withBearer(m.body.token);
			})
		);
		for (const t of minted) expect((await t.get('/api/whoami')).status).toBe(200);
		const mine = await root.post('/api/w/other/tokens', { label: 'root-ci' });
		const rootToken = new ApiClient().withBearer(mine.body.token);

		const reset = await root.post('/api/w/other/users', { username: 'vic', password: 'vic-password-2' });
		expect(reset.status).toBe(200);
		expect((await vic.get('/api/whoami')).status).toBe(401);
		for (const t of minted) expect((await t.get('/api/whoami')).status).toBe(401);
		expect((await vic.get('/api/w/acme/tokens')).status).toBe(401);
		expect(await loginStatus('vic', 'vic-password-1')).toBe(401);
		const again = await login('vic', 'vic-password-2');
		expect((await again.get('/api/w/other/tokens')).body).toEqual([]);
		// Other accounts' tokens are untouched.
		expect((await rootToken.get('/api/whoami')).status).toBe(200);
	});

	it('an instance admin never has a password checked either: repeating the same one is a reset too', async () => {
		const vic = await login('vic', 'vic-password-2');
		const r = await root.post('/api/w/other/users', { username: 'vic', password: 'vic-password-2' });
		expect(r.status).toBe(200);
		expect((await vic.get('/api/whoami')).status).toBe(401);
		expect(await loginStatus('vic', 'vic-password-2')).toBe(200);
	});
});
