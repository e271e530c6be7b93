import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { Parser, type ReadEntry } from 'tar';
import { parse as parseYaml } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeFixtures, fixture } from '../../../../tests/support/fixtures';
import { parseManifest } from '../ingest/manifest';
import { inspectProjectArchive } from '../dbt-files/project-archive';
import { parseScriptPath } from '../paths';
import { DEMO_CHANGE, DEMO_EARLIER, DEMO_FAILING_MODEL, demoProducers, generateProject, projectTarGz, ROASTERY_OUTCOMES, roasteryProducers, writeProjectDir, type GeneratedProject } from './generator';

type Json = Record<string, any>;
type Row = Record<string, any>;

const SCALED = { models: 300, columnEdges: 20_000, seed: 3 };

const toArrayBuffer = (b: Uint8Array) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
const readRows = (b: Uint8Array): Promise<Row[]> => parquetReadObjects({ file: toArrayBuffer(b), compressors });

function relationsOf(manifest: Json): Map<string, Json> {
	const out = new Map<string, Json>();
	for (const [id, n] of Object.entries(manifest.nodes as Json)) out.set(id, n);
	for (const [id, s] of Object.entries(manifest.sources as Json)) out.set(id, s);
	return out;
}

/** Direct (copy/mod) components, computed here independently of the generator. */
function relationComponentEdges(rows: Row[], relationId: string, columns: string[]): number {
	const parent = new Map<string, string>();
	const find = (x: string): string => {
		let r = x;
		while (parent.get(r) !== r) r = parent.get(r)!;
		parent.set(x, r);
		return r;
	};
	const add = (x: string) => {
		if (!parent.has(x)) parent.set(x, x);
	};
	const direct = rows.filter((r) => r.lineage_kind === 'copy' || r.lineage_kind === 'mod');
	for (const r of direct) {
		const a = `${r.from_node_unique_id}|${r.from_column_name}`;
		const b = `${r.to_node_unique_id}|${r.to_column_name}`;
		add(a);
		add(b);
		const ra = find(a);
		const rb = find(b);
		if (ra !== rb) parent.set(ra, rb);
	}
	const roots = new Set(columns.map((c) => `${relationId}|${c}`).filter((k) => parent.has(k)).map(find));
	return direct.filter((r) => roots.has(find(`${r.from_node_unique_id}|${r.from_column_name}`))).length;
}

let demo: GeneratedProject;
let scaled: GeneratedProject;
let demoLineage: Row[];
let demoColumns: Row[];
let scaledLineage: Row[];
let scaledColumns: Row[];

beforeAll(async () => {
	demo = await generateProject();
	scaled = await generateProject({ ...SCALED, failures: true });
	[demoLineage, demoColumns, scaledLineage, scaledColumns] = await Promise.all([
		readRows(demo.columnLineageParquet),
		readRows(demo.nodeColumnsParquet),
		readRows(scaled.columnLineageParquet),
		readRows(scaled.nodeColumnsParquet)
	]);
});

describeFixtures('generated artifacts against the official dbt JSON schemas', () => {
	// The published schemas declare draft 2020-12, so the 2020 flavour of Ajv loads them.
	let manifestV12: ValidateFunction;
	let runResultsV6: ValidateFunction;
	let catalogV1: ValidateFunction;
	beforeAll(() => {
		const ajv = new Ajv2020({ strict: false, allErrors: true });
		addFormats(ajv);
		const schema = (name: string) => JSON.parse(readFileSync(fixture('json-schemas', name), 'utf8'));
		manifestV12 = ajv.compile(schema('manifest_v12.schema.json'));
		runResultsV6 = ajv.compile(schema('run-results_v6.schema.json'));
		catalogV1 = ajv.compile(schema('catalog_v1.schema.json'));
	});

	it('validates the catalogs (v1) of the demo, the roastery and a scaled project, and the roastery manifest', async () => {
		const roastery = await generateProject({ roastery: true });
		for (const p of [demo, roastery, scaled]) expect(catalogV1(JSON.parse(JSON.stringify(p.catalog))), JSON.stringify(catalogV1.errors?.slice(0, 3))).toBe(true);
		expect(manifestV12(JSON.parse(JSON.stringify(roastery.manifest))), JSON.stringify(manifestV12.errors?.slice(0, 3))).toBe(true);
	});

	it('validates the demo manifest (v12) and run_results (v6)', () => {
		expect(manifestV12(JSON.parse(JSON.stringify(demo.manifest))), JSON.stringify(manifestV12.errors?.slice(0, 3))).toBe(true);
		expect(runResultsV6(JSON.parse(JSON.stringify(demo.runResults))), JSON.stringify(runResultsV6.errors?.slice(0, 3))).toBe(true);
	});

	it('validates the demo with failures and the demo with its unmerged change', async () => {
		for (const p of [await generateProject({ failures: true }), await generateProject({ change: true })]) {
			expect(manifestV12(JSON.parse(JSON.stringify(p.manifest))), JSON.stringify(manifestV12.errors?.slice(0, 3))).toBe(true);
			expect(runResultsV6(JSON.parse(JSON.stringify(p.runResults))), JSON.stringify(runResultsV6.errors?.slice(0, 3))).toBe(true);
		}
	});

	it('validates a scaled manifest and a run_results with errors, failures, warnings and skips', () => {
		expect(manifestV12(JSON.parse(JSON.stringify(scaled.manifest))), JSON.stringify(manifestV12.errors?.slice(0, 3))).toBe(true);
		expect(runResultsV6(JSON.parse(JSON.stringify(scaled.runResults))), JSON.stringify(runResultsV6.errors?.slice(0, 3))).toBe(true);
		const statuses = new Set((scaled.runResults.results as Json[]).map((r) => r.status));
		for (const s of ['success', 'pass', 'error', 'fail', 'warn', 'skipped']) expect(statuses).toContain(s);
	});

	it('names the v12 and v6 schema versions and the invocation in every artifact', () => {
		const m = demo.manifest.metadata as Json;
		expect(m.dbt_schema_version).toBe('https://schemas.getdbt.com/dbt/manifest/v12.json');
		expect((demo.runResults.metadata as Json).dbt_schema_version).toBe('https://schemas.getdbt.com/dbt/run-results/v6.json');
		expect((demo.runResults.metadata as Json).invocation_id).toBe(m.invocation_id);
		expect(JSON.parse(demo.eventLog.split('\n')[0]).info.invocation_id).toBe(m.invocation_id);
	});
});

describe('index parquet files', () => {
	const LINEAGE_SCHEMA = [
		['from_node_unique_id', 'BYTE_ARRAY', 'REQUIRED'],
		['from_column_name', 'BYTE_ARRAY', 'REQUIRED'],
		['to_node_unique_id', 'BYTE_ARRAY', 'REQUIRED'],
		['to_column_name', 'BYTE_ARRAY', 'REQUIRED'],
		['lineage_kind', 'BYTE_ARRAY', 'OPTIONAL'],
		['ingested_at', 'INT64', 'REQUIRED']
	];
	const NODE_COLUMNS_SCHEMA = [
		['unique_id', 'BYTE_ARRAY', 'REQUIRED'],
		['column_name', 'BYTE_ARRAY', 'REQUIRED'],
		['column_index', 'INT64', 'OPTIONAL'],
		['declared_type', 'BYTE_ARRAY', 'OPTIONAL'],
		['inferred_type', 'BYTE_ARRAY', 'OPTIONAL'],
		['catalog_type', 'BYTE_ARRAY', 'OPTIONAL'],
		['data_type', 'BYTE_ARRAY', 'OPTIONAL'],
		['description', 'BYTE_ARRAY', 'OPTIONAL'],
		['tags', undefined, 'REQUIRED'],
		['ingested_at', 'INT64', 'REQUIRED']
	];

	function topLevel(bytes: Uint8Array) {
		const md = parquetMetadata(toArrayBuffer(bytes));
		const out: { name: string; type?: string; rep?: string; el: Json }[] = [];
		let i = 1;
		while (i < md.schema.length) {
			const el = md.schema[i] as Json;
			out.push({ name: el.name, type: el.type, rep: el.repetition_type, el });
			// Skip a group's children (the LIST's `list` / `item`).
			let skip = el.num_children ?? 0;
			i++;
			while (skip > 0) {
				skip += ((md.schema[i] as Json).num_children ?? 0) - 1;
				i++;
			}
		}
		return { md, columns: out };
	}

	it('column_lineage has the six flat-index columns, their types and ZSTD on every chunk', () => {
		for (const p of [demo, scaled]) {
			const { md, columns } = topLevel(p.columnLineageParquet);
			expect(columns.map((c) => [c.name, c.type, c.rep])).toEqual(LINEAGE_SCHEMA);
			for (const c of columns.filter((x) => x.type === 'BYTE_ARRAY')) expect(c.el.logical_type).toEqual({ type: 'STRING' });
			expect(columns[5].el.logical_type).toEqual({ type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MICROS' });
			const codecs = new Set(md.row_groups.flatMap((g) => g.columns.map((c) => c.meta_data?.codec)));
			expect([...codecs]).toEqual(['ZSTD']);
			expect(Number(md.num_rows)).toBe(p.meta.indexRows);
		}
	});

	it('node_columns has the ten flat-index columns with a 3-level LIST of UTF8 tags', () => {
		const { md, columns } = topLevel(demo.nodeColumnsParquet);
		expect(columns.map((c) => [c.name, c.type, c.rep])).toEqual(NODE_COLUMNS_SCHEMA);
		const listAt = md.schema.findIndex((e) => e.name === 'tags');
		expect(md.schema[listAt].logical_type).toEqual({ type: 'LIST' });
		expect(md.schema[listAt + 1]).toMatchObject({ name: 'list', repetition_type: 'REPEATED' });
		expect(md.schema[listAt + 2]).toMatchObject({ name: 'item', type: 'BYTE_ARRAY', logical_type: { type: 'STRING' } });
		expect(new Set(md.row_groups.flatMap((g) => g.columns.map((c) => c.meta_data?.codec)))).toEqual(new Set(['ZSTD']));
		const email = demoColumns.find((r) => r.unique_id === 'model.coffee_shop.customers' && r.column_name === 'email')!;
		expect(email.tags).toEqual(['pii']);
		expect(typeof email.column_index).toBe('bigint');
		expect(email.ingested_at).toBeInstanceOf(Date);
	});

	it('ingested_at is one microsecond timestamp shared by both files', () => {
		const a = new Set(demoLineage.map((r) => (r.ingested_at as Date).getTime()));
		const b = new Set(demoColumns.map((r) => (r.ingested_at as Date).getTime()));
		expect(a.size).toBe(1);
		expect([...a]).toEqual([...b]);
	});

	it('every edge endpoint is a manifest node and one of its columns', () => {
		for (const [p, lineage, columns] of [
			[demo, demoLineage, demoColumns],
			[scaled, scaledLineage, scaledColumns]
		] as const) {
			const relations = relationsOf(p.manifest);
			const known = new Set(columns.map((r) => `${r.unique_id}|${r.column_name}`));
			const bad = lineage.filter(
				(r) =>
					!relations.has(r.from_node_unique_id) ||
					!relations.has(r.to_node_unique_id) ||
					!known.has(`${r.from_node_unique_id}|${r.from_column_name}`) ||
					!known.has(`${r.to_node_unique_id}|${r.to_column_name}`)
			);
			expect(bad).toEqual([]);
			expect(lineage.length).toBeGreaterThan(0);
		}
	});

	it('lists each relation column once, in SQL order, and every declared column', () => {
		const byNode = new Map<string, Row[]>();
		for (const r of scaledColumns) (byNode.get(r.unique_id) ?? byNode.set(r.unique_id, []).get(r.unique_id)!).push(r);
		for (const [id, rows] of byNode) {
			const indexed = rows.filter((r) => r.column_index !== null).map((r) => Number(r.column_index));
			expect(indexed).toEqual(indexed.map((_, i) => i));
			expect(new Set(rows.map((r) => r.column_name)).size, id).toBe(rows.length);
		}
		const relations = relationsOf(scaled.manifest);
		for (const [id, n] of relations) {
			if (n.resource_type === 'test') continue;
			const names = new Set((byNode.get(id) ?? []).map((r) => r.column_name));
			for (const declared of Object.keys(n.columns ?? {})) expect(names.has(declared), `${id}.${declared}`).toBe(true);
		}
		// Stale YAML docs: declared, no longer in the SQL, so no ordinal.
		expect(scaledColumns.some((r) => r.column_index === null && r.inferred_type === null)).toBe(true);
	});
});

describe('scaled project', () => {
	it('has exactly the requested edges, scan the majority, copy ahead of mod', () => {
		const kinds = { copy: 0, mod: 0, scan: 0 } as Record<string, number>;
		for (const r of scaledLineage) kinds[r.lineage_kind]++;
		expect(scaledLineage.length).toBe(SCALED.columnEdges);
		expect(kinds).toEqual({ copy: scaled.meta.columnEdges.copy, mod: scaled.meta.columnEdges.mod, scan: scaled.meta.columnEdges.scan });
		expect(kinds.scan / scaledLineage.length).toBeGreaterThan(0.5);
		expect(kinds.scan / scaledLineage.length).toBeLessThan(0.7);
		expect(kinds.copy).toBeGreaterThan(2 * kinds.mod);
		expect(kinds.mod / scaledLineage.length).toBeGreaterThan(0.05);
	});

	it('reports relations whose direct components have about 10, 100 and 1000 edges', () => {
		const relations = relationsOf(scaled.manifest);
		expect(scaled.meta.components.map((c) => c.target)).toEqual([10, 100, 1000]);
		for (const pick of scaled.meta.components) {
			const columns = scaledColumns.filter((r) => r.unique_id === pick.uniqueId).map((r) => r.column_name);
			const edges = relationComponentEdges(scaledLineage, pick.uniqueId, columns);
			expect(edges).toBe(pick.edges);
			expect(edges).toBeGreaterThanOrEqual(pick.target * 0.75);
			expect(edges).toBeLessThanOrEqual(pick.target * 1.25);
			const node = relations.get(pick.uniqueId)!;
			expect(pick.relationName).toBe(node.relation_name);
			expect(pick.assetPath).toBe(`main/${node.schema}/${node.alias ?? node.identifier}`);
		}
	});

	it('has layered families, fan-out and diamonds, tests on about half the models and ~5% sources', () => {
		const m = scaled.manifest;
		const nodes = Object.values(m.nodes as Json) as Json[];
		const models = nodes.filter((n) => n.resource_type === 'model');
		expect(models).toHaveLength(SCALED.models);
		const sources = Object.keys(m.sources as Json).length;
		expect(sources / SCALED.models).toBeGreaterThan(0.03);
		expect(sources / SCALED.models).toBeLessThan(0.09);
		const tested = new Set(nodes.filter((n) => n.resource_type === 'test' && n.attached_node).map((n) => n.attached_node));
		const share = models.filter((n) => tested.has(n.unique_id)).length / models.length;
		expect(share).toBeGreaterThan(0.35);
		expect(share).toBeLessThan(0.65);
		for (const layer of ['stg_', 'int_']) expect(models.some((n) => n.name.startsWith(layer))).toBe(true);
		expect(models.some((n) => /^(fct|dim|agg|rpt|mart)_/.test(n.name))).toBe(true);

		const childMap = m.child_map as Record<string, string[]>;
		const parentMap = m.parent_map as Record<string, string[]>;
		const modelChildren = (id: string) => childMap[id].filter((c) => c.startsWith('model.'));
		expect(models.some((n) => modelChildren(n.unique_id).length >= 3)).toBe(true);
		const ancestors = (id: string, seen = new Set<string>()): Set<string> => {
			for (const p of parentMap[id] ?? []) if (!seen.has(p)) ancestors(p, seen.add(p));
			return seen;
		};
		const diamond = models.some((n) => {
			const ps = parentMap[n.unique_id];
			return ps.length >= 2 && [...ancestors(ps[0])].some((a) => ancestors(ps[1]).has(a));
		});
		expect(diamond).toBe(true);

		// Disconnected families: weakly connected components of the relation graph.
		const seen = new Set<string>();
		let families = 0;
		for (const id of Object.keys(parentMap)) {
			if (seen.has(id) || id.startsWith('test.')) continue;
			families++;
			const stack = [id];
			while (stack.length) {
				const x = stack.pop()!;
				if (seen.has(x)) continue;
				seen.add(x);
				for (const y of [...(parentMap[x] ?? []), ...(childMap[x] ?? [])]) if (!y.startsWith('test.')) stack.push(y);
			}
		}
		expect(families).toBeGreaterThanOrEqual(5);

		const tags = new Set(models.flatMap((n) => n.tags as string[]));
		const folders = new Set(models.map((n) => n.original_file_path.split('/').slice(0, -1).join('/')));
		expect(tags.size).toBeGreaterThanOrEqual(4);
		expect(folders.size).toBeGreaterThanOrEqual(6);
		expect(new Set(models.map((n) => n.config.materialized))).toEqual(new Set(['view', 'table', 'incremental', 'ephemeral']));
	});

	it('writes SQL of realistic size whose refs match depends_on', () => {
		const models = Object.values(scaled.manifest.nodes as Json).filter((n: Json) => n.resource_type === 'model') as Json[];
		const sizes = models.map((n) => n.raw_code.length).sort((a, b) => a - b);
		expect(sizes[0]).toBeGreaterThan(150);
		expect(sizes[Math.floor(sizes.length / 2)]).toBeGreaterThan(600);
		expect(sizes[sizes.length - 1]).toBeGreaterThan(2500);
		for (const n of models) {
			const refs = [...(n.raw_code as string).matchAll(/ref\('([^']+)'\)/g)].map((x) => x[1]);
			expect(refs.sort()).toEqual((n.refs as Json[]).map((r) => r.name).sort());
			expect(n.compiled_code).not.toContain('{{');
		}
	});

	it('streams a large index whose extra rows a consumer drops, leaving exactly the edges', async () => {
		const big = await generateProject({ ...SCALED, failures: true, indexRows: 150_000 });
		const md = parquetMetadata(toArrayBuffer(big.columnLineageParquet));
		expect(Number(md.num_rows)).toBe(150_000);
		expect(md.row_groups.length).toBeGreaterThan(1);
		const rows = await readRows(big.columnLineageParquet);
		const relations = relationsOf(big.manifest);
		const kept = new Set(
			rows
				.filter((r) => relations.has(r.from_node_unique_id) && relations.has(r.to_node_unique_id) && r.from_column_name && r.to_column_name)
				.map((r) => `${r.from_node_unique_id}|${r.from_column_name}|${r.to_node_unique_id}|${r.to_column_name}|${r.lineage_kind}`)
		);
		const edges = scaledLineage.map((r) => `${r.from_node_unique_id}|${r.from_column_name}|${r.to_node_unique_id}|${r.to_column_name}|${r.lineage_kind}`);
		expect(kept.size).toBe(SCALED.columnEdges);
		expect(new Set(edges)).toEqual(kept);
	});

	it('keeps the edge count exact for tiny and lopsided projects', async () => {
		for (const [models, columnEdges] of [
			[1, 0],
			[5, 3],
			[12, 500],
			[40, 12]
		]) {
			const p = await generateProject({ models, columnEdges, seed: 5 });
			expect(p.meta.models).toBe(models);
			expect(p.meta.columnEdges.total).toBe(columnEdges);
			expect(Number(parquetMetadata(toArrayBuffer(p.columnLineageParquet)).num_rows)).toBe(columnEdges);
		}
	});

	it('is deterministic for a seed and different across seeds', async () => {
		const again = await generateProject({ ...SCALED, failures: true });
		expect(JSON.stringify(again.manifest)).toBe(JSON.stringify(scaled.manifest));
		expect(Buffer.from(again.columnLineageParquet).equals(Buffer.from(scaled.columnLineageParquet))).toBe(true);
		expect(again.eventLog).toBe(scaled.eventLog);
		const other = await generateProject({ ...SCALED, seed: SCALED.seed + 1 });
		expect(JSON.stringify(other.manifest)).not.toBe(JSON.stringify(scaled.manifest));
		const demoAgain = await generateProject();
		expect(JSON.stringify(demoAgain.manifest)).toBe(JSON.stringify(demo.manifest));
		expect(Buffer.from(demoAgain.nodeColumnsParquet).equals(Buffer.from(demo.nodeColumnsParquet))).toBe(true);
	});
});

describe('event log', () => {
	const events = (p: GeneratedProject) => p.eventLog.trimEnd().split('\n').map((l) => JSON.parse(l) as Json);

	it('is one JSON event per line with info.name and data, from MainReportVersion to CommandCompleted', () => {
		for (const p of [demo, scaled]) {
			const lines = p.eventLog.trimEnd().split('\n');
			for (const line of lines) {
				const e = JSON.parse(line);
				expect(typeof e.info.name).toBe('string');
				expect(typeof e.data).toBe('object');
				expect(e.info.ts).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
			}
			const es = events(p);
			expect(es[0].info.name).toBe('MainReportVersion');
			expect(es.at(-1)!.info.name).toBe('CommandCompleted');
			const ts = es.map((e) => e.info.ts);
			expect([...ts].sort()).toEqual(ts);
		}
	});

	it('agrees with run_results node by node', () => {
		for (const p of [demo, scaled]) {
			const es = events(p);
			const finished = es.filter((e) => e.info.name === 'NodeFinished');
			const results = p.runResults.results as Json[];
			expect(es.filter((e) => e.info.name === 'NodeStart')).toHaveLength(results.length);
			expect(finished).toHaveLength(results.length);
			const byId = new Map(results.map((r) => [r.unique_id, r]));
			for (const f of finished) {
				const r = byId.get(f.data.node_info.unique_id)!;
				expect(f.data.run_result.status).toBe(r.status);
				expect(f.data.run_result.adapter_response).toEqual(r.adapter_response);
			}
			const stats = es.find((e) => e.info.name === 'StatsLine')!.data.stats;
			expect(stats.total).toBe(results.length);
			expect(stats.skip).toBe(results.filter((r) => r.status === 'skipped').length);
		}
	});

	it('carries quoted relation names and row counts for the demo build', () => {
		const es = events(demo);
		const orders = es.find((e) => e.info.name === 'NodeFinished' && e.data.node_info.unique_id === 'model.coffee_shop.orders')!;
		expect(orders.data.node_info.node_relation.relation_name).toBe('"demo"."analytics"."orders"');
		expect(orders.data.run_result.adapter_response.rows_affected).toBeGreaterThan(0);
		const names = new Set(es.map((e) => e.info.name));
		for (const n of ['LogStartLine', 'LogModelResult', 'LogTestResult', 'LogSeedResult', 'LogSnapshotResult', 'EndOfRunSummary']) expect(names).toContain(n);
		const statuses = new Set((demo.runResults.results as Json[]).map((r) => r.status));
		expect(statuses).toEqual(new Set(['success', 'pass']));
	});

	it('reports failures the way dbt does: error lines, a summary, and skipped descendants', async () => {
		const failing = await generateProject({ failures: true });
		const es = events(failing);
		const names = es.map((e) => e.info.name);
		for (const n of ['SkippingDetails', 'RunResultFailure', 'RunResultError', 'RunResultWarning']) expect(names).toContain(n);
		const summary = es.find((e) => e.info.name === 'EndOfRunSummary')!;
		expect(summary.data.num_errors).toBeGreaterThan(0);
		const done = es.find((e) => e.info.name === 'CommandCompleted')!;
		expect(done.data.success).toBe(false);
		const results = failing.runResults.results as Json[];
		const having = (status: string) => results.filter((r) => r.status === status).map((r) => r.unique_id as string).sort();
		// Exactly one model error, one failing test and one warning test...
		expect(having('error')).toEqual([DEMO_FAILING_MODEL]);
		expect(results.find((r) => r.unique_id === DEMO_FAILING_MODEL)!.message).toMatch(/^Runtime Error in model orders \(models\/marts\/orders\.sql\)\n {2}Binder Error: /);
		expect(having('fail')).toEqual([expect.stringMatching(/^test\.coffee_shop\.relationships_stg_orders_customer_id__/)]);
		expect(having('warn')).toEqual([expect.stringMatching(/^test\.coffee_shop\.accepted_values_stg_payments_payment_method__/)]);
		// ...and skipped: exactly the nodes downstream of the failed model, from the manifest's own edges.
		const nodes = failing.manifest.nodes as Json;
		const downstream = new Set<string>();
		for (let grew = true; grew; ) {
			grew = false;
			for (const [id, n] of Object.entries(nodes)) {
				if (downstream.has(id)) continue;
				if ((n.depends_on?.nodes ?? []).some((p: string) => p === DEMO_FAILING_MODEL || downstream.has(p))) {
					downstream.add(id);
					grew = true;
				}
			}
		}
		expect(downstream).toContain('model.coffee_shop.customers');
		expect(having('skipped')).toEqual([...downstream].sort());
		const skippedLines = es.filter((e) => e.info.name === 'SkippingDetails').map((e) => e.data.node_info.unique_id).sort();
		expect(skippedLines).toEqual([...downstream].sort());
	});

	it('makes an unmerged change on request: one model added, one column retyped, the rest the same', async () => {
		const changed = await generateProject({ change: true });
		const before = demo.manifest.nodes as Json;
		const after = changed.manifest.nodes as Json;
		const added = Object.keys(after).filter((id) => !(id in before));
		expect(added).toEqual([DEMO_CHANGE.addedModel]);
		expect(Object.keys(before).filter((id) => !(id in after))).toEqual([]);
		expect(after[DEMO_CHANGE.addedModel].depends_on.nodes).toEqual(['model.coffee_shop.fct_payments']);
		const { uniqueId, column, from, to } = DEMO_CHANGE.retyped;
		expect(after[uniqueId].raw_code).toContain('as decimal(18, 2)) as revenue');
		const typeOf = async (p: GeneratedProject) =>
			(await readRows(p.nodeColumnsParquet)).find((r) => r.unique_id === uniqueId && r.column_name === column)?.data_type;
		expect([await typeOf(demo), await typeOf(changed)]).toEqual([from, to]);
		// Every other node compiles to the same code.
		const sameCode = Object.keys(before).filter((id) => id !== uniqueId && before[id].raw_code !== after[id].raw_code);
		expect(sameCode).toEqual([]);
		// The added model's columns come with lineage from its parent.
		const edges = (await readRows(changed.columnLineageParquet)).filter((r) => r.to_node_unique_id === DEMO_CHANGE.addedModel);
		expect(new Set(edges.map((r) => r.to_column_name))).toEqual(new Set(['store_id', 'paid_date', 'payment_count', 'revenue']));
		expect(changed.meta.results).toEqual({ ...demo.meta.results, success: demo.meta.results.success + 1 });
		await expect(generateProject({ models: 5, change: true })).rejects.toThrow(/^change: only the demo project/);
	});

	it('makes the version before the current one on request: fct_payments and its tests absent, stores without last_order_at', async () => {
		const earlier = await generateProject({ earlier: true });
		const before = earlier.manifest.nodes as Json;
		const now = demo.manifest.nodes as Json;
		const gone = Object.keys(now).filter((id) => !(id in before));
		expect(gone).toContain(DEMO_EARLIER.addedModel);
		// The model and the tests on it, nothing else.
		for (const id of gone) if (id !== DEMO_EARLIER.addedModel) expect(now[id].depends_on.nodes, id).toContain(DEMO_EARLIER.addedModel);
		expect(Object.keys(before).filter((id) => !(id in now))).toEqual([]);
		const { uniqueId, column } = DEMO_EARLIER.addedColumn;
		expect(Object.keys(before[uniqueId].columns)).not.toContain(column);
		expect(Object.keys(now[uniqueId].columns)).toContain(column);
		expect(before[uniqueId].raw_code).not.toContain(column);
		// The rest compiles to the same code.
		expect(Object.keys(before).filter((id) => id !== uniqueId && before[id].raw_code !== now[id].raw_code)).toEqual([]);
		const edges = (await readRows(earlier.columnLineageParquet)).filter(
			(r) => r.to_node_unique_id === DEMO_EARLIER.addedModel || (r.to_node_unique_id === uniqueId && r.to_column_name === column)
		);
		expect(edges).toEqual([]);
		await expect(generateProject({ earlier: true, change: true })).rejects.toThrow(/^earlier: /);
	});
});

describe('demo project', () => {
	const nodes = () => Object.values(demo.manifest.nodes as Json) as Json[];
	const model = (name: string) => nodes().find((n) => n.unique_id === `model.coffee_shop.${name}`)!;

	it('has the shape of a small real project', () => {
		const all = nodes();
		const models = all.filter((n) => n.resource_type === 'model');
		expect(demo.manifest.metadata).toMatchObject({ adapter_type: 'duckdb', project_name: 'coffee_shop' });
		expect(models.filter((n) => n.config.materialized === 'view').every((n) => n.original_file_path.startsWith('models/staging/') || n.original_file_path.startsWith('models/intermediate/'))).toBe(true);
		expect(models.filter((n) => n.config.materialized === 'ephemeral')).toHaveLength(1);
		const incremental = models.filter((n) => n.config.materialized === 'incremental');
		expect(incremental).toHaveLength(1);
		expect(incremental[0].config).toMatchObject({ incremental_strategy: 'merge', unique_key: 'payment_id' });
		expect(all.filter((n) => n.resource_type === 'snapshot')).toHaveLength(1);
		expect(all.filter((n) => n.resource_type === 'seed')).toHaveLength(2);
		const sources = Object.values(demo.manifest.sources as Json) as Json[];
		expect(sources).toHaveLength(5);
		expect(sources.every((s) => s.source_name === 'raw' && s.schema === 'raw' && s.database === 'demo')).toBe(true);
		expect(sources.filter((s) => s.freshness.warn_after.count !== null)).toHaveLength(1);
		for (const n of [...models, ...sources]) {
			expect(n.description.length, n.unique_id).toBeGreaterThan(10);
			for (const c of Object.values(n.columns as Json)) expect((c as Json).description.length).toBeGreaterThan(3);
		}
		expect(model('orders').tags).toEqual(expect.arrayContaining(['finance', 'daily']));
		expect(model('orders').relation_name).toBe('"demo"."analytics"."orders"');
		expect(model('orders').compiled_code).toContain('__dbt__cte__int_order_items_enriched');
		expect(model('orders').extra_ctes).toHaveLength(1);
	});

	it('has generic tests of each kind with both severities, and one singular test', () => {
		const tests = nodes().filter((n) => n.resource_type === 'test');
		const kinds = new Set(tests.map((t) => t.test_metadata?.name));
		for (const k of ['unique', 'not_null', 'accepted_values', 'relationships']) expect(kinds).toContain(k);
		expect(new Set(tests.map((t) => t.config.severity))).toEqual(new Set(['ERROR', 'warn']));
		expect(tests.filter((t) => !t.test_metadata)).toHaveLength(1);
		const accepted = tests.find((t) => t.test_metadata?.name === 'accepted_values')!;
		expect(accepted.test_metadata.kwargs.values.length).toBeGreaterThan(1);
		const rel = tests.find((t) => t.test_metadata?.name === 'relationships')!;
		expect(rel.test_metadata.kwargs).toMatchObject({ to: expect.stringMatching(/^ref\('/), field: expect.any(String) });
		expect(model('orders').primary_key).toEqual(['order_id']);
	});

	it('has column lineage that matches its SQL', () => {
		const all = relationsOf(demo.manifest);
		for (const r of demoLineage) {
			const child = all.get(r.to_node_unique_id)!;
			// Edges only between a node and its direct parents.
			expect(child.depends_on.nodes).toContain(r.from_node_unique_id);
			const sql = child.raw_code as string;
			const word = (w: string) => new RegExp(`\\b${w}\\b`).test(sql);
			if (child.resource_type !== 'snapshot') {
				expect(word(r.to_column_name), `${child.name}.${r.to_column_name}`).toBe(true);
				expect(word(r.from_column_name), `${child.name} <- ${r.from_column_name}`).toBe(true);
			}
			if (r.lineage_kind === 'scan') {
				const clause = sql.split('\n').some((line) => /\b(on|where|group by|and)\b/.test(line) && new RegExp(`\\b${r.from_column_name}\\b`).test(line));
				expect(clause, `${child.name} scans ${r.from_column_name}`).toBe(true);
			}
		}
		const orders = demoLineage.filter((r) => r.to_node_unique_id === 'model.coffee_shop.orders');
		const amount = orders.filter((r) => r.to_column_name === 'amount' && r.lineage_kind === 'mod').map((r) => r.from_column_name);
		expect(amount.sort()).toEqual(['subtotal', 'tax']);
		const scans = new Set(orders.filter((r) => r.lineage_kind === 'scan').map((r) => `${r.from_node_unique_id}.${r.from_column_name}`));
		expect(scans).toEqual(
			new Set(['model.coffee_shop.stg_orders.order_id', 'model.coffee_shop.int_order_items_enriched.order_id', 'model.coffee_shop.int_order_payments.order_id'])
		);
		// Every output column of a model that joins gets every scan.
		const outputs = new Set(orders.map((r) => r.to_column_name));
		expect(orders.filter((r) => r.lineage_kind === 'scan')).toHaveLength(outputs.size * scans.size);
	});

	it('reports a small component for the demo and only sizes it has', () => {
		expect(demo.meta.components.length).toBeGreaterThan(0);
		for (const pick of demo.meta.components) {
			const columns = demoColumns.filter((r) => r.unique_id === pick.uniqueId).map((r) => r.column_name);
			expect(relationComponentEdges(demoLineage, pick.uniqueId, columns)).toBe(pick.edges);
			expect(pick.edges).toBeGreaterThanOrEqual(pick.target / 2);
			expect(pick.edges).toBeLessThanOrEqual(pick.target * 2);
		}
	});

	it('has runnable-looking project files matching the manifest', () => {
		const files = demo.projectFiles;
		const project = parseYaml(files.get('dbt_project.yml')!);
		expect(project).toMatchObject({ name: 'coffee_shop', profile: 'coffee_shop', 'config-version': 2 });
		expect(parseYaml(files.get('profiles.yml')!).coffee_shop.outputs.dev).toMatchObject({ type: 'duckdb', schema: 'analytics' });
		for (const n of nodes()) {
			if (n.resource_type === 'model') expect(files.get(n.original_file_path)).toBe(n.raw_code);
			if (n.resource_type === 'seed') expect(files.has(n.original_file_path)).toBe(true);
			if (n.resource_type === 'snapshot') expect(files.get(n.original_file_path)).toContain(n.raw_code);
			if (n.resource_type === 'test') expect(files.has(n.original_file_path)).toBe(true);
		}
		const marts = parseYaml(files.get('models/marts/schema.yml')!);
		const orders = marts.models.find((m: Json) => m.name === 'orders');
		expect(orders.config.tags).toEqual(['finance']);
		expect(orders.columns.find((c: Json) => c.name === 'order_id').data_tests).toEqual(['unique', 'not_null']);
		const staging = parseYaml(files.get('models/staging/schema.yml')!);
		const payments = staging.models.find((m: Json) => m.name === 'stg_payments');
		const method = payments.columns.find((c: Json) => c.name === 'payment_method');
		expect(method.data_tests[0].accepted_values).toMatchObject({ config: { severity: 'warn' } });
		const sources = parseYaml(files.get('models/staging/sources.yml')!);
		expect(sources.sources[0].tables.find((t: Json) => t.name === 'orders').freshness.error_after).toEqual({ count: 24, period: 'hour' });
	});

	it('packs the project files, and nothing else, into a tar.gz the upload path accepts', async () => {
		const tgz = await projectTarGz(scaled);
		const summary = await inspectProjectArchive(tgz);
		expect(summary.hasDbtProject).toBe(true);
		expect(summary.files).toBe(scaled.projectFiles.size);
		const paths: string[] = [];
		const contents = new Map<string, string>();
		await new Promise<void>((resolve, reject) => {
			const parser = new Parser({
				onReadEntry: (e: ReadEntry) => {
					if (e.type !== 'File') return void e.resume();
					paths.push(e.path);
					const chunks: Buffer[] = [];
					e.on('data', (c: Buffer) => chunks.push(c));
					e.on('end', () => contents.set(e.path, Buffer.concat(chunks).toString('utf8')));
				}
			});
			parser.on('end', resolve);
			parser.on('error', reject);
			parser.end(Buffer.from(tgz));
		});
		expect(paths.sort()).toEqual([...scaled.projectFiles.keys()].sort());
		expect(paths.some((p) => p.startsWith('target/') || p.startsWith('logs/'))).toBe(false);
		const longest = [...scaled.projectFiles.keys()].sort((a, b) => b.length - a.length)[0];
		expect(contents.get(longest)).toBe(scaled.projectFiles.get(longest));
		expect(Buffer.from(await projectTarGz(scaled)).equals(Buffer.from(tgz))).toBe(true);
	});

	it('writes the project directory as dbt leaves it after a build', async () => {
		const dir = await mkdtemp(path.join(tmpdir(), 'trib-demo-'));
		try {
			await writeProjectDir(demo, dir);
			expect(JSON.parse(await readFile(path.join(dir, 'target/manifest.json'), 'utf8'))).toEqual(demo.manifest);
			expect(JSON.parse(await readFile(path.join(dir, 'target/run_results.json'), 'utf8'))).toEqual(demo.runResults);
			expect(JSON.parse(await readFile(path.join(dir, 'target/catalog.json'), 'utf8'))).toEqual(demo.catalog);
			expect((await readFile(path.join(dir, 'target/index/dbt.column_lineage.parquet'))).equals(Buffer.from(demo.columnLineageParquet))).toBe(true);
			expect((await readFile(path.join(dir, 'target/index/dbt.node_columns.parquet'))).equals(Buffer.from(demo.nodeColumnsParquet))).toBe(true);
			expect(await readFile(path.join(dir, 'logs/dbt.log'), 'utf8')).toBe(demo.eventLog);
			expect(await readFile(path.join(dir, 'models/marts/orders.sql'), 'utf8')).toBe(demo.projectFiles.get('models/marts/orders.sql'));
		} finally {
			await rm(dir, { recursive: true, force: true });
		}
	});

	it('parses through the manifest ingest', () => {
		const graph = parseManifest(JSON.stringify(demo.manifest), { defaultDatabase: 'demo' });
		expect(graph.schemaVersion).toBe('v12');
		const orders = graph.nodes.find((n) => n.uniqueId === 'model.coffee_shop.orders')!;
		expect(orders.assetPath).toBe('main/analytics/orders');
		expect(orders.materialized).toBe('table');
		expect(graph.stats.ephemeralModels).toBe(1);
		const fct = graph.nodes.find((n) => n.uniqueId === 'model.coffee_shop.fct_payments')!;
		expect(fct).toMatchObject({ materializeStrategy: 'merge', uniqueKey: 'payment_id' });
		const big = parseManifest(JSON.stringify(scaled.manifest), { defaultDatabase: 'warehouse' });
		expect(big.nodes.filter((n) => n.resourceType === 'model')).toHaveLength(SCALED.models);
	});
});

describe('demo producers', () => {
	it('are two DuckDB scripts at folder paths, writing lake tables from the demo relations', () => {
		expect(demoProducers).toHaveLength(2);
		const relations = relationsOf(demo.manifest);
		const columnsOf = (name: string) =>
			new Set(demoColumns.filter((r) => relations.get(r.unique_id)?.name === name && relations.get(r.unique_id)?.schema === 'analytics').map((r) => r.column_name));
		const written: string[] = [];
		for (const p of demoProducers) {
			expect(parseScriptPath(p.path)).toMatchObject({ kind: 'folder', folder: 'demo' });
			expect(p.content).toMatch(/ATTACH 'ducklake:[^']+' AS lake;/);
			const target = /-- materialize ducklake:\/\/main\/(\w+)/.exec(p.content)![1];
			expect(p.content).toContain(`CREATE TABLE lake.${target} AS`);
			written.push(target);
			for (const [, rel, col] of p.content.matchAll(/dbt:\/\/main\/analytics\/(\w+)\.(\w+)/g)) {
				expect(columnsOf(rel).has(col), `${rel}.${col}`).toBe(true);
			}
			for (const [, rel] of p.content.matchAll(/\banalytics\.(\w+)/g)) expect(columnsOf(rel).size, rel).toBeGreaterThan(0);
		}
		expect(demoProducers[0].content).toContain('-- column revenue <- dbt://main/analytics/orders.amount');
		expect(demoProducers[1].content).toContain(`FROM lake.${written[0]}`);
		expect(demoProducers[1].content).toMatch(/JOIN analytics\.\w+/);
	});
});

describe('catalog', () => {
	it("lists every relation the warehouse holds with the columns the SQL produces, in order, and no ephemeral model", () => {
		const relations = relationsOf(demo.manifest);
		const catalog = demo.catalog as Json;
		const listed = new Map<string, Json>([...Object.entries(catalog.nodes as Json), ...Object.entries(catalog.sources as Json)]);
		const physical = [...relations.values()].filter(
			(n) => ['model', 'seed', 'snapshot', 'source'].includes(n.resource_type) && n.config?.materialized !== 'ephemeral'
		);
		expect([...listed.keys()].sort()).toEqual(physical.map((n) => n.unique_id).sort());
		// Column order and types from the node_columns index of the same build: the analysed columns, by index.
		for (const [id, e] of listed) {
			const indexed = demoColumns.filter((r) => r.unique_id === id && r.column_index !== null).sort((a, b) => Number(a.column_index) - Number(b.column_index));
			const cols = Object.values(e.columns as Json).sort((a: Json, b: Json) => a.index - b.index) as Json[];
			expect(cols.map((c) => [c.name, c.type]), id).toEqual(indexed.map((r) => [r.column_name, r.inferred_type]));
			expect(cols.map((c) => c.index)).toEqual(cols.map((_, i) => i + 1));
			const r = relations.get(id)!;
			expect(e.metadata).toMatchObject({ database: r.database, schema: r.schema, name: r.alias ?? r.identifier });
		}
		expect((listed.get('model.coffee_shop.orders')!.metadata as Json).type).toBe('BASE TABLE');
		expect((listed.get('model.coffee_shop.stg_orders')!.metadata as Json).type).toBe('VIEW');
	});
});

describe('roastery project', () => {
	it('is compiled dbt-core output: an ephemeral model inlined as a __dbt__cte__, refs resolved to quoted relations', async () => {
		const roastery = await generateProject({ roastery: true });
		const nodes = roastery.manifest.nodes as Json;
		const models = Object.values(nodes).filter((n: Json) => n.resource_type === 'model') as Json[];
		expect(models.map((m) => m.name).sort()).toEqual(['account_revenue', 'account_revenue_eur', 'account_survey_sample', 'batch_margins', 'int_batch_costs', 'origin_volumes', 'stg_accounts', 'stg_lots', 'stg_roast_batches', 'stg_wholesale_orders']);
		for (const m of models) {
			expect(m.compiled_code, m.name).not.toContain('{{');
			expect(m.schema).toBe('wholesale');
		}
		expect(nodes[ROASTERY_OUTCOMES.skipped].config.materialized).toBe('ephemeral');
		expect(nodes['model.roastery.batch_margins'].compiled_code).toContain('__dbt__cte__int_batch_costs');
		expect(nodes['model.roastery.batch_margins'].compiled_code).toContain('"demo"."wholesale"."stg_wholesale_orders"');
		expect(Object.keys(roastery.catalog.nodes as Json)).not.toContain(ROASTERY_OUTCOMES.skipped);
		// The producer reads one of its relations.
		expect(roasteryProducers[0].content).toMatch(/FROM wholesale\.account_revenue\b/);
		expect(Object.keys(nodes)).toContain('model.roastery.account_revenue');
	});
});

