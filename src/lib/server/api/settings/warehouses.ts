// Warehouses, gated here for the API route and the settings page alike. Secrets are masked by
// the repo (`"***"` per key) in every answer.
import { requireAdminAccess, type Principal } from '../../access';
import { parseWarehouseInput } from '../../auth/admin-input';
import { getDatabase } from '../../db';
import { listWarehouses, upsertWarehouse, type WarehouseView } from '../../repo/warehouses';

export interface WarehouseApiView {
	name: string;
	default_database: string | null;
	settings: Record<string, unknown>;
}

const view = (w: WarehouseView): WarehouseApiView => ({ name: w.name, default_database: w.defaultDatabase, settings: w.settings });

export async function listWarehousesAs(p: Principal): Promise<WarehouseApiView[]> {
	requireAdminAccess(p, 'warehouses', 'read');
	return (await listWarehouses(await getDatabase(), p.workspace)).map(view);
}

export async function saveWarehouseAs(p: Principal, body: Record<string, unknown>): Promise<{ created: boolean; warehouse: WarehouseApiView }> {
	requireAdminAccess(p, 'warehouses', 'write');
	const { created, warehouse } = await upsertWarehouse(await getDatabase(), p.workspace, parseWarehouseInput(body));
	return { created, warehouse: view(warehouse) };
}
