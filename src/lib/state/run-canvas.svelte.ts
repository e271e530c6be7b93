// The run page's canvas: read from `jobs/run_canvas/{id}` (cached bytes; the browser revalidates
// its copy by ETag) when the page data first names them, and again whenever it names other bytes
// (a new snapshot, another run). The page component is reused from run to run, so an answer to an
// ask that is no longer the newest is dropped, and so is its failure.
import type { CanvasPayload } from '$lib/types/canvas';

export interface RunCanvasOptions {
	workspace: string;
	/** A share link's token, sent as `x-view-token`. */
	viewToken: string | null;
	/** GETs `url` with `headers`: the parsed JSON, or a throw naming the status. */
	fetchJson: (url: string, headers: Record<string, string>) => Promise<unknown>;
	/** Each payload that answers the newest ask; `first` for the first one this page shows. */
	onCanvas: (payload: CanvasPayload, first: boolean) => void;
}

export class RunCanvas {
	/** Why the newest ask failed; null when it did not. */
	error = $state<string | null>(null);
	private askedEtag = '';
	private shown = false;

	constructor(private readonly opts: RunCanvasOptions) {}

	/** Whether `etag` names other bytes than the newest ask's. */
	isNew(etag: string): boolean {
		return etag !== this.askedEtag;
	}

	async load(etag: string, jobId: string, direction: string): Promise<void> {
		this.askedEtag = etag;
		const { workspace, viewToken } = this.opts;
		const url = `/api/w/${encodeURIComponent(workspace)}/jobs/run_canvas/${encodeURIComponent(jobId)}?${new URLSearchParams({ direction })}`;
		let payload: CanvasPayload;
		try {
			payload = (await this.opts.fetchJson(url, viewToken ? { 'x-view-token': viewToken } : {})) as CanvasPayload;
		} catch (e) {
			if (this.askedEtag === etag) this.error = `The graph could not be read (${(e as Error).message}); reload the page to try again.`;
			return;
		}
		if (this.askedEtag !== etag) return;
		this.error = null;
		const first = !this.shown;
		this.shown = true;
		this.opts.onCanvas(payload, first);
	}
}
