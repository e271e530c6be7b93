// The run page's two actions: sharing it (making, listing and revoking its links), and resuming a failed run.
import { SHARE_LIFETIMES, type ShareDomain, type ShareLink, type ShareLinkInfo } from '$lib/types/jobs';

type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

async function answerOf<T>(r: Response): Promise<T> {
	const body = (await r.json().catch(() => ({}))) as T | { error?: string };
	if (!r.ok) throw new Error((body as { error?: string }).error ?? `status ${r.status}`);
	return body as T;
}

/** The run page's share dialog: a link for an audience and a lifetime, and the run's links, each revocable. */
export class ShareLinks {
	kind = $state<ShareDomain>('member');
	/** Seconds, or null for a link that lasts until revoked; one of SHARE_LIFETIMES. */
	expiresIn = $state<number | null>(SHARE_LIFETIMES[1].seconds);
	/** The link just made, the only time its url is shown. */
	made = $state<{ id: string; url: string; kind: ShareDomain; expiresAt: string | null } | null>(null);
	copied = $state(false);
	/** The run's links, valid ones first; null until read. */
	links = $state.raw<ShareLinkInfo[] | null>(null);
	busy = $state(false);
	/** The link being revoked. */
	revoking = $state<string | null>(null);
	error = $state<string | null>(null);
	#base: string;
	#fetch: Fetch;

	constructor(workspace: string, jobId: string, fetchFn: Fetch = (input, init) => fetch(input, init)) {
		this.#base = `/api/w/${encodeURIComponent(workspace)}/jobs/share_links/${encodeURIComponent(jobId)}`;
		this.#fetch = fetchFn;
	}

	/** Reads the run's links. */
	async load(): Promise<void> {
		try {
			this.links = await answerOf<ShareLinkInfo[]>(await this.#fetch(this.#base));
		} catch (e) {
			this.error = e instanceof Error ? e.message : String(e);
		}
	}

	/** Makes a link with the chosen audience and lifetime, and copies it when the browser lets us. */
	async create(): Promise<string | null> {
		this.busy = true;
		this.error = null;
		try {
			const r = await this.#fetch(this.#base, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ kind: this.kind, expires_in: this.expiresIn })
			});
			const link = await answerOf<ShareLink>(r);
			const url = new URL(link.url, location.origin).toString();
			this.made = { id: link.id, url, kind: link.kind, expiresAt: link.expires_at };
			try {
				await navigator.clipboard.writeText(url);
				this.copied = true;
			} catch {
				// No clipboard permission (or no secure context): the link stays shown to copy by hand.
				this.copied = false;
			}
			await this.load();
			return url;
		} catch (e) {
			this.error = e instanceof Error ? e.message : String(e);
			return null;
		} finally {
			this.busy = false;
		}
	}

	/** Revokes one link; the list is read again. */
	async revoke(id: string): Promise<void> {
		this.revoking = id;
		this.error = null;
		try {
			await answerOf<ShareLinkInfo>(await this.#fetch(`${this.#base}/${encodeURIComponent(id)}`, { method: 'DELETE' }));
			if (this.made?.id === id) this.made = null;
			await this.load();
		} catch (e) {
			this.error = e instanceof Error ? e.message : String(e);
		} finally {
			this.revoking = null;
		}
	}
}

/**
 * Start what the run page offers from a finished run (the server's RunOffer: a `retry` of a
 * failed run, or a build here of a recorded one); answers the new run's page.
 */
export class ResumeRun {
	busy = $state(false);
	error = $state<string | null>(null);
	#fetch: Fetch;

	constructor(fetchFn: Fetch = (input, init) => fetch(input, init)) {
		this.#fetch = fetchFn;
	}

	async resume(workspace: string, scriptPath: string, body: Record<string, unknown>): Promise<string | null> {
		this.busy = true;
		this.error = null;
		try {
			const r = await this.#fetch(`/api/w/${encodeURIComponent(workspace)}/jobs/run/p/${scriptPath}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify(body)
			});
			const answer = (await r.json().catch(() => ({}))) as { job_id?: string; url?: string; error?: string };
			if (!r.ok) throw new Error(answer.error ?? `status ${r.status}`);
			return answer.url ?? `/w/${workspace}/run/${answer.job_id}`;
		} catch (e) {
			this.error = e instanceof Error ? e.message : String(e);
			return null;
		} finally {
			this.busy = false;
		}
	}
}

/** The project page's "Run" form: a command, a selection and vars, queued as a run. */
export class RunForm {
	command = $state('build');
	select = $state('');
	vars = $state('');
	busy = $state(false);
	error = $state<string | null>(null);

	/** The request body, or a message saying what is wrong with the form. */
	body(): Record<string, unknown> | string {
		const out: Record<string, unknown> = { command: this.command };
		const select = this.select.trim().split(/\s+/).filter(Boolean);
		if (select.length) out.select = select;
		const text = this.vars.trim();
		if (text) {
			try {
				const v = JSON.parse(text);
				if (!v || typeof v !== 'object' || Array.isArray(v)) return 'vars: a JSON object, e.g. {"start_date": "2024-01-01"}';
				out.vars = v;
			} catch {
				return 'vars: not valid JSON';
			}
		}
		return out;
	}

	async submit(workspace: string, path: string): Promise<string | null> {
		const body = this.body();
		if (typeof body === 'string') {
			this.error = body;
			return null;
		}
		this.busy = true;
		this.error = null;
		try {
			const r = await fetch(`/api/w/${encodeURIComponent(workspace)}/jobs/run/p/${path}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify(body)
			});
			const answer = (await r.json().catch(() => ({}))) as { job_id?: string; url?: string; error?: string };
			if (!r.ok) throw new Error(answer.error ?? `status ${r.status}`);
			return answer.url ?? `/w/${workspace}/run/${answer.job_id}`;
		} catch (e) {
			this.error = e instanceof Error ? e.message : String(e);
			return null;
		} finally {
			this.busy = false;
		}
	}
}
