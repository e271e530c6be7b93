// Folder grants: what the owner may read and write (membership, folders, groups, admin), and the
// conjunction with the token's scopes (mayReadPath / mayWritePath) for the common path case.
import type { Database } from '../db';
import { notFound } from '../http';
import { parseScriptPath } from '../paths';
import { getFolder } from '../repo/folders';
import type { Principal } from './principal';
import { scopeAllows } from './scopes';

/** How a member is written in a folder's grant lists: `u/<username>`, `g/<group>`. */
export const GRANTEE = { user: 'u/', group: 'g/' } as const;

/** How a member appears in folder grants: `u/<username>` and `g/<group>` for each group. */
export function granteesOf(username: string, groups: string[]): string[] {
	return [`${GRANTEE.user}${username}`, ...groups.map((g) => `${GRANTEE.group}${g}`)];
}

/** Read a script path: admin; the caller's own `u/<username>/...`; a folder it reads or writes. */
export function canReadPath(p: Principal, path: string): boolean {
	const parsed = parseScriptPath(path);
	if (!parsed) return false;
	if (p.isAdmin) return true;
	if (parsed.kind === 'user') return parsed.owner === p.username;
	return p.readFolders.has(parsed.folder) || p.writeFolders.has(parsed.folder);
}

/** Write a script path: admin; the caller's own `u/` path; a folder it writes. */
export function canWritePath(p: Principal, path: string): boolean {
	const parsed = parseScriptPath(path);
	if (!parsed) return false;
	if (p.isAdmin) return true;
	if (parsed.kind === 'user') return parsed.owner === p.username;
	return p.writeFolders.has(parsed.folder);
}

export function canReadFolder(p: Principal, folder: string): boolean {
	return p.isAdmin || p.readFolders.has(folder) || p.writeFolders.has(folder);
}

export function canWriteFolder(p: Principal, folder: string): boolean {
	return p.isAdmin || p.writeFolders.has(folder);
}

/** Owner may read the path AND the token allows `domain:read` on it. */
export function mayReadPath(p: Principal, path: string, domain = 'scripts'): boolean {
	return canReadPath(p, path) && scopeAllows(p, domain, 'read', path);
}

/** Owner may write the path AND the token allows `domain:action` on it. */
export function mayWritePath(p: Principal, path: string, domain = 'scripts', action = 'write'): boolean {
	return canWritePath(p, path) && scopeAllows(p, domain, action, path);
}

/**
 * What canReadPath allows, as data for a SQL filter (listings filter in SQL, never after a
 * LIMIT): every path when `all`, else `f/<folder>/...` for the folders and paths starting
 * with `userPrefix`. Compare prefixes with starts_with, never LIKE.
 */
export function readablePathFilter(p: Principal): { all: boolean; folders: string[]; userPrefix: string } {
	return {
		all: p.isAdmin,
		folders: [...new Set([...p.readFolders, ...p.writeFolders])].sort(),
		userPrefix: `u/${p.username}/`
	};
}

/** A folder's script-path prefix (`f/<folder>/`), or 404 for one that is missing or not yours (one answer, so names cannot be probed). */
export async function readableFolderPrefix(database: Database, p: Principal, folder: string): Promise<string> {
	if (!canReadFolder(p, folder) || !(await getFolder(database, p.workspace, folder))) throw notFound('no such folder');
	return `f/${folder}/`;
}
