// Deleting a project or producer from its page: what goes is read first (GET scripts/p/{path})
// and named in the confirmation; the deletion itself (DELETE) answers what went.

type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

export interface Footprint {
	path: string;
	languages: string[];
	versions: number;
	graphs: number;
	jobs: number;
	runs: number;
	previews: number;
	active: number;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The confirmation's sentence: every kind of thing that goes, by count. */
export function footprintSentence(f: Footprint): string {
	const others = f.jobs - f.runs - f.previews;
	const parts = [plural(f.versions, 'version'), plural(f.graphs, 'stored graph'), plural(f.runs, 'run'), plural(f.previews, 'preview')];
	if (others > 0) parts.push(plural(others, 'deploy or lineage job'));
	return `${parts.join(', ')}, with their logs and share links`;
}

export class PathDeletion {
	footprint = $state.raw<Footprint | null>(null);
	/** The confirmation is open. */
	asking = $state(false);
	busy = $state(false);
	error = $state<string | null>(null);
	#url: string;
	#fetch: Fetch;

	constructor(workspace: string, path: string, fetchFn: Fetch = (input, init) => fetch(input, init)) {
		this.#url = `/api/w/${encodeURIComponent(workspace)}/scripts/p/${path}`;
		this.#fetch = fetchFn;
	}

	/** Opens the confirmation with what would go. */
	async ask(): Promise<void> {
		this.error = null;
		this.busy = true;
		try {
			const r = await this.#fetch(this.#url);
			const body = await r.json().catch(() => ({}));
			if (!r.ok) throw new Error(body.error ?? `status ${r.status}`);
			this.footprint = body as Footprint;
			this.asking = true;
		} catch (e) {
			this.error = e instanceof Error ? e.message : String(e);
		} finally {
			this.busy = false;
		}
	}

	cancel(): void {
		this.asking = false;
	}

	/** Deletes; true when it went. */
	async confirm(): Promise<boolean> {
		this.busy = true;
		this.error = null;
		try {
			const r = await this.#fetch(this.#url, { method: 'DELETE' });
			const body = await r.json().catch(() => ({}));
			if (!r.ok) throw new Error(body.error ?? `status ${r.status}`);
			this.footprint = body as Footprint;
			this.asking = false;
			return true;
		} catch (e) {
			this.error = e instanceof Error ? e.message : String(e);
			return false;
		} finally {
			this.busy = false;
		}
	}
}
