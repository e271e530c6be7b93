// The grant: what one caller may do in one workspace, computed once per request and handed to
// the services as their first argument. A service asks it questions (mayRead, redact, the
// filters its SQL applies) and never derives access itself, so reading a service tells what the
// caller was allowed. The rules behind each question stay in the files of their concern.
import type { RequestEvent } from '@sveltejs/kit';
import type { Database } from '../db';
import type { LineageOwner, ScriptPathFilter, VersionRef } from '../repo/lineage';
import { forbidden } from '../http';
import { canReadFolder, canReadPath, canWriteFolder, canWritePath, mayReadPath, mayWritePath, readableFolderPrefix, readablePathFilter } from './folders';
import { assetPathGate, authoredPathFilter, authoredShownOf, pinnedAuthoredShown, readableLineageOwners, readableVersion, shapePathFilter } from './hidden-nodes';
import { workspacePrincipal } from './identity';
import { adminAllows, mayListTokens, mayManageAccounts, requireAdmin, requireAdminAccess, requireFork, requireMintWithin, requireTokenList, requireTokenMint, requireTokenRevoke, type AdminResource } from './admin';
import { jobAccess, jobListAccess, jobScopeAllows, mayDelete, mayMintShare, mayRun, requireCancelAccess, requireShareMint, requireRunAccess, requireScriptDelete, requireScriptWrite, type JobAccess, type JobListAccess } from './jobs';
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

	get accountId(): string {
		return this.principal.accountId;
	}

	get isAdmin(): boolean {
		return this.principal.isAdmin;
	}

	/** How the caller signed in: a browser session, or an API token. */
	get via(): 'session' | 'token' {
		return this.principal.via;
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

	/** mayRun as a refusal: 400 for a malformed path, 404 when the caller cannot read it, 403 otherwise. */
	requireRun(path: string): void {
		requireRunAccess(this.principal, path);
	}

	/** Deploys to `path` (a dbt deploy or preview, a producer): write access and `scripts:write`. */
	requireWrite(path: string): void {
		requireScriptWrite(this.principal, path);
	}

	/** Deletes what is stored under `path` (a page's delete button). */
	mayDelete(path: string): boolean {
		return mayDelete(this.principal, path);
	}

	/** mayDelete as a refusal: 404 when the caller cannot read `path`, 403 otherwise. */
	requireDelete(path: string): void {
		requireScriptDelete(this.principal, path);
	}

	/** Cancels `job`: a reader of it who created it or writes its script, with `jobs:run`. */
	requireCancel(job: { createdBy: string; scriptPath: string | null }): void {
		requireCancelAccess(this.principal, job);
	}

	/** 403 unless the caller administers the workspace. */
	requireAdmin(): void {
		requireAdmin(this.principal);
	}

	/** Administers `resource` (members, groups, folders, warehouses, namespaces): an admin, with `<resource>:<action>` for a token. */
	administers(resource: AdminResource, action: 'read' | 'write'): boolean {
		return adminAllows(this.principal, resource, action);
	}

	/** administers as a refusal. */
	requireAdministers(resource: AdminResource, action: 'read' | 'write'): void {
		requireAdminAccess(this.principal, resource, action);
	}

	/** Forks the workspace: an admin of it, with `workspaces:write` for a token. */
	requireFork(): void {
		requireFork(this.principal);
	}

	/** Lists its own tokens (`tokens:read` for a token). */
	mayListTokens(): boolean {
		return mayListTokens(this.principal);
	}

	requireTokenList(): void {
		requireTokenList(this.principal);
	}

	requireTokenMint(): void {
		requireTokenMint(this.principal);
	}

	/** Mints a token with `scopes`: never wider than the minting token. */
	requireMintWithin(scopes: readonly string[]): void {
		requireMintWithin(this.principal, scopes);
	}

	/** Revokes `token`: its owner or an admin, with `tokens:write`; 404 for anyone else. */
	requireTokenRevoke<T extends { owner: string }>(token: T | null): asserts token is T {
		requireTokenRevoke(this.principal, token);
	}

	/** Adds an account that exists elsewhere, or sets an existing account's password: an instance admin. */
	mayManageAccounts(): boolean {
		return mayManageAccounts(this.principal);
	}

	/** The folders the caller reads (writers included), by name. */
	readableFolders(): string[] {
		return [...this.principal.readFolders];
	}

	mayReadFolder(folder: string): boolean {
		return canReadFolder(this.principal, folder);
	}

	mayWriteFolder(folder: string): boolean {
		return canWriteFolder(this.principal, folder);
	}

	/**
	 * An OpenLineage event writes the job at `path` in `folder`: a writer of the folder (or an
	 * admin) whose token's `lineage:write` covers the path. A member who cannot even read the
	 * folder is not told its name (only the namespace it sent); one who reads it is told it needs
	 * write access.
	 */
	requireLineageWrite(namespace: string, folder: string, path: string): void {
		if (!canWriteFolder(this.principal, folder)) {
			if (!canReadFolder(this.principal, folder)) throw forbidden(`you may not send OpenLineage events for the namespace ${JSON.stringify(namespace)}`);
			throw forbidden(`the namespace ${JSON.stringify(namespace)} writes into the folder ${folder}, which you may read but not write`);
		}
		requireScope(this.principal, 'lineage', 'write', path);
	}

	/** A dbt-ol event records a run of the deployed project at `path`: write access to it and `lineage:write` on it. */
	requireProjectRunWrite(path: string): void {
		if (!canWritePath(this.principal, path)) throw forbidden(`this dbt run belongs to ${path}: recording its runs needs write access to it`);
		requireScope(this.principal, 'lineage', 'write', path);
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

	/**
	 * The redaction of the run itself (its args, result, log and progress messages): what its
	 * author wrote for a caller who reads the project, its shape and outcome for anyone else.
	 */
	redactRun(): 'authored' | 'shape' {
		return this.access.canReadScript ? 'authored' : 'shape';
	}

	/** Shares the run (mints, lists and revokes its links): someone who sees it on their own account, not through a link. */
	get mayShare(): boolean {
		return mayMintShare(this.access);
	}

	/** mayShare as a refusal (401 without a session, 403 for a link holder); the sharer's grant. */
	requireShare(): Grant {
		return grantOf(requireShareMint(this.access));
	}

	/** Starts the run's project again (resume, or run a recorded run here): mayRun on its path. */
	get mayResume(): boolean {
		const p = this.access.principal;
		return p !== null && this.access.job.scriptPath !== null && mayRun(p, this.access.job.scriptPath);
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
 * The gate of the jobs/{id} endpoints (jobAccess's refusals: 400, 401, 403, 404): the grant of
 * the run, one per opening.
 */
export async function runGrant(event: Pick<RequestEvent, 'locals' | 'url' | 'request'>, ws: string, jobId: string): Promise<RunGrant> {
	return runGrantOf(await jobAccess(event, ws, jobId));
}

/**
 * The share-link endpoints' gate: a member of `ws` first (no credentials 401, a non-member 404,
 * whatever link they hold, before the job is looked at), then the run, which they must see on
 * their own account (RunGrant.requireShare).
 */
export async function shareGrant(event: Pick<RequestEvent, 'locals' | 'url' | 'request'>, ws: string, jobId: string): Promise<RunGrant> {
	await workspaceGrant(event, ws);
	const run = await runGrant(event, ws, jobId);
	run.requireShare();
	return run;
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
