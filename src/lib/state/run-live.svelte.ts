// A run page's live half (DESIGN.md §9): the job and its per-relation progress polled every
// 2 s while it runs, the pinned graph re-read with backoff until the run's own snapshot or its
// first progress shows up (a run that parses first stores its graph after it starts), and once
// more when it ends. The page component is reused from one run to the next, so every answer is
// checked against the run it was asked for and dropped if the page has moved on.
//
// A poll is ONE request, `jobs/get/{id}?log_offset=N&progress_since=C` (one authentication and
// one access check where two requests paid twice), and it is incremental: the log written after
// the N characters held is appended (a viewer shown no log asks `logs=false`), and progress comes
// as the rows changed since the last answer's cursor (`progress_since=0`, every row, only when no
// cursor is known or the row count disagrees), merged by relation.
import { JOB_LOG_TAIL, type JobDetail, type JobPoll, type RunProgressChanges, type RunProgressItem } from '$lib/types/jobs';
import { untrack } from 'svelte';
export { runStatuses } from '$lib/lineage/run-status';

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

const progressKey = (p: RunProgressItem) => `${p.asset_kind}\u0000${p.asset_path}`;

/**
 * Progress after a changes answer: rows replaced by relation, new ones added in asset-path
 * order. `held` is the current list (null: none held, the answer is the whole set). Returns the
 * merged list and whether it agrees with the server's row count (else re-read in full).
 */
export function mergeProgress(held: readonly RunProgressItem[] | null, changes: RunProgressChanges): { progress: RunProgressItem[]; complete: boolean; changed: boolean } {
	if (held === null) return { progress: changes.rows, complete: changes.rows.length === changes.total, changed: true };
	if (changes.rows.length === 0) return { progress: held as RunProgressItem[], complete: held.length === changes.total, changed: false };
	const byKey = new Map(held.map((p) => [progressKey(p), p]));
	let added = false;
	for (const r of changes.rows) {
		if (!byKey.has(progressKey(r))) added = true;
		byKey.set(progressKey(r), r);
	}
	let progress = [...byKey.values()];
	if (added) progress = progress.sort((a, b) => (a.asset_path < b.asset_path ? -1 : a.asset_path > b.asset_path ? 1 : a.asset_kind < b.asset_kind ? -1 : a.asset_kind > b.asset_kind ? 1 : 0));
	return { progress, complete: progress.length === changes.total, changed: true };
}

/**
 * The job after an answer read with `log_offset=heldLength`: its log is the held log plus the
 * new part when the answer continues it, else the answer's part (a gap was skipped, or the log
 * is not the one held), kept to the last JOB_LOG_TAIL characters.
 */
export function mergeJobLog(held: JobDetail | null, heldLength: number | null, answer: JobPoll): { job: JobDetail; logLength: number | null } {
	const { log_from, log_length, progress: _progress, ...job } = answer;
	if (log_from === undefined || log_length === undefined || job.redacted) return { job, logLength: null };
	if (held && heldLength !== null && log_from === heldLength && held.id === job.id) {
		let logs = job.logs ? held.logs + job.logs : held.logs;
		let truncated = held.logs_truncated;
		if (logs.length > JOB_LOG_TAIL) {
			logs = logs.slice(logs.length - JOB_LOG_TAIL);
			truncated = true;
		}
		return { job: { ...job, logs, logs_truncated: truncated }, logLength: log_length };
	}
	return { job: { ...job, logs_truncated: log_from > 0 }, logLength: log_length };
}

export class RunLive {
	jobId = $state<string | null>(null);
	job = $state.raw<JobDetail | null>(null);
	progress = $state.raw<RunProgressItem[]>([]);
	/** The graph on screen is the run's own snapshot (or progress exists to colour it). */
	graphSettled = $state(false);
	pollError = $state<string | null>(null);
	#showLog = $state(false);

	#o: RunLiveOptions;
	/** Where the next progress read continues (null: read in full). */
	#cursor: string | null = null;
	/** Characters of the job's log held (null: none is shown, or unknown). */
	#logLength: number | null = null;
	#generation = 0;
	#timers = new Set<ReturnType<typeof setTimeout>>();
	#graphAttempt = 0;

	constructor(o: RunLiveOptions) {
		this.#o = o;
	}

	/**
	 * The page shows the log (its panel is open): polls then ask for the log written since the
	 * last answer. While it is closed they ask for none, and the log held stays as it was. The
	 * page's data carries no log (most viewers never open it), so the first open reads its tail.
	 */
	get showLog(): boolean {
		return this.#showLog;
	}

	set showLog(open: boolean) {
		this.#showLog = open;
		if (open && this.#logLength === null && this.job && !this.job.redacted) void this.#readLog(this.#generation);
	}

	get active(): boolean {
		return !!this.job && ACTIVE.has(this.job.status);
	}

	#url(path: string, query: Record<string, string> = {}): string {
		const base = `/api/w/${encodeURIComponent(this.#o.workspace)}/jobs/${path}/${encodeURIComponent(this.jobId!)}`;
		const q = new URLSearchParams(query);
		if (this.#o.viewToken) q.set('view_token', this.#o.viewToken);
		const qs = q.toString();
		return qs ? `${base}?${qs}` : base;
	}

	/** The poll: only the log after what is held (or none for a viewer shown none), and the progress changes. */
	#pollUrl(): string {
		const progress_since = this.#cursor ?? '0';
		if (this.job?.redacted || !this.showLog) return this.#url('get', { logs: 'false', progress_since });
		return this.#url('get', { log_offset: String(this.#logLength ?? 0), progress_since });
	}

	#later(ms: number, fn: () => void) {
		const t = setTimeout(() => {
			this.#timers.delete(t);
			fn();
		}, ms);
		this.#timers.add(t);
	}

	/**
	 * Show a run (a new one, or the same one after a reload of its data). `live` says where the
	 * page's data left off: the progress cursor and the log's length (absent: the first poll
	 * reads progress in full and the log's tail).
	 */
	start(job: JobDetail, progress: RunProgressItem[], ownSnapshot: boolean, live: { progressCursor?: string | null; logLength?: number | null } = {}): void {
		// Called from the page's effect: what is read here must not make it re-run.
		const same = untrack(() => this.jobId === job.id);
		const showLog = untrack(() => this.#showLog);
		// The same run re-read (its graph, its end) keeps the log it holds: the data has none.
		const held = same && live.logLength == null && this.#logLength !== null && !job.redacted ? untrack(() => this.job) : null;
		this.stop();
		const generation = this.#generation;
		this.jobId = job.id;
		this.job = held ? { ...job, logs: held.logs, logs_truncated: held.logs_truncated } : job;
		this.progress = progress;
		this.#cursor = live.progressCursor ?? null;
		this.#logLength = live.logLength ?? (held ? this.#logLength : null);
		// An open panel catches up at once (what a run wrote since, or the tail of another run's log).
		if (showLog && !job.redacted && live.logLength == null) void this.#readLog(generation);
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

	/** The log after what is held (its tail when none is), outside the poll's rhythm. */
	async #readLog(generation: number): Promise<void> {
		try {
			const answer = (await this.#o.fetchJson(this.#url('get', { log_offset: String(this.#logLength ?? 0) }))) as JobPoll;
			if (generation !== this.#generation) return;
			const j = mergeJobLog(this.job, this.#logLength, answer);
			this.job = j.job;
			this.#logLength = j.logLength;
		} catch (e) {
			if (generation !== this.#generation) return;
			this.pollError = e instanceof Error ? e.message : String(e);
		}
	}

	async #poll(generation: number): Promise<void> {
		try {
			const url = this.#pollUrl();
			const withLog = url.includes('log_offset=');
			const answer = (await this.#o.fetchJson(url)) as JobPoll;
			if (generation !== this.#generation) return;
			if (withLog) {
				const j = mergeJobLog(this.job, this.#logLength, answer);
				this.job = j.job;
				this.#logLength = j.logLength;
			} else {
				// Asked without the log: the one held stays (and where it ends).
				const { log_from: _f, log_length: _l, progress: _p, ...job } = answer;
				const held = this.job?.id === job.id ? this.job : null;
				this.job = held && !job.redacted ? { ...job, logs: held.logs, logs_truncated: held.logs_truncated } : job;
			}
			const c = answer.progress;
			if (!c) throw new Error('the job answer carried no progress');
			const m = mergeProgress(this.#cursor === null ? null : this.progress, c);
			if (m.changed) this.progress = m.progress;
			// A row count that disagrees (rows removed as a run settles): the next read is in full.
			this.#cursor = m.complete ? c.cursor : null;
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
