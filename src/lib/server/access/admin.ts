// Administering: a workspace's members, groups, folders and warehouses, creating and forking
// workspaces, the instance's stats, and API tokens.
import type { AuthContext } from '../auth/context';
import { forbidden, notFound } from '../http';
import type { Principal } from './principal';
import { authScopeAllows, requireScope, scopeAllows, scopesCovered } from './scopes';

/** 403 unless the caller administers the workspace. */
export function requireAdmin(p: Principal): void {
	if (!p.isAdmin) throw forbidden('only a workspace admin may do this');
}

/** What the admin API and the settings page manage; each is also a token scope domain. */
export type AdminResource = 'users' | 'groups' | 'folders' | 'warehouses' | 'openlineage';

/** Reading or changing members, groups, folder grants or warehouses: a workspace admin, with `<resource>:<action>` when the caller is a token. */
export function adminAllows(p: Principal, resource: AdminResource, action: 'read' | 'write'): boolean {
	return p.isAdmin && scopeAllows(p, resource, action);
}

/** adminAllows as a refusal: 403 for a member, 403 naming the scope for a token. */
export function requireAdminAccess(p: Principal, resource: AdminResource, action: 'read' | 'write'): void {
	requireAdmin(p);
	requireScope(p, resource, action);
}

// ─── Outside any workspace ─────────────────────────────────────────────────────────────────

/** Creating a workspace: an instance admin; a token of one also needs `workspaces:write`. */
export function requireWorkspaceCreate(auth: AuthContext): void {
	if (!auth.instanceAdmin) throw forbidden('only an instance admin may create workspaces');
	if (!authScopeAllows(auth, 'workspaces', 'write')) throw forbidden('this token lacks the scope workspaces:write');
}

/**
 * Forking a workspace: an admin of the source (a fork carries every folder, so nothing less
 * than reading all of them may copy them); a token also needs `workspaces:write`, as creating one does.
 */
export function requireFork(p: Principal): void {
	if (!p.isAdmin) throw forbidden('only an admin of this workspace may fork it');
	requireScope(p, 'workspaces', 'write');
}

/** The instance's stats (GET /api/admin/stats): an instance admin; a token of one also needs `instance:read`. */
export function requireInstanceStats(auth: AuthContext): void {
	if (!auth.instanceAdmin) throw forbidden('only an instance admin may read the instance stats');
	if (!authScopeAllows(auth, 'instance', 'read')) throw forbidden('this token lacks the scope instance:read');
}

// ─── API tokens ────────────────────────────────────────────────────────────────────────────

/** Listing one's own tokens: `tokens:read` when the caller is a token. */
export function mayListTokens(p: Principal): boolean {
	return scopeAllows(p, 'tokens', 'read');
}

/** mayListTokens as a refusal (GET tokens). */
export function requireTokenList(p: Principal): void {
	requireScope(p, 'tokens', 'read');
}

/** Minting a token (acting as the caller, never wider than the minting token: mintTokenFor checks that). */
export function requireTokenMint(p: Principal): void {
	requireScope(p, 'tokens', 'write');
}

/**
 * Revoking a token: its owner, or a workspace admin; `tokens:write` when the caller is a token.
 * The owner, because whoever holds a token must be able to kill it when it leaks; an admin,
 * because a leaked or departing member's token must be revocable without its owner (an admin
 * can remove the member anyway, so this grants nothing new). The scope, because revoking is a
 * write like minting: a narrowed CI token must not revoke the tokens beside it. Anyone else
 * learns nothing about the token (404, as for one that does not exist).
 */
export function requireTokenRevoke<T extends { owner: string }>(p: Principal, token: T | null): asserts token is T {
	requireScope(p, 'tokens', 'write');
	if (!token || (token.owner !== p.username && !p.isAdmin)) throw notFound('no such token');
}

/**
 * Minting a token acting as the caller: a caller that is itself a narrowed token mints only
 * narrower-or-equal tokens (never an unrestricted one), so `tokens:write` cannot widen itself.
 */
export function requireMintWithin(p: Principal, scopes: readonly string[]): void {
	if (p.scopes !== null && (scopes.length === 0 || !scopesCovered(p.scopes, [...scopes]))) {
		throw forbidden('scopes: a scoped token may only mint tokens within its own scopes');
	}
}

/**
 * Adding an account that already exists elsewhere to a workspace, or setting an existing
 * account's password: an instance admin only, since that account's holder did not agree to it.
 */
export function mayManageAccounts(p: Principal): boolean {
	return p.instanceAdmin;
}
