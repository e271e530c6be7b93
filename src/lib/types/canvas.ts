// Wire types of the canvas pages beyond the graph itself.
import type { RunState, TestState } from '../lineage/canvas-lens';
import type { CanvasWire } from '../lineage/canvas-model';
import type { Direction, LevelLayout } from '../lineage/canvas-sizes';
import type { ProducerColumnLineage } from './asset-graph';

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
	/** Server time spent, for the page's own timing line and the benchmark. */
	timing: { layoutMs: number; levels: number };
}
