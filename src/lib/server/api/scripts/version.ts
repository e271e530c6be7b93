// A deployed dbt version as its API answer shows it: where it is, whether it is live or still
// being pinned, and the engine it is pinned to (what every run of it starts).
import { hashToHex, hexToHash } from '$lib/types/script-hash';
import type { Grant } from '../../access';
import { lockOf } from '../../dbt-engine-spec';
import type { Database } from '../../db';
import { badRequest, notFound } from '../../http';
import { versionDetail } from '../../repo/scripts';

export interface VersionAnswer {
	hash: string;
	path: string;
	created_by: string;
	created_at: string;
	/** False while its deploy job pins it (a failed pin removes it). */
	live: boolean;
	/** The engine its runs use; null until pinned (or when it runs on the operator's own engine unpinned). */
	lock: ReturnType<typeof publicLock>;
	has_project_files: boolean;
	deploy_job: { id: string; status: string } | null;
}

function publicLock(v: unknown) {
	const lock = lockOf(v);
	if (!lock) return null;
	const { package_lock_yml: _text, ...shown } = lock;
	return shown;
}

export function parseVersionHash(raw: string): bigint {
	const hash = hexToHash(raw);
	if (hash === null) throw badRequest('hash: must be the 16 hex digits of a version');
	return hash;
}

/** One version, for a caller who may read its path (any other caller gets the same 404 as for a missing one). */
export async function readVersion(grant: Grant, database: Database, hash: bigint): Promise<VersionAnswer> {
	const v = await versionDetail(database, grant.workspace, hash);
	if (!v || v.language !== 'dbt' || !grant.mayRead(v.path)) throw notFound('no dbt project version with this hash');
	return {
		hash: hashToHex(v.hash),
		path: v.path,
		created_by: v.createdBy,
		created_at: v.createdAt.toISOString(),
		live: !v.pending,
		lock: publicLock(v.lock),
		has_project_files: v.hasProjectFiles,
		deploy_job: v.deployJob
	};
}
