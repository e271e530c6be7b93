// Reading an index (column_lineage, node_columns) as rows and writing rows back, with the
// engine's column names: how the diff tests make mutated copies of real and generated indexes.
import { parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { parquetWriteBuffer } from 'hyparquet-writer';

export type IndexRow = Record<string, unknown>;

export async function indexRows(bytes: Uint8Array): Promise<IndexRow[]> {
	return parquetReadObjects({ file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, compressors });
}

export function writeLineage(rows: IndexRow[]): Uint8Array {
	const col = (name: string) => ({ name, data: rows.map((r) => r[name] as string), type: 'STRING' as const });
	return new Uint8Array(parquetWriteBuffer({ columnData: ['from_node_unique_id', 'from_column_name', 'to_node_unique_id', 'to_column_name', 'lineage_kind'].map(col) }));
}

export function writeColumns(rows: IndexRow[]): Uint8Array {
	const str = (name: string) => ({ name, data: rows.map((r) => (r[name] ?? null) as string | null), type: 'STRING' as const });
	return new Uint8Array(
		parquetWriteBuffer({
			columnData: [
				str('unique_id'),
				str('column_name'),
				{ name: 'column_index', data: rows.map((r) => (r.column_index === null || r.column_index === undefined ? null : BigInt(r.column_index as bigint))), type: 'INT64' },
				str('declared_type'),
				str('inferred_type'),
				str('catalog_type'),
				str('data_type')
			]
		})
	);
}
