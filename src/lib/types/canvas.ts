// Wire types of the canvas pages beyond the graph itself.
import type { RunState, TestState } from '../lineage/canvas-lens';

/** The latest run of each dbt project on a canvas, and what it left each relation in (the run lens). */
export interface LatestRuns {
	runs: { id: string; scriptPath: string; status: string; createdAt: string }[];
	/** By canvas node id; only nodes of the canvas the page was given. */
	statuses: Record<string, RunState>;
	/** The worst result of each relation's tests in those runs, by canvas node id. */
	tests: Record<string, TestState>;
}
