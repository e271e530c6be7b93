// THE one place where access is decided (DESIGN.md §6). Two independent questions, always
// asked together by a gate:
//   1. may the OWNER do this?   canReadPath / canWritePath (membership, folders, groups, admin)
//   2. does the TOKEN allow it? scopeAllows / requireScope (narrowing only; never grants)
// A token acts as its owner narrowed by its scopes, so a gate is the conjunction of both;
// mayReadPath / mayWritePath spell that conjunction for the common script-path case.
import { error, redirect, type RequestEvent } from '@sveltejs/kit';
import type { SQL } from 'drizzle-orm';
import { mayShowAuthored } from '../lineage/asset-graph';
import type { AuthContext } from './auth/context';
import { getDatabase, type Database } from './db';
import { ApiError, badRequest, forbidden, gone, notFound, unauthorized } from './http';
import { isWorkspaceId, parseScriptPath } from './paths';
import { getFolder } from './repo/folders';
import { getJobView, isJobWithin, type JobListAccess, type JobView, type ScopePathFilter } from './repo/jobs';
import { RETENTION, type GraphKey } from './repo/graph';
import { graphExists, latestDbtVersion, versionByHash } from './repo/graph-diff';
import { findVersion, lineageCandidatesSql, lineageInputsStampSql, parseLineageCandidates, pinnedGraphOf, type LineageOwner, type ScriptPathFilter, type VersionRef } from './repo/lineage';
import { ZERO_UUID } from './schema';
import { loadMembershipGrants } from './repo/workspaces';
import { verifyShareToken, type ShareGrant } from './share';
import { isJobId } from '../types/jobs';
import { hashToHex, hexToHash } from '../types/script-hash';

export interface Principal {
	workspace: string;
	username: string;
	accountId: string;
	/** Workspace admin. */
	isAdmin: boolean;
	instanceAdmin: boolean;
	groups: string[];
	/** Folders the owner may read (writers included: writing implies reading). */
	readFolders: Set<string>;
	writeFolders: Set<string>;
	/** The token's scopes; null = not narrowed (a session, or a token minted without scopes). */
	scopes: string[] | null;
	via: 'session' | 'token';
}

// ─── Building a principal ──────────────────────────────────────────────────────────────────

/** The caller, or 401. */
export function requireAuth(event: Pick<RequestEvent, 'locals'>): AuthContext {
	const auth = event.locals.auth;
	if (!auth) throw unauthorized();
	return auth;
}

/** requireAuth for a page load or form action: no credentials redirect to the sign-in page (coming back here afterwards). */
export function pageAuth(event: Pick<RequestEvent, 'locals' | 'url'>): AuthContext {
	const auth = event.locals.auth;
	if (!auth) redirect(303, event.url.pathname === '/' ? '/login' : `/login?next=${encodeURIComponent(event.url.pathname + event.url.search)}`);
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

function memoOf(event: Pick<RequestEvent, 'locals'>): Map<string, Promise<Principal>> {
	let perEvent = memo.get(event.locals);
	if (!perEvent) memo.set(event.locals, (perEvent = new Map()));
	return perEvent;
}

/** Memoises a principal being built for this request (a failed build is forgotten). */
function remember(event: Pick<RequestEvent, 'locals'>, ws: string, p: Promise<Principal>): Promise<Principal> {
	const perEvent = memoOf(event);
	perEvent.set(ws, p);
	p.catch(() => perEvent.delete(ws));
	return p;
}

/**
 * workspacePrincipal for page loads and form actions: no credentials redirect to the sign-in
 * page (coming back here afterwards); the other refusals become the page's error status.
 */
export async function pagePrincipal(event: Pick<RequestEvent, 'locals' | 'url'>, ws: string): Promise<Principal> {
	try {
		return await workspacePrincipal(event, ws);
	} catch (e) {
		if (!(e instanceof ApiError)) throw e;
		if (e.status === 401) redirect(303, `/login?next=${encodeURIComponent(event.url.pathname + event.url.search)}`);
		error(e.status, e.message);
	}
}

const memo = new WeakMap<object, Map<string, Promise<Principal>>>();

export const NO_SUCH_WORKSPACE = 'no such workspace';

/** Builds the principal from an authenticated caller (no request needed: tests, workers). */
export async function buildPrincipal(auth: AuthContext, ws: string): Promise<Principal> {
	return (await principalWith(auth, ws, null)).principal;
}

/** buildPrincipal, its statement also evaluating `rider` (loadMembershipGrants) when given. */
async function principalWith(auth: AuthContext, ws: string, rider: SQL | null): Promise<{ principal: Principal; rider: string | null }> {
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

/** How a member is written in a folder's grant lists: `u/<username>`, `g/<group>`. */
const GRANTEE = { user: 'u/', group: 'g/' } as const;

/** How a member appears in folder grants: `u/<username>` and `g/<group>` for each group. */
export function granteesOf(username: string, groups: string[]): string[] {
	return [`${GRANTEE.user}${username}`, ...groups.map((g) => `${GRANTEE.group}${g}`)];
}

// ─── What the owner may do ─────────────────────────────────────────────────────────────────

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

/** The workspaces a caller is shown: a token belongs to one workspace and never reveals its owner's others. */
export function visibleWorkspaces<W extends { id: string }>(auth: AuthContext, all: readonly W[]): W[] {
	return auth.token ? all.filter((w) => w.id === auth.token!.workspace) : [...all];
}

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

// ─── Token scopes ──────────────────────────────────────────────────────────────────────────
// `{domain}:{action}[:{pattern},{pattern},...]` where a pattern is an exact path, a prefix
// `a/b/*` (everything strictly below a/b, at any depth) or `*`. Matching is exact on domain
// and action: `scripts:write` does not imply `scripts:read`.

export type PathPattern = { kind: 'exact'; path: string } | { kind: 'prefix'; prefix: string } | { kind: 'any' };

export interface ParsedScope {
	domain: string;
	action: string;
	/** null = every path in the domain. */
	paths: PathPattern[] | null;
}

const WORD = /^[a-z][a-z_]{0,49}$/;
// Script paths use [A-Za-z0-9_-]; asset paths may also hold dots (`db.schema`), so allow them,
// but never a `.`/`..` segment.
const PATTERN_SEGMENT = /^[A-Za-z0-9_.-]+$/;

function validPatternPath(s: string): boolean {
	if (s.length === 0 || s.length > 255) return false;
	return s.split('/').every((seg) => PATTERN_SEGMENT.test(seg) && seg !== '.' && seg !== '..');
}

/** A scope string, or null when it breaks the grammar (used to validate token minting). */
export function parseScope(s: unknown): ParsedScope | null {
	if (typeof s !== 'string' || s.length === 0 || s.length > 2000) return null;
	const first = s.indexOf(':');
	if (first < 0) return null;
	const second = s.indexOf(':', first + 1);
	const domain = s.slice(0, first);
	const action = second < 0 ? s.slice(first + 1) : s.slice(first + 1, second);
	if (!WORD.test(domain) || !WORD.test(action)) return null;
	if (second < 0) return { domain, action, paths: null };
	const rest = s.slice(second + 1);
	if (rest.length === 0) return null;
	const paths: PathPattern[] = [];
	for (const item of rest.split(',')) {
		if (item === '*') paths.push({ kind: 'any' });
		else if (item.endsWith('/*')) {
			const base = item.slice(0, -2);
			if (!validPatternPath(base)) return null;
			paths.push({ kind: 'prefix', prefix: `${base}/` });
		} else if (validPatternPath(item)) paths.push({ kind: 'exact', path: item });
		else return null;
	}
	return { domain, action, paths };
}

export function patternMatches(pattern: PathPattern, path: string): boolean {
	switch (pattern.kind) {
		case 'any':
			return true;
		case 'exact':
			return path === pattern.path;
		case 'prefix':
			// The trailing slash is part of the prefix: `f/a/*` never matches `f/ab/x`.
			return path.length > pattern.prefix.length && path.startsWith(pattern.prefix);
	}
}

function matchingScopes(p: Principal, domain: string, action: string): ParsedScope[] {
	const out: ParsedScope[] = [];
	for (const s of p.scopes ?? []) {
		const parsed = parseScope(s);
		if (parsed && parsed.domain === domain && parsed.action === action) out.push(parsed);
	}
	return out;
}

/**
 * Whether the caller's token scopes allow `domain:action` (on `path` when given). This is the
 * token's narrowing only: it never grants what the owner may not do, so always combine it
 * with canReadPath/canWritePath (or use mayReadPath/mayWritePath).
 *
 * Without a path, a path-restricted scope still answers true: the route is allowed, and it
 * must then restrict what it returns with scopePathFilter.
 */
export function scopeAllows(p: Principal, domain: string, action: string, path?: string): boolean {
	if (p.scopes === null) return true;
	for (const s of matchingScopes(p, domain, action)) {
		if (s.paths === null || path === undefined) return true;
		if (s.paths.some((pat) => patternMatches(pat, path))) return true;
	}
	return false;
}

/** 403 naming the missing scope, e.g. `this token lacks the scope scripts:read:f/a/x`. */
export function requireScope(p: Principal, domain: string, action: string, path?: string): void {
	if (!scopeAllows(p, domain, action, path)) {
		throw forbidden(`this token lacks the scope ${domain}:${action}${path === undefined ? '' : `:${path}`}`);
	}
}

export type { ScopePathFilter } from './repo/jobs';

/**
 * The paths a listing may return under `domain:action`, for filtering in SQL. Prefixes end
 * with `/`; compare with `starts_with(path, prefix)` or `left(path, length(prefix)) = prefix`,
 * never LIKE (`_` is a LIKE wildcard and a legal path character).
 */
export function scopePathFilter(p: Principal, domain: string, action: string): ScopePathFilter {
	if (p.scopes === null) return { all: true };
	const exact: string[] = [];
	const prefixes: string[] = [];
	for (const s of matchingScopes(p, domain, action)) {
		if (s.paths === null) return { all: true };
		for (const pat of s.paths) {
			if (pat.kind === 'any') return { all: true };
			if (pat.kind === 'exact') exact.push(pat.path);
			else prefixes.push(pat.prefix);
		}
	}
	return { all: false, exact, prefixes };
}

export function filterAllows(f: ScopePathFilter, path: string): boolean {
	if (f.all) return true;
	return f.exact.includes(path) || f.prefixes.some((pre) => path.length > pre.length && path.startsWith(pre));
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
 * Whether every scope in `requested` is within one of `held` (a narrowed token minting another
 * token must not widen itself). A null `held` covers everything.
 */
export function scopesCovered(held: string[] | null, requested: string[]): boolean {
	if (held === null) return true;
	const heldParsed = held.map(parseScope).filter((s): s is ParsedScope => s !== null);
	return requested.every((r) => {
		const want = parseScope(r);
		if (!want) return false;
		return heldParsed.some(
			(h) =>
				h.domain === want.domain &&
				h.action === want.action &&
				(h.paths === null ||
					(want.paths !== null && want.paths.every((w) => h.paths!.some((hp) => patternWithin(w, hp)))))
		);
	});
}

function patternWithin(inner: PathPattern, outer: PathPattern): boolean {
	if (outer.kind === 'any') return true;
	if (inner.kind === 'any') return false;
	if (outer.kind === 'exact') return inner.kind === 'exact' && inner.path === outer.path;
	if (inner.kind === 'exact') return patternMatches(outer, inner.path);
	return inner.prefix.startsWith(outer.prefix);
}

/** Token scopes of a caller outside any workspace route (e.g. POST /api/workspaces). */
export function authScopeAllows(auth: AuthContext, domain: string, action: string): boolean {
	if (!auth.token || auth.token.scopes.length === 0) return true;
	return auth.token.scopes.some((s) => {
		const parsed = parseScope(s);
		return parsed !== null && parsed.domain === domain && parsed.action === action;
	});
}

/** The scope action of an HTTP method on an ordinary route: GET/HEAD read, the rest write. */
export function actionOfMethod(method: string): 'read' | 'write' {
	return method === 'GET' || method === 'HEAD' ? 'read' : 'write';
}

// ─── Jobs ──────────────────────────────────────────────────────────────────────────────────

export const ASK_FOR_SHARE_LINK = 'ask someone who can see this run for a share link';

export type JobReadDecision =
	| { allowed: true; via: 'creator' | 'share_link' | 'path' }
	| { allowed: false; status: 403 | 404; message: string };

/**
 * Job read access (DESIGN.md §6), first match wins: the caller created the job; a valid share
 * link for this job or an ancestor (verified by the caller of this function); the caller can
 * read the job's script path. Otherwise a member is told to ask for a share link (403) and
 * anyone else learns nothing (404). The route still checks its `jobs:read` scope.
 */
export function jobReadDecision(
	p: Principal | null,
	job: { createdBy: string; scriptPath: string | null },
	shareLinkValid = false
): JobReadDecision {
	if (p && job.createdBy === p.username) return { allowed: true, via: 'creator' };
	if (shareLinkValid) return { allowed: true, via: 'share_link' };
	if (p && job.scriptPath !== null && canReadPath(p, job.scriptPath)) return { allowed: true, via: 'path' };
	if (p) return { allowed: false, status: 403, message: ASK_FOR_SHARE_LINK };
	return { allowed: false, status: 404, message: 'no such job' };
}

/** Throws the refusal of jobReadDecision. */
export function requireJobRead(
	p: Principal | null,
	job: { createdBy: string; scriptPath: string | null },
	shareLinkValid = false
): void {
	const d = jobReadDecision(p, job, shareLinkValid);
	if (!d.allowed) throw new ApiError(d.status, d.message);
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

export type { JobListAccess } from './repo/jobs';

/** The list half of job read access (share links open single jobs, never listings). */
export function jobListAccess(p: Principal): JobListAccess {
	return { username: p.username, readable: readablePathFilter(p), scope: scopePathFilter(p, 'jobs', 'read') };
}

/**
 * Whether a token's `jobs:read` scope reaches a job. A path-restricted scope reaches only jobs
 * of its paths, so a job without a path needs an unrestricted one. Same rule as jobListAccess.
 */
export function jobScopeAllows(p: Principal, scriptPath: string | null): boolean {
	const f = scopePathFilter(p, 'jobs', 'read');
	return f.all || (scriptPath !== null && filterAllows(f, scriptPath));
}

export interface JobAccess {
	job: JobView;
	/** null for a public-link viewer who is not a member (or has no session at all). */
	principal: Principal | null;
	via: 'creator' | 'share_link' | 'path';
	/**
	 * The caller may read the job's script itself (owner access AND `scripts:read` on its path).
	 * Being entitled to a run is not being entitled to its project: when false, everything the
	 * author wrote (code, variables, descriptions, column lineage, logs) is withheld.
	 */
	canReadScript: boolean;
}

/** The job does not exist in the workspace (pinned reads fall back to the unpinned answer). */
export class JobNotFoundError extends ApiError {
	constructor() {
		super(404, 'no such job');
	}
}

const INVALID_SHARE_LINK = 'this share link is not valid; sign in or ask for a new link';

/** The share token of a request: `?view_token=` or the `X-View-Token` header. */
export function viewTokenOf(event: Pick<RequestEvent, 'url' | 'request'>): string | null {
	return event.url.searchParams.get('view_token') ?? event.request.headers.get('x-view-token');
}

/**
 * Job read access (DESIGN.md §6) for the jobs/{id} endpoints: validates the ids, reads the
 * share token, applies the token's `jobs:read` scope and jobReadDecision. Refusals:
 * 400 malformed ids; 401 no credentials and no usable share link (a member link needs a
 * signed-in member); 404 a non-member, or a job the caller could not know exists;
 * 403 a member without access (told to ask for a share link) or a token lacking the scope.
 */
export async function jobAccess(
	event: Pick<RequestEvent, 'locals' | 'url' | 'request'>,
	ws: string,
	jobId: string
): Promise<JobAccess> {
	if (!isWorkspaceId(ws)) throw badRequest('invalid workspace id: use up to 50 of [a-z0-9-]');
	// Postgres prints uuids in lowercase; accept any case, compare in one.
	const id = jobId.toLowerCase();
	if (!isJobId(id)) throw badRequest('id must be a job id (a uuid)');
	const h = await getDatabase();
	const raw = viewTokenOf(event);
	const share: ShareGrant | null = raw === null ? null : await verifyShareToken(h, ws, raw);

	let principal: Principal | null = null;
	if (event.locals.auth) {
		try {
			principal = await workspacePrincipal(event, ws);
		} catch (e) {
			// A non-member (or a token of another workspace) may still open a PUBLIC link; for
			// anything else they learn nothing beyond "no such workspace".
			if (!(e instanceof ApiError && e.status === 404 && share?.domain === 'public')) throw e;
		}
	} else if (share === null) {
		throw unauthorized(raw === null ? undefined : INVALID_SHARE_LINK);
	} else if (share.domain === 'member') {
		throw unauthorized('sign in as a member of this workspace to open this link');
	}
	if (principal) requireScope(principal, 'jobs', 'read');

	const job = await getJobView(h, ws, id);
	if (!job) throw new JobNotFoundError();
	let linkValid = share !== null && (await isJobWithin(h, ws, job.id, share.jobId));
	// An OpenLineage run nests under whatever parent its events name, in any folder: a link to the
	// parent reaches only the child runs in the parent's own folder.
	if (linkValid && share !== null && share.jobId !== job.id && job.kind === 'openlineage') {
		const shared = await getJobView(h, ws, share.jobId);
		linkValid = shared !== null && sameFolder(shared.scriptPath, job.scriptPath);
	}
	const decision = jobReadDecision(principal, job, linkValid);
	if (!decision.allowed) throw new ApiError(decision.status, decision.message);
	if (principal && !jobScopeAllows(principal, job.scriptPath)) {
		throw forbidden("this token's jobs:read scope does not cover this job's path");
	}
	return {
		job,
		principal,
		via: decision.via,
		canReadScript: principal !== null && job.scriptPath !== null && mayReadPath(principal, job.scriptPath, 'scripts')
	};
}

function sameFolder(a: string | null, b: string | null): boolean {
	const pa = a === null ? null : parseScriptPath(a);
	const pb = b === null ? null : parseScriptPath(b);
	if (!pa || !pb || pa.kind !== pb.kind) return false;
	return pa.kind === 'folder' ? pa.folder === (pb as { folder: string }).folder : pa.owner === (pb as { owner: string }).owner;
}

/**
 * Minting a share link, and listing or revoking a run's links: for someone who sees the run on
 * their own account. A link holder already has a link to forward, and minting one (say a public
 * link from a member link) would let a link widen its own audience; who may make links is who
 * may see and end them, so a link sent to the wrong person can be ended by anyone who could
 * have sent it.
 */
export function requireShareMint(a: JobAccess): Principal {
	if (a.principal === null) throw unauthorized('sign in to share this run');
	if (!mayMintShare(a)) {
		throw forbidden('only someone who can see this run without a share link may create links to it; forward the link you have');
	}
	return a.principal;
}

/** requireShareMint as a yes/no (the run page's share button). */
export function mayMintShare(a: JobAccess): boolean {
	return a.principal !== null && a.via !== 'share_link';
}

/** What a run page offers its viewer: sharing it (requireShareMint) and resuming it (requireRunAccess on its path). */
export function runPageRights(a: JobAccess): { mayShare: boolean; mayResume: boolean } {
	const p = a.principal;
	return { mayShare: mayMintShare(a), mayResume: p !== null && a.job.scriptPath !== null && mayRun(p, a.job.scriptPath) };
}

// ─── Runs (queue, cancel, record) ──────────────────────────────────────────────────────────

/** requireRunAccess as a yes/no (a page's run button). */
export function mayRun(p: Principal, path: string): boolean {
	return parseScriptPath(path) !== null && canReadPath(p, path) && canWritePath(p, path) && scopeAllows(p, 'jobs', 'run', path);
}

/**
 * Deploying a script (a dbt deploy or preview, a producer): write access to its path (owner,
 * folder writer, admin) and the token's `scripts:write` scope on it. One rule for every upload.
 */
export function requireScriptWrite(p: Principal, path: string): void {
	if (!canWritePath(p, path)) throw forbidden(`you may not write ${path}`);
	requireScope(p, 'scripts', 'write', path);
}

/**
 * Deleting a project or producer with everything stored under its path: write access to it
 * (owner, folder writer, admin) and the token's `scripts:write` scope. A caller who cannot even
 * read the path learns nothing about it (404); one who reads it is told why not (403).
 */
export function requireScriptDelete(p: Principal, path: string): void {
	if (!parseScriptPath(path)) throw badRequest('path must be u/<user>/<name> or f/<folder>/<name> (segments of [A-Za-z0-9_-])');
	if (!canReadPath(p, path)) throw notFound(`nothing deployed at ${path}`);
	if (!canWritePath(p, path)) throw forbidden(`deleting ${path} needs write access to it (its owner, a writer of its folder, or an admin)`);
	requireScope(p, 'scripts', 'write', path);
}

/** requireScriptDelete as a yes/no (a page's delete button). */
export function mayDelete(p: Principal, path: string): boolean {
	return parseScriptPath(path) !== null && canReadPath(p, path) && canWritePath(p, path) && scopeAllows(p, 'scripts', 'write', path);
}

/**
 * Running a script, or recording a run of it: write access to its path (owner, folder writer,
 * admin) and the token's `jobs:run` scope on it. A caller who cannot even read the path learns
 * nothing about it (404); one who can read but not write is told why (403).
 */
export function requireRunAccess(p: Principal, path: string): void {
	if (!parseScriptPath(path)) throw badRequest('path must be u/<user>/<name> or f/<folder>/<name> (segments of [A-Za-z0-9_-])');
	if (!canReadPath(p, path)) throw notFound(`no deployed version at ${path}`);
	if (!canWritePath(p, path)) throw forbidden(`running ${path} needs write access to it (its owner, a writer of its folder, or an admin)`);
	requireScope(p, 'jobs', 'run', path);
}

/**
 * Canceling a job: whoever may read it (jobReadDecision's refusals otherwise) and is its creator
 * or may write its script; plus the token's `jobs:run` scope on its path.
 */
export function requireCancelAccess(p: Principal, job: { createdBy: string; scriptPath: string | null }): void {
	requireJobRead(p, job);
	const mayStop = job.createdBy === p.username || (job.scriptPath !== null && canWritePath(p, job.scriptPath));
	if (!mayStop) throw forbidden("only the run's creator or a writer of its script may cancel it");
	requireScope(p, 'jobs', 'run', job.scriptPath ?? undefined);
}

// ─── Lineage reads (asset graph, column lineage, relation details) ─────────────────────────
// The gates of the lineage reads, some as data for SQL (repo/lineage.ts applies them): who sees
// a project's shape, who sees what its author wrote, which asset paths a token reaches.

/** Owner path access, for reads that show shape. */
export function shapePathFilter(p: Principal): ScriptPathFilter {
	return { readable: readablePathFilter(p), scope: null };
}

/** Owner path access AND the token's `scripts:read`: the authored gate (mayReadPath), for SQL. */
export function authoredPathFilter(p: Principal): ScriptPathFilter {
	const s = scopePathFilter(p, 'scripts', 'read');
	return { readable: readablePathFilter(p), scope: s.all ? null : { exact: s.exact, prefixes: s.prefixes } };
}

/** authoredPathFilter as a predicate in process: the same gate over one script path. */
export function authoredPathReadable(p: Principal): (scriptPath: string) => boolean {
	return (path) => mayReadPath(p, path, 'scripts');
}

/** The token's `assets:read` narrowing over asset paths (everything for a session or a public link). */
export function assetPathGate(p: Principal | null): (assetPath: string) => boolean {
	if (p === null) return () => true;
	const f = scopePathFilter(p, 'assets', 'read');
	return (path) => filterAllows(f, path);
}

/** Whether an unpinned read shows the authored fields of the project at `scriptPath` (the one predicate). */
export function authoredShownOf(p: Principal, scriptPath: string): boolean {
	return mayShowAuthored({ preview: false, versionVisible: true, mayReadScript: mayReadPath(p, scriptPath, 'scripts') });
}

/**
 * GET assets/column_lineage's gate: a member with `assets:read` (workspacePrincipal's refusals,
 * then the scope), the query parsed once the caller is known to be signed in. An unnamed read
 * gets the candidate owners of its relations read in the principal's own statement (one round
 * trip instead of two: see bench/README.md, column-lineage); they are every project's, so
 * unpinnedColumnLineage narrows them with readableLineageOwners before reading any.
 */
export async function columnLineageAccess<Q extends { assetPaths: string[]; scriptHash: bigint | null }>(
	event: Pick<RequestEvent, 'locals'>,
	ws: string,
	parse: () => Q
): Promise<{ principal: Principal; query: Q; candidates: LineageOwner[] | null }> {
	if (!isWorkspaceId(ws)) throw badRequest('invalid workspace id: use up to 50 of [a-z0-9-]');
	const auth = requireAuth(event);
	const query = parse();
	const named = query.scriptHash !== null;
	const built = principalWith(auth, ws, named ? null : lineageCandidatesSql(ws, query.assetPaths));
	remember(event, ws, built.then((b) => b.principal));
	const { principal, rider } = await built;
	requireScope(principal, 'assets', 'read');
	return { principal, query, candidates: rider === null ? null : parseLineageCandidates(ws, rider) };
}

/**
 * workspacePrincipal for a request whose reads walk column lineage (the MCP endpoint): the
 * lineage stamp (repo lineageInputsStampSql) rides on the principal's statement, as column
 * lineage's owners do, and is kept for the request's walks (lineageStampOf).
 */
export async function principalWithLineageStamp(event: Pick<RequestEvent, 'locals'>, ws: string): Promise<Principal> {
	if (!isWorkspaceId(ws)) throw badRequest('invalid workspace id: use up to 50 of [a-z0-9-]');
	const auth = requireAuth(event);
	const built = principalWith(auth, ws, lineageInputsStampSql(ws));
	remember(event, ws, built.then((b) => b.principal));
	const { principal, rider } = await built;
	if (rider !== null) stamps.set(event.locals, rider);
	return principal;
}

const stamps = new WeakMap<object, string>();

/** The lineage stamp read with this request's principal (principalWithLineageStamp), if it was. */
export function lineageStampOf(event: Pick<RequestEvent, 'locals'>): string | null {
	return stamps.get(event.locals) ?? null;
}

/** Which candidate owners of a column-lineage read the caller may read the lineage of: authoredPathFilter's gate (mayReadPath on `scripts`), in process. */
export function readableLineageOwners(p: Principal, candidates: readonly LineageOwner[]): LineageOwner[] {
	return candidates.filter((o) => mayReadPath(p, o.key.scriptPath, 'scripts'));
}

/**
 * A named dbt version (`dbt_script_hash=`, the details pane's `hash=`) the caller may read, or
 * 404: a version of a path it cannot read is as absent as a missing one, so hashes cannot be
 * probed (share viewers see them as `script_hash`).
 */
export async function readableVersion(h: Database, p: Principal, hash: bigint | null, param = 'dbt_script_hash'): Promise<VersionRef | null> {
	if (hash === null) return null;
	const v = await findVersion(h, p.workspace, hash);
	if (!v || v.language !== 'dbt' || !canReadPath(p, v.path)) throw notFound(`no dbt project version with this ${param}`);
	return v;
}

/** A folder's script-path prefix (`f/<folder>/`), or 404 for one that is missing or not yours (one answer, so names cannot be probed). */
export async function readableFolderPrefix(h: Database, p: Principal, folder: string): Promise<string> {
	if (!canReadFolder(p, folder) || !(await getFolder(h, p.workspace, folder))) throw notFound('no such folder');
	return `f/${folder}/`;
}

/**
 * The details pane's read of one relation (GET /w/{ws}/relation): a member with `assets:read`,
 * the asset graph's gate. A named version then goes through readableVersion.
 */
export async function relationReadAccess(event: Pick<RequestEvent, 'locals'>, ws: string): Promise<Principal> {
	const p = await workspacePrincipal(event, ws);
	requireScope(p, 'assets', 'read');
	return p;
}

/** Whether a job-pinned read shows authored fields and column lineage (never for a preview's viewer without the project). */
export function pinnedAuthoredShown(a: JobAccess, pinned: { key: { scriptHash: bigint | null } }): boolean {
	return mayShowAuthored({ preview: pinned.key.scriptHash === null, versionVisible: true, mayReadScript: a.canReadScript });
}

export type PinnedAccess = { kind: 'job'; access: JobAccess } | { kind: 'no_job'; principal: Principal };

/** A pinned read of a job already opened with jobAccess: plus `assets:read` for a signed-in caller. */
export function pinnedAccessOf(access: JobAccess): PinnedAccess {
	if (access.principal) requireScope(access.principal, 'assets', 'read');
	return { kind: 'job', access };
}

/**
 * The run page's gate, and its canvas's (`jobs/run_canvas/{id}`): job read access (a share link
 * included) plus `assets:read`. Unlike pinnedAccess, a job that does not exist is a 404: the
 * page shows one run. A share-link viewer's graph is the shape only unless they may read the
 * project (`canReadScript`), as on the page itself.
 */
export async function runPageAccess(event: Pick<RequestEvent, 'locals' | 'url' | 'request'>, ws: string, id: string): Promise<{ access: JobAccess; pinned: PinnedAccess }> {
	const access = await jobAccess(event, ws, id);
	return { access, pinned: pinnedAccessOf(access) };
}

/**
 * The gate of the jobs/dbt_* reads and the run page's relation: job read access (share links
 * included) plus `assets:read`. A job that does not exist answers unpinned rather than 404, so
 * a run page whose job aged out still draws; that costs `assets:read` of a signed-in member,
 * exactly what /assets/* would.
 */
export async function pinnedAccess(event: Pick<RequestEvent, 'locals' | 'url' | 'request'>, ws: string, id: string): Promise<PinnedAccess> {
	try {
		return pinnedAccessOf(await jobAccess(event, ws, id));
	} catch (e) {
		if (!(e instanceof JobNotFoundError) || !event.locals.auth) throw e;
		const principal = await workspacePrincipal(event, ws);
		requireScope(principal, 'assets', 'read');
		return { kind: 'no_job', principal };
	}
}

// ─── OpenLineage export ────────────────────────────────────────────────────────────────────

export const NO_EXPORTABLE_VERSION = 'no dbt project version at this path and ref';

/**
 * `dbt/openlineage?path=&ref=`: the graph reads' gate (`assets:read`), then the path must be
 * readable and hold the version; one 404 for a path that is not yours, a missing version and a
 * version of another path, so hashes cannot be probed. `authored` is the one predicate for that
 * project: without it the events carry the shape (jobs, datasets) and no SQL, schema or column
 * lineage.
 */
export async function exportableVersion(
	p: Principal,
	path: string,
	find: () => Promise<bigint | null>
): Promise<{ hash: bigint; authored: boolean }> {
	requireScope(p, 'assets', 'read');
	if (!canReadPath(p, path)) throw notFound(NO_EXPORTABLE_VERSION);
	const hash = await find();
	if (hash === null) throw notFound(NO_EXPORTABLE_VERSION);
	return { hash, authored: authoredShownOf(p, path) };
}

/** Whether the OpenLineage events of a run may show its producers' authored lineage (the caller reads that script). */
export function producerAuthoredShown(p: Principal | null, scriptPath: string): boolean {
	return p !== null && mayReadPath(p, scriptPath, 'scripts');
}

/** Whether a producer appears at all in an export: the caller may see its path's shape. */
export function producerShown(p: Principal | null, scriptPath: string): boolean {
	return p !== null && canReadPath(p, scriptPath);
}

// ─── OpenLineage in ────────────────────────────────────────────────────────────────────────

/**
 * The OpenLineage receiver's caller: a member of the workspace (workspacePrincipal's refusals:
 * a stranger learns nothing) whose token allows `lineage:write`. Where each event may land is
 * decided per event (requireLineageWrite).
 */
export async function openLineageSender(event: Pick<RequestEvent, 'locals'>, ws: string): Promise<Principal> {
	const p = await workspacePrincipal(event, ws);
	requireScope(p, 'lineage', 'write');
	return p;
}

/**
 * An event writes the job at `path` in `folder`: a writer of the folder (or an admin), whose
 * token's `lineage:write` covers the path. A member who cannot even read the folder is not told
 * its name (only the namespace it sent); one who reads it is told it needs write access.
 */
export function requireLineageWrite(p: Principal, namespace: string, folder: string, path: string): void {
	if (!canWriteFolder(p, folder)) {
		if (!canReadFolder(p, folder)) throw forbidden(`you may not send OpenLineage events for the namespace ${JSON.stringify(namespace)}`);
		throw forbidden(`the namespace ${JSON.stringify(namespace)} writes into the folder ${folder}, which you may read but not write`);
	}
	requireScope(p, 'lineage', 'write', path);
}

/** The refusal of an event whose job namespace maps to no folder (and the workspace sets no default). */
export function unmappedNamespace(namespace: string): ApiError {
	return forbidden(
		`the OpenLineage namespace ${JSON.stringify(namespace)} is not mapped to a folder: a workspace admin maps it (POST /api/w/{ws}/openlineage/namespaces {"namespace", "folder"}), or sets a default folder (namespace "*")`
	);
}

// ─── Canvas layout ─────────────────────────────────────────────────────────────────────────

/**
 * POST /w/{ws}/layout reads nothing stored for a member of the workspace. The holder of a share
 * link lays out only the levels of the run it opens: the link must name that run (`?job=`), and
 * the run page's own gate applies (the route then checks the levels against that run's graph,
 * `requireLevelsOfRun`). 400 without `?job=`; 401 for an invalid link.
 */
export async function layoutAccess(
	event: Pick<RequestEvent, 'locals' | 'url' | 'request'>,
	ws: string
): Promise<{ principal: Principal; run: null } | { run: JobAccess }> {
	if (viewTokenOf(event) === null) return { principal: await workspacePrincipal(event, ws), run: null };
	const job = event.url.searchParams.get('job');
	if (!job) throw badRequest('job: a share link lays out the levels of its run; name the run (?job=<id>)');
	const run = await jobAccess(event, ws, job);
	if (run.principal) requireScope(run.principal, 'assets', 'read');
	return { run };
}

/** A share link's layout request may hold only levels of the run's own canvas. */
export function requireLevelsOfRun(levelsAreOfRun: boolean): void {
	if (!levelsAreOfRun) throw forbidden('this share link lays out the levels of its run only');
}

// ─── Warehouses: which projects may run against one ───────────────────────────────────────

/**
 * Whether a run of the project at `scriptPath` may use a warehouse whose `settings.folders` is
 * `allowedFolders` (null: every folder). Entries name folders (`analytics` allows
 * `f/analytics/*`) or a user's scripts (`u/alice`). Project code can print the credentials its
 * run is given, so this decides who can read them: whoever can deploy to an allowed folder.
 */
export function mayRunAgainstWarehouse(allowedFolders: readonly string[] | null, scriptPath: string): boolean {
	if (allowedFolders === null) return true;
	const parsed = parseScriptPath(scriptPath);
	if (!parsed) return false;
	return allowedFolders.includes(parsed.kind === 'folder' ? parsed.folder : `u/${parsed.owner}`);
}

// ─── Lineage diff (GET dbt/diff) ───────────────────────────────────────────────────────────

/** The one answer for a diff ref that is unknown, of another path or workspace, or not the caller's to read. */
export const NO_SUCH_DIFF_REF = 'no such version, run or preview of this path (refs: a version hash, a job id, or latest)';

/** A diff ref the caller may read: the stored graph it names and whether its authored fields may be shown. */
export interface DiffRefGrant {
	key: GraphKey;
	/** 16 hex digits, or null for a preview. */
	hash: string | null;
	/** The job whose own graph this is, null for a version's graph. */
	jobId: string | null;
	authored: boolean;
	/** The caller as a member (null for a share-link viewer): whose producers and asset scope the impact walk sees. */
	principal: Principal | null;
}

const prunedVersion = () =>
	gone(`this version's graph was pruned by retention: only the newest ${RETENTION.versionsPerPath} deploys of a path keep their graph`);
const prunedPreview = () =>
	gone(`this preview's graph was pruned by retention: only the newest ${RETENTION.previewsPerPathAndPrincipal} previews per path and person keep their graph`);

/**
 * One ref of a diff of `path` (DESIGN.md §6): `latest` (the newest deployed version), a version
 * hash, or a preview or run job id (its own graph when it stored one, else its version's). A
 * version needs read access to the path (and `assets:read`); a job needs job read access (share
 * links included) and the job must be of this path. Every refusal that could tell an unknown
 * ref from a hidden one is the same 404; a graph retention pruned is 410 naming the rule.
 */
export async function diffRefAccess(
	event: Pick<RequestEvent, 'locals' | 'url' | 'request'>,
	h: Database,
	ws: string,
	path: string,
	ref: string
): Promise<DiffRefGrant> {
	if (!isWorkspaceId(ws)) throw badRequest('invalid workspace id: use up to 50 of [a-z0-9-]');
	if (!event.locals.auth) {
		// Without a session or an API token, only a share link can open a ref; one that is no
		// valid link of this workspace is refused as jobAccess refuses it, whatever the ref.
		const raw = viewTokenOf(event);
		if (raw === null) throw unauthorized();
		if ((await verifyShareToken(h, ws, raw)) === null) throw unauthorized(INVALID_SHARE_LINK);
	}
	const refused = () => notFound(NO_SUCH_DIFF_REF);
	// A member's token scopes are checked before any ref is looked up, so a refusal for scope
	// says nothing about the ref.
	let p: Principal | null = null;
	if (event.locals.auth) {
		try {
			p = await workspacePrincipal(event, ws);
		} catch (e) {
			if (!(e instanceof ApiError && e.status === 404)) throw e;
			if (!isJobId(ref.toLowerCase())) throw refused();
		}
		if (p) requireScope(p, 'assets', 'read');
	}
	if (isJobId(ref.toLowerCase())) {
		let access: JobAccess;
		try {
			access = await jobAccess(event, ws, ref);
		} catch (e) {
			// Not found, not yours (ask for a link) and outside the token's jobs:read paths all
			// say the job exists somewhere: the one 404 instead.
			if (e instanceof ApiError && (e.status === 404 || (e.status === 403 && (e.message === ASK_FOR_SHARE_LINK || e.message.includes("this job's path"))))) {
				throw refused();
			}
			throw e;
		}
		const job = access.job;
		if (job.scriptPath !== path) throw refused();
		const pinned = await pinnedGraphOf(h, job);
		if (!pinned) {
			if (job.scriptHash === null && job.status === 'success') throw prunedPreview();
			if (job.scriptHash !== null && (await versionByHash(h, ws, job.scriptHash))) throw prunedVersion();
			throw refused();
		}
		return {
			key: pinned.key,
			hash: pinned.key.scriptHash === null ? null : hashToHex(pinned.key.scriptHash),
			jobId: pinned.own ? job.id : null,
			authored: pinnedAuthoredShown(access, pinned),
			principal: access.principal
		};
	}
	if (!p) throw refused();
	if (!canReadPath(p, path)) throw refused();
	let hash: bigint | null;
	if (ref === 'latest') {
		hash = await latestDbtVersion(h, ws, path);
	} else {
		hash = hexToHash(ref);
		const v = hash === null ? null : await versionByHash(h, ws, hash);
		if (!v || v.deleted || v.language !== 'dbt' || v.path !== path) hash = null;
	}
	if (hash === null) throw refused();
	const key: GraphKey = { workspace: ws, scriptPath: path, scriptHash: hash, jobId: ZERO_UUID };
	if (!(await graphExists(h, key))) throw prunedVersion();
	return { key, hash: hashToHex(hash), jobId: null, authored: authoredShownOf(p, path), principal: p };
}
