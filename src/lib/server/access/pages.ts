// Page gates: a page load's or form action's refusals (a redirect to sign in, the page's error
// status), the run page, and the canvas layout endpoint a share link may use.
import { error, redirect, type RequestEvent } from '@sveltejs/kit';
import type { AuthContext } from '../auth/context';
import { ApiError, badRequest, forbidden } from '../http';
import { grantOf, runGrantOf, type Grant, type RunGrant } from './grant';
import { pinnedAccessOf, type PinnedAccess } from './lineage-gates';
import { viewTokenOf, workspacePrincipal } from './identity';
import { jobAccess, type JobAccess } from './jobs';
import type { Principal } from './principal';
import { requireScope } from './scopes';

/** requireAuth for a page load or form action: no credentials redirect to the sign-in page (coming back here afterwards). */
export function pageAuth(event: Pick<RequestEvent, 'locals' | 'url'>): AuthContext {
	const auth = event.locals.auth;
	if (!auth) redirect(303, event.url.pathname === '/' ? '/login' : `/login?next=${encodeURIComponent(event.url.pathname + event.url.search)}`);
	return auth;
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

/** pagePrincipal's grant: what a page load or form action hands its services. */
export async function pageGrant(event: Pick<RequestEvent, 'locals' | 'url'>, ws: string): Promise<Grant> {
	return grantOf(await pagePrincipal(event, ws));
}

/**
 * The workspace layout's caller: a member's grant, as pageGrant. With a share link in the URL the
 * viewer may be no member (or not signed in): null then, and the layout reveals nothing beyond
 * the URL (the run page verifies the link itself).
 */
export async function layoutPageGrant(event: Pick<RequestEvent, 'locals' | 'url'>, ws: string): Promise<Grant | null> {
	if (!event.url.searchParams.has('view_token')) return pageGrant(event, ws);
	try {
		return grantOf(await workspacePrincipal(event, ws));
	} catch (e) {
		if (e instanceof ApiError) return null;
		throw e;
	}
}

/**
 * The run page's gate, and its canvas's (`jobs/run_canvas/{id}`): job read access (a share link
 * included) plus `assets:read`. Unlike pinnedAccess, a job that does not exist is a 404: the
 * page shows one run. A share-link viewer's graph is the shape only unless they may read the
 * project (`RunGrant.redact`), as on the page itself.
 */
export async function runPageAccess(event: Pick<RequestEvent, 'locals' | 'url' | 'request'>, ws: string, id: string): Promise<{ run: RunGrant; pinned: PinnedAccess }> {
	const access = await jobAccess(event, ws, id);
	return { run: runGrantOf(access), pinned: pinnedAccessOf(access) };
}

/**
 * runPageAccess for the run page's load: without credentials (and without a link that lets the
 * caller in) a redirect to the sign-in page; any other refusal is the page's status.
 */
export async function runPageGrant(event: Pick<RequestEvent, 'locals' | 'url' | 'request'>, ws: string, id: string): Promise<{ run: RunGrant; pinned: PinnedAccess }> {
	try {
		return await runPageAccess(event, ws, id);
	} catch (e) {
		if (!(e instanceof ApiError)) throw e;
		if (e.status === 401 && !event.locals.auth) redirect(303, `/login?next=${encodeURIComponent(event.url.pathname + event.url.search)}`);
		error(e.status, e.message);
	}
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
