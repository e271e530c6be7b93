// Groups of a workspace, gated here for the API route and the settings page alike.
import type { Grant } from '../../access';
import { parseGroupInput } from '../../auth/admin-input';
import { getDatabase } from '../../db';
import { listGroups, replaceGroup, type GroupRow } from '../../repo/groups';

export async function listGroupsAs(grant: Grant): Promise<GroupRow[]> {
	grant.requireAdministers('groups', 'read');
	return listGroups(await getDatabase(), grant.workspace);
}

export async function saveGroupAs(grant: Grant, body: Record<string, unknown>): Promise<{ created: boolean; group: { name: string; members: string[] } }> {
	grant.requireAdministers('groups', 'write');
	const database = await getDatabase();
	const group = await parseGroupInput(database, grant.workspace, body);
	const { created } = await replaceGroup(database, grant.workspace, group.name, group.members);
	return { created, group };
}
