// Wire types of the canvas pages beyond the graph itself.
import type { ProducerColumnLineage } from './asset-graph';
import type { GraphConsumer } from './consumers';

/** A relation's state in a run, as the run lens colours it (lineage/canvas-lens.ts). */
export type RunState = 'running' | 'materialized' | 'failed' | 'passed' | 'warned' | 'skipped';
/** A relation's state in a run, as the run page colours it. */
export interface NodeStatus {
	status: RunState;
	rowCount?: number;
	error?: string;
}

/** The worst result of a relation's tests. */
export type TestState = 'fail' | 'warn' | 'skip' | 'pass';

/**
 * Which way the layers run: `LR` (sources on the left, the default every dbt tool uses) or
 * `TB` (sources on top). Each is laid out and cached on the server in its own right.
 */
export type Direction = 'LR' | 'TB';

/** A laid-out level (lineage/canvas-sizes.ts). */
export interface LevelLayout {
	/** Top-left of each child, relative to the level's own top-left. */
	pos: Record<string, [number, number]>;
	w: number;
	h: number;
}

/** A dbt project of a canvas (lineage/canvas-model.ts). */
export interface CanvasProject {
	path: string;
	hash: string | null;
	modelCount: number;
}

// The canvas in its compact wire form (lineage/canvas-model.ts toWire/fromWire).
export interface CanvasWire {
	v: 1;
	digest: string;
	hidden: number;
	projects: CanvasProject[];
	strings: string[];
	/**
	 * Per node: type (0 asset, 1 runnable), kind, path, resource type, materialized, unique-id
	 * prefix, unique-id name (0 = the node's name), project, error tests, warn tests, tags
	 * (0 = none), file directory (-1 = none), file name (0 = `<name>.sql`). Strings are
	 * indexes into `strings`, -1 for absent.
	 */
	nodes: (number | string | number[])[][];
	/** Flat triples: source index, target index, kind (0 ref, 1 read, 2 write). */
	edges: number[];
}

/** The latest run of each dbt project on a canvas, and what it left each relation in (the run lens). */
export interface LatestRuns {
	runs: { id: string; scriptPath: string; status: string; createdAt: string }[];
	/** By canvas node id; only nodes of the canvas the page was given. */
	statuses: Record<string, RunState>;
	/** The worst result of each relation's tests in those runs, by canvas node id. */
	tests: Record<string, TestState>;
	/** Each OpenLineage job's last run, by its canvas node id: the card is coloured by it. */
	jobs: Record<string, RunState>;
}

/**
 * A canvas page's graph: the compact canvas and its first cut laid out. The run page reads it
 * from `GET jobs/run_canvas/{id}` (cached bytes with an ETag) instead of its page data.
 */
export interface CanvasPayload {
	/** The canvas graph in its compact wire form (fromWire on the page). */
	wire: CanvasWire;
	/** The groups open in the first cut. */
	open: string[];
	/** The way the layouts below run. */
	direction: Direction;
	layouts: Record<string, LevelLayout>;
	/** Producer scripts' column lineage: the producer half of every column trace on the page. */
	producerLineage: { path: string; column_lineage: ProducerColumnLineage[] }[];
	/** The consumer layer's entries (their details pane, where a trace ends); absent when none. */
	consumers?: GraphConsumer[];
	/** Server time spent, for the page's own timing line and the benchmark. */
	timing: { layoutMs: number; levels: number };
}
