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

/** What a namespace change did: the mapping as stored, whether it is new, how many it removed. */
export interface NamespaceChange {
	input: { namespace: string; folder: string | null };
	created: boolean;
	removed: boolean;
}

/** Maps a job namespace into a folder; a null folder removes the mapping. */
export async function changeNamespaceAs(p: Principal, body: Record<string, unknown>): Promise<NamespaceChange> {
	requireAdminAccess(p, 'openlineage', 'write');
	const database = await getDatabase();
	const input = await parseNamespaceInput(database, p.workspace, body);
	if (input.folder === null) return { input, created: false, removed: await deleteNamespace(database, p.workspace, input.namespace) };
	const created = await setNamespace(database, p.workspace, { namespace: input.namespace, folder: input.folder }, p.username);
	return { input, created, removed: false };
}
