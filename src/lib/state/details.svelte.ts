// What the details pane shows for the selection: the relation's description (read on
// selection) and the column trace around it (dbt's half fetched, the producers' half from the
// page), each dropping answers that arrive after the selection moved on.
import {
	assetColumns,
	buildProducerColumnGraph,
	connectedComponent,
	dbtRelationsOf,
	downstreamOf,
	edgeKey,
	edgesAmong,
	emptyColumnGraph,
	mergeColumnGraphs,
	traceLanes,
	type ColumnGraph,
	type ColumnId,
	type EdgeStyle,
	type Lane
} from '$lib/lineage/column-trace';
import { producerVia } from '$lib/lineage/canvas-columns';
import { focusLanes, traceFrame, traceLayout, tracePath, zoomAt, type ScriptBox, type TraceLayout, type TraceViewport } from '$lib/lineage/trace-view';
import type { DbtProvenance, ModelColumnLineage, ProducerColumnLineage } from '$lib/types/asset-graph';
import { consumerIndex, consumersReached, type ConsumerHit, type ConsumerIndex } from '$lib/lineage/consumer-trace';
import type { GraphConsumer } from '$lib/types/consumers';
import { ColumnLineage, type LineageFetcher, type LineagePin } from './column-lineage.svelte';

export type RelationFetcher = (path: string) => Promise<DbtProvenance | null>;

/** Is the lineage job of this relation's graph still to finish? */
export function lineageJobActive(cl: ModelColumnLineage | null | undefined): boolean {
	return !!cl?.job && (cl.job.status === 'queued' || cl.job.status === 'running');
}

export interface PollOptions {
	/** The waits between re-reads while a lineage job runs, in ms; the last one repeats. */
	delays?: readonly number[];
	/** Test seam: how a wait is waited. */
	sleep?: (ms: number) => Promise<void>;
	/** The selected relation's lineage job ended while it was shown: its lineage changed. */
	onLineageSettled?: (path: string) => void;
}

// Backing off: a job on a big project runs for minutes, and every open pane polls.
const POLL_DELAYS = [1000, 2000, 3000, 5000, 10000] as const;
/** Re-reads that fail in a row before the pane stops watching (the last answer stays on screen). */
const POLL_FAILURES = 3;

/**
 * The selected dbt relation's description. While its graph's lineage job is queued or running
 * the description is re-read, backing off, until the job ends (or the selection moves on), so
 * the pane's progress and then the model's outcome follow the job.
 */
export class RelationDetails {
	path = $state<string | null>(null);
	dbt = $state.raw<DbtProvenance | null>(null);
	loading = $state(false);
	error = $state<string | null>(null);
	/** The re-reads under way while a lineage job runs; null when none (awaited by tests). */
	watching: Promise<void> | null = null;
	#fetch: RelationFetcher;
	#generation = 0;
	#delays: readonly number[];
	#sleep: (ms: number) => Promise<void>;
	#onSettled: (path: string) => void;

	constructor(fetch: RelationFetcher, poll: PollOptions = {}) {
		this.#fetch = fetch;
		this.#delays = poll.delays?.length ? poll.delays : POLL_DELAYS;
		this.#sleep = poll.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
		this.#onSettled = poll.onLineageSettled ?? (() => {});
	}

	async show(path: string | null): Promise<void> {
		const generation = ++this.#generation;
		this.path = path;
		this.dbt = null;
		this.error = null;
		this.watching = null;
		this.loading = path !== null;
		if (path === null) return;
		try {
			const dbt = await this.#fetch(path);
			if (generation !== this.#generation) return;
			this.dbt = dbt;
			if (lineageJobActive(dbt?.column_lineage)) this.watching = this.#watch(generation, path);
		} catch (e) {
			if (generation !== this.#generation) return;
			this.error = e instanceof Error ? e.message : String(e);
		} finally {
			if (generation === this.#generation) this.loading = false;
		}
	}

	async #watch(generation: number, path: string): Promise<void> {
		let failures = 0;
		for (let i = 0; lineageJobActive(this.dbt?.column_lineage); i++) {
			await this.#sleep(this.#delays[Math.min(i, this.#delays.length - 1)]);
			if (generation !== this.#generation) return;
			try {
				const dbt = await this.#fetch(path);
				if (generation !== this.#generation) return;
				this.dbt = dbt;
				failures = 0;
			} catch {
				if (generation !== this.#generation || ++failures >= POLL_FAILURES) return;
			}
		}
		this.#onSettled(path);
	}
}

/** What the pane says about a relation's column lineage beyond the trace itself; null when nothing needs saying. */
export interface LineageNotice {
	state: 'inferring' | 'job-failed' | 'none' | 'failed' | 'partial' | 'skipped' | 'too_complex';
	text: string;
	detail: string | null;
	/** partial: the columns that could not be traced, each with why. */
	untraced: readonly { column: string; reason: string }[];
}

/** Where in the compiled SQL, unless the parser's message already says (`Parse error at line 6, column 54: …`). */
const position = (cl: ModelColumnLineage) =>
	cl.line === null || new RegExp(`\\bline ${cl.line}\\b`).test(cl.message ?? '')
		? ''
		: cl.column === null
			? ` (line ${cl.line} of the compiled SQL)`
			: ` (line ${cl.line}, column ${cl.column} of the compiled SQL)`;

/**
 * Why a relation has the lineage it has: the job still inferring it (with models done of total),
 * the job failed, no lineage in the project at all, or the model's own outcome. An analyzed
 * model, and lineage from dbt's engine index, need no notice.
 */
export function lineageNotice(cl: ModelColumnLineage | null | undefined): LineageNotice | null {
	if (!cl) return null;
	const notice = (state: LineageNotice['state'], text: string, detail: string | null = null, untraced: LineageNotice['untraced'] = []) => ({ state, text, detail, untraced });
	if (lineageJobActive(cl)) {
		const { status, done, total } = cl.job!;
		const models = total === null ? null : `${total} ${total === 1 ? 'model' : 'models'}`;
		if (status === 'queued') return notice('inferring', 'Inferring column lineage…', models ? `waiting for a worker · ${models} to infer` : 'waiting for a worker');
		return notice('inferring', 'Inferring column lineage…', total !== null ? `${done ?? 0} of ${models} done` : null);
	}
	if (cl.job && (cl.job.status === 'failure' || cl.job.status === 'canceled'))
		return notice('job-failed', 'Column lineage could not be computed.', cl.message ?? `The lineage job ${cl.job.status === 'canceled' ? 'was canceled' : 'failed'}; the graph is kept.`);
	if (cl.source === null)
		return notice(
			'none',
			'This project has no column lineage.',
			"Its deploy carried no column index, and nothing was inferred from compiled SQL (a manifest from dbt parse has none): deploy the target/ of dbt compile, run or build, with dbt docs generate's catalog.json for typed columns."
		);
	if (cl.outcome === 'failed') return notice('failed', "This model's compiled SQL could not be analysed.", `${cl.message ?? 'The parser gave no reason.'}${position(cl)}`);
	if (cl.outcome === 'skipped') return notice('skipped', 'Column lineage was not inferred for this model.', cl.message);
	if (cl.outcome === 'too_complex') return notice('too_complex', 'This model is too complex to analyse: its compiled SQL was not parsed.', cl.message);
	if (cl.outcome === 'partial') {
		const n = cl.untraced.length;
		return notice('partial', n === 1 ? 'One column could not be traced.' : `${n} columns could not be traced.`, cl.message, cl.untraced);
	}
	return null;
}

export interface TraceTarget {
	kind: string;
	path: string;
	/** May this viewer see the relation's lineage at all? A share-link viewer may not. */
	authored: boolean;
}

/**
 * The trace around the selected asset: which dbt relations to fetch (the selection when it is
 * one; every dbt relation its producers read when it is a lake table), the merged graph, the
 * selected asset's component in lanes, and the traced column with what it dims.
 */
export class ColumnTraceView {
	target = $state.raw<TraceTarget | null>(null);
	/** The column clicked in the trace: its upstream and downstream stay lit. */
	traced = $state<ColumnId | null>(null);
	/** A column a link traced: the trace opens scrolled to it rather than to the relation. */
	linked = $state<ColumnId | null>(null);
	/** Drawn over the whole canvas area instead of inside the pane. */
	wide = $state(false);
	/** Only the traced column's path is drawn, laid out anew (the focus toggle). */
	focused = $state(false);
	/** The widened trace's own zoom and pan. */
	viewport = $state.raw<TraceViewport>({ x: 0, y: 0, zoom: 1 });
	/** The view before focus, given back when focus ends. */
	#beforeFocus: { viewport: TraceViewport; whole: boolean } | null = null;
	/** Whether the view was last framed whole (the Fit button) or readable (opening). */
	#whole = false;
	/** The widened trace's frame size, for fitting. */
	#frame = { w: 0, h: 0 };
	/** Which producer script carries each producer edge, by `edgeKey`. */
	#via = $state.raw<ReadonlyMap<string, string>>(new Map());
	lineage: ColumnLineage;
	#producers: ColumnGraph = $state.raw(emptyColumnGraph());
	#pin: LineagePin;
	#columnOrder: (kind: string, path: string) => string[] | undefined = () => undefined;

	graph: ColumnGraph;
	/** The selected asset's own columns in the graph: none means nothing to draw (yet). */
	ownColumns: ColumnId[];
	component: Set<ColumnId>;
	lanes: Lane[];
	geometry: TraceLayout;
	edges: { from: ColumnId; to: ColumnId; style: EdgeStyle }[];
	/** The traced column's path: its columns and the producer scripts carrying them; null when none is traced. */
	path: { columns: Set<ColumnId>; scripts: Set<string> } | null;
	/** What stays lit while a column is traced; null when none is. */
	impact: Set<ColumnId> | null;
	/** The focus toggle has a path to show. */
	canFocus: boolean;
	/** Where the traced column ends in the consumer layer (metrics, exposures...); empty when none is traced. */
	endsIn: ConsumerHit[];
	#consumers: ConsumerIndex = $state.raw(consumerIndex([]));
	/** What the pane shows: nothing (no target, or a viewer without lineage), loading, the trace, or empty. */
	state: 'none' | 'loading' | 'ready' | 'empty';
	/** Of the drawn dbt edges (both ends dbt relations), how many were inferred from compiled SQL, of how many. */
	inferred: { edges: number; of: number };
	/** "inferred from SQL" when the drawn dbt lineage is, "partly …" when some of it is; null when none is. */
	provenanceLabel: string | null;

	constructor(fetcher: LineageFetcher, pin: LineagePin) {
		this.lineage = new ColumnLineage(fetcher);
		this.#pin = pin;
		// Derived in the constructor: they read `lineage`, which exists only from here on.
		this.graph = $derived(this.target?.authored ? mergeColumnGraphs(this.#producers, this.lineage.graph) : emptyColumnGraph());
		this.ownColumns = $derived(this.target ? assetColumns(this.graph, this.target.kind, this.target.path) : []);
		this.component = $derived(connectedComponent(this.ownColumns, this.graph));
		this.path = $derived(this.traced && this.graph.nodes.has(this.traced) ? tracePath(this.traced, this.graph, this.#via) : null);
		this.impact = $derived(this.path?.columns ?? null);
		this.canFocus = $derived(!!this.path && this.path.columns.size > 0);
		this.lanes = $derived.by(() => {
			const opts = { selected: this.target ?? undefined, columnOrder: (k: string, p: string) => this.#columnOrder(k, p) };
			return this.focused && this.path ? focusLanes(this.path.columns, this.graph, opts) : traceLanes(this.component, this.graph, opts);
		});
		this.edges = $derived(edgesAmong(this.focused && this.path ? this.path.columns : this.component, this.graph));
		this.geometry = $derived(traceLayout(this.lanes, this.edges, this.#via));
		this.endsIn = $derived.by(() => {
			if (!this.traced) return [];
			// The traced column and what is downstream of it: what a change to it reaches.
			const cols: { asset_path: string; column: string }[] = [];
			for (const id of [this.traced, ...downstreamOf(this.traced, this.graph)]) {
				const [kind, path, column] = id.split('\u0000');
				if (kind === 'dbt') cols.push({ asset_path: path, column });
			}
			return consumersReached(this.#consumers, cols);
		});
		this.state = $derived(
			!this.target || !this.target.authored ? 'none' : this.ownColumns.length > 0 ? 'ready' : this.lineage.loading ? 'loading' : 'empty'
		);
		this.inferred = $derived.by(() => {
			const marked = this.lineage.inferred;
			let edges = 0;
			let of = 0;
			for (const e of this.edges) {
				if (this.graph.nodes.get(e.from)?.kind !== 'dbt' || this.graph.nodes.get(e.to)?.kind !== 'dbt') continue;
				of++;
				if (marked.has(edgeKey(e.from, e.to))) edges++;
			}
			return { edges, of };
		});
		this.provenanceLabel = $derived(
			this.inferred.edges === 0 ? null : this.inferred.edges === this.inferred.of ? 'inferred from SQL' : `${this.inferred.edges} of ${this.inferred.of} dbt edges inferred from SQL`
		);
	}

	/** The lineage behind the selection changed (its lineage job ended): ask again. */
	refresh(): Promise<void> {
		const t = this.target;
		if (!t || !t.authored) return Promise.resolve();
		const paths = this.relationsFor(t);
		return paths.length ? this.lineage.refresh(paths, this.#pin) : Promise.resolve();
	}

	/** The producer script carrying each producer column edge, by `edgeKey`. */
	get via(): ReadonlyMap<string, string> {
		return this.#via;
	}

	setProducers(lineage: readonly { path: string; column_lineage: ProducerColumnLineage[] }[]): void {
		this.#via = producerVia(lineage);
		this.#producers = buildProducerColumnGraph({
			runnables: lineage.map((l) => ({ path: l.path, language: 'sql', script_hash: null, column_lineage: l.column_lineage }))
		});
	}

	setPin(pin: LineagePin): void {
		this.#pin = pin;
	}

	setConsumers(consumers: readonly GraphConsumer[]): void {
		this.#consumers = consumerIndex(consumers);
	}

	setColumnOrder(f: (kind: string, path: string) => string[] | undefined): void {
		this.#columnOrder = f;
	}

	/** The dbt relations whose lineage this selection needs. */
	relationsFor(t: TraceTarget): string[] {
		if (t.kind === 'dbt') return [t.path];
		const p = this.#producers;
		return dbtRelationsOf(connectedComponent(assetColumns(p, t.kind, t.path), p), p);
	}

	select(t: TraceTarget | null): Promise<void> {
		this.target = t;
		this.traced = null;
		this.linked = null;
		this.#endFocus();
		if (!t || !t.authored) {
			this.lineage.clear();
			return Promise.resolve();
		}
		const paths = this.relationsFor(t);
		if (paths.length === 0) {
			this.lineage.clear();
			return Promise.resolve();
		}
		return this.lineage.request(paths, this.#pin);
	}

	trace(id: ColumnId | null): void {
		this.traced = this.traced === id ? null : id;
		if (!this.traced) this.#endFocus();
		else if (this.focused) this.open();
	}

	/** Trace the column a link named, and open the trace on it. */
	traceLinked(id: ColumnId): void {
		this.traced = id;
		this.linked = id;
	}

	/**
	 * A column of the details pane's table, clicked: traced, and the trace widened over the
	 * canvas and opened at a readable zoom, where the user is looking (the pane's own trace is
	 * below the fold).
	 */
	traceFromTable(id: ColumnId): void {
		this.traced = id;
		this.linked = id;
		if (this.focused) this.#endFocus();
		this.wide = true;
		this.open();
	}

	/** The widened trace's frame was measured (or resized); `refit`: framed again the way it last was. */
	frame(w: number, h: number, refit: boolean): void {
		this.#frame = { w, h };
		if (refit) this.refit();
	}

	/** The whole trace (or, in focus, the whole path) in the frame, however small: the Fit button. */
	fit(): void {
		this.#whole = true;
		this.viewport = this.#framed(true);
	}

	/**
	 * The trace as it opens: whole when its text reads at 11 px that way, else at that size around
	 * the traced column (or the selected relation's columns) and its direct neighbours.
	 */
	open(): void {
		this.#whole = false;
		this.viewport = this.#framed(false);
	}

	/** Framed again the way it last was (the trace grew, the frame was resized). */
	refit(): void {
		this.viewport = this.#framed(this.#whole);
	}

	#framed(whole: boolean): TraceViewport {
		const focus = this.traced !== null && this.geometry.rows.has(this.traced) ? [this.traced] : this.ownColumns;
		return traceFrame(this.geometry, this.graph, focus, this.#frame.w, this.#frame.h, whole);
	}

	zoomBy(factor: number, px = this.#frame.w / 2, py = this.#frame.h / 2): void {
		this.viewport = zoomAt(this.viewport, factor, px, py);
	}

	panBy(dx: number, dy: number): void {
		const v = this.viewport;
		this.viewport = { ...v, x: v.x + dx, y: v.y + dy };
	}

	/** Focus on the traced column: only its path, laid out anew and fitted; again: the view as it was. */
	toggleFocus(): void {
		if (this.focused) {
			this.#endFocus();
			return;
		}
		if (!this.canFocus) return;
		this.#beforeFocus = { viewport: this.viewport, whole: this.#whole };
		this.focused = true;
		this.open();
	}

	#endFocus(): void {
		if (!this.focused) return;
		this.focused = false;
		if (this.#beforeFocus) {
			this.viewport = this.#beforeFocus.viewport;
			this.#whole = this.#beforeFocus.whole;
		}
		this.#beforeFocus = null;
	}

	/** The script box an edge passes through, if a producer script carries it. */
	scriptOf(from: ColumnId, to: ColumnId): ScriptBox | undefined {
		return this.geometry.through.get(edgeKey(from, to));
	}
}

type Rect = { x: number; y: number; w: number; h: number };

/** Up to this many columns a trace is drawn whole; above it only what is near the view. */
export const TRACE_CULL_MIN = 400;
/** The view is tracked in steps of this many pixels: scrolling within one redraws nothing. */
const STEP = 120;

const meets = (r: Rect, x0: number, y0: number, x1: number, y1: number) => r.x + r.w >= x0 && r.x <= x1 && r.y + r.h >= y0 && r.y <= y1;

/**
 * What of a trace is drawn: all of it when small; for a big one (a 2000-column component is
 * 2000 buttons and as many paths) the rows, boxes and edges within a quarter screen of the
 * scroller's view, plus the selected relation's own columns. A click on a column then
 * restyles a few hundred elements instead of every one (CANVAS.md §6.4, the same lesson).
 */
export class TraceWindow {
	/** The scroller's view, in STEP-sized steps. */
	x = $state(0);
	y = $state(0);
	w = $state(840);
	h = $state(480);
	culled: boolean;
	/** The drawn area, a quarter screen beyond the view each way; null draws everything. */
	#area: [number, number, number, number] | null;
	rows: [ColumnId, Rect][];
	boxes: TraceLayout['boxes'];
	/** Producer scripts between the lanes. */
	scripts: ScriptBox[];
	/** Edges with their end rows (and the script box they pass through); culled by the box spanning the two ends. */
	edges: { from: ColumnId; to: ColumnId; style: EdgeStyle; a: Rect; b: Rect; s?: ScriptBox }[];
	/** Of those, the ones a traced column keeps lit (drawn again above the dimming veil). */
	litEdges: { from: ColumnId; to: ColumnId; style: EdgeStyle; a: Rect; b: Rect; s?: ScriptBox }[];

	constructor(view: () => ColumnTraceView) {
		// Derived here: they read `view`, which exists only from here on.
		this.culled = $derived(view().component.size > TRACE_CULL_MIN);
		this.#area = $derived(this.culled ? [this.x - this.w / 4, this.y - this.h / 4, this.x + 1.25 * this.w + STEP, this.y + 1.25 * this.h + STEP] : null);
		this.rows = $derived.by(() => {
			const v = view();
			const all = v.geometry.rows;
			const a = this.#area;
			if (!a) return [...all];
			// The selected relation's own columns always (the trace opens on them), not the traced
			// one: it was clicked, so it is in view, and the rows are not recomputed on a click.
			const keep = new Set(v.ownColumns);
			const out: [ColumnId, Rect][] = [];
			for (const [id, r] of all) if (keep.has(id) || meets(r, a[0], a[1], a[2], a[3])) out.push([id, r]);
			return out;
		});
		this.boxes = $derived.by(() => {
			const v = view();
			const a = this.#area;
			const t = v.target;
			return a ? v.geometry.boxes.filter((b) => (t && b.kind === t.kind && b.path === t.path) || meets(b, a[0], a[1], a[2], a[3])) : v.geometry.boxes;
		});
		this.scripts = $derived.by(() => {
			const a = this.#area;
			const all = view().geometry.scripts;
			return a ? all.filter((b) => meets(b, a[0], a[1], a[2], a[3])) : all;
		});
		this.edges = $derived.by(() => {
			const v = view();
			const rows = v.geometry.rows;
			const through = v.geometry.through;
			const a = this.#area;
			const out: { from: ColumnId; to: ColumnId; style: EdgeStyle; a: Rect; b: Rect; s?: ScriptBox }[] = [];
			for (const e of v.edges) {
				const ra = rows.get(e.from);
				const rb = rows.get(e.to);
				if (!ra || !rb) continue;
				if (a) {
					const x0 = Math.min(ra.x, rb.x);
					const y0 = Math.min(ra.y, rb.y);
					const span = { x: x0, y: y0, w: Math.max(ra.x + ra.w, rb.x + rb.w) - x0, h: Math.max(ra.y + ra.h, rb.y + rb.h) - y0 };
					if (!meets(span, a[0], a[1], a[2], a[3])) continue;
				}
				out.push({ ...e, a: ra, b: rb, s: through.get(edgeKey(e.from, e.to)) });
			}
			return out;
		});
		this.litEdges = $derived.by(() => {
			const impact = view().impact;
			return impact ? this.edges.filter((e) => impact.has(e.from) && impact.has(e.to)) : [];
		});
	}

	/** The scroller moved or was resized. */
	scrolled(left: number, top: number, width: number, height: number): void {
		this.x = Math.floor(left / STEP) * STEP;
		this.y = Math.floor(top / STEP) * STEP;
		if (width > 0) this.w = Math.ceil(width / STEP) * STEP;
		if (height > 0) this.h = Math.ceil(height / STEP) * STEP;
	}
}
