import { readFileSync } from 'node:fs';
import { parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { parquetWriteBuffer } from 'hyparquet-writer';
import type { ColumnSource } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { describeFixtures, fixture } from '../../../../tests/support/fixtures';
import { readColumnLineage, readNodeColumns, type ColumnEdge } from './column-index';
import { IngestError } from './errors';
import { parseManifest } from '../ingest/manifest';

type Raw = Record<string, any>;

const INDEX_DIR = ['constructed-index', 'jaffle-shop-1.12'];
const LAYOUTS = [
	['index', 'index'],
	['info_schema_v1', 'info_schema/v1']
] as const;

function bytesOf(...parts: string[]): Uint8Array {
	return readFileSync(fixture(...parts));
}

async function refusal(p: Promise<unknown>): Promise<IngestError> {
	try {
		await p;
	} catch (e) {
		expect(e).toBeInstanceOf(IngestError);
		return e as IngestError;
	}
	throw new Error('expected an IngestError, nothing was thrown');
}

// ---------------------------------------------------------------------------------------------
// The constructed jaffle-shop index against its ground truth

describeFixtures('column index: constructed jaffle-shop 1.12, both layouts', () => {
	const expected: Raw = JSON.parse(readFileSync(fixture(...INDEX_DIR, 'expected.json'), 'utf8'));
	const catalog: Raw = JSON.parse(readFileSync(fixture('jaffle-shop-1.12-duckdb-docs-generate', 'catalog.json'), 'utf8'));
	const graph = parseManifest(readFileSync(fixture('jaffle-shop-1.12-duckdb-docs-generate', 'manifest.json'), 'utf8'));
	const keptNodes = new Set(graph.nodes.map((n) => n.uniqueId));
	const read = async (dir: string) => ({
		lineage: await readColumnLineage(bytesOf(...INDEX_DIR, dir, 'dbt.column_lineage.parquet'), { fileName: 'dbt.column_lineage.parquet', keptNodes }),
		columns: await readNodeColumns(bytesOf(...INDEX_DIR, dir, 'dbt.node_columns.parquet'), { fileName: 'dbt.node_columns.parquet', keptNodes })
	});

	describe.each(LAYOUTS)('%s layout', (layout, dir) => {
		it('column_lineage reproduces expected.json', async () => {
			const { lineage } = await read(dir);
			const cl = expected.column_lineage;
			expect(lineage.stats.layout).toBe(layout);
			expect(lineage.edges).toHaveLength(cl.row_count);
			expect(lineage.stats).toMatchObject({
				rowsInFile: 186,
				rowsDecoded: 186,
				decodeStopped: false,
				droppedOutsideGraph: 0,
				droppedUnnamedColumns: 0,
				droppedOverCap: 0,
				duplicates: 0
			});
			expect(lineage.stats.byKind).toEqual(cl.counts_by_lineage_kind);
			expect(lineage.edges.filter((e) => e.lineageKind === 'copy' || e.lineageKind === 'mod')).toHaveLength(cl.direct_edge_count);

			const byChild: Record<string, Record<string, number>> = {};
			for (const e of lineage.edges) {
				byChild[e.childUniqueId] ??= { copy: 0, mod: 0, scan: 0 };
				byChild[e.childUniqueId][e.lineageKind]++;
			}
			expect(byChild).toEqual(cl.counts_by_to_node);

			const pairs = new Map<string, string[]>();
			for (const e of lineage.edges) {
				const key = JSON.stringify([e.parentUniqueId, e.parentColumn, e.childUniqueId, e.childColumn]);
				pairs.set(key, [...(pairs.get(key) ?? []), e.lineageKind]);
			}
			expect(pairs.size).toBe(cl.distinct_from_to_column_pairs);
			const multi = [...pairs].filter(([, kinds]) => kinds.length > 1).map(([k, kinds]) => [...JSON.parse(k), kinds.sort().join('+')]);
			expect(multi.sort()).toEqual([...cl.pairs_with_more_than_one_kind].sort());

			const fromType: Record<string, number> = {};
			for (const e of lineage.edges) {
				const t = e.parentUniqueId.split('.')[0];
				fromType[t] = (fromType[t] ?? 0) + 1;
			}
			expect(fromType).toEqual(cl.rows_by_from_resource_type);
			expect(lineage.edges.filter((e) => e.parentUniqueId === e.childUniqueId)).toHaveLength(cl.self_edges);
			expect(lineage.edges.some((e) => `${e.childUniqueId}.${e.childColumn}` === cl.model_output_columns_without_incoming_edges[0])).toBe(false);

			// Sorted, so two passes over one project store identical rows.
			const keys = lineage.edges.map((e) => JSON.stringify([e.parentUniqueId, e.parentColumn, e.childUniqueId, e.childColumn, e.lineageKind]));
			expect(keys).toEqual([...keys].sort());
		});

		it('node_columns reproduces expected.json and the catalog', async () => {
			const { columns } = await read(dir);
			const nc = expected.node_columns;
			expect(columns.stats).toMatchObject({ layout, rowsInFile: nc.row_count, rowsDecoded: nc.row_count, droppedUnindexed: nc.yaml_only_rows, droppedOutsideGraph: 0 });
			const total = [...columns.schemas.values()].reduce((a, l) => a + l.length, 0);
			expect(total).toBe(nc.row_count);
			const byType: Record<string, number> = {};
			for (const [id, list] of columns.schemas) byType[id.split('.')[0]] = (byType[id.split('.')[0]] ?? 0) + list.length;
			expect(byType).toEqual(nc.rows_by_resource_type);
			for (const [model, names] of Object.entries<string[]>(expected.model_output_columns)) {
				expect(columns.schemas.get(model)!.map((c) => c.name), model).toEqual(names);
			}
			// No declared types here, so each column's type is the inferred one: the catalog's.
			for (const [id, entry] of Object.entries<Raw>({ ...catalog.nodes, ...catalog.sources })) {
				const fromCatalog = Object.values<Raw>(entry.columns)
					.sort((a, b) => a.index - b.index)
					.map((c) => ({ name: c.name, type: c.type }));
				expect(columns.schemas.get(id), id).toEqual(fromCatalog);
			}
		});
	});

	it('both layouts give identical results', async () => {
		const a = await read('index');
		const b = await read('info_schema/v1');
		expect(b.lineage.edges).toEqual(a.lineage.edges);
		expect([...b.columns.schemas]).toEqual([...a.columns.schemas]);
		expect({ ...b.lineage.stats, layout: 'x' }).toEqual({ ...a.lineage.stats, layout: 'x' });
	});

	it('keeps only edges whose both endpoints the graph kept', async () => {
		const file = bytesOf(...INDEX_DIR, 'index', 'dbt.column_lineage.parquet');
		const selected = parseManifest(readFileSync(fixture('jaffle-shop-1.12-duckdb-docs-generate', 'manifest.json'), 'utf8'), {
			selection: { select: ['customers'] }
		});
		const kept = new Set(selected.nodes.map((n) => n.uniqueId));
		// Independent count over the raw rows.
		const ab = file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer;
		const rows = await parquetReadObjects({ file: ab, compressors });
		const inside = rows.filter((r) => kept.has(r.from_node_unique_id) && kept.has(r.to_node_unique_id));
		expect(inside.length).toBeGreaterThan(0);
		expect(inside.length).toBeLessThan(rows.length);
		const r = await readColumnLineage(file, { fileName: 'x.parquet', keptNodes: kept });
		expect(r.edges).toHaveLength(inside.length);
		expect(r.stats.droppedOutsideGraph).toBe(rows.length - inside.length);
		const cols = await readNodeColumns(bytesOf(...INDEX_DIR, 'index', 'dbt.node_columns.parquet'), { fileName: 'y.parquet', keptNodes: kept });
		expect([...cols.schemas.keys()].sort()).toEqual(['model.jaffle_shop.customers', 'model.jaffle_shop.orders', 'model.jaffle_shop.stg_customers']);
	});
});

// ---------------------------------------------------------------------------------------------
// Generated files

const FLAT = ['from_node_unique_id', 'from_column_name', 'to_node_unique_id', 'to_column_name', 'lineage_kind'] as const;

type Row = [string | null, string | null, string | null, string | null, string | null];

function lineageFile(rows: Row[], opts: { rowGroupSize?: number; names?: readonly string[]; extra?: boolean } = {}): ArrayBuffer {
	const names = opts.names ?? FLAT;
	const columnData: ColumnSource[] = names.map((name, i) => ({ name, data: rows.map((r) => r[i]), type: 'STRING', nullable: true }));
	// Engines add columns between releases; the reader must not care, nor about their order.
	if (opts.extra) columnData.unshift({ name: 'engine_note', data: rows.map(() => 'x'), type: 'STRING', nullable: true });
	return parquetWriteBuffer({ columnData, codec: 'UNCOMPRESSED', rowGroupSize: opts.rowGroupSize ?? 100_000 });
}

const NODES = new Set(['model.p.a', 'model.p.b', 'model.p.c']);
const edge = (i: number, kind: string | null, child = 'model.p.b'): Row => ['model.p.a', `col_${String(i).padStart(5, '0')}`, child, 'out', kind];
const toEdge = (r: Row): ColumnEdge => ({ parentUniqueId: r[0]!, parentColumn: r[1]!, childUniqueId: r[2]!, childColumn: r[3]!, lineageKind: r[4] ?? '' });

describe('readColumnLineage: rules', () => {
	it('keeps unknown kinds verbatim, stores a NULL kind as an empty string, and counts what it drops', async () => {
		const rows: Row[] = [
			['model.p.a', 'x', 'model.p.b', 'x', 'copy'],
			['model.p.a', 'x', 'model.p.b', 'y', 'passthrough'],
			['model.p.a', 'x', 'model.p.b', 'z', null],
			['model.p.a', 'x', 'model.p.b', 'w', ''],
			['model.p.a', 'x', 'model.other.zz', 'x', 'copy'],
			['source.p.s.t', 'x', 'model.p.b', 'x', 'copy'],
			[null, 'x', 'model.p.b', 'x', 'copy'],
			['model.p.a', '', 'model.p.b', 'x', 'copy'],
			['model.p.a', 'x', 'model.p.b', '', 'scan'],
			['model.p.a', null, 'model.p.b', 'x', 'mod'],
			['model.p.a', 'x', 'model.p.b', 'x', 'copy']
		];
		const r = await readColumnLineage(lineageFile(rows, { extra: true }), { fileName: 'f.parquet', keptNodes: NODES });
		expect(r.edges).toEqual([
			{ parentUniqueId: 'model.p.a', parentColumn: 'x', childUniqueId: 'model.p.b', childColumn: 'w', lineageKind: '' },
			{ parentUniqueId: 'model.p.a', parentColumn: 'x', childUniqueId: 'model.p.b', childColumn: 'x', lineageKind: 'copy' },
			{ parentUniqueId: 'model.p.a', parentColumn: 'x', childUniqueId: 'model.p.b', childColumn: 'y', lineageKind: 'passthrough' },
			{ parentUniqueId: 'model.p.a', parentColumn: 'x', childUniqueId: 'model.p.b', childColumn: 'z', lineageKind: '' }
		]);
		expect(r.stats).toEqual({
			layout: 'index',
			rowsInFile: 11,
			rowsDecoded: 11,
			decodeStopped: false,
			droppedOutsideGraph: 3,
			droppedUnnamedColumns: 3,
			droppedOverCap: 0,
			duplicates: 1,
			byKind: { '': 2, copy: 1, passthrough: 1 }
		});
	});

	it('refuses a column name or kind holding a NUL (Postgres text cannot store it), naming the file and column', async () => {
		const e = await refusal(readColumnLineage(lineageFile([['model.p.a', 'x', 'model.p.b', 'a\u0000b', 'copy']]), { fileName: 'f.parquet', keptNodes: NODES }));
		expect(e.message).toBe('f.parquet (to_column_name): a value holds a NUL character (\\u0000), which cannot be stored');
		const k = await refusal(readColumnLineage(lineageFile([['model.p.a', 'x', 'model.p.b', 'y', 'co\u0000py']]), { fileName: 'f.parquet', keptNodes: NODES }));
		expect(k.message).toContain('(lineage_kind)');
	});

	it('reads the information-schema column names', async () => {
		const names = ['parent_node_unique_id', 'parent_column_name', 'child_node_unique_id', 'child_column_name', 'evolution'];
		const r = await readColumnLineage(lineageFile([edge(1, 'mod')], { names }), { fileName: 'f', keptNodes: NODES });
		expect(r.stats.layout).toBe('info_schema_v1');
		expect(r.edges).toEqual([toEdge(edge(1, 'mod'))]);
	});

	it('over the cap, keeps every direct edge first and gives up scan', async () => {
		const rows = [...Array.from({ length: 100 }, (_, i) => edge(i, 'scan')), ...Array.from({ length: 30 }, (_, i) => edge(i, i % 2 ? 'copy' : 'mod'))];
		const r = await readColumnLineage(lineageFile(rows), { fileName: 'f', keptNodes: NODES, maxStored: 50 });
		expect(r.edges).toHaveLength(50);
		expect(r.stats.byKind).toEqual({ copy: 15, mod: 15, scan: 20 });
		expect(r.stats.droppedOverCap).toBe(80);
		// Which scan edges survive does not depend on the row order.
		const shuffled = await readColumnLineage(lineageFile([...rows].reverse()), { fileName: 'f', keptNodes: NODES, maxStored: 50 });
		expect(shuffled.edges).toEqual(r.edges);
		expect(r.edges.filter((e) => e.lineageKind === 'scan').map((e) => e.parentColumn)).toEqual(
			Array.from({ length: 20 }, (_, i) => `col_${String(i).padStart(5, '0')}`)
		);
	});

	it('when direct edges alone exceed the cap, keeps the first ones in sort order and no scan', async () => {
		const rows = [...Array.from({ length: 10 }, (_, i) => edge(i, 'scan')), ...Array.from({ length: 70 }, (_, i) => edge(69 - i, 'copy'))];
		const r = await readColumnLineage(lineageFile(rows), { fileName: 'f', keptNodes: NODES, maxStored: 50 });
		expect(r.edges).toEqual(Array.from({ length: 50 }, (_, i) => toEdge(edge(i, 'copy'))));
		expect(r.stats.droppedOverCap).toBe(30);
	});

	it('bounded buffers (many compactions) give the same answer as sorting everything', async () => {
		// 12,000 rows with duplicates, spread over row groups, against a cap of 100.
		const rows: Row[] = [];
		for (let i = 0; i < 12_000; i++) {
			const kind = i % 7 === 0 ? 'copy' : i % 11 === 0 ? 'mod' : 'scan';
			rows.push(['model.p.a', `c${(i * 7919) % 5000}`, i % 2 ? 'model.p.b' : 'model.p.c', 'out', kind]);
		}
		const r = await readColumnLineage(lineageFile(rows, { rowGroupSize: 1000 }), { fileName: 'f', keptNodes: NODES, maxStored: 100 });
		const key = (e: ColumnEdge) => [e.parentUniqueId, e.parentColumn, e.childUniqueId, e.childColumn, e.lineageKind].join('\u0000');
		const unique = [...new Map(rows.map((row) => [key(toEdge(row)), toEdge(row)])).values()];
		const sorted = (l: ColumnEdge[]) => [...l].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
		const direct = sorted(unique.filter((e) => e.lineageKind !== 'scan'));
		const scan = sorted(unique.filter((e) => e.lineageKind === 'scan'));
		const keptDirect = direct.slice(0, 100);
		const expected = sorted([...keptDirect, ...scan.slice(0, 100 - keptDirect.length)]);
		expect(r.edges).toEqual(expected);
		expect(r.stats.duplicates + r.stats.droppedOverCap).toBeGreaterThanOrEqual(rows.length - 100);
	});

	it('stops decoding after maxDecoded rows, mid row group', async () => {
		const rows = Array.from({ length: 5000 }, (_, i) => edge(i, 'copy'));
		const r = await readColumnLineage(lineageFile(rows, { rowGroupSize: 700 }), { fileName: 'f', keptNodes: NODES, maxDecoded: 1000 });
		expect(r.stats).toMatchObject({ rowsInFile: 5000, rowsDecoded: 1000, decodeStopped: true });
		expect(r.edges).toEqual(rows.slice(0, 1000).map(toEdge));
	});
});

describe('kept nodes known only after the decode started (the manifest parses beside it)', () => {
	const rows = Array.from({ length: 3000 }, (_, i) => edge(i, i % 3 ? 'copy' : 'scan', i % 2 ? 'model.p.b' : 'model.other.zz'));
	const file = () => lineageFile(rows, { rowGroupSize: 400 });
	const later = <T,>(value: T, ms: number) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));
	it.each([
		['already known', () => NODES],
		['resolved before the first group', () => Promise.resolve(NODES)],
		['resolved after every group was decoded', () => later(NODES, 50)]
	])('%s: the same edges and counts as a plain set', async (_name, keptNodes) => {
		const expected = await readColumnLineage(file(), { fileName: 'f', keptNodes: NODES });
		const r = await readColumnLineage(file(), { fileName: 'f', keptNodes: keptNodes() });
		expect(r).toEqual(expected);
		expect(r.stats.droppedOutsideGraph).toBe(1500);
	});

	it('past the look-ahead bound the decode waits for the nodes, then goes on in order', async () => {
		const expected = await readColumnLineage(file(), { fileName: 'f', keptNodes: NODES });
		const r = await readColumnLineage(file(), { fileName: 'f', keptNodes: later(NODES, 30), lookAheadRows: 1000 });
		expect(r).toEqual(expected);
	});

	it('a refused manifest refuses both decodes with its own error', async () => {
		const refused = () => new Promise<ReadonlySet<string>>((_, reject) => setTimeout(() => reject(new Error('manifest.json: refused')), 20));
		await expect(readColumnLineage(file(), { fileName: 'f', keptNodes: refused() })).rejects.toThrow('manifest.json: refused');
		const columns = nodeColumnsFile([['model.p.a', 'x', 0n, 'int', null, null]]);
		await expect(readNodeColumns(columns, { fileName: 'n', keptNodes: refused() })).rejects.toThrow('manifest.json: refused');
	});
});

// ---------------------------------------------------------------------------------------------

function nodeColumnsFile(
	rows: [string | null, string | null, bigint | null, string | null, string | null, string | null][],
	names = ['unique_id', 'column_name', 'column_index', 'declared_type', 'inferred_type', 'data_type']
): ArrayBuffer {
	const types = ['STRING', 'STRING', 'INT64', 'STRING', 'STRING', 'STRING'] as const;
	return parquetWriteBuffer({
		columnData: names.map((name, i) => ({ name, data: rows.map((r) => r[i]), type: types[i], nullable: true })),
		codec: 'SNAPPY'
	});
}

describe('readNodeColumns: rules', () => {
	it('orders by column_index, prefers the declared type, lists untyped columns, skips YAML-only rows', async () => {
		const rows: [string | null, string | null, bigint | null, string | null, string | null, string | null][] = [
			['model.p.a', 'total', 2n, null, 'DOUBLE', 'DOUBLE'],
			['model.p.a', 'id', 0n, 'bigint', 'INTEGER', 'INTEGER'],
			['model.p.a', 'untyped', 3n, null, null, null],
			['model.p.a', 'only_resolved', 1n, null, null, 'VARCHAR'],
			['model.p.a', 'stale_yaml', null, 'text', null, null],
			['model.other.x', 'id', 0n, null, 'INTEGER', null],
			['model.p.a', '', 4n, null, null, null],
			['model.p.b', 'id', 0n, null, '', 'INTEGER'],
			['model.p.b', 'id', 1n, null, 'VARCHAR', null]
		];
		const r = await readNodeColumns(nodeColumnsFile(rows), { fileName: 'n.parquet', keptNodes: NODES });
		expect([...r.schemas]).toEqual([
			[
				'model.p.a',
				[
					{ name: 'id', type: 'bigint' },
					{ name: 'only_resolved', type: 'VARCHAR' },
					{ name: 'total', type: 'DOUBLE' },
					{ name: 'untyped' }
				]
			],
			['model.p.b', [{ name: 'id', type: 'INTEGER' }]]
		]);
		expect(r.stats).toMatchObject({ droppedUnindexed: 1, droppedOutsideGraph: 1, droppedUnnamedColumns: 1, duplicates: 1, nodes: 2, columns: 5 });
	});

	it('reads the information-schema names and works without the optional type columns', async () => {
		const file = parquetWriteBuffer({
			columnData: [
				{ name: 'column_index', data: [1, 0], type: 'INT32', nullable: true },
				{ name: 'node_unique_id', data: ['model.p.a', 'model.p.a'], type: 'STRING', nullable: true },
				{ name: 'column_name', data: ['b', 'a'], type: 'STRING', nullable: true },
				{ name: 'data_type_inferred', data: ['INT', null], type: 'STRING', nullable: true }
			]
		});
		const r = await readNodeColumns(file, { fileName: 'n', keptNodes: NODES });
		expect(r.stats.layout).toBe('info_schema_v1');
		expect(r.schemas.get('model.p.a')).toEqual([{ name: 'a' }, { name: 'b', type: 'INT' }]);
	});
});

// ---------------------------------------------------------------------------------------------
// Refusals

describeFixtures('column index: unreadable files are refused with the file name', () => {
	const real = bytesOf(...INDEX_DIR, 'index', 'dbt.column_lineage.parquet');
	const realColumns = bytesOf(...INDEX_DIR, 'info_schema', 'v1', 'dbt.node_columns.parquet');
	const opts = { fileName: 'target/index/dbt.column_lineage.parquet', keptNodes: NODES };

	it.each([
		['the first half', (b: Uint8Array) => b.subarray(0, Math.floor(b.length / 2)), /: is truncated: it starts as a parquet file but its footer is missing/],
		['all but the last byte', (b: Uint8Array) => b.subarray(0, b.length - 1), /: is truncated/],
		['the first 8 bytes', (b: Uint8Array) => b.subarray(0, 8), /: is truncated/],
		['the tail only', (b: Uint8Array) => b.subarray(b.length - 200), /: is not a parquet file/]
	])('a truncated real file (%s)', async (_what, cut, message) => {
		const err = await refusal(readColumnLineage(cut(real), opts));
		expect(err.message).toMatch(new RegExp(`^target/index/dbt\\.column_lineage\\.parquet${message.source}`));
		expect(err.file).toBe(opts.fileName);
		expect(err.status).toBe(400);
	});

	it('a real file whose footer survives but whose data pages do not', async () => {
		const damaged = new Uint8Array(real);
		damaged.fill(0xff, 4, Math.floor(real.length / 2));
		const err = await refusal(readColumnLineage(damaged, opts));
		expect(err.message.startsWith(`${opts.fileName}: `)).toBe(true);
	});

	it.each([
		['empty', new Uint8Array(), /^n\.parquet: is empty/],
		['JSON', new TextEncoder().encode('{"nodes": {}}'), /^n\.parquet: is not a parquet file/],
		['text', new TextEncoder().encode('PAR'), /^n\.parquet: is not a parquet file/]
	])('not parquet: %s', async (_what, bytes, message) => {
		expect((await refusal(readColumnLineage(bytes, { fileName: 'n.parquet', keptNodes: NODES }))).message).toMatch(message);
		expect((await refusal(readNodeColumns(bytes, { fileName: 'n.parquet', keptNodes: NODES }))).message).toMatch(message);
	});

	it('a column_lineage file without a required column names it', async () => {
		const names = ['from_node_unique_id', 'from_column_name', 'to_node_unique_id', 'not_to_column', 'lineage_kind'];
		const err = await refusal(readColumnLineage(lineageFile([edge(1, 'copy')], { names }), { fileName: 'cl.parquet', keptNodes: NODES }));
		expect(err.message).toBe('cl.parquet (to_column_name): lacks the required column `to_column_name`');
		expect(err.field).toBe('to_column_name');
		const noIds = ['a', 'b', 'c', 'd', 'e'];
		expect((await refusal(readColumnLineage(lineageFile([edge(1, 'copy')], { names: noIds }), { fileName: 'cl.parquet', keptNodes: NODES }))).message).toBe(
			'cl.parquet (from_node_unique_id): lacks the required column `from_node_unique_id` (`parent_node_unique_id` in the information-schema layout); its columns are: a, b, c, d, e'
		);
	});

	it('a node_columns file is not a column_lineage file (and the other way round)', async () => {
		const err = await refusal(readColumnLineage(realColumns, { fileName: 'cl.parquet', keptNodes: NODES }));
		expect(err.message).toMatch(/^cl\.parquet \(from_node_unique_id\): lacks the required column `from_node_unique_id`/);
		expect((await refusal(readNodeColumns(real, { fileName: 'nc.parquet', keptNodes: NODES }))).field).toBe('unique_id');
	});

	it('a column of the wrong type is named', async () => {
		const asText = parquetWriteBuffer({
			columnData: [
				{ name: 'unique_id', data: ['model.p.a'], type: 'STRING' },
				{ name: 'column_name', data: ['a'], type: 'STRING' },
				{ name: 'column_index', data: ['0'], type: 'STRING' }
			]
		});
		expect((await refusal(readNodeColumns(asText, { fileName: 'nc.parquet', keptNodes: NODES }))).message).toBe(
			'nc.parquet (column_index): column `column_index` is of type BYTE_ARRAY, expected an integer (INT64 or INT32)'
		);
		const numericIds = parquetWriteBuffer({
			columnData: [
				{ name: 'from_node_unique_id', data: [1n], type: 'INT64' },
				...['from_column_name', 'to_node_unique_id', 'to_column_name', 'lineage_kind'].map((name) => ({ name, data: ['x'], type: 'STRING' as const }))
			]
		});
		expect((await refusal(readColumnLineage(numericIds, { fileName: 'cl.parquet', keptNodes: NODES }))).message).toBe(
			'cl.parquet (from_node_unique_id): column `from_node_unique_id` is of type INT64, expected a string (BYTE_ARRAY)'
		);
	});
});
