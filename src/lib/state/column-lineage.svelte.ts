// The dbt half of a column trace, fetched per selected relation (DESIGN.md §8). It lives apart
// from the asset graph because a project's column lineage is large and is drawn for one
// selection at a time; the producer half rides on the asset graph and is merged by the pane.
import { buildDbtColumnGraph, columnId, edgeKey, emptyColumnGraph, mergeColumnGraphs, type ColumnGraph } from '$lib/lineage/column-trace';
import type { ColumnLineageAnswer, ColumnLineageEdge } from '$lib/types/asset-graph';

/**
 * Which stored graph the lineage must describe: the current versions (optionally one named
 * version) or a job's pinned graph — the same one the canvas draws, so the trace and the cards
 * come from one parse.
 */
export type LineagePin = { kind: 'unpinned'; scriptHash?: string | null } | { kind: 'job'; jobId: string; viewToken?: string | null };

export type LineageFetcher = (assetPath: string, pin: LineagePin) => Promise<ColumnLineageAnswer>;

const pinKey = (pin: LineagePin) => (pin.kind === 'job' ? `job:${pin.jobId}` : `unpinned:${pin.scriptHash ?? ''}`);

/**
 * The read API in the browser (the unpinned or the run's own endpoint); `include: 'scan'` asks
 * for the scan edges too (the scan lens). A non-2xx answer is a failure, never an empty lineage.
 */
export function httpLineageFetcher(
	workspace: string,
	fetchFn: typeof fetch = (...a) => fetch(...a),
	opts: { include?: 'scan' } = {}
): LineageFetcher {
	return async (assetPath, pin) => {
		const q = new URLSearchParams({ asset_path: assetPath });
		if (opts.include) q.set('include', opts.include);
		let url: string;
		const headers: Record<string, string> = {};
		if (pin.kind === 'job') {
			url = `/api/w/${encodeURIComponent(workspace)}/jobs/dbt_column_lineage/${encodeURIComponent(pin.jobId)}?${q}`;
			if (pin.viewToken) headers['x-view-token'] = pin.viewToken;
		} else {
			if (pin.scriptHash) q.set('dbt_script_hash', pin.scriptHash);
			url = `/api/w/${encodeURIComponent(workspace)}/assets/column_lineage?${q}`;
		}
		const r = await fetchFn(url, { headers });
		if (!r.ok) throw new Error(`${opts.include === 'scan' ? 'scan edges' : 'column lineage'} of ${assetPath}: ${r.status}`);
		return (await r.json()) as ColumnLineageAnswer;
	};
}

/** The trace-graph keys of the edges a deploy's SQL inferred (rather than dbt's engine index). */
function inferredKeys(edges: readonly ColumnLineageEdge[]): string[] {
	return edges
		.filter((e) => e.provenance === 'inferred')
		.map((e) => edgeKey(columnId('dbt', e.from_asset_path, e.from_column), columnId('dbt', e.to_asset_path, e.to_column)));
}

/**
 * Fetches and accumulates the dbt column lineage of the relations a selection reaches.
 *
 * - Every relation asked is fetched (a lake table derived from several dbt relations needs all
 *   of them), each once per pin: a relation counts as fetched only once an answer for it under
 *   this pin arrived — merely appearing as an endpoint in another relation's answer is not
 *   enough, since a relation two projects describe may be half-known from one of them.
 * - Answers that arrive after the selection moved on are dropped.
 * - `loading`, `failed` and `truncated` describe the current request only, so the pane can say
 *   "loading" instead of "no lineage" and "partial" instead of "complete".
 */
export class ColumnLineage {
	graph = $state.raw<ColumnGraph>(emptyColumnGraph());
	loading = $state(false);
	/** Relations of the current request whose answer failed. */
	failed = $state.raw<string[]>([]);
	/** Some relation of the current request has more lineage than was served. */
	truncated = $state(false);
	/** The edges of `graph` that were inferred from compiled SQL, by edgeKey. */
	inferred = $state.raw<ReadonlySet<string>>(new Set());

	#fetcher: LineageFetcher;
	#pin: string | null = null;
	#asked = new Set<string>();
	#truncated = new Set<string>();
	#generation = 0;
	#inflight: { signature: string; done: Promise<void> } | null = null;

	constructor(fetcher: LineageFetcher) {
		this.#fetcher = fetcher;
	}

	/** Follow a new selection. Resolves when this request has settled (or been superseded). */
	request(assetPaths: readonly string[], pin: LineagePin): Promise<void> {
		const key = pinKey(pin);
		const paths = [...new Set(assetPaths)].sort();
		const signature = `${key}|${paths.join('\u0000')}`;
		// The same question again while it is in flight: keep waiting for that answer instead
		// of dropping it and asking twice.
		if (this.#inflight?.signature === signature) return this.#inflight.done;
		const generation = ++this.#generation;
		if (key !== this.#pin) {
			this.#pin = key;
			this.#asked = new Set();
			this.#truncated = new Set();
			this.graph = emptyColumnGraph();
			this.inferred = new Set();
		}
		this.failed = [];
		this.truncated = paths.some((p) => this.#truncated.has(p));
		const missing = paths.filter((p) => !this.#asked.has(p));
		if (missing.length === 0) {
			this.loading = false;
			this.#inflight = null;
			return Promise.resolve();
		}
		this.loading = true;
		const done = Promise.allSettled(missing.map((p) => this.#fetcher(p, pin))).then((results) => {
			if (generation !== this.#generation) return;
			this.#inflight = null;
			const parts: ColumnGraph[] = [];
			const inferred: string[] = [];
			const failed: string[] = [];
			results.forEach((r, i) => {
				const path = missing[i];
				if (r.status === 'rejected') {
					failed.push(path);
					return;
				}
				parts.push(buildDbtColumnGraph(r.value.edges ?? []));
				inferred.push(...inferredKeys(r.value.edges ?? []));
				this.#asked.add(path);
				if (r.value.truncated) this.#truncated.add(path);
			});
			if (parts.length) this.graph = mergeColumnGraphs(this.graph, ...parts);
			if (inferred.length) this.inferred = new Set([...this.inferred, ...inferred]);
			this.failed = failed;
			this.truncated = paths.some((p) => this.#truncated.has(p));
			this.loading = false;
		});
		this.#inflight = { signature, done };
		return done;
	}

	/**
	 * Forget every answer (the lineage behind them changed: a lineage job finished) and ask
	 * again for these relations.
	 */
	refresh(assetPaths: readonly string[], pin: LineagePin): Promise<void> {
		this.#pin = null;
		this.#inflight = null;
		return this.request(assetPaths, pin);
	}

	/** Nothing selected: drop the current request's state (the per-pin cache stays). */
	clear(): void {
		this.#generation++;
		this.#inflight = null;
		this.loading = false;
		this.failed = [];
		this.truncated = false;
	}
}
