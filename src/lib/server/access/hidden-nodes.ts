// Hidden nodes: the gates of the lineage reads (asset graph, column lineage, relation details,
// pinned reads of a run), some as data for SQL (repo/lineage.ts applies them): who sees a
// project's shape, who sees what its author wrote, which asset paths a token reaches.
import type { RequestEvent } from '@sveltejs/kit';
import { mayShowAuthored } from '../../lineage/asset-graph';
import type { Database } from '../db';
import { badRequest, notFound } from '../http';
import { isWorkspaceId } from '../paths';
import { findVersion, lineageCandidatesSql, parseLineageCandidates, type LineageOwner, type ScriptPathFilter, type VersionRef } from '../repo/lineage';
import { canReadPath, mayReadPath, readablePathFilter } from './folders';
import { principalWith, remember, requireAuth, workspacePrincipal } from './identity';
import { jobAccess, JobNotFoundError, type JobAccess } from './jobs';
import type { Principal } from './principal';
import { filterAllows, requireScope, scopePathFilter } from './scopes';

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
