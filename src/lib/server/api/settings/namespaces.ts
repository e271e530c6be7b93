// The OpenLineage namespace mapping as the settings page manages it (the same gate and input
// rules as the namespaces endpoint).
import { requireAdminAccess, type Principal } from '../../access';
import { getDatabase } from '../../db';
import { parseNamespaceInput } from '../../openlineage-in/namespaces';
import { deleteNamespace, listNamespaces, setNamespace, type NamespaceMapping } from '../../repo/openlineage-in';

export async function listNamespacesAs(p: Principal): Promise<NamespaceMapping[]> {
	requireAdminAccess(p, 'openlineage', 'read');
	return listNamespaces(await getDatabase(), p.workspace);
}

/** Maps a job namespace into a folder; a null folder removes the mapping. */
export async function saveNamespaceAs(p: Principal, body: { namespace: string; folder: string | null }): Promise<{ namespace: string; folder: string | null }> {
	requireAdminAccess(p, 'openlineage', 'write');
	const h = await getDatabase();
	const input = await parseNamespaceInput(h, p.workspace, body);
	if (input.folder === null) await deleteNamespace(h, p.workspace, input.namespace);
	else await setNamespace(h, p.workspace, { namespace: input.namespace, folder: input.folder }, p.username);
	return input;
}
