// GET/POST openlineage/namespaces: which folder each OpenLineage job namespace writes into
// (`*`: the workspace default). A workspace admin's, like folders (token scope openlineage:*).
import { json } from '@sveltejs/kit';
import { requireAdminAccess, workspacePrincipal } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { handleApi, readJsonObject } from '$lib/server/http';
import { parseNamespaceInput } from '$lib/server/openlineage-in/namespaces';
import { deleteNamespace, listNamespaces, setNamespace } from '$lib/server/repo/openlineage-in';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const p = await workspacePrincipal(event, event.params.ws);
	requireAdminAccess(p, 'openlineage', 'read');
	return json(await listNamespaces(await getDatabase(), p.workspace));
});

/** `{namespace, folder}` maps the namespace (201 new, 200 replaced); `folder: null` removes the mapping. */
export const POST: RequestHandler = handleApi(async (event) => {
	const p = await workspacePrincipal(event, event.params.ws);
	requireAdminAccess(p, 'openlineage', 'write');
	const h = await getDatabase();
	const input = await parseNamespaceInput(h, p.workspace, await readJsonObject(event.request));
	if (input.folder === null) return json({ namespace: input.namespace, folder: null, removed: await deleteNamespace(h, p.workspace, input.namespace) });
	const created = await setNamespace(h, p.workspace, { namespace: input.namespace, folder: input.folder }, p.username);
	return json(input, { status: created ? 201 : 200 });
});
