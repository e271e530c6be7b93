// A warehouse of `type: duckdb` with no `path` is embedded: a DuckDB file of its own under the
// data directory, so a project runs for real without anyone setting a warehouse up first. Only
// that warehouse's runs see its folder (bound writable into their sandbox); the network stays off.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';

/** TRIBUTARY_DATA_DIR/warehouses: where embedded warehouses keep their files. */
export function warehousesRoot(env: NodeJS.ProcessEnv = process.env): string {
	return path.resolve(env.TRIBUTARY_WAREHOUSE_DIR || path.join(env.TRIBUTARY_DATA_DIR || './data', 'warehouses'));
}

/** The database name an embedded warehouse's relations carry. */
export function embeddedDatabase(wh: { name: string; defaultDatabase: string | null }): string {
	const db = wh.defaultDatabase?.trim();
	return db && /^[A-Za-z_][A-Za-z0-9_]*$/.test(db) ? db : wh.name.replace(/[^A-Za-z0-9_]/g, '_');
}

export function isEmbedded(settings: Record<string, unknown>): boolean {
	const p = settings.path;
	return String(settings.type ?? '').toLowerCase() === 'duckdb' && (p === undefined || p === null || p === '');
}

/** The folder of one embedded warehouse (its DuckDB file and write-ahead log live there). */
export function embeddedDir(root: string, workspace: string, name: string): string {
	return path.join(root, encodeURIComponent(workspace), encodeURIComponent(name));
}

/**
 * The settings a run renders its profile from, with the embedded file filled in, and the folders
 * its sandbox must make writable. A warehouse that names its own `path` is left as it is.
 */
export async function withEmbeddedPath(
	root: string,
	workspace: string,
	wh: { name: string; defaultDatabase: string | null; settings: Record<string, unknown> }
): Promise<{ settings: Record<string, unknown>; writable: string[]; file: string | null }> {
	if (!isEmbedded(wh.settings)) return { settings: wh.settings, writable: [], file: null };
	const dir = embeddedDir(root, workspace, wh.name);
	await mkdir(dir, { recursive: true });
	// DuckDB names the database after the file: the warehouse's default database, so relation
	// names (and sources that name their database) resolve as the project expects.
	const file = path.join(dir, `${embeddedDatabase(wh)}.duckdb`);
	return { settings: { ...wh.settings, path: file }, writable: [dir], file };
}
