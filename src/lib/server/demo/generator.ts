// The project's own dbt artifact generator: the demo workspace seeded on first start, test
// input, and benchmark projects of any size. Deterministic for a seed: the same options give
// the same bytes.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { buildCatalog } from './catalog-builder';
import { buildManifest } from './manifest-builder';
import { simulateBuild } from './build-run';
import { Compiler } from './compile';
import { componentStats, type ComponentPick } from './components';
import { demoProjectSpec } from './demo-project';
import { nodeColumnRows, writeColumnLineage, writeNodeColumns } from './index-parquet';
import { countByKind } from './lineage-builder';
import { projectFiles } from './project-files';
import { createRng } from './rng';
import { roasteryProjectSpec } from './roastery-project';
import { scaledProjectSpec } from './scaled-project';
import type { LineageKind, ProjectSpec } from './spec';
import { tarGz } from './tarball';

export { demoProducers, roasteryProducers, type DemoProducer } from './producers';
export { DEMO_CHANGE, DEMO_EARLIER, DEMO_FAILING_MODEL } from './demo-project';
export { ROASTERY_PROJECT, ROASTERY_SCHEMA, ROASTERY_OUTCOMES } from './roastery-project';
export type { ComponentPick } from './components';

export interface GenerateOptions {
	/** Scaled mode with this many models; the hand-written demo project when absent. */
	models?: number;
	/** Scaled mode: exactly this many column_lineage edges (default 60 per model). */
	columnEdges?: number;
	seed?: number;
	/** Scaled mode: the dbt project name (default `scaled_project`). */
	name?: string;
	/** Rows of dbt.column_lineage.parquet; rows past the edges are valid rows a consumer drops. */
	indexRows?: number;
	/** Plan a build with errors, failing and warning tests, and the skips they cause. */
	failures?: boolean;
	/** Demo mode: the project with an unmerged change (a model added, a column retyped), for a preview. */
	change?: boolean;
	/** Demo mode: the version deployed before the current one (a model and a column fewer). */
	earlier?: boolean;
	/** Demo mode: the demo's second project (the wholesale roastery, deployed without an index) instead of the coffee shop. */
	roastery?: boolean;
}

export interface GeneratedMeta {
	mode: 'demo' | 'scaled';
	seed: number;
	projectName: string;
	database: string;
	schema: string;
	invocationId: string;
	models: number;
	tests: number;
	sources: number;
	seeds: number;
	snapshots: number;
	columnEdges: { total: number } & Record<LineageKind, number>;
	/** Rows in dbt.column_lineage.parquet (edges plus filler). */
	indexRows: number;
	nodeColumnRows: number;
	/** Column-level direct components by edge count. */
	componentHistogram: Record<string, number>;
	largestComponent: number;
	/** For sizes 10, 100 and 1000 (direct edges): the relation whose component is closest. */
	components: ComponentPick[];
	/** Build statuses in run_results. */
	results: Record<string, number>;
}

export interface GeneratedProject {
	/** manifest.json (v12) as an object. */
	manifest: Record<string, unknown>;
	/** run_results.json (v6) of a `dbt build`, as an object. */
	runResults: Record<string, unknown>;
	/** target/index/dbt.column_lineage.parquet */
	columnLineageParquet: Uint8Array;
	/** target/index/dbt.node_columns.parquet */
	nodeColumnsParquet: Uint8Array;
	/** target/catalog.json (v1) of a `dbt docs generate` after the build, as an object. */
	catalog: Record<string, unknown>;
	/** logs/dbt.log of the build, `--log-format-file json`: one JSON event per line. */
	eventLog: string;
	/** The project's files (dbt_project.yml, models, YAML, seeds, snapshots, tests), sorted by path. */
	projectFiles: Map<string, string>;
	meta: GeneratedMeta;
}

export const COMPONENT_TARGETS = [10, 100, 1000] as const;

export async function generateProject(opts: GenerateOptions = {}): Promise<GeneratedProject> {
	const seed = opts.seed ?? 1;
	if (opts.change && opts.models !== undefined) throw new Error('change: only the demo project (without models) has an unmerged change');
	if (opts.roastery && (opts.models !== undefined || opts.change || opts.failures)) throw new Error('roastery: the second demo project has no scaled mode, change or failures');
	const spec: ProjectSpec = opts.roastery
		? roasteryProjectSpec(seed)
		: opts.models === undefined
			? demoProjectSpec({ seed, failures: opts.failures, change: opts.change, earlier: opts.earlier })
			: scaledProjectSpec({
					seed,
					models: opts.models,
					columnEdges: opts.columnEdges ?? opts.models * 60,
					name: opts.name,
					failures: opts.failures
				});
	// A stream separate from the project's shape, so timings never perturb the graph.
	const rng = createRng(seed ^ 0x5eed1e55);
	const invocationId = rng.uuid();
	const parsedAt = spec.startedAt + rng.int(1800, 3400);
	const compiler = new Compiler(spec);
	const manifest = buildManifest({ spec, compiler, invocationId, generatedAt: parsedAt });
	const build = simulateBuild({ spec, compiler, rng, invocationId, parsedAt, pid: rng.int(2000, 60000) });
	const catalog = buildCatalog({ spec, invocationId, generatedAt: parsedAt + 60_000 });

	const ingestedAt = BigInt(parsedAt) * 1000n + 512_331n;
	const rows = Math.max(opts.indexRows ?? spec.lineage.length, spec.lineage.length);
	const columnLineageParquet = (await writeColumnLineage({ edges: spec.lineage, rows, ingestedAtMicros: ingestedAt, project: spec.name }))!;
	const columnRows = nodeColumnRows(spec);
	const nodeColumnsParquet = await writeNodeColumns(columnRows, ingestedAt);

	const stats = componentStats(spec, spec.lineage, COMPONENT_TARGETS);
	const kinds = countByKind(spec.lineage);
	const count = (t: string) => spec.nodes.filter((n) => n.resourceType === t).length;
	const meta: GeneratedMeta = {
		mode: spec.mode,
		seed,
		projectName: spec.name,
		database: spec.database,
		schema: spec.schema,
		invocationId,
		models: count('model'),
		tests: count('test'),
		sources: spec.sources.length,
		seeds: count('seed'),
		snapshots: count('snapshot'),
		columnEdges: { total: spec.lineage.length, ...kinds },
		indexRows: rows,
		nodeColumnRows: columnRows.length,
		componentHistogram: stats.histogram,
		largestComponent: stats.largest,
		components: stats.picks,
		results: { ...build.counts }
	};
	return {
		manifest,
		runResults: build.runResults,
		columnLineageParquet,
		nodeColumnsParquet,
		catalog,
		eventLog: build.eventLog,
		projectFiles: projectFiles(spec),
		meta
	};
}

/** Writes the project as dbt leaves it after the build: files, target/ artifacts and the JSON log. */
export async function writeProjectDir(project: GeneratedProject, outDir: string): Promise<void> {
	const entries: [string, string | Uint8Array][] = [
		...project.projectFiles,
		['target/manifest.json', JSON.stringify(project.manifest)],
		['target/run_results.json', JSON.stringify(project.runResults)],
		['target/catalog.json', JSON.stringify(project.catalog)],
		['target/index/dbt.column_lineage.parquet', project.columnLineageParquet],
		['target/index/dbt.node_columns.parquet', project.nodeColumnsParquet],
		['logs/dbt.log', project.eventLog]
	];
	const dirs = [...new Set(entries.map(([rel]) => path.dirname(path.join(outDir, rel))))].sort();
	for (const dir of dirs) await mkdir(dir, { recursive: true });
	// A few writes in flight: thousands of small files one by one take seconds.
	for (let i = 0; i < entries.length; i += 32) {
		await Promise.all(entries.slice(i, i + 32).map(([rel, data]) => writeFile(path.join(outDir, rel), data)));
	}
}

/** tar.gz of the project files only (no target/, no logs/): what a deploy uploads. */
export async function projectTarGz(project: GeneratedProject): Promise<Uint8Array> {
	return tarGz(project.projectFiles);
}
