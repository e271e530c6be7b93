// Identity rules of DESIGN.md §3: workspace ids, script paths, folder names and usernames.
import { badRequest } from './http';

const SEGMENT = /^[A-Za-z0-9_-]+$/;
const WORKSPACE_ID = /^[a-z0-9-]{1,50}$/;

export const MAX_PATH = 255;

export function isSegment(s: string): boolean {
	return SEGMENT.test(s);
}

export function isWorkspaceId(s: unknown): s is string {
	return typeof s === 'string' && WORKSPACE_ID.test(s);
}

export type ParsedPath =
	| { kind: 'user'; owner: string; name: string }
	| { kind: 'folder'; folder: string; name: string };

/** Parses `u/<user>/<name...>` or `f/<folder>/<name...>`; null when the path breaks a rule. */
export function parseScriptPath(path: unknown): ParsedPath | null {
	if (typeof path !== 'string' || path.length === 0 || path.length > MAX_PATH) return null;
	const parts = path.split('/');
	if (parts.length < 3 || !parts.every(isSegment)) return null;
	const [root, head, ...rest] = parts;
	if (root === 'u') return { kind: 'user', owner: head, name: rest.join('/') };
	if (root === 'f') return { kind: 'folder', folder: head, name: rest.join('/') };
	return null;
}

export function folderOf(path: string): string | null {
	const p = parseScriptPath(path);
	return p?.kind === 'folder' ? p.folder : null;
}

/** `path` when it is a script path, else a 400 naming the field (every upload's one message). */
export function requireScriptPath(path: unknown): string {
	if (!parseScriptPath(path)) {
		throw badRequest(`path: must be u/<user>/<name> or f/<folder>/<name>, segments of [A-Za-z0-9_-], at most ${MAX_PATH} characters`);
	}
	return path as string;
}
