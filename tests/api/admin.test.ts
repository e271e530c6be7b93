import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap } from '../../src/lib/server/bootstrap';
import { setDatabase, type Database } from '../../src/lib/server/db';
import { getWarehouseWithSecrets } from '../../src/lib/server/repo/warehouses';
import { removeMember } from '../../src/lib/server/repo/workspaces';
import { ApiClient, login, useInstanceAdmin } from '../support/api';
import { testBackends } from '../support/db';

const ROOT = { username: 'root', password: 'root-password-1' };
const SECRET = 'hunter2-very-secret';

describe.each(testBackends())('admin API on $name', (backend) => {
	let database: Database;
	let root: ApiClient;
	let alice: ApiClient;
	let carol: ApiClient;
	let restoreAdmin: (() => void) | undefined;


	async function mint(c: ApiClient, ws: string, body: Record<string, unknown>): Promise<string> {
		const r = await c.post(`/api/w/${ws}/tokens`, body);
		expect(r.status, JSON.stringify(r.body)).toBe(201);
		return r.body.token;
	}

	beforeAll(async () => {
		database = await backend.open();
		setDatabase(database);
		restoreAdmin = useInstanceAdmin(ROOT);
		await bootstrap(database);
		root = await login(ROOT.username, ROOT.password);
	});
	afterAll(async () => {
		restoreAdmin?.();
		await database?.close();
	});

	describe('POST /api/workspaces', () => {
		it('creates a workspace whose creator is its admin', async () => {
			const r = await root.post('/api/workspaces', { id: 'acme', name: 'Acme Analytics' });
			expect(r.status).toBe(201);
			expect(r.body).toEqual({ id: 'acme', name: 'Acme Analytics' });
			expect((await root.get('/api/whoami')).body.workspaces).toEqual([{ id: 'acme', name: 'Acme Analytics', is_admin: true }]);
			expect((await root.post('/api/workspaces', { id: 'other', name: 'Other' })).status).toBe(201);
		});

		it('answers 409 for an existing id', async () => {
			const r = await root.post('/api/workspaces', { id: 'acme', name: 'Again' });
			expect(r.status).toBe(409);
			expect(r.body.error).toContain('acme');
		});

		it.each([
			['an id with capitals', { id: 'Acme2', name: 'x' }, 'id'],
			['an id with an underscore', { id: 'a_b', name: 'x' }, 'id'],
			['an id over 50 characters', { id: 'a'.repeat(51), name: 'x' }, 'id'],
			['no id', { name: 'x' }, 'id'],
			['a numeric id', { id: 42, name: 'x' }, 'id'],
			['an empty name', { id: 'fine', name: '  ' }, 'name'],
			['a non-string name', { id: 'fine', name: 3 }, 'name']
		])('answers 400 naming the field for %s', async (_n, body, field) => {
			const r = await root.post('/api/workspaces', body);
			expect(r.status).toBe(400);
			expect(r.body.error).toMatch(new RegExp(`^${field}\\b`));
		});

		it('is for instance admins only, and needs a session or token', async () => {
			expect((await new ApiClient().post('/api/workspaces', { id: 'x1', name: 'x' })).status).toBe(401);
		});
	});

	describe('users', () => {
		it('creates an account with a password, who can then sign in', async () => {
			const r = await root.post('/api/w/acme/users', { username: 'alice', password: 'alice-password' });
			expect(r.status).toBe(201);
			expect(r.body).toEqual({ username: 'alice', is_admin: false, account_created: true });
			alice = await login('alice', 'alice-password');
			expect((await alice.get('/api/whoami')).body.workspaces).toEqual([{ id: 'acme', name: 'Acme Analytics', is_admin: false }]);
		});

		it('adds an existing account to another workspace without touching its password', async () => {
			const r = await root.post('/api/w/other/users', { username: 'alice' });
			expect(r.status).toBe(201);
			expect(r.body).toEqual({ username: 'alice', is_admin: false, account_created: false });
			await login('alice', 'alice-password');
		});

		it('updates is_admin of an existing member with 200', async () => {
			expect((await root.post('/api/w/acme/users', { username: 'carol', password: 'carol-password', is_admin: true })).status).toBe(201);
			carol = await login('carol', 'carol-password');
			expect((await root.post('/api/w/acme/users', { username: 'bob', password: 'bob-password' })).status).toBe(201);
			const r = await root.post('/api/w/acme/users', { username: 'bob', is_admin: true });
			expect(r.status).toBe(200);
			expect(r.body).toMatchObject({ username: 'bob', is_admin: true });
			const back = await root.post('/api/w/acme/users', { username: 'bob', is_admin: false });
			expect(back.body).toMatchObject({ is_admin: false });
			// Omitting is_admin leaves it as it is.
			expect((await root.post('/api/w/acme/users', { username: 'carol' })).body).toMatchObject({ is_admin: true });
		});

		it("never lets a workspace admin set (or test) another account's password", async () => {
			// The same refusal for the right password and a wrong one (see users-existing-accounts.test.ts).
			const right = await carol.post('/api/w/acme/users', { username: 'alice', password: 'alice-password' });
			const r = await carol.post('/api/w/acme/users', { username: 'alice', password: 'taken-over-now' });
			expect(r.status).toBe(409);
			expect(right.body).toEqual(r.body);
			await login('alice', 'alice-password');
			// An instance admin may reset it; the account's sessions end.
			const reset = await root.post('/api/w/acme/users', { username: 'alice', password: 'alice-password-2' });
			expect(reset.status).toBe(200);
			expect((await alice.get('/api/whoami')).status).toBe(401);
			alice = await login('alice', 'alice-password-2');
		});

		it('refuses to demote the last admin', async () => {
			await root.post('/api/workspaces', { id: 'solo', name: 'Solo' });
			const r = await root.post('/api/w/solo/users', { username: 'root', is_admin: false });
			expect(r.status).toBe(409);
			expect(r.body.error).toContain('is_admin');
		});

		it.each([
			['an invalid username', { username: 'a/b' }, 'username'],
			['a username with a space', { username: 'a b' }, 'username'],
			['no username', {}, 'username'],
			['a short password', { username: 'dave', password: 'short' }, 'password'],
			['a non-string password', { username: 'dave', password: 12345678 }, 'password'],
			['a non-boolean is_admin', { username: 'dave', is_admin: 'yes' }, 'is_admin']
		])('answers 400 naming the field for %s', async (_n, body, field) => {
			const r = await root.post('/api/w/acme/users', body);
			expect(r.status).toBe(400);
			expect(r.body.error).toMatch(new RegExp(`^${field}\\b`));
		});

		it('answers 400 for a body that is not an object', async () => {
			const r = await root.post('/api/w/acme/users', ['alice']);
			expect(r.status).toBe(400);
			expect(r.body).toHaveProperty('error');
		});

		it('lists members with their roles and groups for admins', async () => {
			const r = await root.get('/api/w/acme/users');
			expect(r.status).toBe(200);
			expect(r.body.map((m: { username: string }) => m.username)).toEqual(['alice', 'bob', 'carol', 'root']);
			expect(r.body.find((m: { username: string }) => m.username === 'carol')).toEqual({ username: 'carol', is_admin: true, groups: [] });
		});

		it('gates: 401 signed out, 403 for a member, 404 for a stranger or no such workspace, 400 for a bad id', async () => {
			expect((await new ApiClient().get('/api/w/acme/users')).status).toBe(401);
			expect((await new ApiClient().post('/api/w/acme/users', { username: 'x' })).status).toBe(401);
			expect((await alice.get('/api/w/acme/users')).status).toBe(403);
			expect((await alice.post('/api/w/acme/users', { username: 'mallory' })).status).toBe(403);
			expect((await carol.get('/api/w/other/users')).status).toBe(404);
			expect((await carol.post('/api/w/other/users', { username: 'x' })).status).toBe(404);
			const nowhere = await carol.get('/api/w/nowhere/users');
			const stranger = await carol.get('/api/w/other/users');
			expect(nowhere.status).toBe(404);
			expect(nowhere.body).toEqual(stranger.body);
			expect((await carol.get('/api/w/Bad_Id/users')).status).toBe(400);
			// Creating workspaces is for instance admins, not workspace admins.
			expect((await carol.post('/api/workspaces', { id: 'carols', name: 'Carol' })).status).toBe(403);
		});
	});

	describe('groups', () => {
		it('creates (201) and replaces (200) a group', async () => {
			const r = await root.post('/api/w/acme/groups', { name: 'analysts', members: ['bob', 'alice'] });
			expect(r.status).toBe(201);
			expect(r.body).toEqual({ name: 'analysts', members: ['alice', 'bob'] });
			const again = await root.post('/api/w/acme/groups', { name: 'analysts', members: ['alice'] });
			expect(again.status).toBe(200);
			expect((await root.get('/api/w/acme/groups')).body).toEqual([{ name: 'analysts', members: ['alice'] }]);
			expect((await root.post('/api/w/acme/groups', { name: 'empty' })).body).toEqual({ name: 'empty', members: [] });
		});

		it.each([
			['an invalid name', { name: 'a b', members: [] }, 'name'],
			['members not an array', { name: 'g', members: 'alice' }, 'members'],
			['a non-string member', { name: 'g', members: [1] }, 'members'],
			['an invalid member', { name: 'g', members: ['a/b'] }, 'members'],
			['a member of another workspace only', { name: 'g', members: ['nobody'] }, 'members']
		])('answers 400 naming the field for %s', async (_n, body, field) => {
			const r = await root.post('/api/w/acme/groups', body);
			expect(r.status).toBe(400);
			expect(r.body.error).toMatch(new RegExp(`^${field}\\b`));
		});

		it('is for admins', async () => {
			expect((await alice.get('/api/w/acme/groups')).status).toBe(403);
			expect((await alice.post('/api/w/acme/groups', { name: 'mine', members: ['alice'] })).status).toBe(403);
		});
	});

	describe('folders', () => {
		it('creates (201) and replaces (200) a folder with its grants', async () => {
			const r = await root.post('/api/w/acme/folders', { name: 'finance', readers: ['g/analysts'], writers: ['u/carol'] });
			expect(r.status).toBe(201);
			expect(r.body).toEqual({ name: 'finance', readers: ['g/analysts'], writers: ['u/carol'] });
			const again = await root.post('/api/w/acme/folders', { name: 'finance', readers: ['g/analysts', 'u/bob'], writers: [] });
			expect(again.status).toBe(200);
			expect((await root.post('/api/w/acme/folders', { name: 'eng' })).status).toBe(201);
			expect((await root.get('/api/w/acme/folders')).body).toEqual([
				{ name: 'eng', readers: [], writers: [] },
				{ name: 'finance', readers: ['g/analysts', 'u/bob'], writers: [] }
			]);
		});

		it.each([
			['an invalid name', { name: 'a/b' }, 'name'],
			['readers not an array', { name: 'f', readers: 'g/analysts' }, 'readers'],
			['a reader without a prefix', { name: 'f', readers: ['alice'] }, 'readers'],
			['an unknown group', { name: 'f', readers: ['g/nope'] }, 'readers'],
			['a user who is not a member', { name: 'f', writers: ['u/nobody'] }, 'writers'],
			['an invalid writer', { name: 'f', writers: ['x/alice'] }, 'writers']
		])('answers 400 naming the field for %s', async (_n, body, field) => {
			const r = await root.post('/api/w/acme/folders', body);
			expect(r.status).toBe(400);
			expect(r.body.error).toMatch(new RegExp(`^${field}\\b`));
		});

		it('is for admins', async () => {
			expect((await alice.get('/api/w/acme/folders')).status).toBe(403);
			expect((await alice.post('/api/w/acme/folders', { name: 'mine', readers: ['u/alice'] })).status).toBe(403);
		});
	});

	describe('warehouses', () => {
		it('stores secrets write-only: no answer ever contains them', async () => {
			const r = await root.post('/api/w/acme/warehouses', {
				name: 'main',
				default_database: 'analytics',
				settings: { type: 'postgres', host: 'db.internal', threads: 4, secrets: { DBT_PASSWORD: SECRET } }
			});
			expect(r.status).toBe(201);
			expect(r.body).toEqual({
				name: 'main',
				default_database: 'analytics',
				settings: { type: 'postgres', host: 'db.internal', threads: 4, secrets: { DBT_PASSWORD: '***' } }
			});
			const list = await root.get('/api/w/acme/warehouses');
			expect(list.status).toBe(200);
			expect(JSON.stringify(list.body)).not.toContain(SECRET);
			expect(list.body[0].settings.secrets).toEqual({ DBT_PASSWORD: '***' });
			const [row] = await database.rows<{ secrets: Record<string, string>; settings: Record<string, unknown> }>(
				sql`select secrets, settings from warehouse where workspace = 'acme' and name = 'main'`
			);
			// Sealed at rest (AES-GCM): the stored row holds no secret in clear.
			expect(Object.keys(row.secrets)).toEqual(['DBT_PASSWORD']);
			expect(row.secrets.DBT_PASSWORD).toMatch(/^enc:v1:/);
			expect(JSON.stringify(row)).not.toContain(SECRET);
			expect(row.settings).not.toHaveProperty('secrets');
		});

		it('keeps stored secrets when they are omitted or sent back masked', async () => {
			const omitted = await root.post('/api/w/acme/warehouses', { name: 'main', settings: { type: 'postgres', host: 'db2' } });
			expect(omitted.status).toBe(200);
			expect(omitted.body.default_database).toBeNull();
			expect((await getWarehouseWithSecrets(database, 'acme', 'main'))!.secrets).toEqual({ DBT_PASSWORD: SECRET });
			const masked = await root.post('/api/w/acme/warehouses', {
				name: 'main',
				settings: { type: 'postgres', secrets: { DBT_PASSWORD: '***', DBT_KEY: 'k-2' } }
			});
			expect(JSON.stringify(masked.body)).not.toContain('k-2');
			expect((await getWarehouseWithSecrets(database, 'acme', 'main'))!.secrets).toEqual({ DBT_PASSWORD: SECRET, DBT_KEY: 'k-2' });
			await root.post('/api/w/acme/warehouses', { name: 'main', settings: { secrets: {} } });
			expect((await getWarehouseWithSecrets(database, 'acme', 'main'))!.secrets).toEqual({});
		});

		it('defaults the name to main', async () => {
			const r = await root.post('/api/w/other/warehouses', {});
			expect(r.status).toBe(201);
			expect(r.body).toEqual({ name: 'main', default_database: null, settings: {} });
		});

		it.each([
			['an invalid name', { name: 'a b' }, 'name'],
			['settings not an object', { name: 'w', settings: [1] }, 'settings'],
			['secrets not an object', { name: 'w', settings: { secrets: 'pw' } }, 'settings.secrets'],
			['a non-string secret', { name: 'w', settings: { secrets: { PW: 1 } } }, 'settings.secrets'],
			['a non-string default_database', { name: 'w', default_database: 5 }, 'default_database']
		])('answers 400 naming the field for %s', async (_n, body, field) => {
			const r = await root.post('/api/w/acme/warehouses', body);
			expect(r.status).toBe(400);
			expect(r.body.error.startsWith(`${field} `)).toBe(true);
		});

		it('is for admins', async () => {
			expect((await alice.get('/api/w/acme/warehouses')).status).toBe(403);
			expect((await alice.post('/api/w/acme/warehouses', { name: 'x' })).status).toBe(403);
		});
	});

	describe('tokens', () => {
		it('mints a token shown once, stored hashed, listed without its secret', async () => {
			const expires = new Date(Date.now() + 7 * 86_400_000).toISOString();
			const r = await alice.post('/api/w/acme/tokens', { label: 'ci', scopes: ['scripts:read:f/finance/*'], expires_at: expires });
			expect(r.status).toBe(201);
			expect(r.body).toMatchObject({ label: 'ci', scopes: ['scripts:read:f/finance/*'], expires_at: expires });
			expect(r.body.token).toMatch(/^trib_[a-z2-7]+$/);
			expect(r.body.id).toEqual(expect.any(String));
			const stored = await database.rows<{ hash: string }>(sql`select hash from api_token where id = ${r.body.id}`);
			expect(stored[0].hash).toMatch(/^[0-9a-f]{64}$/);
			expect(stored[0].hash).not.toContain(r.body.token);
			const list = await alice.get('/api/w/acme/tokens');
			expect(list.status).toBe(200);
			expect(list.body).toEqual([expect.objectContaining({ id: r.body.id, label: 'ci', expires_at: expires })]);
			expect(JSON.stringify(list.body)).not.toContain(r.body.token);
			expect(JSON.stringify(list.body)).not.toContain(stored[0].hash);
			// Only the caller's own tokens.
			expect((await carol.get('/api/w/acme/tokens')).body).toEqual([]);
		});

		it.each([
			['no label', { scopes: [] }, 'label'],
			['an empty label', { label: ' ' }, 'label'],
			['scopes not an array', { label: 'x', scopes: 'assets:read' }, 'scopes'],
			['an invalid scope', { label: 'x', scopes: ['assets:read', 'everything'] }, 'scopes'],
			['a prefix sharing no slash', { label: 'x', scopes: ['scripts:read:f/a*'] }, 'scopes'],
			['an unparseable expiry', { label: 'x', expires_at: 'next tuesday' }, 'expires_at'],
			['an expiry in the past', { label: 'x', expires_at: '2001-01-01T00:00:00Z' }, 'expires_at'],
			['a numeric expiry', { label: 'x', expires_at: 12 }, 'expires_at']
		])('answers 400 naming the field for %s', async (_n, body, field) => {
			const r = await alice.post('/api/w/acme/tokens', body);
			expect(r.status).toBe(400);
			expect(r.body.error).toMatch(new RegExp(`^${field}\\b`));
		});

		it('acts as its owner when minted without scopes', async () => {
			const t = new ApiClient().withBearer(await mint(root, 'acme', { label: 'full' }));
			expect((await t.get('/api/w/acme/users')).status).toBe(200);
			expect((await t.post('/api/w/acme/users', { username: 'erin', password: 'erin-password' })).status).toBe(201);
			// ...and never more than its owner: alice's token is not an admin's.
			const a = new ApiClient().withBearer(await mint(alice, 'acme', { label: 'a-full' }));
			expect((await a.get('/api/w/acme/users')).status).toBe(403);
		});

		it('is narrowed by its scopes, and the refusal names the missing scope', async () => {
			const t = new ApiClient().withBearer(await mint(root, 'acme', { label: 'users-read', scopes: ['users:read'] }));
			expect((await t.get('/api/w/acme/users')).status).toBe(200);
			const write = await t.post('/api/w/acme/users', { username: 'frank' });
			expect(write.status).toBe(403);
			expect(write.body.error).toContain('users:write');
			const groups = await t.get('/api/w/acme/groups');
			expect(groups.status).toBe(403);
			expect(groups.body.error).toContain('groups:read');
			expect((await t.get('/api/w/acme/tokens')).status).toBe(403);
		});

		it('belongs to one workspace: elsewhere it is 404', async () => {
			const t = new ApiClient().withBearer(await mint(root, 'acme', { label: 'acme-only' }));
			expect((await t.get('/api/w/other/users')).status).toBe(404);
			expect((await t.get('/api/w/acme/users')).status).toBe(200);
		});

		it('is refused once expired', async () => {
			const token = await mint(alice, 'acme', { label: 'short' });
			const t = new ApiClient().withBearer(token);
			expect((await t.get('/api/w/acme/tokens')).status).toBe(200);
			await database.rows(sql`update api_token set expires_at = now() - interval '1 second' where label = 'short'`);
			expect((await t.get('/api/w/acme/tokens')).status).toBe(401);
			expect((await t.get('/api/whoami')).status).toBe(401);
		});

		it('stops working when its owner leaves the workspace', async () => {
			await root.post('/api/w/acme/users', { username: 'gina', password: 'gina-password' });
			const gina = await login('gina', 'gina-password');
			const t = new ApiClient().withBearer(await mint(gina, 'acme', { label: 'g' }));
			expect((await t.get('/api/whoami')).status).toBe(200);
			await removeMember(database, 'acme', 'gina');
			expect((await t.get('/api/whoami')).status).toBe(401);
		});

		it('a scoped token mints only tokens within its own scopes', async () => {
			const t = new ApiClient().withBearer(
				await mint(alice, 'acme', { label: 'minter', scopes: ['tokens:write', 'scripts:read:f/finance/*'] })
			);
			expect((await t.post('/api/w/acme/tokens', { label: 'wider' })).status).toBe(403);
			expect((await t.post('/api/w/acme/tokens', { label: 'wider', scopes: ['scripts:read'] })).status).toBe(403);
			const narrower = await t.post('/api/w/acme/tokens', { label: 'narrower', scopes: ['scripts:read:f/finance/q3/*'] });
			expect(narrower.status).toBe(201);
			const noMint = new ApiClient().withBearer(await mint(alice, 'acme', { label: 'reader', scopes: ['assets:read'] }));
			const refused = await noMint.post('/api/w/acme/tokens', { label: 'x', scopes: ['assets:read'] });
			expect(refused.status).toBe(403);
			expect(refused.body.error).toContain('tokens:write');
		});

		it('can be revoked by its owner (or an admin), after which it is 401', async () => {
			const token = await mint(alice, 'acme', { label: 'revoke-me' });
			const [{ id }] = await database.rows<{ id: string }>(sql`select id from api_token where label = 'revoke-me'`);
			expect((await new ApiClient().withBearer(token).get('/api/whoami')).status).toBe(200);
			expect((await carol.call('DELETE', `/api/w/other/tokens/${id}`)).status).toBe(404);
			expect((await bobClient().then((b) => b.call('DELETE', `/api/w/acme/tokens/${id}`))).status).toBe(404);
			const r = await alice.call('DELETE', `/api/w/acme/tokens/${id}`);
			expect(r.status).toBe(200);
			expect(r.body).toEqual({ id, deleted: true });
			expect((await new ApiClient().withBearer(token).get('/api/whoami')).status).toBe(401);
			expect((await alice.call('DELETE', `/api/w/acme/tokens/${id}`)).status).toBe(404);
		});

		async function bobClient(): Promise<ApiClient> {
			return login('bob', 'bob-password');
		}
	});
});
