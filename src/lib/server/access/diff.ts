// The lineage diff's refs (GET dbt/diff): a version, a run or a preview of one path, each behind
// its own gate, with one 404 for every ref that is unknown or hidden.
import type { RequestEvent } from '@sveltejs/kit';
import type { Database } from '../db';
import { ApiError, badRequest, gone, notFound, unauthorized } from '../http';
import { isWorkspaceId } from '../paths';
import { RETENTION, type GraphKey } from '../repo/graph';
import { graphExists, latestDbtVersion, versionByHash } from '../repo/graph-diff';
import { pinnedGraphOf } from '../repo/lineage';
import { ZERO_UUID } from '../schema';
import { verifyShareToken } from '../share';
import { isJobId } from '../../types/jobs';
import { hashToHex, hexToHash } from '../../types/script-hash';
import { canReadPath } from './folders';
import { grantOf, type Grant } from './grant';
import { authoredShownOf, pinnedAuthoredShown } from './hidden-nodes';
import { INVALID_SHARE_LINK, viewTokenOf, workspacePrincipal } from './identity';
import { ASK_FOR_SHARE_LINK, jobAccess, type JobAccess } from './jobs';
import type { Principal } from './principal';
import { requireScope } from './scopes';

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
	/** The caller's grant as a member (null for a share-link viewer): whose producers and asset scope the impact walk sees. */
	member: Grant | null;
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
	database: Database,
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
		if ((await verifyShareToken(database, ws, raw)) === null) throw unauthorized(INVALID_SHARE_LINK);
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
		const pinned = await pinnedGraphOf(database, job);
		if (!pinned) {
			if (job.scriptHash === null && job.status === 'success') throw prunedPreview();
			if (job.scriptHash !== null && (await versionByHash(database, ws, job.scriptHash))) throw prunedVersion();
			throw refused();
		}
		return {
			key: pinned.key,
			hash: pinned.key.scriptHash === null ? null : hashToHex(pinned.key.scriptHash),
			jobId: pinned.own ? job.id : null,
			authored: pinnedAuthoredShown(access, pinned),
			member: access.principal ? grantOf(access.principal) : null
		};
	}
	if (!p) throw refused();
	if (!canReadPath(p, path)) throw refused();
	let hash: bigint | null;
	if (ref === 'latest') {
		hash = await latestDbtVersion(database, ws, path);
	} else {
		hash = hexToHash(ref);
		const v = hash === null ? null : await versionByHash(database, ws, hash);
		if (!v || v.deleted || v.language !== 'dbt' || v.path !== path) hash = null;
	}
	if (hash === null) throw refused();
	const key: GraphKey = { workspace: ws, scriptPath: path, scriptHash: hash, jobId: ZERO_UUID };
	if (!(await graphExists(database, key))) throw prunedVersion();
	return { key, hash: hashToHex(hash), jobId: null, authored: authoredShownOf(p, path), member: grantOf(p) };
}
