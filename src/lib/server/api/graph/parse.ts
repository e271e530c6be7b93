// The asset graph reads' inputs: the query of GET assets/graph and jobs/dbt_graph (400s naming
// the parameter), and the asset paths every lineage read names.
import { ASSET_KINDS, isAssetKind, type AssetKind } from '../../../types/asset-graph';
import { hexToHash } from '../../../types/script-hash';
import { badRequest } from '../../http';
import { isSegment } from '../../paths';
import { type NodeFields } from '../../repo/lineage';

export const MAX_ASSET_PATHS = 1000;

function single(q: URLSearchParams, name: string): string | undefined {
	const all = q.getAll(name);
	if (all.length > 1) throw badRequest(`${name} may be given once`);
	return all[0];
}

/** `dbt_script_hash`: a version as the API writes it, 16 hex digits. */
export function parseScriptHash(q: URLSearchParams): bigint | null {
	const raw = single(q, 'dbt_script_hash');
	if (raw === undefined) return null;
	const h = hexToHash(raw);
	if (h === null) throw badRequest('dbt_script_hash must be a script version: 16 hex digits');
	return h;
}

export interface GraphQuery {
	folder: string | null;
	assetKinds: Set<AssetKind> | null;
	scriptHash: bigint | null;
}

/** `folder=` (optional), `asset_kinds=` (comma list, repeatable), `dbt_script_hash=`. */
export function parseGraphQuery(q: URLSearchParams): GraphQuery {
	const folder = single(q, 'folder');
	if (folder !== undefined && !isSegment(folder)) {
		throw badRequest('folder must be a folder name (letters, digits, _ and -)');
	}
	let assetKinds: Set<AssetKind> | null = null;
	const kindParams = q.getAll('asset_kinds');
	if (kindParams.length > 0) {
		assetKinds = new Set();
		for (const k of kindParams.flatMap((v) => v.split(','))) {
			const kind = k.trim();
			if (!isAssetKind(kind)) {
				throw badRequest(`asset_kinds: unknown asset kind ${JSON.stringify(kind.slice(0, 40))}; known kinds are ${ASSET_KINDS.join(', ')}`);
			}
			assetKinds.add(kind);
		}
	}
	return { folder: folder ?? null, assetKinds, scriptHash: parseScriptHash(q) };
}

// A relation's path as the ingest writes it: warehouse name, schema (optionally `db.schema`),
// name. Runs of letters, digits, `_` and `$` joined by single `.` or `-`, which keeps out
// quotes, comment markers, `..`, control characters and anything outside ASCII.
const WORD = '[A-Za-z0-9_$]+';
const ASSET_PATH = new RegExp(`^${WORD}(?:-${WORD})*(?:/${WORD}(?:[.-]${WORD})*){2}$`);
const MAX_ASSET_PATH = 255;

/**
 * `asset_path=` repeated 1 to 1000 times; each `dbt://<warehouse>/<schema>/<name>` or the bare
 * path. De-duplicated; order does not matter.
 */
export function parseAssetPaths(q: URLSearchParams): string[] {
	const raw = q.getAll('asset_path');
	if (raw.length === 0) throw badRequest('asset_path is required: one to 1000 dbt relations, dbt://<warehouse>/<schema>/<name>');
	if (raw.length > MAX_ASSET_PATHS) throw badRequest(`asset_path may be given at most ${MAX_ASSET_PATHS} times (got ${raw.length})`);
	const out = new Set<string>();
	for (const r of raw) {
		const path = r.startsWith('dbt://') ? r.slice('dbt://'.length) : r;
		if (path.length === 0 || path.length > MAX_ASSET_PATH || !ASSET_PATH.test(path)) {
			throw badRequest('each asset_path must be a dbt relation: dbt://<warehouse>/<schema>/<name> or <warehouse>/<schema>/<name>');
		}
		out.add(path);
	}
	return [...out].sort();
}

/** `fields=shape|full` (default full). */
export function parseGraphFields(q: URLSearchParams): NodeFields {
	const raw = single(q, 'fields');
	if (raw === undefined || raw === 'full') return 'full';
	if (raw === 'shape') return 'shape';
	throw badRequest('fields must be shape or full');
}
