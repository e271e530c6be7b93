// Every request: who is calling (session cookie or bearer token), and a CSRF check of our own
// (kit's origin check is off because the CLI posts multipart without an Origin header).
import type { Handle, ServerInit } from '@sveltejs/kit';
import { dev } from '$app/environment';
import { authenticate } from '$lib/server/auth/authenticate';
import { authChanged } from '$lib/server/auth/cache';
import { bootstrap, firstStartBanner } from '$lib/server/bootstrap';
import { DATABASE_UNAVAILABLE_MESSAGE, getDatabase, isDatabaseUnavailable } from '$lib/server/db';
import { errorResponse } from '$lib/server/http';
import { requestOrigin } from '$lib/server/origin';
import { withSecurityHeadersOn } from '$lib/server/security-headers';
import { exitOnStopSignals, shutdownGraceMs, stopWebProcess } from '$lib/server/shutdown';

export const init: ServerInit = async () => {
	// Read first: a bad value stops the start with its message before anything is opened.
	const graceMs = shutdownGraceMs();
	const database = await getDatabase();
	const log = (line: string) => process.stdout.write(`${line}\n`);
	const boot = await bootstrap(database, { log: (line) => log(firstStartBanner(line)) });
	const { sealStoredSecrets } = await import('$lib/server/repo/warehouses');
	const sealed = await sealStoredSecrets(database);
	if (sealed.resealed) log(`Sealed ${sealed.resealed} warehouse secret${sealed.resealed === 1 ? '' : 's'} under the current encryption key`);
	if (sealed.unreadable.length) {
		process.stderr.write(`warehouse secrets no key opens (set TRIBUTARY_ENCRYPTION_KEY_PREVIOUS to the old key, or save them again): ${sealed.unreadable.join(', ')}\n`);
	}
	if (boot.adminCreated) {
		// Loaded only on a fresh database: the generator pulls in the parquet writer.
		const { seedDemo, wantDemo } = await import('$lib/server/demo/seed');
		if (wantDemo(database, boot.adminCreated)) {
			try {
				const demo = await seedDemo(database, process.env.TRIBUTARY_ADMIN_USER || 'admin');
				log(
					`Seeded the demo workspace: ${demo.nodes} dbt nodes, ${demo.columnEdges ?? 0} column edges, a succeeded and a failed run, a preview, ` +
						`and a second project of ${demo.roastery.nodes} nodes whose column lineage the worker infers (TRIBUTARY_DEMO=0 skips this)`
				);
			} catch (e) {
				// The app is still usable without its demo; say why it is missing.
				process.stderr.write(`Could not seed the demo workspace: ${(e as Error).stack ?? e}\n`);
			}
		}
	}
	if (process.env.TRIBUTARY_WORKER !== '0') {
		const { startProcessWorker } = await import('$lib/server/runner/worker');
		const { runnerIngest } = await import('$lib/server/runner-ingest');
		startProcessWorker({ database, ingest: runnerIngest, log });
	}
	// The built server (adapter-node) stops on SIGTERM/SIGINT as shutdown.ts says; `vite dev` stops itself.
	if (!dev) exitOnStopSignals({ graceMs, log, stop: (signal) => stopWebProcess(signal, graceMs, log) });
};

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
// The content types a cross-site HTML form can send without a CORS preflight.
const FORM_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'];

function isFormContent(request: Request): boolean {
	const type = (request.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
	return FORM_TYPES.includes(type);
}

// Routes whose bearer tokens may be judged by a recent lookup (auth/cache.ts): senders call
// them many times a second, and they change nothing that decides access.
const CACHED_AUTH_ROUTES = new Set(['/api/w/[ws]/openlineage/api/v1/lineage']);

const authenticateAndCheckOrigin: Handle = async ({ event, resolve }) => {
	const cachedToken = CACHED_AUTH_ROUTES.has(event.route.id ?? '');
	try {
		event.locals.auth = await authenticate(event, { cachedToken });
	} catch (e) {
		if (isDatabaseUnavailable(e)) return errorResponse(503, DATABASE_UNAVAILABLE_MESSAGE, { 'retry-after': '1' });
		throw e;
	}
	if (!SAFE_METHODS.has(event.request.method)) {
		const origin = event.request.headers.get('origin');
		// A browser names the page's origin; a cookie-carrying write from another origin, or a
		// cross-site form post (login CSRF), is refused. Clients that send no Origin (the CLI,
		// curl) are unaffected: they do not ride on a browser's cookies.
		const crossSite = origin !== null && origin !== requestOrigin(event.url);
		if (crossSite && (event.locals.auth?.via === 'session' || isFormContent(event.request))) {
			return errorResponse(403, 'cross-site request refused: the Origin header does not match this site');
		}
		// Any other write may have changed who may do what (a token revoked, a member removed, a
		// folder's grants edited): the cached identities go once it is done, before it is answered.
		if (!cachedToken) {
			try {
				return await resolve(event);
			} finally {
				authChanged();
			}
		}
	}
	return resolve(event);
};

export const handle = withSecurityHeadersOn(authenticateAndCheckOrigin);
