// Reviewing a change on the run page of a preview and on the project page: the lineage diff of
// two refs (GET dbt/diff), grouped for the list, as a colouring of the canvas (a generated style
// over `[data-id]`, like the canvas highlight: no canvas state is touched), and each breaking
// change's impact one click away.
import { describeImpact } from '$lib/lineage/graph-diff';
import { assetNodeId } from '$lib/lineage/canvas-model';
import type { DiffClassification, DiffSide, GraphDiff, ImpactEntry, ModifiedModel } from '$lib/types/graph-diff';
import { attrId } from './canvas.svelte';

export type DiffFetcher = (url: string) => Promise<{ status: number; body: unknown }>;

export const httpDiffFetcher: DiffFetcher = async (url) => {
	const r = await fetch(url);
	return { status: r.status, body: await r.json().catch(() => ({})) };
};

export type DiffMark = 'added' | 'removed' | 'modified';

/** One changed column with who reads it downstream: what a click on a breaking change opens. */
export interface ColumnImpact {
	asset_path: string;
	column: string;
	change: 'removed' | 'retyped';
	detail: string;
	impact: ImpactEntry[] | null;
	/** "this change removes `customers.email`, which 3 downstream columns and the producer `f/lake/crm_export` read" */
	sentence: string;
}

export interface DiffGroup {
	key: 'breaking' | 'partial' | 'unknown' | 'non_breaking' | 'added' | 'removed';
	label: string;
	items: { uniqueId: string; assetPath: string | null; changes: string[]; classification: DiffClassification | null; reason?: string }[];
}

const GROUPS: { key: DiffGroup['key']; label: string }[] = [
	{ key: 'breaking', label: 'Breaking' },
	{ key: 'partial', label: 'Partial' },
	{ key: 'unknown', label: 'Unknown (lineage missing)' },
	{ key: 'removed', label: 'Removed models' },
	{ key: 'added', label: 'Added models' },
	{ key: 'non_breaking', label: 'Non-breaking' }
];

const relationName = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/** The sentence of one changed column. */
export function impactSentence(c: { asset_path: string; column: string; change: 'removed' | 'retyped'; detail: string; impact: ImpactEntry[] | null }): string {
	const what = `\`${relationName(c.asset_path)}.${c.column}\``;
	const verb = c.change === 'removed' ? `removes ${what}` : `retypes ${what} (${c.detail})`;
	if (c.impact === null) return `this change ${verb}; who reads it is unknown (the graph has no column lineage)`;
	if (c.impact.length === 0) return `this change ${verb}, which nothing downstream reads`;
	return `this change ${verb}, which ${describeImpact(c.impact)} read${c.impact.length === 1 ? 's' : ''}`;
}


/**
 * Where the graph of one side of a diff is drawn with `nodeId` selected: the project page at that
 * version, or the page of the preview (or run) whose own graph it is; null when the page asking
 * (`shown`) draws that graph already.
 */
export function sideHref(o: { workspace: string; path: string; side: DiffSide; nodeId: string; shown: { hash?: string | null; jobId?: string | null } }): string | null {
	const { side } = o;
	if (sideShown(side, o.shown)) return null;
	if (side.job_id !== null) return `/w/${encodeURIComponent(o.workspace)}/run/${encodeURIComponent(side.job_id)}?${new URLSearchParams({ select: o.nodeId })}`;
	if (side.hash === null) return null;
	return `/w/${encodeURIComponent(o.workspace)}/dbt/${o.path}?${new URLSearchParams({ v: side.hash, select: o.nodeId })}`;
}

/** Whether the page showing `shown` (a version by hash, or a job's own graph) draws the graph of `side`. */
export function sideShown(side: DiffSide, shown: { hash?: string | null; jobId?: string | null }): boolean {
	return side.job_id !== null ? side.job_id === shown.jobId : side.hash !== null && side.hash === shown.hash;
}

/** The canvas's diff colours: the design tokens of src/app.css, named in full so each is findable. */
const DIFF_COLOURS: Record<DiffMark, { line: string; fill: string }> = {
	added: { line: 'var(--diff-added)', fill: 'var(--diff-added-bg)' },
	modified: { line: 'var(--diff-modified)', fill: 'var(--diff-modified-bg)' },
	removed: { line: 'var(--diff-removed)', fill: 'var(--diff-removed-bg)' }
};
export class DiffReview {
	diff = $state.raw<GraphDiff | null>(null);
	error = $state<string | null>(null);
	loading = $state(false);
	from = $state('latest');
	to = $state<string | null>(null);
	/** The model whose impact is open (a click on a breaking change). */
	open = $state<string | null>(null);

	#workspace: string;
	#path: string;
	#fetch: DiffFetcher;
	#generation = 0;

	constructor(o: { workspace: string; path: string; fetcher?: DiffFetcher }) {
		this.#workspace = o.workspace;
		this.#path = o.path;
		this.#fetch = o.fetcher ?? httpDiffFetcher;
	}

	url(from: string, to: string): string {
		const q = new URLSearchParams({ path: this.#path, from, to });
		return `/api/w/${encodeURIComponent(this.#workspace)}/dbt/diff?${q}`;
	}

	/** Compare two refs; a later call wins over an answer still on its way. */
	async compare(from: string, to: string): Promise<void> {
		const generation = ++this.#generation;
		this.from = from;
		this.to = to;
		this.loading = true;
		this.error = null;
		this.open = null;
		try {
			const r = await this.#fetch(this.url(from, to));
			if (generation !== this.#generation) return;
			if (r.status !== 200) {
				this.diff = null;
				this.error = (r.body as { error?: string })?.error ?? `status ${r.status}`;
				return;
			}
			this.diff = r.body as GraphDiff;
		} catch (e) {
			if (generation !== this.#generation) return;
			this.diff = null;
			this.error = e instanceof Error ? e.message : String(e);
		} finally {
			if (generation === this.#generation) this.loading = false;
		}
	}

	/** The list, grouped by change type, worst first; empty groups left out. */
	groups: DiffGroup[] = $derived.by(() => {
		const d = this.diff;
		if (!d) return [];
		const by = new Map<DiffGroup['key'], DiffGroup['items']>();
		const push = (k: DiffGroup['key'], item: DiffGroup['items'][number]) => by.set(k, [...(by.get(k) ?? []), item]);
		for (const m of d.models.modified) push(m.classification, { uniqueId: m.unique_id, assetPath: m.asset_path, changes: m.changes, classification: m.classification, reason: m.reason });
		for (const id of d.models.removed) push('removed', { uniqueId: id, assetPath: d.asset_paths[id] ?? null, changes: [], classification: null });
		for (const id of d.models.added) push('added', { uniqueId: id, assetPath: d.asset_paths[id] ?? null, changes: [], classification: null });
		return GROUPS.filter((g) => by.has(g.key)).map((g) => ({ ...g, items: by.get(g.key)! }));
	});

	/** Canvas node id → how it changed. */
	marks: Map<string, DiffMark> = $derived.by(() => {
		const out = new Map<string, DiffMark>();
		const d = this.diff;
		if (!d) return out;
		const mark = (uid: string, m: DiffMark) => {
			const p = d.asset_paths[uid];
			if (p) out.set(assetNodeId('dbt', p), m);
		};
		for (const m of d.models.modified) mark(m.unique_id, 'modified');
		for (const id of d.models.removed) mark(id, 'removed');
		for (const id of d.models.added) mark(id, 'added');
		return out;
	});

	counts = $derived({
		added: this.diff?.models.added.length ?? 0,
		removed: this.diff?.models.removed.length ?? 0,
		modified: this.diff?.models.modified.length ?? 0
	});

	/** The changed columns of one model (its relation, in the `from` graph), with their readers. */
	impactOf(m: Pick<ModifiedModel, 'unique_id'>): ColumnImpact[] {
		const d = this.diff;
		const path = d?.asset_paths[m.unique_id];
		if (!d?.columns || !path) return [];
		const out: ColumnImpact[] = [];
		for (const c of d.columns.removed) {
			if (c.asset_path === path) out.push({ asset_path: c.asset_path, column: c.column, change: 'removed', detail: c.type ?? '', impact: c.impact, sentence: '' });
		}
		for (const c of d.columns.retyped) {
			if (c.asset_path === path) {
				out.push({ asset_path: c.asset_path, column: c.column, change: 'retyped', detail: `${c.from_type ?? '?'} → ${c.to_type ?? '?'}`, impact: c.impact, sentence: '' });
			}
		}
		return out.map((c) => ({ ...c, sentence: impactSentence(c) }));
	}

	/**
	 * The sides of the diff whose graphs hold a listed model, the one to open first first: the
	 * older graph for a removed one, the newer for an added one, either for a modified one (the
	 * graph on screen when it is one of them, else the newer).
	 */
	sidesOf(group: DiffGroup['key']): ('from' | 'to')[] {
		return group === 'removed' ? ['from'] : group === 'added' ? ['to'] : ['to', 'from'];
	}

	toggle(uniqueId: string): void {
		this.open = this.open === uniqueId ? null : uniqueId;
	}

	/**
	 * The colouring as CSS over the canvas's `[data-id]`: a changed relation's card, or the closed
	 * group holding it (then as modified). Colours are the custom properties of the legend.
	 */
	css(unitOf: (id: string) => string): string {
		const byMark = new Map<DiffMark, Set<string>>();
		for (const [id, m] of this.marks) {
			const u = unitOf(id);
			const mark = u === id ? m : 'modified';
			byMark.set(mark, (byMark.get(mark) ?? new Set()).add(u));
		}
		const rules: string[] = [];
		for (const [mark, units] of byMark) {
			const sel = [...units].map((u) => `.tributary-canvas .svelte-flow__node${attrId(u)} > *`).join(',');
			rules.push(`${sel}{outline:3px solid ${DIFF_COLOURS[mark].line};outline-offset:1px;background:${DIFF_COLOURS[mark].fill}}`);
		}
		return rules.join('\n');
	}
}
