import { json } from '@sveltejs/kit';
import { requireAdminAccess, workspacePrincipal } from '$lib/server/access';
import { parseWarehouseInput } from '$lib/server/auth/admin-input';
import { getDatabase } from '$lib/server/db';
import { handleApi, readJsonObject } from '$lib/server/http';
import { listWarehouses, upsertWarehouse, type WarehouseView } from '$lib/server/repo/warehouses';
import type { RequestHandler } from './$types';

// Secrets are masked by the repo (`"***"` per key); this only renames fields for the API.
const view = (w: WarehouseView) => ({ name: w.name, default_database: w.defaultDatabase, settings: w.settings });

export const GET: RequestHandler = handleApi(async (event) => {
	const p = await workspacePrincipal(event, event.params.ws);
	requireAdminAccess(p, 'warehouses', 'read');
	return json((await listWarehouses(await getDatabase(), p.workspace)).map(view));
});

export const POST: RequestHandler = handleApi(async (event) => {
	const p = await workspacePrincipal(event, event.params.ws);
	requireAdminAccess(p, 'warehouses', 'write');
	const input = parseWarehouseInput(await readJsonObject(event.request));
	const { created, warehouse } = await upsertWarehouse(await getDatabase(), p.workspace, input);
	return json(view(warehouse), { status: created ? 201 : 200 });
});
