// Folders and their grants (readers, writers), gated here for the API route and the settings page alike.
import { requireAdminAccess, type Principal } from '../../access';
import { parseFolderInput } from '../../auth/admin-input';
import { getDatabase } from '../../db';
import { listFolders, replaceFolder, type FolderRow } from '../../repo/folders';

export async function listFoldersAs(p: Principal): Promise<FolderRow[]> {
	requireAdminAccess(p, 'folders', 'read');
	return listFolders(await getDatabase(), p.workspace);
}

export async function saveFolderAs(p: Principal, body: Record<string, unknown>): Promise<{ created: boolean; folder: FolderRow }> {
	requireAdminAccess(p, 'folders', 'write');
	const database = await getDatabase();
	const folder = await parseFolderInput(database, p.workspace, body);
	const { created } = await replaceFolder(database, p.workspace, folder);
	return { created, folder };
}
