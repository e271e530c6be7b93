// The impact list of one column: everything downstream (or upstream) of it
// across dbt models, producers and lake tables, as the column_impact read answers, under the
// page's pin; and the same list as a CSV file. Answers that arrive after the question changed
// are dropped.
import type { ColumnImpactAnswer, ColumnImpactEntry } from '$lib/types/column-impact';
import type { LineagePin } from './column-lineage.svelte';

export type ImpactDirection = 'downstream' | 'upstream';

export interface ImpactQuestion {
	/** The asset kind: `dbt` or `ducklake`. */
	kind: string;
	path: string;
	column: string;
	direction: ImpactDirection;
}

export interface ImpactFetcher {
	json: (q: ImpactQuestion, pin: LineagePin) => Promise<ColumnImpactAnswer>;
	csv: (q: ImpactQuestion, pin: LineagePin) => Promise<Blob>;
}

/** The read API's `asset_path` for an asset: a lake table is named with its scheme. */
export const impactAssetPath = (kind: string, path: string) => (kind === 'dbt' ? path : `${kind}://${path}`);

export function impactUrl(workspace: string, q: ImpactQuestion, pin: LineagePin, format: 'json' | 'csv'): { url: string; headers: Record<string, string> } {
	const params = new URLSearchParams({ asset_path: impactAssetPath(q.kind, q.path), column: q.column, direction: q.direction });
	if (format === 'csv') params.set('format', 'csv');
	const headers: Record<string, string> = {};
	const ws = encodeURIComponent(workspace);
	if (pin.kind === 'job') {
		if (pin.viewToken) headers['x-view-token'] = pin.viewToken;
		return { url: `/api/w/${ws}/jobs/dbt_column_impact/${encodeURIComponent(pin.jobId)}?${params}`, headers };
	}
	if (pin.scriptHash) params.set('dbt_script_hash', pin.scriptHash);
	return { url: `/api/w/${ws}/assets/column_impact?${params}`, headers };
}

async function failure(r: Response): Promise<Error> {
	let message = `status ${r.status}`;
	try {
		const body = (await r.json()) as { message?: string; error?: string };
		message = body.message ?? body.error ?? message;
	} catch {
		// Not JSON: the status says enough.
	}
	return new Error(message);
}

export function httpImpactFetcher(workspace: string, fetchFn: typeof fetch = (...a) => fetch(...a)): ImpactFetcher {
	return {
		json: async (q, pin) => {
			const { url, headers } = impactUrl(workspace, q, pin, 'json');
			const r = await fetchFn(url, { headers });
			if (!r.ok) throw await failure(r);
			return (await r.json()) as ColumnImpactAnswer;
		},
		csv: async (q, pin) => {
			const { url, headers } = impactUrl(workspace, q, pin, 'csv');
			const r = await fetchFn(url, { headers });
			if (!r.ok) throw await failure(r);
			return await r.blob();
		}
	};
}

/** One line of the list: an entry and the tests on its relation (as the CSV lists them). */
export interface ImpactRow extends ColumnImpactEntry {
	testCount: number;
	testNames: string[];
}

/** A file name for the list: the column and the direction, nothing a file system refuses. */
export function impactFileName(q: ImpactQuestion): string {
	const name = q.path.slice(q.path.lastIndexOf('/') + 1);
	return `impact-${q.direction}-${name}.${q.column}.csv`.replace(/[^A-Za-z0-9._-]+/g, '_');
}

export class ImpactList {
	question = $state.raw<ImpactQuestion | null>(null);
	answer = $state.raw<ColumnImpactAnswer | null>(null);
	loading = $state(false);
	error = $state<string | null>(null);
	/** The list's rows, nearest first, then by relation and column. */
	rows: ImpactRow[] = $derived.by(() => {
		const a = this.answer;
		if (!a) return [];
		return a.columns
			.map((c) => {
				const tests = a.tests[c.asset_path] ?? [];
				return { ...c, testCount: tests.length, testNames: tests.map((t) => (t.column ? `${t.kind ?? 'test'}(${t.column})` : (t.kind ?? 'test'))) };
			})
			.sort((x, y) => x.depth - y.depth || (x.asset_path < y.asset_path ? -1 : x.asset_path > y.asset_path ? 1 : 0) || (x.column < y.column ? -1 : x.column > y.column ? 1 : 0));
	});

	#fetcher: ImpactFetcher;
	#pin: LineagePin;
	#generation = 0;

	constructor(fetcher: ImpactFetcher, pin: LineagePin) {
		this.#fetcher = fetcher;
		this.#pin = pin;
	}

	setPin(pin: LineagePin): void {
		this.#pin = pin;
	}

	/** Ask for a column's impact (null closes the list). Resolves when this answer settled or was superseded. */
	async show(q: ImpactQuestion | null): Promise<void> {
		const generation = ++this.#generation;
		this.question = q;
		this.answer = null;
		this.error = null;
		this.loading = q !== null;
		if (!q) return;
		try {
			const a = await this.#fetcher.json(q, this.#pin);
			if (generation !== this.#generation) return;
			this.answer = a;
		} catch (e) {
			if (generation !== this.#generation) return;
			this.error = e instanceof Error ? e.message : String(e);
		} finally {
			if (generation === this.#generation) this.loading = false;
		}
	}

	/** The same question the other way. */
	setDirection(direction: ImpactDirection): Promise<void> {
		return this.question ? this.show({ ...this.question, direction }) : Promise.resolve();
	}

	/** The list as the server's CSV (the server's bound and withholding apply to the file as to the list). */
	csv(): Promise<Blob> {
		if (!this.question) return Promise.reject(new Error('no column asked'));
		return this.#fetcher.csv(this.question, this.#pin);
	}
}
