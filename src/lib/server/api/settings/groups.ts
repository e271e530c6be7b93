// Groups of a workspace, gated here for the API route and the settings page alike.
import { requireAdminAccess, type Principal } from '../../access';
import { parseGroupInput } from '../../auth/admin-input';
import { getDatabase } from '../../db';
import { listGroups, replaceGroup, type GroupRow } from '../../repo/groups';

export async function listGroupsAs(p: Principal): Promise<GroupRow[]> {
	requireAdminAccess(p, 'groups', 'read');
	return listGroups(await getDatabase(), p.workspace);
}

export async function saveGroupAs(p: Principal, body: Record<string, unknown>): Promise<{ created: boolean; group: { name: string; members: string[] } }> {
	requireAdminAccess(p, 'groups', 'write');
	const database = await getDatabase();
	const group = await parseGroupInput(database, p.workspace, body);
	const { created } = await replaceGroup(database, p.workspace, group.name, group.members);
	return { created, group };
}
