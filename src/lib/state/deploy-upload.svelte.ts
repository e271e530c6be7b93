// Deploying or previewing from the browser: the files of a dropped `target/` folder (or the files
// themselves) sorted into the upload form the CLI sends, the same checks and notes as the CLI
// before a byte goes, the upload with its progress, then the jobs the deploy queued (pinning,
// inferring column lineage) followed to their end, and the result: counts, warnings, and for a
// preview its lineage diff against the newest deployed version.
import type { GraphDiff } from '$lib/types/graph-diff';

/** One dropped file: its name and where it sat under the dropped folder (`target/index/x.parquet`). */
export interface DroppedFile {
	file: Blob;
	name: string;
	/** The path under the drop, `/`-separated; the bare name for a file dropped alone. */
	relativePath: string;
}

/** The upload form's file fields, as POST scripts/dbt/deploy names them. */
export type UploadField = 'manifest' | 'catalog' | 'run_results' | 'column_lineage' | 'node_columns' | 'project';

export interface SortedDrop {
	files: Partial<Record<UploadField, DroppedFile>>;
	/** tributary.yml beside the artifacts: sent as the `descriptor` field. */
	descriptor: DroppedFile | null;
	/** Refusals before anything is sent; empty when the upload may go. */
	errors: string[];
	/** What the upload lacks and what that costs, as the CLI says it. */
	notes: string[];
	/** Dropped files the upload does not send. */
	ignored: string[];
}

// The CLI's search order within a target directory: the first one found wins.
const INDEX_DIRS = ['index/', 'private/index/', 'info_schema/v1/'];

/** Where a dropped file goes in the form, or null when it is not sent. */
function fieldOf(f: DroppedFile): UploadField | 'descriptor' | null {
	const n = f.name.toLowerCase();
	if (n === 'manifest.json') return 'manifest';
	if (n === 'catalog.json') return 'catalog';
	if (n === 'run_results.json') return 'run_results';
	if (n === 'dbt.column_lineage.parquet') return 'column_lineage';
	if (n === 'dbt.node_columns.parquet') return 'node_columns';
	if (n.endsWith('.tar.gz') || n.endsWith('.tgz')) return 'project';
	if (n === 'tributary.yml' || n === 'tributary.yaml') return 'descriptor';
	return null;
}

/** A candidate's rank: a file at the top of the drop (or of its `target/`) before a nested one; the CLI's index order. */
function rankOf(f: DroppedFile, field: string): number {
	const parts = f.relativePath.split('/');
	const dir = parts.slice(0, -1).join('/') + (parts.length > 1 ? '/' : '');
	if (field === 'column_lineage' || field === 'node_columns') {
		const i = INDEX_DIRS.findIndex((d) => dir.endsWith(d));
		return i < 0 ? INDEX_DIRS.length + parts.length : i;
	}
	return parts.length;
}

/** Sorts a drop into the form's fields and says what the CLI would say about it. */
export function sortDrop(dropped: DroppedFile[]): SortedDrop {
	const best = new Map<string, DroppedFile>();
	const ignored: string[] = [];
	for (const f of dropped) {
		const field = fieldOf(f);
		if (!field) {
			ignored.push(f.relativePath);
			continue;
		}
		const prev = best.get(field);
		if (!prev || rankOf(f, field) < rankOf(prev, field)) {
			if (prev) ignored.push(prev.relativePath);
			best.set(field, f);
		} else ignored.push(f.relativePath);
	}
	const files: SortedDrop['files'] = {};
	for (const [k, v] of best) if (k !== 'descriptor') files[k as UploadField] = v;
	const errors: string[] = [];
	const notes: string[] = [];
	if (dropped.length === 0) errors.push('nothing was dropped');
	else if (!files.manifest) {
		errors.push('no manifest.json among the dropped files (is this a dbt target/ directory?): drop the target/ folder, or its manifest.json with the files beside it');
	}
	if (files.manifest) {
		if (!files.column_lineage) {
			notes.push('no column-lineage index in this target: column lineage is inferred from the compiled SQL');
			if (!files.catalog) notes.push('no catalog.json (`dbt docs generate` writes it): no typed columns, and `select *` over a seed, source or snapshot cannot be expanded');
		}
		if (!!files.column_lineage !== !!files.node_columns) {
			notes.push(`only ${files.column_lineage ? 'dbt.column_lineage.parquet' : 'dbt.node_columns.parquet'} of the index was dropped: the index needs both files`);
		}
		if (!files.project) notes.push('no project archive (project.tar.gz): the version can be browsed but not run here');
	}
	return { files, descriptor: best.get('descriptor') ?? null, errors, notes, ignored };
}

/** The upload form in the CLI's order: the path first (the server gates on it before any file). */
export function uploadForm(path: string, sorted: SortedDrop, descriptorText: string | null): FormData {
	const form = new FormData();
	form.set('path', path);
	if (descriptorText !== null) form.set('descriptor', descriptorText);
	const order: UploadField[] = ['manifest', 'catalog', 'run_results', 'column_lineage', 'node_columns', 'project'];
	for (const field of order) {
		const f = sorted.files[field];
		if (f) form.set(field, f.file, f.name);
	}
	return form;
}

/** What POST scripts/dbt/{deploy,preview} answers (the fields shown here). */
export interface DeployResult {
	hash: string | null;
	job_id: string;
	nodes?: number;
	edges?: number;
	column_edges?: number | null;
	typed_nodes?: number;
	dropped?: { column_edges_outside_graph: number; column_edges_over_cap: number; unnamed_columns: number; rows_not_decoded: boolean };
	warnings: string[];
	url: string;
	lineage_job_id?: string | null;
	pin?: { job_id: string; mode: string } | null;
}

/** A job the deploy queued, as followed here (jobs/get). */
export interface FollowedJob {
	id: string;
	label: string;
	status: string;
	done: number | null;
	total: number | null;
	/** The job's own words at its end: its error, or its counts. */
	outcome: string | null;
}

export type Phase = 'idle' | 'uploading' | 'ingesting' | 'following' | 'done' | 'failed';

export interface UploadTransport {
	/** POSTs the form; reports the bytes sent as they go; resolves with the status and the JSON answer. */
	send(url: string, form: FormData, onProgress: (sent: number, total: number) => void): Promise<{ status: number; body: unknown }>;
	getJson(url: string): Promise<{ status: number; body: unknown }>;
	sleep(ms: number): Promise<void>;
}

/** The browser's transport: XMLHttpRequest, the one request API that reports upload progress. */
export const xhrTransport: UploadTransport = {
	send: (url, form, onProgress) =>
		new Promise((resolve, reject) => {
			const xhr = new XMLHttpRequest();
			xhr.open('POST', url);
			xhr.responseType = 'text';
			xhr.upload.onprogress = (e) => {
				if (e.lengthComputable) onProgress(e.loaded, e.total);
			};
			xhr.onload = () => {
				let body: unknown = {};
				try {
					body = JSON.parse(xhr.responseText);
				} catch {
					body = { error: xhr.responseText.slice(0, 300) || `status ${xhr.status}` };
				}
				resolve({ status: xhr.status, body });
			};
			xhr.onerror = () => reject(new Error('the upload was interrupted (network error)'));
			xhr.send(form);
		}),
	getJson: async (url) => {
		const r = await fetch(url);
		return { status: r.status, body: await r.json().catch(() => ({})) };
	},
	sleep: (ms) => new Promise((r) => setTimeout(r, ms))
};

const errorOf = (body: unknown, status: number) => (body as { error?: string })?.error ?? `status ${status}`;

export class DeployUpload {
	kind = $state<'deploy' | 'preview'>('deploy');
	sorted = $state.raw<SortedDrop | null>(null);
	phase = $state<Phase>('idle');
	sent = $state(0);
	total = $state(0);
	/** Refusal of the server (its message, as the CLI prints it), or of the transport. */
	error = $state<string | null>(null);
	result = $state.raw<DeployResult | null>(null);
	jobs = $state.raw<FollowedJob[]>([]);
	diff = $state.raw<GraphDiff | null>(null);
	/** Why the preview's diff is not shown (no deployed version yet, say). */
	diffNote = $state<string | null>(null);

	#workspace: string;
	#transport: UploadTransport;

	constructor(o: { workspace: string; transport?: UploadTransport }) {
		this.#workspace = o.workspace;
		this.#transport = o.transport ?? xhrTransport;
	}

	get busy(): boolean {
		return this.phase === 'uploading' || this.phase === 'ingesting' || this.phase === 'following';
	}

	/** A new drop: sorted and checked; nothing is sent yet. */
	take(files: DroppedFile[]): void {
		this.sorted = sortDrop(files);
		this.phase = 'idle';
		this.error = null;
		this.result = null;
		this.jobs = [];
		this.diff = null;
		this.diffNote = null;
	}

	#api(rest: string): string {
		return `/api/w/${encodeURIComponent(this.#workspace)}/${rest}`;
	}

	/**
	 * Uploads the drop as a deploy or a preview of `path`, follows its jobs, and for a preview
	 * reads its diff. `stored` is called as soon as the server has stored the graph (the page can
	 * show it while the jobs go on).
	 */
	async start(path: string, stored?: (r: DeployResult) => void): Promise<void> {
		const sorted = this.sorted;
		if (!sorted || sorted.errors.length || this.busy) return;
		this.error = null;
		this.phase = 'uploading';
		this.sent = 0;
		this.total = 0;
		const descriptor = sorted.descriptor ? await sorted.descriptor.file.text() : null;
		const form = uploadForm(path, sorted, descriptor);
		let answer: { status: number; body: unknown };
		try {
			answer = await this.#transport.send(this.#api(`scripts/dbt/${this.kind}?path=${encodeURIComponent(path)}`), form, (sent, total) => {
				this.sent = sent;
				this.total = total;
				// Every byte is out: the server parses and stores the graph before it answers.
				if (sent >= total) this.phase = 'ingesting';
			});
		} catch (e) {
			this.phase = 'failed';
			this.error = e instanceof Error ? e.message : String(e);
			return;
		}
		if (answer.status >= 300) {
			this.phase = 'failed';
			this.error = `${this.kind} failed (${answer.status}): ${errorOf(answer.body, answer.status)}`;
			return;
		}
		const r = answer.body as DeployResult;
		this.result = r;
		stored?.(r);
		const follow: FollowedJob[] = [];
		// A source-only deploy (202) is parsed by its deploy job; a pin is its deploy job too.
		if (answer.status === 202) follow.push({ id: r.job_id, label: 'parsing the project', status: 'queued', done: null, total: null, outcome: null });
		else if (r.pin) follow.push({ id: r.pin.job_id, label: 'pinning the version', status: 'queued', done: null, total: null, outcome: null });
		if (r.lineage_job_id) follow.push({ id: r.lineage_job_id, label: 'inferring column lineage', status: 'queued', done: null, total: null, outcome: null });
		this.jobs = follow;
		if (follow.length) {
			this.phase = 'following';
			for (const j of follow) await this.#follow(j.id);
		}
		if (this.kind === 'preview') await this.#readDiff(path, r.job_id);
		this.phase = 'done';
	}

	async #follow(id: string): Promise<void> {
		for (;;) {
			const a = await this.#transport.getJson(this.#api(`jobs/get/${encodeURIComponent(id)}?logs=false`));
			const update = (patch: Partial<FollowedJob>) => (this.jobs = this.jobs.map((j) => (j.id === id ? { ...j, ...patch } : j)));
			if (a.status !== 200) {
				update({ status: 'unknown', outcome: `cannot follow it: ${errorOf(a.body, a.status)}` });
				return;
			}
			const j = a.body as { status: string; result?: Record<string, unknown> | null };
			const p = j.result?.progress as { done?: number; total?: number } | undefined;
			update({ status: j.status, done: p?.done ?? null, total: p?.total ?? null });
			if (j.status !== 'queued' && j.status !== 'running') {
				const r = j.result ?? {};
				if (j.status !== 'success') update({ outcome: `ended ${j.status}: ${(r.error as string) ?? 'see its log'}` });
				else if (r.models) {
					const m = r.models as Record<string, number>;
					update({ outcome: `${m.analyzed} analyzed, ${m.partial} partial, ${m.failed} failed, ${m.skipped} skipped; ${r.column_edges} column edges` });
				} else update({ outcome: 'done' });
				return;
			}
			await this.#transport.sleep(1000);
		}
	}

	async #readDiff(path: string, jobId: string): Promise<void> {
		const q = new URLSearchParams({ path, from: 'latest', to: jobId });
		const a = await this.#transport.getJson(this.#api(`dbt/diff?${q}`));
		if (a.status === 200) this.diff = a.body as GraphDiff;
		else this.diffNote = a.status === 404 ? 'no deployed version of this path to compare with yet' : `diff not shown: ${errorOf(a.body, a.status)}`;
	}
}
