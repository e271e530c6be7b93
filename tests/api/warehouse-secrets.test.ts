// Warehouse secrets at rest: sealed with AES-GCM under a key derived from
// TRIBUTARY_ENCRYPTION_KEY (else the share-link secret), opened only by the runner's read,
// rows written before encryption still read and are sealed at start, and a rotation through
// TRIBUTARY_ENCRYPTION_KEY_PREVIOUS. Plus the validation of the warehouse's sandbox settings.
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap } from '../../src/lib/server/bootstrap';
import { setDatabase, type Database } from '../../src/lib/server/db';
import { getWarehouseWithSecrets, sealStoredSecrets } from '../../src/lib/server/repo/warehouses';
import { ApiClient } from '../support/api';
import { testBackends } from '../support/db';

const SECRET = 'warehouse-password-in-clear';
const KEYS = ['TRIBUTARY_ENCRYPTION_KEY', 'TRIBUTARY_ENCRYPTION_KEY_PREVIOUS', 'TRIBUTARY_SECRET', 'TRIBUTARY_ADMIN_USER', 'TRIBUTARY_ADMIN_PASSWORD'] as const;

describe.each(testBackends())('warehouse secrets at rest on $name', (backend) => {
	let database: Database;
	let root: ApiClient;
	const saved = Object.fromEntries(KEYS.map((k) => [k, process.env[k]]));
	const restoreKeys = () => {
		for (const k of ['TRIBUTARY_ENCRYPTION_KEY', 'TRIBUTARY_ENCRYPTION_KEY_PREVIOUS', 'TRIBUTARY_SECRET'] as const) delete process.env[k];
	};

	const stored = async (name: string) =>
		(await database.rows<{ secrets: Record<string, string> }>(sql`select secrets from warehouse where workspace = 'vault' and name = ${name}`))[0].secrets;
	const save = async (name: string, secrets: Record<string, string>, status = 201) => {
		const r = await root.post('/api/w/vault/warehouses', { name, settings: { type: 'postgres', host: 'db', secrets } });
		expect(r.status, JSON.stringify(r.body)).toBe(status);
		return r;
	};

	beforeAll(async () => {
		restoreKeys();
		database = await backend.open();
		setDatabase(database);
		process.env.TRIBUTARY_ADMIN_USER = 'root';
		process.env.TRIBUTARY_ADMIN_PASSWORD = 'root-password-1';
		await bootstrap(database);
		root = new ApiClient();
		expect((await root.post('/api/auth/login', { username: 'root', password: 'root-password-1' })).status).toBe(200);
		expect((await root.post('/api/workspaces', { id: 'vault', name: 'Vault' })).status).toBe(201);
	});
	afterEach(restoreKeys);
	afterAll(async () => {
		for (const k of KEYS) {
			if (saved[k] === undefined) delete process.env[k];
			else process.env[k] = saved[k];
		}
		await database?.close();
	});

	it('with no key configured: sealed under the stored secret, opened by the runner read, never in clear', async () => {
		await save('derived', { password: SECRET });
		const row = await stored('derived');
		expect(row.password).toMatch(/^enc:v1:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/);
		expect(JSON.stringify(row)).not.toContain(SECRET);
		expect((await getWarehouseWithSecrets(database, 'vault', 'derived'))!.secrets).toEqual({ password: SECRET });
		// The same value sealed twice differs (a fresh nonce each time).
		await save('derived', { password: SECRET }, 200);
		expect((await stored('derived')).password).not.toBe(row.password);
	});

	it('a sealed value copied into another warehouse does not open there', async () => {
		await save('first', { password: SECRET });
		await save('second', { password: 'other' });
		const moved = (await stored('first')).password;
		await database.rows(sql`update warehouse set secrets = ${JSON.stringify({ password: moved })}::jsonb where workspace = 'vault' and name = 'second'`);
		await expect(getWarehouseWithSecrets(database, 'vault', 'second')).rejects.toThrow(/vault\/second\/password does not open with this process's key/);
	});

	it('rows stored in clear before encryption still read, and are sealed at start', async () => {
		process.env.TRIBUTARY_ENCRYPTION_KEY = 'key-one';
		await database.rows(
			sql`insert into warehouse (workspace, name, settings, secrets) values ('vault', 'legacy', '{"type":"postgres"}'::jsonb, ${JSON.stringify({ password: SECRET, DBT_TOKEN: 'tok-123' })}::jsonb)`
		);
		expect((await getWarehouseWithSecrets(database, 'vault', 'legacy'))!.secrets).toEqual({ password: SECRET, DBT_TOKEN: 'tok-123' });
		const sealed = await sealStoredSecrets(database);
		// The two legacy values, and the two earlier warehouses' values sealed under the stored secret's key.
		expect(sealed.unreadable).toEqual(['vault/second/password']);
		expect(sealed.resealed).toBe(2 + 2);
		const row = await stored('legacy');
		expect(Object.values(row).every((v) => v.startsWith('enc:v1:'))).toBe(true);
		expect(JSON.stringify(row)).not.toContain(SECRET);
		expect((await getWarehouseWithSecrets(database, 'vault', 'legacy'))!.secrets).toEqual({ password: SECRET, DBT_TOKEN: 'tok-123' });
		expect((await getWarehouseWithSecrets(database, 'vault', 'derived'))!.secrets).toEqual({ password: SECRET });
		expect((await sealStoredSecrets(database)).resealed).toBe(0);
	});

	it('rotation: the new key with the old one as previous opens everything, start reseals, then the old key is not needed', async () => {
		process.env.TRIBUTARY_ENCRYPTION_KEY = 'key-one';
		await save('rotated', { password: SECRET });
		process.env.TRIBUTARY_ENCRYPTION_KEY = 'key-two';
		await expect(getWarehouseWithSecrets(database, 'vault', 'rotated')).rejects.toThrow(/TRIBUTARY_ENCRYPTION_KEY_PREVIOUS/);
		process.env.TRIBUTARY_ENCRYPTION_KEY_PREVIOUS = 'key-one';
		expect((await getWarehouseWithSecrets(database, 'vault', 'rotated'))!.secrets).toEqual({ password: SECRET });
		expect((await sealStoredSecrets(database)).resealed).toBeGreaterThanOrEqual(1);
		delete process.env.TRIBUTARY_ENCRYPTION_KEY_PREVIOUS;
		expect((await getWarehouseWithSecrets(database, 'vault', 'rotated'))!.secrets).toEqual({ password: SECRET });
		expect((await getWarehouseWithSecrets(database, 'vault', 'legacy'))!.secrets).toEqual({ password: SECRET, DBT_TOKEN: 'tok-123' });
	});

	it.each([
		[{ network: 'yes' }, /settings\.network must be true or false/],
		[{ folders: 'analytics' }, /settings\.folders must be a list of folder names/],
		[{ folders: ['ok', '../up'] }, /settings\.folders must be a list of folder names/],
		[{ folders: ['u/'] }, /settings\.folders must be a list of folder names/]
	])('refuses bad sandbox settings %j with a 400 naming the field', async (settings, message) => {
		const r = await root.post('/api/w/vault/warehouses', { name: 'bad', settings: { type: 'duckdb', ...settings } });
		expect(r.status).toBe(400);
		expect(JSON.stringify(r.body)).toMatch(message);
	});

	it('accepts network and folders, and shows them back', async () => {
		const r = await root.post('/api/w/vault/warehouses', { name: 'scoped', settings: { type: 'duckdb', network: true, folders: ['analytics', 'u/alice'] } });
		expect(r.status).toBe(201);
		expect(r.body.settings).toEqual({ type: 'duckdb', network: true, folders: ['analytics', 'u/alice'] });
	});
});
