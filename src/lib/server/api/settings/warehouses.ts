// Warehouses, gated here for the API route and the settings page alike. Secrets are masked by
// the repo (`"***"` per key) in every answer.
import type { Grant } from '../../access';
import { parseWarehouseInput } from '../../auth/admin-input';
import { getDatabase } from '../../db';
import { listWarehouses, upsertWarehouse, type WarehouseView } from '../../repo/warehouses';

export interface WarehouseApiView {
	name: string;
	default_database: string | null;
	settings: Record<string, unknown>;
}

const view = (w: WarehouseView): WarehouseApiView => ({ name: w.name, default_database: w.defaultDatabase, settings: w.settings });

export async function listWarehousesAs(grant: Grant): Promise<WarehouseApiView[]> {
	grant.requireAdministers('warehouses', 'read');
	return (await listWarehouses(await getDatabase(), grant.workspace)).map(view);
}

export async function saveWarehouseAs(grant: Grant, body: Record<string, unknown>): Promise<{ created: boolean; warehouse: WarehouseApiView }> {
	grant.requireAdministers('warehouses', 'write');
	const { created, warehouse } = await upsertWarehouse(await getDatabase(), grant.workspace, parseWarehouseInput(body));
	return { created, warehouse: view(warehouse) };
}
