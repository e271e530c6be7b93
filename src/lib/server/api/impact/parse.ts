// The column impact query (GET assets/column_impact, jobs/dbt_column_impact): 400s naming the
// parameter.
import { externalDatasetOf } from '../../../lineage/openlineage-in';
import { MAX_NAME_BYTES, MAX_NAMESPACE_BYTES } from '../../openlineage-in/event';
import { isImpactDirection, type ImpactDirection } from '../../../lineage/column-impact';
import { badRequest } from '../../http';
import { parseAssetPaths, parseScriptHash } from '../graph/parse';

export interface ImpactQuery {
	kind: 'dbt' | 'ducklake' | 'openlineage';
	assetPath: string;
	column: string;
	direction: ImpactDirection;
	format: 'json' | 'csv';
	/** Unpinned only: a named dbt version, as on column lineage. */
	scriptHash: bigint | null;
}

const MAX_PATH = 255;
const MAX_COLUMN = 255;
// Namespace and name as the receiver bounds them (bytes), and the `/` between.
const MAX_OPENLINEAGE_PATH = MAX_NAMESPACE_BYTES + 1 + MAX_NAME_BYTES;
// A lake table's path: what a producer's annotation names, `<catalog>/<table>` or with a schema.
const LAKE_PATH = /^[A-Za-z0-9_$]+(?:\/[A-Za-z0-9_$]+(?:[.-][A-Za-z0-9_$]+)*){1,2}$/;
// Column names are the engine's, so almost anything: but not a control character, and not empty.
const CONTROL = /[\u0000-\u001f\u007f]/;

function once(q: URLSearchParams, name: string, what: string): string | undefined {
	const all = q.getAll(name);
	if (all.length > 1) throw badRequest(`${name} may be given once: ${what}`);
	return all[0];
}

/**
 * `asset_path=` once (a dbt relation as column lineage takes it, or `ducklake://<path>` for a
 * lake table), `column=`, `direction=downstream|upstream` (default downstream), `format=json|csv`
 * (default json), and `dbt_script_hash=` as on column lineage.
 */
export function parseImpactQuery(q: URLSearchParams): ImpactQuery {
	const what = 'one relation, dbt://<warehouse>/<schema>/<name>, ducklake://<path> or openlineage://<namespace>/<name>';
	const raw = once(q, 'asset_path', what);
	if (raw === undefined || raw === '') throw badRequest(`asset_path is required: ${what}`);
	let kind: ImpactQuery['kind'] = 'dbt';
	let assetPath: string;
	if (raw.startsWith('openlineage://')) {
		// A dataset an OpenLineage job reported: its identity as the receiver wrote it.
		kind = 'openlineage';
		assetPath = raw.slice('openlineage://'.length);
		if (assetPath.length > MAX_OPENLINEAGE_PATH || CONTROL.test(assetPath) || !externalDatasetOf(assetPath)) {
			throw badRequest(`asset_path: an OpenLineage dataset is openlineage://<namespace>/<name>, at most ${MAX_OPENLINEAGE_PATH} characters`);
		}
	} else if (raw.length > MAX_PATH + 'ducklake://'.length) {
		throw badRequest(`asset_path is ${raw.length} characters; at most ${MAX_PATH}: ${what}`);
	} else if (raw.startsWith('ducklake://')) {
		kind = 'ducklake';
		assetPath = raw.slice('ducklake://'.length);
		if (!LAKE_PATH.test(assetPath)) throw badRequest('asset_path: a lake table is ducklake://<catalog>/<table> (letters, digits, _ and $, joined by . or -)');
	} else {
		assetPath = parseAssetPaths(new URLSearchParams([['asset_path', raw]]))[0];
	}
	const column = once(q, 'column', 'one column name');
	if (column === undefined || column === '') throw badRequest(`column is required: the name of one column of ${kind}://${assetPath}`);
	if (column.length > MAX_COLUMN || CONTROL.test(column)) throw badRequest(`column must be a column name: 1 to ${MAX_COLUMN} characters, no control characters`);
	const direction = once(q, 'direction', 'downstream or upstream') ?? 'downstream';
	if (!isImpactDirection(direction)) throw badRequest(`direction must be downstream or upstream (got ${JSON.stringify(direction.slice(0, 40))})`);
	const format = once(q, 'format', 'json or csv') ?? 'json';
	if (format !== 'json' && format !== 'csv') throw badRequest(`format must be json or csv (got ${JSON.stringify(format.slice(0, 40))})`);
	return { kind, assetPath, column, direction, format, scriptHash: parseScriptHash(q) };
}
