// The engine's flat static-analysis index (fixtures/FORMATS.md §1.4, §1.6): column_lineage and
// node_columns, ZSTD(1), the same column names, physical/logical types and REQUIRED/OPTIONAL
// repetition arrow-rs writes. column_lineage is written a row group at a time so a multi-million
// row file never exists as rows in memory, only as its compressed bytes.
import { compress, init } from '@bokuweb/zstd-wasm';
import type { SchemaElement } from 'hyparquet';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import type { Writer } from 'hyparquet-writer';
import { isExecutable, type LineageEdge, type ProjectSpec } from './spec';

/** Rows per row group: the engine's typed writer batches 65,536 rows. */
export const ROW_GROUP_ROWS = 65_536;
const CREATED_BY = 'tributary demo generator (hyparquet-writer 0.17.0)';

let zstdReady: Promise<void> | null = null;
function ensureZstd(): Promise<void> {
	zstdReady ??= init();
	return zstdReady;
}
const compressors = { ZSTD: (input: Uint8Array) => compress(input, 1) };

const str = (name: string, required: boolean): SchemaElement => ({
	name,
	type: 'BYTE_ARRAY',
	converted_type: 'UTF8',
	logical_type: { type: 'STRING' },
	repetition_type: required ? 'REQUIRED' : 'OPTIONAL'
});
const timestampMicros = (name: string): SchemaElement => ({
	name,
	type: 'INT64',
	converted_type: 'TIMESTAMP_MICROS',
	logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MICROS' },
	repetition_type: 'REQUIRED'
});

export const COLUMN_LINEAGE_SCHEMA: SchemaElement[] = [
	{ name: 'arrow_schema', num_children: 6 },
	str('from_node_unique_id', true),
	str('from_column_name', true),
	str('to_node_unique_id', true),
	str('to_column_name', true),
	str('lineage_kind', false),
	timestampMicros('ingested_at')
];

export const NODE_COLUMNS_SCHEMA: SchemaElement[] = [
	{ name: 'arrow_schema', num_children: 10 },
	str('unique_id', true),
	str('column_name', true),
	{ name: 'column_index', type: 'INT64', repetition_type: 'OPTIONAL' },
	str('declared_type', false),
	str('inferred_type', false),
	str('catalog_type', false),
	str('data_type', false),
	str('description', false),
	{ name: 'tags', repetition_type: 'REQUIRED', num_children: 1, converted_type: 'LIST', logical_type: { type: 'LIST' } },
	{ name: 'list', repetition_type: 'REPEATED', num_children: 1 },
	str('item', false),
	timestampMicros('ingested_at')
];

/** Rows past the real edges: valid rows a consumer must drop (duplicates, nodes outside the manifest, unnamed columns). */
function fillerRow(i: number, edges: readonly LineageEdge[], project: string): LineageEdge {
	const variant = i % 5;
	if (edges.length > 0 && variant <= 1) return edges[(i * 2654435761) % edges.length];
	if (edges.length > 0 && variant === 4) return { ...edges[(i * 40503) % edges.length], toColumn: '' };
	const retired = `model.${project}.retired_model_${i % 4999}`;
	if (edges.length > 0 && variant === 2) {
		const e = edges[(i * 7919) % edges.length];
		return { fromId: e.toId, fromColumn: e.toColumn, toId: retired, toColumn: e.toColumn, kind: i % 3 === 0 ? 'scan' : 'copy' };
	}
	return {
		fromId: `source.${project}.legacy_erp.table_${i % 211}`,
		fromColumn: `field_${i % 37}`,
		toId: retired,
		toColumn: `field_${i % 37}`,
		kind: i % 2 === 0 ? 'copy' : 'scan'
	};
}

export interface LineageFileOptions {
	edges: readonly LineageEdge[];
	/** Total rows to write; rows beyond the edges are filler. At least the edge count. */
	rows: number;
	ingestedAtMicros: bigint;
	project: string;
	/** Where to write; a ByteWriter (in memory) when omitted. */
	writer?: Writer;
}

/** Writes dbt.column_lineage.parquet; the real edges are spread evenly over the row groups. */
export async function writeColumnLineage(opts: LineageFileOptions): Promise<Uint8Array | null> {
	await ensureZstd();
	const { edges, ingestedAtMicros, project } = opts;
	const rows = Math.max(opts.rows, edges.length);
	const writer = opts.writer ?? new ByteWriter(1 << 20);
	const pw = new ParquetWriter({ writer, schema: COLUMN_LINEAGE_SCHEMA, codec: 'ZSTD', compressors, createdBy: CREATED_BY });
	// Ids and column names repeat across millions of rows: encode each distinct string once
	// instead of letting the writer allocate a fresh byte array per cell.
	const utf8 = new TextEncoder();
	const encoded = new Map<string, Uint8Array>();
	const bytes = (v: string) => {
		let b = encoded.get(v);
		if (!b) {
			b = utf8.encode(v);
			encoded.set(v, b);
		}
		return b;
	};
	const groups = Math.max(1, Math.ceil(rows / ROW_GROUP_ROWS));
	for (let g = 0; g < groups; g++) {
		const rowStart = Math.floor((g * rows) / groups);
		const rowEnd = Math.floor(((g + 1) * rows) / groups);
		const realStart = Math.floor((g * edges.length) / groups);
		const realEnd = Math.floor(((g + 1) * edges.length) / groups);
		const n = rowEnd - rowStart;
		if (n === 0) continue;
		const from: Uint8Array[] = new Array(n);
		const fromCol: Uint8Array[] = new Array(n);
		const to: Uint8Array[] = new Array(n);
		const toCol: Uint8Array[] = new Array(n);
		const kind: Uint8Array[] = new Array(n);
		const at: bigint[] = new Array(n).fill(ingestedAtMicros);
		for (let j = 0; j < n; j++) {
			const real = realStart + j;
			const e = real < realEnd ? edges[real] : fillerRow(rowStart + j, edges, project);
			from[j] = bytes(e.fromId);
			fromCol[j] = bytes(e.fromColumn);
			to[j] = bytes(e.toId);
			toCol[j] = bytes(e.toColumn);
			kind[j] = bytes(e.kind);
		}
		await pw.write({
			columnData: [
				{ name: 'from_node_unique_id', data: from },
				{ name: 'from_column_name', data: fromCol },
				{ name: 'to_node_unique_id', data: to },
				{ name: 'to_column_name', data: toCol },
				{ name: 'lineage_kind', data: kind },
				{ name: 'ingested_at', data: at }
			],
			rowGroupSize: n
		});
	}
	await pw.finish();
	return opts.writer ? null : writer.getBytes().slice();
}

export interface NodeColumnRow {
	uniqueId: string;
	column: string;
	index: number | null;
	declaredType: string | null;
	inferredType: string | null;
	description: string | null;
	tags: string[];
}

/** One row per relation column in SQL order, then the YAML-only columns (no column_index). */
export function nodeColumnRows(spec: ProjectSpec): NodeColumnRow[] {
	const rows: NodeColumnRow[] = [];
	const relations = [...spec.sources, ...spec.nodes.filter(isExecutable)].sort((a, b) =>
		a.uniqueId < b.uniqueId ? -1 : a.uniqueId > b.uniqueId ? 1 : 0
	);
	for (const r of relations) {
		let index = 0;
		const yamlOnly: NodeColumnRow[] = [];
		for (const c of r.columns) {
			const row: NodeColumnRow = {
				uniqueId: r.uniqueId,
				column: c.name,
				index: c.yamlOnly ? null : index++,
				declaredType: c.declaredType ?? null,
				inferredType: c.yamlOnly ? null : c.type,
				description: c.description ?? null,
				tags: c.tags ?? []
			};
			(c.yamlOnly ? yamlOnly : rows).push(row);
		}
		rows.push(...yamlOnly);
	}
	return rows;
}

export async function writeNodeColumns(rows: readonly NodeColumnRow[], ingestedAtMicros: bigint): Promise<Uint8Array> {
	await ensureZstd();
	const writer = new ByteWriter(1 << 16);
	const pw = new ParquetWriter({ writer, schema: NODE_COLUMNS_SCHEMA, codec: 'ZSTD', compressors, createdBy: CREATED_BY });
	for (let start = 0; start < rows.length; start += ROW_GROUP_ROWS) {
		const slice = rows.slice(start, start + ROW_GROUP_ROWS);
		await pw.write({
			columnData: [
				{ name: 'unique_id', data: slice.map((r) => r.uniqueId) },
				{ name: 'column_name', data: slice.map((r) => r.column) },
				{ name: 'column_index', data: slice.map((r) => (r.index === null ? null : BigInt(r.index))) },
				{ name: 'declared_type', data: slice.map((r) => r.declaredType) },
				{ name: 'inferred_type', data: slice.map((r) => r.inferredType) },
				{ name: 'catalog_type', data: slice.map(() => null) },
				// data_type = coalesce(catalog_type, inferred_type); no catalog in a build.
				{ name: 'data_type', data: slice.map((r) => r.inferredType) },
				{ name: 'description', data: slice.map((r) => r.description) },
				{ name: 'tags', data: slice.map((r) => r.tags) },
				{ name: 'ingested_at', data: slice.map(() => ingestedAtMicros) }
			],
			rowGroupSize: slice.length
		});
	}
	await pw.finish();
	return writer.getBytes().slice();
}
