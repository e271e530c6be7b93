// The grant: what one caller may do in one workspace, computed once per request and handed to
// the services as their first argument. A service asks it questions (mayRead, redact, the
// filters its SQL applies) and never derives access itself, so reading a service tells what the
// caller was allowed. The rules behind each question stay in the files of their concern.
import type { RequestEvent } from '@sveltejs/kit';
import type { Database } from '../db';
import type { LineageOwner, ScriptPathFilter, VersionRef } from '../repo/lineage';
import { canReadFolder, canReadPath, canWriteFolder, mayReadPath, mayWritePath, readableFolderPrefix, readablePathFilter } from './folders';
import { assetPathGate, authoredPathFilter, authoredShownOf, pinnedAuthoredShown, readableLineageOwners, readableVersion, shapePathFilter } from './hidden-nodes';
import { workspacePrincipal } from './identity';
import { jobListAccess, jobScopeAllows, mayRun, type JobAccess, type JobListAccess } from './jobs';
import type { Principal } from './principal';
import { requireScope, scopeAllows, scopePathFilter, type ScopePathFilter } from './scopes';

/** A member's grant in one workspace (a session, or an API token narrowed by its scopes). */
export class Grant {
	constructor(readonly principal: Principal) {}

	get workspace(): string {
		return this.principal.workspace;
	}

	get username(): string {
		return this.principal.username;
	}

	get isAdmin(): boolean {
		return this.principal.isAdmin;
	}

	/** The token's scopes; null when nothing narrows the caller (a session, a token without scopes). */
	get scopes(): readonly string[] | null {
		return this.principal.scopes;
	}

	/** Sees the shape of what lives at `path` (the owner's folder access; scopes do not hide shape). */
	maySee(path: string): boolean {
		return canReadPath(this.principal, path);
	}

	/** Reads what was authored at `path`: owner access and the token's `<domain>:read` on it. */
	mayRead(path: string, domain = 'scripts'): boolean {
		return mayReadPath(this.principal, path, domain);
	}

	/** Writes `path`: owner access and the token's `<domain>:<action>` on it. */
	mayWrite(path: string, domain = 'scripts', action = 'write'): boolean {
		return mayWritePath(this.principal, path, domain, action);
	}

	/** Runs the script at `path` (read and write access, and `jobs:run`). */
	mayRun(path: string): boolean {
		return mayRun(this.principal, path);
	}

	mayReadFolder(folder: string): boolean {
		return canReadFolder(this.principal, folder);
	}

	mayWriteFolder(folder: string): boolean {
		return canWriteFolder(this.principal, folder);
	}

	/** Whether the token allows `domain:action` (on `path` when given); narrowing only. */
	allows(domain: string, action: string, path?: string): boolean {
		return scopeAllows(this.principal, domain, action, path);
	}

	/** allows as a refusal: 403 naming the missing scope. */
	require(domain: string, action: string, path?: string): void {
		requireScope(this.principal, domain, action, path);
	}

	/** The paths `domain:action` reaches, as data for a SQL filter. */
	scope(domain: string, action: string): ScopePathFilter {
		return scopePathFilter(this.principal, domain, action);
	}

	/** Whether the token's `jobs:read` reaches the runs of `scriptPath` (a run without a path needs an unrestricted scope). */
	reachesJobsOf(scriptPath: string | null): boolean {
		return jobScopeAllows(this.principal, scriptPath);
	}

	/** The job read rule and the token's `jobs:read` paths, as data for a listing's SQL. */
	jobListing(): JobListAccess {
		return jobListAccess(this.principal);
	}

	/** Every path the owner reads, as data for a SQL filter. */
	readablePaths(): { all: boolean; folders: string[]; userPrefix: string } {
		return readablePathFilter(this.principal);
	}

	/**
	 * The redaction of a lineage read, per project: whether the node of the project at
	 * `scriptPath` shows what its author wrote (SQL, descriptions, columns, column lineage) or
	 * only its shape.
	 */
	redact(scriptPath: string): 'authored' | 'shape' {
		return authoredShownOf(this.principal, scriptPath) ? 'authored' : 'shape';
	}

	/** redact as the predicate the lineage assembly takes. */
	showsAuthored(scriptPath: string): boolean {
		return authoredShownOf(this.principal, scriptPath);
	}

	/** The projects whose shape the read may show, for SQL. */
	shapeFilter(): ScriptPathFilter {
		return shapePathFilter(this.principal);
	}

	/** The projects whose authored parts the read may show (showsAuthored), for SQL. */
	authoredFilter(): ScriptPathFilter {
		return authoredPathFilter(this.principal);
	}

	/** The token's `assets:read` narrowing over asset paths. */
	assetGate(): (assetPath: string) => boolean {
		return assetPathGate(this.principal);
	}

	/** The candidate owners of a column-lineage read whose lineage the caller may read. */
	readableOwners(candidates: readonly LineageOwner[]): LineageOwner[] {
		return readableLineageOwners(this.principal, candidates);
	}

	/** A named dbt version the caller may read, or 404 (one answer for missing and hidden). */
	readableVersion(database: Database, hash: bigint | null, param = 'dbt_script_hash'): Promise<VersionRef | null> {
		return readableVersion(database, this.principal, hash, param);
	}

	/** A folder's script-path prefix, or 404 for one that is missing or not the caller's. */
	readableFolderPrefix(database: Database, folder: string): Promise<string> {
		return readableFolderPrefix(database, this.principal, folder);
	}
}

/**
 * The grant of a read pinned to one run (the run page, jobs/{id} reads): whoever opened the run
 * (its creator, a share link's holder, a reader of its path), and what of its project they see.
 * A share-link viewer who is no member has no member grant: the run is all they reach.
 */
export class RunGrant {
	constructor(readonly access: JobAccess) {}

	get job(): JobAccess['job'] {
		return this.access.job;
	}

	get via(): JobAccess['via'] {
		return this.access.via;
	}

	/** The caller's own grant in the workspace; null for a share-link viewer who is not a member. */
	get member(): Grant | null {
		return this.access.principal ? grantOf(this.access.principal) : null;
	}

	/** Reads the run's project itself (its code, logs, column lineage), not only the run. */
	get mayReadProject(): boolean {
		return this.access.canReadScript;
	}

	/** The redaction of the run's pinned graph: authored parts, or its shape only (always for a preview's viewer without the project). */
	redact(pinned: { key: { scriptHash: bigint | null } }): 'authored' | 'shape' {
		return pinnedAuthoredShown(this.access, pinned) ? 'authored' : 'shape';
	}

	/** The token's `assets:read` narrowing (everything for a share link without a session). */
	assetGate(): (assetPath: string) => boolean {
		return assetPathGate(this.access.principal);
	}

	/** That narrowing as data (a cache key part): 'all' when nothing narrows. */
	assetScope(): ScopePathFilter | 'all' {
		return this.access.principal === null ? 'all' : scopePathFilter(this.access.principal, 'assets', 'read');
	}
}

const runGrants = new WeakMap<JobAccess, RunGrant>();

/** The grant of a run opened with jobAccess, one per opening. */
export function runGrantOf(a: JobAccess): RunGrant {
	let g = runGrants.get(a);
	if (!g) runGrants.set(a, (g = new RunGrant(a)));
	return g;
}

// One grant per principal, and the principal is memoised per request (identity.ts): a request
// computes each workspace's grant once, however many services ask it.
const grants = new WeakMap<Principal, Grant>();

/** The grant of a principal already built (workers, tests, a gate that returned one). */
export function grantOf(p: Principal): Grant {
	let g = grants.get(p);
	if (!g) grants.set(p, (g = new Grant(p)));
	return g;
}

/** The caller's grant in `ws` (workspacePrincipal's refusals: 400, 401, 404), once per request. */
export async function workspaceGrant(event: Pick<RequestEvent, 'locals'>, ws: string): Promise<Grant> {
	return grantOf(await workspacePrincipal(event, ws));
}

/**
 * The lineage reads' gate (the asset graph, column lineage and impact, the MCP reads): the
 * caller's grant in `ws` with `assets:read`.
 */
export async function assetReadGrant(event: Pick<RequestEvent, 'locals'>, ws: string): Promise<Grant> {
	const grant = await workspaceGrant(event, ws);
	grant.require('assets', 'read');
	return grant;
}
