// The lineage reads' gates at the request: each establishes the caller and hands the service
// the grant it asks (a member's Grant, or a RunGrant for a read pinned to one run, share links
// included).
import type { RequestEvent } from '@sveltejs/kit';
import { badRequest } from '../http';
import { isWorkspaceId } from '../paths';
import { lineageCandidatesSql, lineageInputsStampSql, parseLineageCandidates, type LineageOwner } from '../repo/lineage';
import { grantOf, runGrantOf, type Grant, type RunGrant } from './grant';
import { principalWith, remember, requireAuth, workspacePrincipal } from './identity';
import { jobAccess, JobNotFoundError, type JobAccess } from './jobs';
import type { Principal } from './principal';
import { requireScope } from './scopes';

/**
 * GET assets/column_lineage's gate: a member with `assets:read` (workspacePrincipal's refusals,
 * then the scope), the query parsed once the caller is known to be signed in. An unnamed read
 * gets the candidate owners of its relations read in the principal's own statement (one round
 * trip instead of two: see bench/README.md, column-lineage); they are every project's, so
 * unpinnedColumnLineage narrows them with the grant's readableOwners before reading any.
 */
export async function columnLineageAccess<Q extends { assetPaths: string[]; scriptHash: bigint | null }>(
	event: Pick<RequestEvent, 'locals'>,
	ws: string,
	parse: () => Q
): Promise<{ grant: Grant; principal: Principal; query: Q; candidates: LineageOwner[] | null }> {
	if (!isWorkspaceId(ws)) throw badRequest('invalid workspace id: use up to 50 of [a-z0-9-]');
	const auth = requireAuth(event);
	const query = parse();
	const named = query.scriptHash !== null;
	const built = principalWith(auth, ws, named ? null : lineageCandidatesSql(ws, query.assetPaths));
	remember(event, ws, built.then((b) => b.principal));
	const { principal, rider } = await built;
	requireScope(principal, 'assets', 'read');
	return { grant: grantOf(principal), principal, query, candidates: rider === null ? null : parseLineageCandidates(ws, rider) };
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

/** A read pinned to a run: the run's grant, or (the job is gone) the member's own. */
export type PinnedAccess = { kind: 'job'; access: JobAccess; run: RunGrant } | { kind: 'no_job'; principal: Principal; grant: Grant };

/** A pinned read of a job already opened with jobAccess: plus `assets:read` for a signed-in caller. */
export function pinnedAccessOf(access: JobAccess): PinnedAccess {
	if (access.principal) requireScope(access.principal, 'assets', 'read');
	return { kind: 'job', access, run: runGrantOf(access) };
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
		return { kind: 'no_job', principal, grant: grantOf(principal) };
	}
}
