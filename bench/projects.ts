// Generated projects for the HTTP benchmarks, cached under bench/out/ with the generator's meta
// beside them (bench-meta.json), the "same project, fewer stored edges" index the column
// lineage benchmark compares against, and the same project as dbt-core leaves it for inference
// (compiled SQL and catalog.json, no index).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { directComponents } from '../src/lib/lineage/components';
import { generateProject, writeProjectDir, type GeneratedMeta } from '../src/lib/server/demo/generator';
import { writeColumnLineage } from '../src/lib/server/demo/index-parquet';
import { createRng } from '../src/lib/server/demo/rng';
import { scaledProjectSpec } from '../src/lib/server/demo/scaled-project';
import type { LineageEdge } from '../src/lib/server/demo/spec';
import { OUT } from './lib';

export interface BenchProject {
	dir: string;
	target: string;
	meta: GeneratedMeta;
}

const SEED = 1;

/**
 * `bench/out/p<models>-<edges>` (the name bench/ingest.ts uses for 3000/200k), generated with
 * seed 1 when missing. A directory written before bench-meta.json existed is checked against a
 * fresh generation (the column index must be byte-identical) and rewritten when it is stale.
 */
export async function benchProject(models: number, columnEdges: number): Promise<BenchProject> {
	const dir = path.join(OUT, `p${models}-${columnEdges % 1000 === 0 ? `${columnEdges / 1000}k` : columnEdges}`);
	const target = path.join(dir, 'target');
	const metaFile = path.join(dir, 'bench-meta.json');
	if (existsSync(metaFile) && existsSync(path.join(target, 'manifest.json')) && existsSync(path.join(dir, 'logs', 'dbt.log'))) {
		return { dir, target, meta: JSON.parse(readFileSync(metaFile, 'utf8')) as GeneratedMeta };
	}
	process.stderr.write(`generating ${path.basename(dir)} (${models} models, ${columnEdges} column edges) …\n`);
	const project = await generateProject({ models, columnEdges, seed: SEED });
	const indexFile = path.join(target, 'index', 'dbt.column_lineage.parquet');
	const same = existsSync(indexFile) && Buffer.from(project.columnLineageParquet).equals(readFileSync(indexFile));
	if (!same || !existsSync(path.join(dir, 'logs', 'dbt.log'))) await writeProjectDir(project, dir);
	writeFileSync(metaFile, `${JSON.stringify(project.meta, null, 2)}\n`);
	return { dir, target, meta: project.meta };
}

export interface SubsetIndex {
	file: string;
	/** Edges written (exactly the asked total). */
	edges: number;
	kinds: Record<string, number>;
	/** Per picked relation: direct edges of its component union, in the subset (equal to the full project's). */
	componentEdges: Record<string, number>;
}

const key = (uid: string, col: string) => `${uid}\u0000${col}`;

/**
 * The full project's manifest with a smaller column index: every edge of the picked relations'
 * direct components, kept whole, plus a seeded uniform sample of the project's other edges up to
 * `total` (so the direct/scan mix stays the project's). The picked relations' answers are then
 * identical in both projects, edge for edge; only the number of stored edges differs.
 */
export async function subsetIndex(p: BenchProject, total: number, pickIds: string[]): Promise<SubsetIndex> {
	const file = path.join(p.dir, `subset-${total}`, 'dbt.column_lineage.parquet');
	const metaFile = path.join(p.dir, `subset-${total}`, 'subset-meta.json');
	if (existsSync(file) && existsSync(metaFile)) {
		const m = JSON.parse(readFileSync(metaFile, 'utf8')) as SubsetIndex;
		if (pickIds.every((id) => id in m.componentEdges)) return m;
	}
	process.stderr.write(`writing a ${total}-edge index of ${path.basename(p.dir)} …\n`);
	const spec = scaledProjectSpec({ seed: SEED, models: p.meta.models, columnEdges: p.meta.columnEdges.total });
	const lineage = spec.lineage;
	const asLike = (es: readonly LineageEdge[]) =>
		es.map((e) => ({ parentUniqueId: e.fromId, parentColumn: e.fromColumn, childUniqueId: e.toId, childColumn: e.toColumn, lineageKind: e.kind }));
	const unionOf = (es: readonly LineageEdge[]) => {
		const comp = directComponents(asLike(es));
		const byCol = new Map<string, number>();
		es.forEach((e, i) => {
			if (comp[i] === null) return;
			byCol.set(key(e.fromId, e.fromColumn), comp[i]!);
			byCol.set(key(e.toId, e.toColumn), comp[i]!);
		});
		return { comp, byCol };
	};
	const full = unionOf(lineage);
	const wanted = new Map<string, Set<number>>();
	for (const id of pickIds) {
		const comps = new Set<number>();
		for (const [k, c] of full.byCol) if (k.startsWith(`${id}\u0000`)) comps.add(c);
		wanted.set(id, comps);
	}
	const keepComps = new Set([...wanted.values()].flatMap((s) => [...s]));
	const keep = new Set<number>();
	lineage.forEach((_, i) => {
		if (full.comp[i] !== null && keepComps.has(full.comp[i]!)) keep.add(i);
	});
	if (keep.size > total) throw new Error(`the picked components hold ${keep.size} edges, more than ${total}`);
	const rest = lineage.map((_, i) => i).filter((i) => !keep.has(i));
	for (const i of createRng(SEED ^ 0x10c).sample(rest, total - keep.size)) keep.add(i);
	const subset = lineage.filter((_, i) => keep.has(i));

	// The picked relations' components must be exactly what they are in the full project.
	const sub = unionOf(subset);
	const componentEdges: Record<string, number> = {};
	for (const id of pickIds) {
		const comps = new Set<number>();
		for (const [k, c] of sub.byCol) if (k.startsWith(`${id}\u0000`)) comps.add(c);
		const count = (es: (number | null)[]) => es.filter((c) => c !== null && comps.has(c)).length;
		componentEdges[id] = count(sub.comp);
		const fullCount = full.comp.filter((c) => c !== null && wanted.get(id)!.has(c)).length;
		if (componentEdges[id] !== fullCount) throw new Error(`subset changed the component of ${id}: ${componentEdges[id]} vs ${fullCount} edges`);
	}
	const bytes = await writeColumnLineage({ edges: subset, rows: subset.length, ingestedAtMicros: 1_772_430_000_000_000n, project: spec.name });
	mkdirSync(path.dirname(file), { recursive: true });
	writeFileSync(file, bytes!);
	const kinds: Record<string, number> = {};
	for (const e of subset) kinds[e.kind] = (kinds[e.kind] ?? 0) + 1;
	const m: SubsetIndex = { file, edges: subset.length, kinds, componentEdges };
	writeFileSync(metaFile, `${JSON.stringify(m, null, 2)}\n`);
	return m;
}

export interface InferenceProject {
	manifestFile: string;
	catalogFile: string;
	models: number;
	/** Models whose compiled SQL was given a UNION ALL or a window dedup on top of the generator's. */
	rewritten: { unions: number; windows: number };
}

type Json = any;

/**
 * The generated project as inference sees it: the manifest's compiled SQL (CTE chains, joins,
 * aggregates, `select *`, dbt's `__dbt__cte__` ephemerals), with every eighth model ending in a
 * UNION ALL of two filtered reads and every eighth (another) in a `row_number()` dedup, the two
 * shapes the generator does not write; and a catalog.json of every relation's warehouse columns
 * (the spec's, in order, without the YAML-only ones). Written under `<project>/infer/`.
 */
export async function inferenceProject(models: number, columnEdges: number): Promise<InferenceProject> {
	const p = await benchProject(models, columnEdges);
	const dir = path.join(p.dir, 'infer');
	const manifestFile = path.join(dir, 'manifest.json');
	const catalogFile = path.join(dir, 'catalog.json');
	const metaFile = path.join(dir, 'infer-meta.json');
	if (existsSync(manifestFile) && existsSync(catalogFile) && existsSync(metaFile)) return JSON.parse(readFileSync(metaFile, 'utf8')) as InferenceProject;
	process.stderr.write(`writing the inference input of ${path.basename(p.dir)} …\n`);
	const spec = scaledProjectSpec({ seed: SEED, models: p.meta.models, columnEdges: p.meta.columnEdges.total });
	const manifest = JSON.parse(readFileSync(path.join(p.target, 'manifest.json'), 'utf8')) as Json;
	const catalog: Json = {
		metadata: { dbt_schema_version: 'https://schemas.getdbt.com/dbt/catalog/v1.json', dbt_version: manifest.metadata?.dbt_version, generated_at: manifest.metadata?.generated_at, invocation_id: manifest.metadata?.invocation_id, env: {} },
		nodes: {},
		sources: {},
		errors: null
	};
	const warehouseColumns = new Map<string, string[]>();
	for (const r of [...spec.sources, ...spec.nodes]) {
		if (!('columns' in r)) continue;
		if (r.resourceType === 'model' && r.materialized === 'ephemeral') continue;
		const cols = r.columns.filter((c) => !c.yamlOnly);
		warehouseColumns.set(r.uniqueId, cols.map((c) => c.name));
		const entry = {
			metadata: { type: r.resourceType === 'model' && r.materialized === 'view' ? 'VIEW' : 'BASE TABLE', schema: r.schema, name: r.alias, database: r.database, comment: null, owner: null },
			columns: Object.fromEntries(cols.map((c, index) => [c.name, { type: c.type, index: index + 1, name: c.name, comment: null }])),
			stats: {},
			unique_id: r.uniqueId
		};
		(r.resourceType === 'source' ? catalog.sources : catalog.nodes)[r.uniqueId] = entry;
	}
	const rewritten = { unions: 0, windows: 0 };
	const tail = '\n\nselect * from final\n';
	const ids = Object.keys(manifest.nodes).filter((id) => manifest.nodes[id].resource_type === 'model').sort();
	ids.forEach((id, k) => {
		const node = manifest.nodes[id];
		const cols = warehouseColumns.get(id);
		if (typeof node.compiled_code !== 'string' || !node.compiled_code.endsWith(tail) || !cols || cols.length < 2) return;
		const head = node.compiled_code.slice(0, -tail.length);
		if (k % 8 === 3) {
			node.compiled_code = `${head}\n\nselect * from final\nwhere ${cols[0]} is not null\n\nunion all\n\nselect * from final\nwhere ${cols[0]} is null\n`;
			rewritten.unions++;
		} else if (k % 8 === 6) {
			const ranked = `ranked as (\n\n    select\n        final.*,\n        row_number() over (partition by ${cols[0]} order by ${cols[1]} desc) as _dedup_rank\n    from final\n\n)`;
			node.compiled_code = `${head},\n\n${ranked}\n\nselect\n    ${cols.join(',\n    ')}\nfrom ranked\nwhere _dedup_rank = 1\n`;
			rewritten.windows++;
		}
	});
	mkdirSync(dir, { recursive: true });
	writeFileSync(manifestFile, JSON.stringify(manifest));
	writeFileSync(catalogFile, JSON.stringify(catalog));
	const meta: InferenceProject = { manifestFile, catalogFile, models: ids.length, rewritten };
	writeFileSync(metaFile, `${JSON.stringify(meta, null, 2)}\n`);
	return meta;
}
