// What a person manages on the settings page, through the API and through the page's form
// actions (which call the same services), on both databases: changing one's own password,
// removing a member, a folder's readers and writers, a warehouse's settings, revoking a token.
// Each action's gate is tried with an outsider (a member of another workspace only), a member
// who is not an admin, and an admin; a refusal on the page names the field it is about.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setLoginThrottle } from '../../src/lib/server/auth/authenticate';
import { LoginThrottle } from '../../src/lib/server/auth/throttle';
import { bootstrap } from '../../src/lib/server/bootstrap';
import { setDatabase, type Database } from '../../src/lib/server/db';
import { getWarehouseWithSecrets } from '../../src/lib/server/repo/warehouses';
import { actions, load } from '../../src/routes/w/[ws]/settings/+page.server';
import { ApiClient, login, useInstanceAdmin } from '../support/api';
import { testBackends } from '../support/db';
import { pageEventOf, pageOutcome } from '../support/pages';

const WS = 'acme';
const ROOT = { username: 'root', password: 'root-password-1' };

type Who = 'admin' | 'member' | 'outsider';

describe.each(testBackends())('settings actions on $name', (backend) => {
	let database: Database;
	let root: ApiClient;
	const c = {} as Record<Who, ApiClient>;
	let restoreAdmin: () => void;
	let restoreThrottle: LoginThrottle;

	const ok = async (p: Promise<{ status: number; body: any }>, status = 200) => {
		const r = await p;
		expect(r.status, JSON.stringify(r.body)).toBe(status);
		return r.body;
	};
	const action = async (name: keyof typeof actions, who: ApiClient, form: Record<string, string | string[]>, opts: { setCookies?: boolean } = {}) =>
		pageOutcome(actions[name]((await pageEventOf(who, `/w/${WS}/settings?/${name}`, { ws: WS }, form, opts)) as never));
	const count = async (q: ReturnType<typeof sql>) => Number((await database.rows<{ n: unknown }>(q))[0].n);
	/** Adds a member with a password and signs it in. */
	const newMember = async (username: string, isAdmin = false) => {
		await ok(root.post(`/api/w/${WS}/users`, { username, password: `${username}-password-1`, is_admin: isAdmin }), 201);
		return login(username);
	};

	beforeAll(async () => {
		database = await backend.open();
		setDatabase(database);
		restoreAdmin = useInstanceAdmin(ROOT);
		// A fresh throttle: the wrong passwords below count against this file only.
		restoreThrottle = setLoginThrottle(new LoginThrottle());
		await bootstrap(database);
		root = await login(ROOT.username, ROOT.password);
		await ok(root.post('/api/workspaces', { id: WS, name: 'Acme' }), 201);
		await ok(root.post('/api/workspaces', { id: 'elsewhere', name: 'Elsewhere' }), 201);
		c.admin = await newMember('ada', true);
		c.member = await newMember('mel');
		await ok(root.post('/api/w/elsewhere/users', { username: 'otto', password: 'otto-password-1', is_admin: true }), 201);
		c.outsider = await login('otto');
		await ok(root.post(`/api/w/${WS}/groups`, { name: 'analysts', members: ['mel'] }), 201);
		await ok(root.post(`/api/w/${WS}/folders`, { name: 'analytics', readers: ['g/analysts'], writers: ['u/ada'] }), 201);
	});
	afterAll(async () => {
		restoreAdmin?.();
		if (restoreThrottle) setLoginThrottle(restoreThrottle);
		await database?.close();
	});

	describe('changing one\'s own password', () => {
		it('through the API: the current one is checked, the new one is ruled, every session ends but this one continues with a new cookie', async () => {
			const pat = await newMember('pat');
			const other = await login('pat');
			const token = (await ok(pat.post(`/api/w/${WS}/tokens`, { label: 'ci' }), 201)).token as string;
			const before = pat.jar.header();
			const wrong = await pat.post('/api/auth/password', { current_password: 'not-it-at-all', new_password: 'pat-password-2' });
			expect([wrong.status, wrong.body.error]).toEqual([400, 'current_password: this is not your current password']);
			for (const [body, field] of [
				[{ current_password: 'pat-password-1', new_password: 'short' }, 'new_password'],
				[{ current_password: 'pat-password-1', new_password: 'pat-password-1' }, 'new_password'],
				[{ new_password: 'pat-password-2' }, 'current_password']
			] as const) {
				const r = await pat.post('/api/auth/password', body);
				expect(r.status, JSON.stringify(body)).toBe(400);
				expect(r.body.error).toMatch(new RegExp(`^${field}\\b`));
			}
			const r = await ok(pat.post('/api/auth/password', { current_password: 'pat-password-1', new_password: 'pat-password-2' }));
			expect(r).toEqual({ username: 'pat', sessions_ended: 2 });
			// This client holds a new session; the other browser's is gone; the token still works.
			expect(pat.jar.header()).not.toBe(before);
			expect((await pat.get('/api/whoami')).status).toBe(200);
			expect((await other.get('/api/whoami')).status).toBe(401);
			expect((await new ApiClient().withBearer(token).get('/api/whoami')).status).toBe(200);
			expect((await new ApiClient().post('/api/auth/login', { username: 'pat', password: 'pat-password-1' })).status).toBe(401);
			await login('pat', 'pat-password-2');
		});

		it('the username itself, in any case, is refused as the new password', async () => {
			const same = await newMember('longusername');
			const s = await same.post('/api/auth/password', { current_password: 'longusername-password-1', new_password: 'LongUserName' });
			expect([s.status, s.body.error]).toEqual([400, 'new_password: must not be the username']);
			expect((await same.get('/api/whoami')).status).toBe(200);
			await login('longusername');
		});

		it('gates: 401 signed out, 403 for an API token (even one acting as its owner), for outsider, member and admin alike', async () => {
			expect((await new ApiClient().post('/api/auth/password', { current_password: 'x', new_password: 'whatever-1' })).status).toBe(401);
			for (const who of ['outsider', 'member', 'admin'] as const) {
				const ws = who === 'outsider' ? 'elsewhere' : WS;
				const token = (await ok(c[who].post(`/api/w/${ws}/tokens`, { label: 'pw' }), 201)).token as string;
				const r = await new ApiClient().withBearer(token).post('/api/auth/password', { current_password: 'x', new_password: 'whatever-1' });
				expect([r.status, r.body.error]).toEqual([403, 'a password is changed from a signed-in browser session, not with an API token']);
			}
		});

		it('on the page: errors beside the field (current, new, confirmation), then the change and a fresh session', async () => {
			const quinn = await newMember('quinn');
			const form = (current: string, next: string, confirm = next) => ({ current_password: current, new_password: next, confirm_password: confirm });
			expect(await action('changePassword', quinn, form('wrong-password', 'quinn-password-2'))).toMatchObject({
				status: 400,
				data: { section: 'account', field: 'current_password' }
			});
			expect(await action('changePassword', quinn, form('quinn-password-1', 'short'))).toMatchObject({ status: 400, data: { field: 'new_password' } });
			expect(await action('changePassword', quinn, form('quinn-password-1', 'quinn-password-2', 'quinn-password-3'))).toMatchObject({
				status: 400,
				data: { field: 'confirm_password', adminError: 'confirm_password: does not match the new password' }
			});
			const before = quinn.jar.header();
			const done = await action('changePassword', quinn, form('quinn-password-1', 'quinn-password-2'), { setCookies: true });
			expect(done).toMatchObject({ status: 200, data: { section: 'account', done: 'Password changed.' } });
			expect(quinn.jar.header()).not.toBe(before);
			expect((await quinn.get('/api/whoami')).status).toBe(200);
			await login('quinn', 'quinn-password-2');
			// An outsider reaches no workspace's settings: the page answers 404 before any password is looked at.
			expect((await action('changePassword', c.outsider, form('otto-password-1', 'otto-password-2'))).status).toBe(404);
			await login('otto');
			// The page says whether the form is offered: not to a token.
			const page = await pageOutcome(load((await pageEventOf(c.member, `/w/${WS}/settings`, { ws: WS })) as never));
			expect(page.data.account).toEqual({ username: 'mel', mayChangePassword: true, generatedPassword: false });
			const viaToken = new ApiClient().withBearer((await ok(c.member.post(`/api/w/${WS}/tokens`, { label: 'page' }), 201)).token);
			const tpage = await pageOutcome(load((await pageEventOf(viaToken, `/w/${WS}/settings`, { ws: WS })) as never));
			expect(tpage.data.account).toEqual({ username: 'mel', mayChangePassword: false, generatedPassword: false });
		});
	});

	describe('removing a member', () => {
		it('gates on the API and the page: 404 to an outsider, 403 to a member, 200 to an admin', async () => {
			for (const via of ['api', 'page'] as const) {
				const name = `gone-${via}`;
				await newMember(name);
				const remove = async (who: ApiClient) =>
					via === 'api' ? (await who.call('DELETE', `/api/w/${WS}/users/${name}`)).status : (await action('removeMember', who, { username: name })).status;
				expect(await remove(c.outsider)).toBe(404);
				expect(await remove(c.member)).toBe(403);
				expect(await count(sql`select count(*) as n from member where workspace = ${WS} and username = ${name}`)).toBe(1);
				expect(await remove(c.admin)).toBe(200);
				expect(await count(sql`select count(*) as n from member where workspace = ${WS} and username = ${name}`)).toBe(0);
				expect(await remove(c.admin)).toBe(404);
			}
			const narrow = new ApiClient().withBearer((await ok(c.admin.post(`/api/w/${WS}/tokens`, { label: 'ro', scopes: ['users:read'] }), 201)).token);
			const r = await narrow.call('DELETE', `/api/w/${WS}/users/mel`);
			expect(r.status).toBe(403);
			expect(r.body.error).toContain('users:write');
		});

		it('takes its groups, folder grants and tokens here with it; the account and other workspaces stay', async () => {
			const rex = await newMember('rex');
			await ok(root.post('/api/w/elsewhere/users', { username: 'rex' }), 201);
			await ok(root.post(`/api/w/${WS}/groups`, { name: 'rexes', members: ['rex', 'mel'] }), 201);
			await ok(root.post(`/api/w/${WS}/folders`, { name: 'rexland', readers: ['u/rex', 'g/rexes'], writers: ['u/rex', 'u/ada'] }), 201);
			const t1 = (await ok(rex.post(`/api/w/${WS}/tokens`, { label: 'a' }), 201)).token;
			await ok(rex.post(`/api/w/${WS}/tokens`, { label: 'b' }), 201);
			const elsewhere = (await ok(rex.post('/api/w/elsewhere/tokens', { label: 'e' }), 201)).token;
			const r = await ok(c.admin.call('DELETE', `/api/w/${WS}/users/rex`));
			expect(r).toEqual({ username: 'rex', removed: true, tokens_revoked: 2 });
			const folder = (await ok(root.get(`/api/w/${WS}/folders`))).find((f: any) => f.name === 'rexland');
			expect(folder).toEqual({ name: 'rexland', readers: ['g/rexes'], writers: ['u/ada'] });
			expect((await ok(root.get(`/api/w/${WS}/groups`))).find((g: any) => g.name === 'rexes').members).toEqual(['mel']);
			expect((await new ApiClient().withBearer(t1).get('/api/whoami')).status).toBe(401);
			// Added again, the same name inherits none of it.
			await ok(root.post(`/api/w/${WS}/users`, { username: 'rex' }), 201);
			expect((await new ApiClient().withBearer(t1).get('/api/whoami')).status).toBe(401);
			expect((await ok(rex.get(`/api/w/${WS}/tokens`))).length).toBe(0);
			expect((await new ApiClient().withBearer(elsewhere).get('/api/whoami')).status).toBe(200);
			expect((await rex.get('/api/w/elsewhere/tokens')).status).toBe(200);
		});

		it('the last admin stays (409, on the page too); a member may leave by removing themselves', async () => {
			await ok(root.post('/api/workspaces', { id: 'solo', name: 'Solo' }), 201);
			const r = await root.call('DELETE', '/api/w/solo/users/root');
			expect([r.status, r.body.error]).toEqual([409, 'username: root is the only admin of this workspace; make another member an admin first']);
			const page = await pageOutcome(actions.removeMember((await pageEventOf(root, '/w/solo/settings?/removeMember', { ws: 'solo' }, { username: 'root' })) as never));
			expect(page).toMatchObject({ status: 409, data: { section: 'members', target: 'root', field: 'username' } });
			const leaver = await newMember('leaver', true);
			const left = await action('removeMember', leaver, { username: 'leaver' });
			expect(left).toEqual({ status: 303, redirect: '/' });
			expect(await count(sql`select count(*) as n from member where workspace = ${WS} and username = 'leaver'`)).toBe(0);
			expect((await c.member.call('DELETE', `/api/w/${WS}/users/Not A Name`)).status).toBe(403);
			expect((await c.admin.call('DELETE', `/api/w/${WS}/users/${encodeURIComponent('bad name')}`)).status).toBe(400);
		});
	});

	describe("a folder's readers and writers", () => {
		it('the form (a checkbox per member or group) saves what the API then reads; gates for outsider, member, admin', async () => {
			const form = { name: 'analytics', target: 'analytics', readers: ['g/analysts', 'u/mel'], writers: ['u/ada'] };
			expect((await action('saveFolder', c.outsider, form)).status).toBe(404);
			expect(await action('saveFolder', c.member, form)).toMatchObject({ status: 403, data: { section: 'folders', target: 'analytics' } });
			expect((await ok(root.get(`/api/w/${WS}/folders`))).find((f: any) => f.name === 'analytics').readers).toEqual(['g/analysts']);
			const done = await action('saveFolder', c.admin, form);
			expect(done).toMatchObject({ status: 200, data: { section: 'folders', target: 'analytics', done: 'Saved f/analytics: 2 readers, 1 writer.' } });
			expect((await ok(root.get(`/api/w/${WS}/folders`))).find((f: any) => f.name === 'analytics')).toEqual({ name: 'analytics', readers: ['g/analysts', 'u/mel'], writers: ['u/ada'] });
			// The API under the same gates.
			const body = { name: 'analytics', readers: ['g/analysts'], writers: ['u/ada'] };
			expect((await c.outsider.post(`/api/w/${WS}/folders`, body)).status).toBe(404);
			expect((await c.member.post(`/api/w/${WS}/folders`, body)).status).toBe(403);
			expect((await c.admin.post(`/api/w/${WS}/folders`, body)).status).toBe(200);
		});

		it('a refusal names its field: an unknown grantee under readers or writers, a bad new folder name', async () => {
			expect(await action('saveFolder', c.admin, { name: 'analytics', target: 'analytics', readers: ['u/nobody'] })).toMatchObject({
				status: 400,
				data: { field: 'readers', adminError: 'readers names no member or group of this workspace: u/nobody' }
			});
			expect(await action('saveFolder', c.admin, { name: 'analytics', target: 'analytics', writers: ['g/ghosts'] })).toMatchObject({ status: 400, data: { field: 'writers' } });
			expect(await action('saveFolder', c.admin, { name: 'no good', target: 'new' })).toMatchObject({ status: 400, data: { target: 'new', field: 'name' } });
		});
	});

	describe("a warehouse's settings", () => {
		const form = (extra: Record<string, string | string[]> = {}) => ({
			target: 'new',
			name: 'prod',
			type: 'postgres',
			default_database: 'analytics',
			network: 'on',
			folders: 'analytics finance',
			openlineage_namespace: 'postgres://db:5432',
			setting_key: ['host', 'port', 'schema', ''],
			setting_value: ['db.internal', '5432', 'dbt', ''],
			secret_key: ['DBT_PASSWORD'],
			secret_value: ['s3cret-one'],
			...extra
		});

		it('the form saves what the API then reads (secrets masked); gates for outsider, member, admin', async () => {
			expect((await action('saveWarehouse', c.outsider, form())).status).toBe(404);
			expect((await action('saveWarehouse', c.member, form())).status).toBe(403);
			expect((await ok(root.get(`/api/w/${WS}/warehouses`))).some((w: any) => w.name === 'prod')).toBe(false);
			expect(await action('saveWarehouse', c.admin, form())).toMatchObject({ status: 200, data: { done: 'Saved warehouse prod.' } });
			const prod = (await ok(root.get(`/api/w/${WS}/warehouses`))).find((w: any) => w.name === 'prod');
			expect(prod).toEqual({
				name: 'prod',
				default_database: 'analytics',
				settings: {
					type: 'postgres',
					network: true,
					folders: ['analytics', 'finance'],
					openlineage_namespace: 'postgres://db:5432',
					host: 'db.internal',
					port: 5432,
					schema: 'dbt',
					secrets: { DBT_PASSWORD: '***' }
				}
			});
			expect((await getWarehouseWithSecrets(database, WS, 'prod'))!.secrets).toEqual({ DBT_PASSWORD: 's3cret-one' });
			// The page's load shows it as the form's fields, without the secret's value.
			const page = await pageOutcome(load((await pageEventOf(c.admin, `/w/${WS}/settings`, { ws: WS })) as never));
			const shown = page.data.admin.warehouseForms.find((w: any) => w.name === 'prod');
			expect(shown).toEqual({
				name: 'prod',
				default_database: 'analytics',
				type: 'postgres',
				network: 'on',
				folders: 'analytics finance',
				openlineage_namespace: 'postgres://db:5432',
				rows: [
					{ key: 'host', value: 'db.internal' },
					{ key: 'port', value: '5432' },
					{ key: 'schema', value: 'dbt' }
				],
				secrets: ['DBT_PASSWORD']
			});
			expect(JSON.stringify(page.data)).not.toContain('s3cret-one');
			// The API under the same gates.
			const body = { name: 'prod', settings: { type: 'postgres' } };
			expect((await c.outsider.post(`/api/w/${WS}/warehouses`, body)).status).toBe(404);
			expect((await c.member.post(`/api/w/${WS}/warehouses`, body)).status).toBe(403);
		});

		it('saved again as shown, nothing changes: a stored secret left empty keeps its value; one ticked "remove" goes', async () => {
			const again = form({ target: 'prod', secret_stored: ['DBT_PASSWORD'], secret_key: ['DBT_PASSWORD', 'DBT_TOKEN'], secret_value: ['', 'tok-1'] });
			expect((await action('saveWarehouse', c.admin, again)).status).toBe(200);
			expect((await getWarehouseWithSecrets(database, WS, 'prod'))!.secrets).toEqual({ DBT_PASSWORD: 's3cret-one', DBT_TOKEN: 'tok-1' });
			const removed = form({ target: 'prod', secret_stored: ['DBT_PASSWORD', 'DBT_TOKEN'], secret_key: ['DBT_PASSWORD', 'DBT_TOKEN'], secret_value: ['', ''], secret_remove: ['DBT_TOKEN'] });
			expect((await action('saveWarehouse', c.admin, removed)).status).toBe(200);
			expect((await getWarehouseWithSecrets(database, WS, 'prod'))!.secrets).toEqual({ DBT_PASSWORD: 's3cret-one' });
			// A row emptied removes its setting.
			expect((await action('saveWarehouse', c.admin, form({ target: 'prod', secret_stored: ['DBT_PASSWORD'], secret_value: [''], setting_value: ['db.internal', '', 'dbt', ''] }))).status).toBe(200);
			expect((await ok(root.get(`/api/w/${WS}/warehouses`))).find((w: any) => w.name === 'prod').settings).not.toHaveProperty('port');
		});

		it.each([
			['a bad folder list', { folders: '../up' }, 'settings.folders'],
			['a row naming a field of its own', { setting_key: ['network'], setting_value: ['true'] }, 'settings'],
			['a row that is broken JSON', { setting_key: ['extra'], setting_value: ['{"a":'] }, 'settings'],
			['a new secret without a value', { secret_key: ['NEW_ONE'], secret_value: [''] }, 'settings.secrets'],
			['a bad name', { name: 'not ok' }, 'name']
		])('a refusal names its field: %s', async (_case, extra, field) => {
			const r = await action('saveWarehouse', c.admin, form({ target: 'new', ...extra }));
			expect(r).toMatchObject({ status: 400, data: { section: 'warehouses', target: 'new', field } });
		});
	});

	describe("every member's tokens (an admin's list, to revoke)", () => {
		it('GET tokens?all=true: 404 to an outsider, 403 to a member, every token with its owner to an admin; the page lists them for an admin', async () => {
			const mine = (await ok(c.member.post(`/api/w/${WS}/tokens`, { label: 'mel-listed', scopes: ['assets:read'] }), 201)).id;
			expect((await c.outsider.get(`/api/w/${WS}/tokens?all=true`)).status).toBe(404);
			const refused = await c.member.get(`/api/w/${WS}/tokens?all=true`);
			expect(refused.status).toBe(403);
			// Without all=true the member still lists its own, as before.
			expect((await ok(c.member.get(`/api/w/${WS}/tokens`))).some((t: any) => t.id === mine)).toBe(true);
			const all = await ok(c.admin.get(`/api/w/${WS}/tokens?all=true`));
			expect(all.find((t: any) => t.id === mine)).toMatchObject({ owner: 'mel', label: 'mel-listed', scopes: ['assets:read'] });
			expect(all.length).toBe(await count(sql`select count(*) as n from api_token where workspace = ${WS}`));
			expect(JSON.stringify(all)).not.toMatch(/"(hash|token)"/);
			const narrow = new ApiClient().withBearer((await ok(c.admin.post(`/api/w/${WS}/tokens`, { label: 'no-read', scopes: ['users:read'] }), 201)).token);
			expect((await narrow.get(`/api/w/${WS}/tokens?all=true`)).status).toBe(403);
			const page = await pageOutcome(load((await pageEventOf(c.admin, `/w/${WS}/settings`, { ws: WS })) as never));
			const now = await ok(c.admin.get(`/api/w/${WS}/tokens?all=true`));
			expect(now.length).toBe(all.length + 1);
			expect(page.data.admin.tokens.map((t: any) => t.id).sort()).toEqual(now.map((t: any) => t.id).sort());
			const npage = await pageOutcome(load((await pageEventOf(narrow, `/w/${WS}/settings`, { ws: WS })) as never));
			expect(npage.data.admin.tokens).toBeNull();
			const revoked = await action('revokeToken', c.admin, { id: mine, from: 'all' });
			expect(revoked).toEqual({ status: 200, data: { revoked: 'mel-listed', from: 'all' } });
		});
	});

	describe('revoking a token', () => {
		it.each([
			['an outsider', 'outsider', 404],
			["a member, another member's token", 'member', 404],
			["an admin, a member's token", 'admin', 200]
		] as const)('%s → %i, on the page and in the API', async (_case, who, status) => {
			const owner = await login('pat', 'pat-password-2');
			for (const via of ['page', 'api'] as const) {
				const id = (await ok(owner.post(`/api/w/${WS}/tokens`, { label: `revoke-${via}` }), 201)).id as string;
				const got = via === 'page' ? (await action('revokeToken', c[who], { id })).status : (await c[who].call('DELETE', `/api/w/${WS}/tokens/${id}`)).status;
				expect(got).toBe(status);
				expect((await ok(owner.get(`/api/w/${WS}/tokens`))).some((t: any) => t.id === id)).toBe(status !== 200);
			}
		});
	});
});

describe.each(testBackends())('the password generated at first start, on $name', (backend) => {
	let database: Database;
	let restoreAdmin: () => void;

	beforeAll(async () => {
		database = await backend.open();
		setDatabase(database);
		// No password given: bootstrap generates one, as a first start without TRIBUTARY_ADMIN_PASSWORD does.
		restoreAdmin = useInstanceAdmin({ username: 'first', password: '' });
	});
	afterAll(async () => {
		restoreAdmin?.();
		await database?.close();
	});

	it('is marked until changed: the settings page asks to change it, and stops asking once it is', async () => {
		const boot = await bootstrap(database);
		expect(boot.generatedPassword).toMatch(/^\S{20}$/);
		const first = await login('first', boot.generatedPassword);
		const r = await first.post('/api/workspaces', { id: 'home', name: 'Home' });
		expect(r.status).toBe(201);
		const account = async () => (await pageOutcome(load((await pageEventOf(first, '/w/home/settings', { ws: 'home' })) as never))).data.account;
		expect(await account()).toEqual({ username: 'first', mayChangePassword: true, generatedPassword: true });
		// A second start leaves the mark (and the password) alone.
		expect(await bootstrap(database)).toEqual({ adminCreated: false });
		expect((await account()).generatedPassword).toBe(true);
		const changed = await first.post('/api/auth/password', { current_password: boot.generatedPassword, new_password: 'first-chosen-password' });
		expect(changed.status, JSON.stringify(changed.body)).toBe(200);
		expect(await account()).toEqual({ username: 'first', mayChangePassword: true, generatedPassword: false });
	});
});

