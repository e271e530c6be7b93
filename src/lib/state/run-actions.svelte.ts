// The run page's two actions: minting share links, and resuming a failed run.
import type { ShareDomain, ShareLink } from '$lib/types/jobs';

export class ShareLinks {
	links = $state<Partial<Record<ShareDomain, string>>>({});
	busy = $state<ShareDomain | null>(null);
	copied = $state<ShareDomain | null>(null);
	error = $state<string | null>(null);
	#workspace: string;
	#jobId: string;

	constructor(workspace: string, jobId: string) {
		this.#workspace = workspace;
		this.#jobId = jobId;
	}

	/** Mint a link of this kind, and copy it when the browser lets us. */
	async mint(kind: ShareDomain): Promise<string | null> {
		this.busy = kind;
		this.error = null;
		try {
			const r = await fetch(`/api/w/${encodeURIComponent(this.#workspace)}/jobs/share/${encodeURIComponent(this.#jobId)}?kind=${kind}`);
			const body = (await r.json()) as ShareLink | { error: string };
			if (!r.ok || 'error' in body) throw new Error('error' in body ? body.error : `status ${r.status}`);
			const url = new URL(body.url, location.origin).toString();
			this.links = { ...this.links, [kind]: url };
			try {
				await navigator.clipboard.writeText(url);
				this.copied = kind;
			} catch {
				// No clipboard permission (or no secure context): the link stays shown to copy by hand.
				this.copied = null;
			}
			return url;
		} catch (e) {
			this.error = e instanceof Error ? e.message : String(e);
			return null;
		} finally {
			this.busy = null;
		}
	}
}

/** Queue a `retry` of a failed run; answers the new run's page. */
export class ResumeRun {
	busy = $state(false);
	error = $state<string | null>(null);

	async resume(workspace: string, scriptPath: string, jobId: string): Promise<string | null> {
		this.busy = true;
		this.error = null;
		try {
			const r = await fetch(`/api/w/${encodeURIComponent(workspace)}/jobs/run/p/${scriptPath}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ command: 'retry', retry_job: jobId })
			});
			const body = (await r.json().catch(() => ({}))) as { job_id?: string; url?: string; error?: string };
			if (!r.ok) throw new Error(body.error ?? `status ${r.status}`);
			return body.url ?? `/w/${workspace}/run/${body.job_id}`;
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
