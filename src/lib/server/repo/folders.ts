// Folders and their grants. Grants are written as the API writes them: `u/<user>`, `g/<group>`.
import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../db';
import { folder } from '../schema';

export interface FolderRow {
	name: string;
	readers: string[];
	writers: string[];
}

/** Creates or replaces a folder's grants; returns whether the folder is new. */
export async function replaceFolder(database: Database, ws: string, f: FolderRow): Promise<{ created: boolean }> {
	const [r] = await database.rows<{ created: boolean }>(
		sql`insert into folder (workspace, name, readers, writers)
		    values (${ws}, ${f.name}, ${sql.param(f.readers)}::text[], ${sql.param(f.writers)}::text[])
		    on conflict (workspace, name) do update
		       set readers = excluded.readers, writers = excluded.writers
		    returning (xmax = 0) as created`
	);
	return { created: r.created };
}

export async function listFolders(database: Database, ws: string): Promise<FolderRow[]> {
	return database.db
		.select({ name: folder.name, readers: folder.readers, writers: folder.writers })
		.from(folder)
		.where(eq(folder.workspace, ws))
		.orderBy(folder.name);
}

export async function getFolder(database: Database, ws: string, name: string): Promise<FolderRow | null> {
	const [r] = await database.db
		.select({ name: folder.name, readers: folder.readers, writers: folder.writers })
		.from(folder)
		.where(and(eq(folder.workspace, ws), eq(folder.name, name)));
	return r ?? null;
}

export async function deleteFolder(database: Database, ws: string, name: string): Promise<boolean> {
	const r = await database.db
		.delete(folder)
		.where(and(eq(folder.workspace, ws), eq(folder.name, name)))
		.returning({ name: folder.name });
	return r.length > 0;
}
