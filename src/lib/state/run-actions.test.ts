import { describe, expect, it } from 'vitest';
import { ResumeRun } from './run-actions.svelte';

type Call = { url: string; init?: RequestInit };

function stub(status: number, body: unknown) {
	const calls: Call[] = [];
	const f = async (url: string, init?: RequestInit) => {
		calls.push({ url, init });
		return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
	};
	return { calls, f };
}

describe('starting what the run page offers', () => {
	it('posts the offer as given and answers the new run page', async () => {
		const { calls, f } = stub(200, { job_id: 'j2', url: '/w/demo/run/j2' });
		const r = new ResumeRun(f);
		expect(await r.resume('demo', 'f/demo/shop', { command: 'build' })).toBe('/w/demo/run/j2');
		expect(calls[0].url).toBe('/api/w/demo/jobs/run/p/f/demo/shop');
		expect(JSON.parse(String(calls[0].init?.body))).toEqual({ command: 'build' });
		expect(r.error).toBeNull();
		expect(r.busy).toBe(false);
	});

	it("keeps the server's refusal to show", async () => {
		const { f } = stub(400, { error: 'retry_job x is not a run of f/demo/shop' });
		const r = new ResumeRun(f);
		expect(await r.resume('demo', 'f/demo/shop', { command: 'retry', retry_job: 'x' })).toBeNull();
		expect(r.error).toBe('retry_job x is not a run of f/demo/shop');
		expect(r.busy).toBe(false);
	});
});
