// Folders and their grants (readers, writers), gated here for the API route and the settings page alike.
import type { Grant } from '../../access';
import { parseFolderInput } from '../../auth/admin-input';
import { getDatabase } from '../../db';
import { listFolders, replaceFolder, type FolderRow } from '../../repo/folders';

export async function listFoldersAs(grant: Grant): Promise<FolderRow[]> {
	grant.requireAdministers('folders', 'read');
	return listFolders(await getDatabase(), grant.workspace);
}

export async function saveFolderAs(grant: Grant, body: Record<string, unknown>): Promise<{ created: boolean; folder: FolderRow }> {
	grant.requireAdministers('folders', 'write');
	const database = await getDatabase();
	const folder = await parseFolderInput(database, grant.workspace, body);
	const { created } = await replaceFolder(database, grant.workspace, folder);
	return { created, folder };
}
