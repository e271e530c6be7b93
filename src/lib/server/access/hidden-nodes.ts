// Hidden nodes: the rules of the lineage reads (asset graph, column lineage, relation details,
// pinned reads of a run), some as data for SQL (repo/lineage.ts applies them): who sees a
// project's shape, who sees what its author wrote, which asset paths a token reaches. The
// services reach them through the grant (grant.ts); the request's gates are lineage-gates.ts.
import { mayShowAuthored } from '../../lineage/asset-graph';
import type { Database } from '../db';
import { notFound } from '../http';
import { findVersion, type LineageOwner, type ScriptPathFilter, type VersionRef } from '../repo/lineage';
import { canReadPath, mayReadPath, readablePathFilter } from './folders';
import type { JobAccess } from './jobs';
import type { Principal } from './principal';
import { filterAllows, scopePathFilter } from './scopes';

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

/** Which candidate owners of a column-lineage read the caller may read the lineage of: authoredPathFilter's gate (mayReadPath on `scripts`), in process. */
export function readableLineageOwners(p: Principal, candidates: readonly LineageOwner[]): LineageOwner[] {
	return candidates.filter((o) => mayReadPath(p, o.key.scriptPath, 'scripts'));
}

/**
 * A named dbt version (`dbt_script_hash=`, the details pane's `hash=`) the caller may read, or
 * 404: a version of a path it cannot read is as absent as a missing one, so hashes cannot be
 * probed (share viewers see them as `script_hash`).
 */
export async function readableVersion(database: Database, p: Principal, hash: bigint | null, param = 'dbt_script_hash'): Promise<VersionRef | null> {
	if (hash === null) return null;
	const v = await findVersion(database, p.workspace, hash);
	if (!v || v.language !== 'dbt' || !canReadPath(p, v.path)) throw notFound(`no dbt project version with this ${param}`);
	return v;
}

/** Whether a job-pinned read shows authored fields and column lineage (never for a preview's viewer without the project). */
export function pinnedAuthoredShown(a: JobAccess, pinned: { key: { scriptHash: bigint | null } }): boolean {
	return mayShowAuthored({ preview: pinned.key.scriptHash === null, versionVisible: true, mayReadScript: a.canReadScript });
}
