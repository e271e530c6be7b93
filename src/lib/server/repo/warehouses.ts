// Warehouses: a name, the default database, the dbt profile target (`settings`) and write-only
// `secrets`, stored sealed (../secret-box.ts). Only getWarehouseWithSecrets opens them, and only
// the runner calls it.
import { and, eq } from 'drizzle-orm';
import type { Database } from '../db';
import { warehouse } from '../schema';
import { FORK_UNSET_SECRET } from './fork';
import { isSealed, openSecret, sealSecret, secretKeys, secretPlace, SecretUnreadable } from '../secret-box';

export const SECRET_MASK = '***';

/** What every read shows: secrets replaced by the mask, key by key. */
export interface WarehouseView {
	name: string;
	defaultDatabase: string | null;
	settings: Record<string, unknown>;
}

export interface WarehouseWithSecrets {
	name: string;
	defaultDatabase: string | null;
	settings: Record<string, unknown>;
	secrets: Record<string, string>;
}

type Row = { name: string; defaultDatabase: string | null; settings: unknown; secrets: unknown };

const asObject = (v: unknown): Record<string, unknown> =>
	v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

function view(r: Row): WarehouseView {
	const secrets = asObject(r.secrets);
	const settings: Record<string, unknown> = { ...asObject(r.settings) };
	const keys = Object.keys(secrets).sort();
	if (keys.length > 0) settings.secrets = Object.fromEntries(keys.map((k) => [k, SECRET_MASK]));
	return { name: r.name, defaultDatabase: r.defaultDatabase, settings };
}

const columns = {
	name: warehouse.name,
	defaultDatabase: warehouse.defaultDatabase,
	settings: warehouse.settings,
	secrets: warehouse.secrets
};

/**
 * Creates or replaces a warehouse. `secrets` undefined keeps the stored secrets; otherwise it
 * replaces them, except that a value equal to the mask keeps that key's stored value (so a
 * form that round-trips what a read showed does not wipe the password).
 */
export async function upsertWarehouse(
	database: Database,
	ws: string,
	w: { name: string; defaultDatabase: string | null; settings: Record<string, unknown>; secrets?: Record<string, string> }
): Promise<{ created: boolean; warehouse: WarehouseView }> {
	const keys = await secretKeys(database);
	const seal = (k: string, v: string) => (isSealed(v) ? v : sealSecret(keys.current, secretPlace(ws, w.name, k), v));
	return database.db.transaction(async (tx) => {
		const [old] = await tx
			.select(columns)
			.from(warehouse)
			.where(and(eq(warehouse.workspace, ws), eq(warehouse.name, w.name)))
			.for('update');
		const stored = asObject(old?.secrets) as Record<string, string>;
		let secrets: Record<string, string>;
		if (w.secrets === undefined) secrets = Object.fromEntries(Object.entries(stored).map(([k, v]) => [k, seal(k, v)]));
		else {
			secrets = {};
			for (const [k, v] of Object.entries(w.secrets)) {
				// A new value is sealed here; a kept one stays as stored (sealed, or sealed now if it predates encryption).
				if (v !== SECRET_MASK) secrets[k] = sealSecret(keys.current, secretPlace(ws, w.name, k), v);
				else if (k in stored) secrets[k] = seal(k, stored[k]);
			}
		}
		const values = { defaultDatabase: w.defaultDatabase, settings: w.settings, secrets };
		const [row] = await tx
			.insert(warehouse)
			.values({ workspace: ws, name: w.name, ...values })
			.onConflictDoUpdate({ target: [warehouse.workspace, warehouse.name], set: values })
			.returning(columns);
		return { created: !old, warehouse: view(row) };
	});
}

export async function listWarehouses(database: Database, ws: string): Promise<WarehouseView[]> {
	const rows = await database.db.select(columns).from(warehouse).where(eq(warehouse.workspace, ws)).orderBy(warehouse.name);
	return rows.map(view);
}

export async function getWarehouse(database: Database, ws: string, name: string): Promise<WarehouseView | null> {
	const [r] = await database.db
		.select(columns)
		.from(warehouse)
		.where(and(eq(warehouse.workspace, ws), eq(warehouse.name, name)));
	return r ? view(r) : null;
}

/** For the runner only: the secrets, opened, reach dbt as environment variables, never an API answer. */
export async function getWarehouseWithSecrets(database: Database, ws: string, name: string): Promise<WarehouseWithSecrets | null> {
	const [r] = await database.db
		.select(columns)
		.from(warehouse)
		.where(and(eq(warehouse.workspace, ws), eq(warehouse.name, name)));
	if (!r) return null;
	const stored = asObject(r.secrets);
	const secrets: Record<string, string> = {};
	if (Object.keys(stored).length) {
		const keys = await secretKeys(database);
		const unset: string[] = [];
		for (const [k, v] of Object.entries(stored)) {
			if (typeof v !== 'string') continue;
			secrets[k] = openSecret(keys, secretPlace(ws, r.name, k), v).value;
			if (secrets[k] === FORK_UNSET_SECRET) unset.push(k);
		}
		if (unset.length) {
			throw new SecretUnreadable(
				`the warehouse "${r.name}" came with this workspace's fork without its secrets (${unset.sort().join(', ')}): a workspace admin sets them under Settings → Warehouses before anything runs against it`
			);
		}
	}
	return { name: r.name, defaultDatabase: r.defaultDatabase, settings: asObject(r.settings), secrets };
}

/**
 * At start: every stored secret not sealed under the current key (plain text from before
 * encryption, or sealed under the previous key of a rotation) is sealed under it. Answers how
 * many values were resealed, and the places of those no key opens (left as they are).
 */
export async function sealStoredSecrets(database: Database): Promise<{ resealed: number; unreadable: string[] }> {
	const keys = await secretKeys(database, { withInstanceSecret: true });
	return database.db.transaction(async (tx) => {
		const rows = await tx.select({ workspace: warehouse.workspace, ...columns }).from(warehouse).for('update');
		let resealed = 0;
		const unreadable: string[] = [];
		for (const r of rows) {
			const stored = asObject(r.secrets);
			let changed = false;
			const next: Record<string, unknown> = {};
			for (const [k, v] of Object.entries(stored)) {
				if (typeof v !== 'string') continue;
				const place = secretPlace(r.workspace, r.name, k);
				let opened: { value: string; current: boolean };
				try {
					opened = openSecret(keys, place, v);
				} catch (e) {
					if (!(e instanceof SecretUnreadable)) throw e;
					unreadable.push(place);
					next[k] = v;
					continue;
				}
				if (opened.current) next[k] = v;
				else {
					next[k] = sealSecret(keys.current, place, opened.value);
					changed = true;
					resealed++;
				}
			}
			if (changed) await tx.update(warehouse).set({ secrets: next }).where(and(eq(warehouse.workspace, r.workspace), eq(warehouse.name, r.name)));
		}
		return { resealed, unreadable };
	});
}
