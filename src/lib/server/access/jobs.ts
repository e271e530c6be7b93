// Jobs: who reads a run (its creator, a share link, a reader of its path), who shares, runs and
// cancels one.
import type { RequestEvent } from '@sveltejs/kit';
import { getDatabase } from '../db';
import { ApiError, badRequest, forbidden, notFound, unauthorized } from '../http';
import { isWorkspaceId, parseScriptPath } from '../paths';
import { getJobView, isJobWithin, type JobListAccess, type JobView } from '../repo/jobs';
import { verifyShareToken, type ShareGrant } from '../share';
import { isJobId } from '../../types/jobs';
import { canReadPath, canWritePath, mayReadPath, readablePathFilter } from './folders';
import { INVALID_SHARE_LINK, viewTokenOf, workspacePrincipal } from './identity';
import type { Principal } from './principal';
import { filterAllows, requireScope, scopeAllows, scopePathFilter } from './scopes';

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

export type { JobListAccess } from '../repo/jobs';

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
	const database = await getDatabase();
	const raw = viewTokenOf(event);
	const share: ShareGrant | null = raw === null ? null : await verifyShareToken(database, ws, raw);

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

	const job = await getJobView(database, ws, id);
	if (!job) throw new JobNotFoundError();
	let linkValid = share !== null && (await isJobWithin(database, ws, job.id, share.jobId));
	// An OpenLineage run nests under whatever parent its events name, in any folder: a link to the
	// parent reaches only the child runs in the parent's own folder.
	if (linkValid && share !== null && share.jobId !== job.id && job.kind === 'openlineage') {
		const shared = await getJobView(database, ws, share.jobId);
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
