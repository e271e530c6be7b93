// catalog.json (`dbt docs generate`): what the warehouse says each relation's columns are, in
// its order. Read at upload, so a file that is not a catalog is refused (400 naming it), or one
// over its relation or column limits (413 naming the limit), before anything is stored; its columns become `column_schema` when no node_columns index came, and
// the inference expands `select *` with them.
import { requireCatalogBytes, requireCatalogShape } from '../limits';
import { IngestError } from '../dbt-files/errors';
import { decodeUtf8Bytes, type UploadedFile } from '../dbt-files/uploaded-file';

export interface ParsedCatalog {
	/** The parsed JSON, as inferencePlan takes it. */
	json: Record<string, unknown>;
	/** unique_id → its columns (name and type) in catalog order, models, seeds, snapshots and sources alike. */
	columns: Map<string, { name: string; type?: string }[]>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The catalog, or an IngestError naming the file: not UTF-8, not JSON, or not a dbt catalog. */
export function parseCatalog(file: UploadedFile): ParsedCatalog {
	requireCatalogBytes(file.name, file.bytes.length);
	const text = decodeUtf8Bytes(file.bytes, file.name);
	let json: unknown;
	try {
		json = JSON.parse(text);
	} catch (e) {
		throw new IngestError(file.name, `is not valid JSON (${(e as Error).message})`);
	}
	if (!isObject(json)) throw new IngestError(file.name, 'is not a dbt catalog: expected a JSON object with `nodes` and `sources`');
	const meta = json.metadata;
	const schema = isObject(meta) && typeof meta.dbt_schema_version === 'string' ? meta.dbt_schema_version : null;
	if (schema !== null && !/\/catalog\//.test(schema)) {
		throw new IngestError(file.name, `is not a dbt catalog: its metadata.dbt_schema_version is ${schema}`, 'metadata.dbt_schema_version');
	}
	if (!isObject(json.nodes)) throw new IngestError(file.name, 'is not a dbt catalog: `nodes` must be an object of unique_id → table', 'nodes');
	if (json.sources !== undefined && json.sources !== null && !isObject(json.sources)) {
		throw new IngestError(file.name, 'is not a dbt catalog: `sources` must be an object of unique_id → table', 'sources');
	}
	// Counted before a column is read: a catalog within its bytes may still be all columns.
	requireCatalogShape(file.name, json.sources ? [['nodes', json.nodes], ['sources', json.sources as Record<string, unknown>]] : [['nodes', json.nodes]]);
	const columns = new Map<string, { name: string; type?: string }[]>();
	for (const group of [json.nodes, json.sources ?? {}] as Record<string, unknown>[]) {
		for (const [uid, table] of Object.entries(group)) {
			if (!isObject(table) || !isObject(table.columns)) continue;
			const cols: { name: string; type?: string; index: number }[] = [];
			let i = 0;
			for (const [key, c] of Object.entries(table.columns)) {
				i++;
				const col = isObject(c) ? c : {};
				const name = typeof col.name === 'string' && col.name !== '' ? col.name : key;
				const index = typeof col.index === 'number' && Number.isFinite(col.index) ? col.index : i;
				cols.push(typeof col.type === 'string' && col.type !== '' ? { name, type: col.type, index } : { name, index });
			}
			cols.sort((a, b) => a.index - b.index);
			columns.set(uid, cols.map(({ index: _i, ...c }) => c));
		}
	}
	return { json, columns };
}
