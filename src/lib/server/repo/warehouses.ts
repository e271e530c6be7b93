// Warehouses: a name, the default database, the dbt profile target (`settings`) and write-only
// `secrets`. Only getWarehouseWithSecrets returns secret values, and only the runner calls it.
import { and, eq } from 'drizzle-orm';
import type { Database } from '../db';
import { warehouse } from '../schema';

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
	h: Database,
	ws: string,
	w: { name: string; defaultDatabase: string | null; settings: Record<string, unknown>; secrets?: Record<string, string> }
): Promise<{ created: boolean; warehouse: WarehouseView }> {
	return h.db.transaction(async (tx) => {
		const [old] = await tx
			.select(columns)
			.from(warehouse)
			.where(and(eq(warehouse.workspace, ws), eq(warehouse.name, w.name)))
			.for('update');
		const stored = asObject(old?.secrets) as Record<string, string>;
		let secrets: Record<string, string>;
		if (w.secrets === undefined) secrets = stored;
		else {
			secrets = {};
			for (const [k, v] of Object.entries(w.secrets)) {
				if (v !== SECRET_MASK) secrets[k] = v;
				else if (k in stored) secrets[k] = stored[k];
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

export async function listWarehouses(h: Database, ws: string): Promise<WarehouseView[]> {
	const rows = await h.db.select(columns).from(warehouse).where(eq(warehouse.workspace, ws)).orderBy(warehouse.name);
	return rows.map(view);
}

export async function getWarehouse(h: Database, ws: string, name: string): Promise<WarehouseView | null> {
	const [r] = await h.db
		.select(columns)
		.from(warehouse)
		.where(and(eq(warehouse.workspace, ws), eq(warehouse.name, name)));
	return r ? view(r) : null;
}

/** For the runner only: the secrets reach dbt as environment variables, never an API answer. */
export async function getWarehouseWithSecrets(h: Database, ws: string, name: string): Promise<WarehouseWithSecrets | null> {
	const [r] = await h.db
		.select(columns)
		.from(warehouse)
		.where(and(eq(warehouse.workspace, ws), eq(warehouse.name, name)));
	if (!r) return null;
	return {
		name: r.name,
		defaultDatabase: r.defaultDatabase,
		settings: asObject(r.settings),
		secrets: asObject(r.secrets) as Record<string, string>
	};
}
