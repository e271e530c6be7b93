// Who is calling: the session or API token hooks.server.ts authenticated, as a member of a
// workspace (memoised per request), and the share link a request carries.
import type { RequestEvent } from '@sveltejs/kit';
import type { SQL } from 'drizzle-orm';
import { AuthCache } from '../auth/cache';
import type { AuthContext } from '../auth/context';
import { getDatabase } from '../db';
import { badRequest, notFound, unauthorized } from '../http';
import { isWorkspaceId } from '../paths';
import { loadMembershipGrants } from '../repo/workspaces';
import { GRANTEE, granteesOf } from './folders';
import type { Principal } from './principal';

/** The caller, or 401. */
export function requireAuth(event: Pick<RequestEvent, 'locals'>): AuthContext {
	const auth = event.locals.auth;
	if (!auth) throw unauthorized();
	return auth;
}

/**
 * The caller as a member of `ws`: 400 for a malformed id, 401 without credentials, 404 when
 * the workspace does not exist, the caller is not a member, or a token of another workspace is
 * used (one message for all three, so a stranger cannot probe which workspaces exist).
 * Memoised per request: several gates in one handler cost one lookup.
 */
export async function workspacePrincipal(event: Pick<RequestEvent, 'locals'>, ws: string): Promise<Principal> {
	if (!isWorkspaceId(ws)) throw badRequest('invalid workspace id: use up to 50 of [a-z0-9-]');
	const auth = requireAuth(event);
	return memoOf(event).get(ws) ?? remember(event, ws, buildPrincipal(auth, ws));
}

const tokenPrincipals = new AuthCache<Principal>();

/**
 * workspacePrincipal for the endpoints whose bearer tokens are judged through auth/cache.ts: a
 * token's principal in `ws` (its owner's membership and folder grants) is remembered as long as
 * the token itself, under the same bounds. A session's is always looked up.
 */
export async function recentWorkspacePrincipal(event: Pick<RequestEvent, 'locals'>, ws: string): Promise<Principal> {
	if (!isWorkspaceId(ws)) throw badRequest('invalid workspace id: use up to 50 of [a-z0-9-]');
	const auth = requireAuth(event);
	if (!auth.token) return workspacePrincipal(event, ws);
	if (auth.token.workspace !== ws) throw notFound(NO_SUCH_WORKSPACE);
	const key = `${auth.token.id}\u0000${ws}\u0000${auth.accountId}`;
	const memoised = memoOf(event).get(ws);
	if (memoised) return memoised;
	const shared = tokenPrincipals.through(key, () => buildPrincipal(auth, ws));
	// Each request its own copy: nothing one request does to its principal reaches another's.
	return remember(event, ws, shared.then((p) => copyOf(p!)));
}

function copyOf(p: Principal): Principal {
	return { ...p, groups: [...p.groups], readFolders: new Set(p.readFolders), writeFolders: new Set(p.writeFolders), scopes: p.scopes && [...p.scopes] };
}

function memoOf(event: Pick<RequestEvent, 'locals'>): Map<string, Promise<Principal>> {
	let perEvent = memo.get(event.locals);
	if (!perEvent) memo.set(event.locals, (perEvent = new Map()));
	return perEvent;
}

/** Memoises a principal being built for this request (a failed build is forgotten). */
export function remember(event: Pick<RequestEvent, 'locals'>, ws: string, p: Promise<Principal>): Promise<Principal> {
	const perEvent = memoOf(event);
	perEvent.set(ws, p);
	p.catch(() => perEvent.delete(ws));
	return p;
}

const memo = new WeakMap<object, Map<string, Promise<Principal>>>();

export const NO_SUCH_WORKSPACE = 'no such workspace';

/** Builds the principal from an authenticated caller (no request needed: tests, workers). */
export async function buildPrincipal(auth: AuthContext, ws: string): Promise<Principal> {
	return (await principalWith(auth, ws, null)).principal;
}

/** buildPrincipal, its statement also evaluating `rider` (loadMembershipGrants) when given. */
export async function principalWith(auth: AuthContext, ws: string, rider: SQL | null): Promise<{ principal: Principal; rider: string | null }> {
	if (auth.token && auth.token.workspace !== ws) throw notFound(NO_SUCH_WORKSPACE);
	const m = await loadMembershipGrants(await getDatabase(), ws, auth.accountId, GRANTEE, rider ?? undefined);
	if (!m) throw notFound(NO_SUCH_WORKSPACE);
	const readFolders = new Set<string>();
	const writeFolders = new Set<string>();
	const mine = new Set(granteesOf(m.username, m.groups));
	for (const f of m.folders) {
		const writes = m.isAdmin || f.writers.some((g) => mine.has(g));
		if (writes) writeFolders.add(f.name);
		if (writes || f.readers.some((g) => mine.has(g))) readFolders.add(f.name);
	}
	const scopes = auth.token && auth.token.scopes.length > 0 ? [...auth.token.scopes] : null;
	const principal: Principal = {
		workspace: ws,
		username: m.username,
		accountId: auth.accountId,
		isAdmin: m.isAdmin,
		instanceAdmin: auth.instanceAdmin,
		groups: m.groups,
		readFolders,
		writeFolders,
		scopes,
		via: auth.via
	};
	return { principal, rider: m.rider };
}

/** The workspaces a caller is shown: a token belongs to one workspace and never reveals its owner's others. */
export function visibleWorkspaces<W extends { id: string }>(auth: AuthContext, all: readonly W[]): W[] {
	return auth.token ? all.filter((w) => w.id === auth.token!.workspace) : [...all];
}

export const INVALID_SHARE_LINK = 'this share link is not valid; sign in or ask for a new link';

/** The share token of a request: `?view_token=` or the `X-View-Token` header. */
export function viewTokenOf(event: Pick<RequestEvent, 'url' | 'request'>): string | null {
	return event.url.searchParams.get('view_token') ?? event.request.headers.get('x-view-token');
}
