import { json } from '@sveltejs/kit';
import { workspaceGrant } from '$lib/server/access';
import { listWarehousesAs, saveWarehouseAs } from '$lib/server/api/settings/warehouses';
import { handleApi, readJsonObject } from '$lib/server/http';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const grant = await workspaceGrant(event, event.params.ws);
	return json(await listWarehousesAs(grant));
});

export const POST: RequestHandler = handleApi(async (event) => {
	const grant = await workspaceGrant(event, event.params.ws);
	const { created, warehouse } = await saveWarehouseAs(grant, await readJsonObject(event.request));
	return json(warehouse, { status: created ? 201 : 200 });
});
