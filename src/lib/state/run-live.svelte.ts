// A run page's live half (DESIGN.md §9): the job and its per-relation progress polled every
// 2 s while it runs, the pinned graph re-read with backoff until the run's own snapshot or its
// first progress shows up (a run that parses first stores its graph after it starts), and once
// more when it ends. The page component is reused from one run to the next, so every answer is
// checked against the run it was asked for and dropped if the page has moved on.
import type { JobDetail, RunProgressItem } from '$lib/types/jobs';
import type { NodeStatus } from './canvas.svelte';

export type JsonFetcher = (url: string) => Promise<unknown>;

export interface RunLiveOptions {
	workspace: string;
	fetchJson: JsonFetcher;
	/** Re-read the pinned graph (the page's load); resolves once the new graph is in. */
	refreshGraph: () => Promise<void>;
	/** Milliseconds between progress polls (2000). */
	pollMs?: number;
	/** Backoff of graph re-reads while the run has neither snapshot nor progress. */
	graphBackoffMs?: readonly number[];
	viewToken?: string | null;
}

const ACTIVE = new Set(['queued', 'running']);

/** dbt's outcome words and our progress words, as the canvas colours them. */
function outcomeStatus(outcome: string): NodeStatus['status'] | null {
	switch (outcome) {
		case 'passed':
			return 'passed';
		case 'failed':
		case 'unknown':
			return 'failed';
		case 'warned':
			return 'warned';
		case 'skipped':
		case 'no_op':
			return 'skipped';
		default:
			return null;
	}
}

interface ResultNode {
	unique_id: string;
	outcome: string;
	rows_affected?: number;
	message?: string;
}

/** Statuses by canvas node id: live progress by relation, then the settled result by unique id. */
export function runStatuses(
	progress: readonly RunProgressItem[],
	result: Record<string, unknown> | null,
	nodeOfUniqueId: (uid: string) => string | undefined
): Map<string, NodeStatus> {
	const out = new Map<string, NodeStatus>();
	for (const p of progress) {
		out.set(`${p.asset_kind}:${p.asset_path}`, { status: p.status, rowCount: p.row_count, error: p.error });
	}
	const nodes = Array.isArray(result?.nodes) ? (result!.nodes as ResultNode[]) : [];
	for (const n of nodes) {
		const id = nodeOfUniqueId(n.unique_id);
		const st = outcomeStatus(n.outcome);
		if (!id || !st) continue;
		const prev = out.get(id);
		// A built model keeps its row count; a test's outcome lands on the relation it tests
		// only when it is worse than what the relation already shows.
		if (st === 'passed' && prev?.status === 'materialized') continue;
		out.set(id, { status: st === 'passed' && n.rows_affected !== undefined ? 'materialized' : st, rowCount: n.rows_affected ?? prev?.rowCount, error: n.message ?? prev?.error });
	}
	return out;
}

export class RunLive {
	jobId = $state<string | null>(null);
	job = $state.raw<JobDetail | null>(null);
	progress = $state.raw<RunProgressItem[]>([]);
	/** The graph on screen is the run's own snapshot (or progress exists to colour it). */
	graphSettled = $state(false);
	pollError = $state<string | null>(null);

	#o: RunLiveOptions;
	#generation = 0;
	#timers = new Set<ReturnType<typeof setTimeout>>();
	#graphAttempt = 0;

	constructor(o: RunLiveOptions) {
		this.#o = o;
	}

	get active(): boolean {
		return !!this.job && ACTIVE.has(this.job.status);
	}

	#url(path: string): string {
		const base = `/api/w/${encodeURIComponent(this.#o.workspace)}/jobs/${path}/${encodeURIComponent(this.jobId!)}`;
		return this.#o.viewToken ? `${base}?view_token=${encodeURIComponent(this.#o.viewToken)}` : base;
	}

	#later(ms: number, fn: () => void) {
		const t = setTimeout(() => {
			this.#timers.delete(t);
			fn();
		}, ms);
		this.#timers.add(t);
	}

	/** Show a run (a new one, or the same one after a reload of its data). */
	start(job: JobDetail, progress: RunProgressItem[], ownSnapshot: boolean): void {
		const same = this.jobId === job.id;
		this.stop();
		const generation = this.#generation;
		this.jobId = job.id;
		this.job = job;
		this.progress = progress;
		this.pollError = null;
		if (!same) this.#graphAttempt = 0;
		this.graphSettled = ownSnapshot || progress.length > 0;
		if (!ACTIVE.has(job.status)) return;
		this.#later(this.#o.pollMs ?? 2000, () => void this.#poll(generation));
		if (!this.graphSettled) this.#scheduleGraph(generation);
	}

	stop(): void {
		this.#generation++;
		for (const t of this.#timers) clearTimeout(t);
		this.#timers.clear();
	}

	#scheduleGraph(generation: number) {
		const backoff = this.#o.graphBackoffMs ?? [1000, 2000, 4000, 8000, 15000, 30000];
		const ms = backoff[Math.min(this.#graphAttempt, backoff.length - 1)];
		this.#graphAttempt++;
		this.#later(ms, () => {
			if (generation !== this.#generation || this.graphSettled) return;
			// The reload calls start() again, which re-arms (or settles) the backoff.
			void this.#o.refreshGraph();
		});
	}

	async #poll(generation: number): Promise<void> {
		try {
			const [job, progress] = await Promise.all([this.#o.fetchJson(this.#url('get')), this.#o.fetchJson(this.#url('run_progress'))]);
			if (generation !== this.#generation) return;
			this.job = job as JobDetail;
			this.progress = progress as RunProgressItem[];
			this.pollError = null;
			if (this.progress.length > 0 && !this.graphSettled) {
				// The first progress: the run is past any parse, its graph is the one to draw.
				this.graphSettled = true;
				void this.#o.refreshGraph();
			}
		} catch (e) {
			if (generation !== this.#generation) return;
			this.pollError = e instanceof Error ? e.message : String(e);
		}
		if (ACTIVE.has(this.job!.status)) this.#later(this.#o.pollMs ?? 2000, () => void this.#poll(generation));
		// Ended: read the graph once more (a snapshot stored at the end) — the reload restarts
		// this object on the final state and polls no further.
		else void this.#o.refreshGraph();
	}
}
