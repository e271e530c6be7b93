// The OpenLineage namespace mapping as the settings page manages it (the same gate and input
// rules as the namespaces endpoint).
import type { Grant } from '../../access';
import { getDatabase } from '../../db';
import { parseNamespaceInput } from '../../openlineage-in/namespaces';
import { deleteNamespace, listNamespaces, setNamespace, type NamespaceMapping } from '../../repo/openlineage-in';

export async function listNamespacesAs(grant: Grant): Promise<NamespaceMapping[]> {
	grant.requireAdministers('openlineage', 'read');
	return listNamespaces(await getDatabase(), grant.workspace);
}

/** What a namespace change did: the mapping as stored, whether it is new, how many it removed. */
export interface NamespaceChange {
	input: { namespace: string; folder: string | null };
	created: boolean;
	removed: boolean;
}

/** Maps a job namespace into a folder; a null folder removes the mapping. */
export async function changeNamespaceAs(grant: Grant, body: Record<string, unknown>): Promise<NamespaceChange> {
	grant.requireAdministers('openlineage', 'write');
	const database = await getDatabase();
	const input = await parseNamespaceInput(database, grant.workspace, body);
	if (input.folder === null) return { input, created: false, removed: await deleteNamespace(database, grant.workspace, input.namespace) };
	const created = await setNamespace(database, grant.workspace, { namespace: input.namespace, folder: input.folder }, grant.username);
	return { input, created, removed: false };
}
