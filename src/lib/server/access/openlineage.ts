// OpenLineage: what an export of a project or a run shows, and where a sender's events may land.
import type { RequestEvent } from '@sveltejs/kit';
import { ApiError, forbidden, notFound } from '../http';
import { canReadPath } from './folders';
import { grantOf, type Grant } from './grant';
import { authoredShownOf } from './hidden-nodes';
import { recentWorkspacePrincipal } from './identity';
import { requireScope } from './scopes';

export const NO_EXPORTABLE_VERSION = 'no dbt project version at this path and ref';

/**
 * `dbt/openlineage?path=&ref=`: the graph reads' gate (`assets:read`), then the path must be
 * readable and hold the version; one 404 for a path that is not yours, a missing version and a
 * version of another path, so hashes cannot be probed. `authored` is the one predicate for that
 * project: without it the events carry the shape (jobs, datasets) and no SQL, schema or column
 * lineage.
 */
export async function exportableVersion(
	grant: Grant,
	path: string,
	find: () => Promise<bigint | null>
): Promise<{ hash: bigint; authored: boolean }> {
	const p = grant.principal;
	requireScope(p, 'assets', 'read');
	if (!canReadPath(p, path)) throw notFound(NO_EXPORTABLE_VERSION);
	const hash = await find();
	if (hash === null) throw notFound(NO_EXPORTABLE_VERSION);
	return { hash, authored: authoredShownOf(p, path) };
}

// ─── OpenLineage in ────────────────────────────────────────────────────────────────────────

/**
 * The OpenLineage receiver's caller: a member of the workspace (workspacePrincipal's refusals:
 * a stranger learns nothing) whose token allows `lineage:write`. Where each event may land is
 * decided per event (Grant.requireLineageWrite). The token and its grants may be a lookup up to
 * AUTH_CACHE_MS old (auth/cache.ts: a change made through this process is seen at once).
 */
export async function openLineageSender(event: Pick<RequestEvent, 'locals'>, ws: string): Promise<Grant> {
	const p = await recentWorkspacePrincipal(event, ws);
	requireScope(p, 'lineage', 'write');
	return grantOf(p);
}

/** The refusal of an event whose job namespace maps to no folder (and the workspace sets no default). */
export function unmappedNamespace(namespace: string): ApiError {
	return forbidden(
		`the OpenLineage namespace ${JSON.stringify(namespace)} is not mapped to a folder: a workspace admin maps it (POST /api/w/{ws}/openlineage/namespaces {"namespace", "folder"}), or sets a default folder (namespace "*")`
	);
}
