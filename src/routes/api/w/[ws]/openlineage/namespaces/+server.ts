// GET/POST openlineage/namespaces: which folder each OpenLineage job namespace writes into
// (`*`: the workspace default). A workspace admin's, like folders (token scope openlineage:*).
import { json } from '@sveltejs/kit';
import { workspaceGrant } from '$lib/server/access';
import { changeNamespaceAs, listNamespacesAs } from '$lib/server/api/settings/namespaces';
import { handleApi, readJsonObject } from '$lib/server/http';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => json(await listNamespacesAs(await workspaceGrant(event, event.params.ws))));

/** `{namespace, folder}` maps the namespace (201 new, 200 replaced); `folder: null` removes the mapping. */
export const POST: RequestHandler = handleApi(async (event) => {
	const grant = await workspaceGrant(event, event.params.ws);
	const change = await changeNamespaceAs(grant, await readJsonObject(event.request));
	if (change.input.folder === null) return json({ ...change.input, removed: change.removed });
	return json(change.input, { status: change.created ? 201 : 200 });
});
