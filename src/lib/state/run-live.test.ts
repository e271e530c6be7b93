import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { JobDetail, RunProgressItem } from '$lib/types/jobs';
import { RunLive, runStatuses } from './run-live.svelte';

const job = (id: string, status: JobDetail['status']): JobDetail => ({
	id,
	kind: 'run',
	status,
	script_path: 'f/demo/shop',
	script_hash: '0000000000000001',
	created_by: 'admin',
	created_at: '2026-01-01T00:00:00Z',
	completed_at: null,
	started_at: null,
	parent_job: null,
	args: {},
	result: null,
	logs: '',
	logs_truncated: false,
	redacted: false
});
const running = (path: string): RunProgressItem => ({ asset_kind: 'dbt', asset_path: path, status: 'running' });

/** A server whose answers the test sets, recording every URL asked. */
function server() {
	const asked: string[] = [];
	const state = { job: job('a', 'running'), progress: [] as RunProgressItem[] };
	const fetchJson = vi.fn(async (url: string) => {
		asked.push(url);
		return url.includes('/run_progress/') ? state.progress : state.job;
	});
	return { asked, state, fetchJson };
}

describe('RunLive', () => {
	beforeEach(() => vi.useFakeTimers());
	afterEach(() => vi.useRealTimers());

	it('polls every 2 s while running and stops when the run ends, reading the graph once more', async () => {
		const s = server();
		const refreshGraph = vi.fn(async () => {});
		const live = new RunLive({ workspace: 'demo', fetchJson: s.fetchJson, refreshGraph, graphBackoffMs: [60_000] });
		live.start(s.state.job, [running('main/a/x')], true);
		await vi.advanceTimersByTimeAsync(1999);
		expect(s.asked).toHaveLength(0);
		await vi.advanceTimersByTimeAsync(1);
		expect(s.asked.map((u) => u.split('/')[5])).toEqual(['get', 'run_progress']);
		await vi.advanceTimersByTimeAsync(2000);
		expect(s.asked).toHaveLength(4);
		s.state.job = job('a', 'success');
		await vi.advanceTimersByTimeAsync(2000);
		expect(live.job?.status).toBe('success');
		expect(refreshGraph).toHaveBeenCalledTimes(1);
		await vi.advanceTimersByTimeAsync(10_000);
		expect(s.asked).toHaveLength(6);
	});

	it('re-reads the graph with backoff until progress appears', async () => {
		const s = server();
		const refreshGraph = vi.fn(async () => {});
		const live = new RunLive({ workspace: 'demo', fetchJson: s.fetchJson, refreshGraph, pollMs: 10_000, graphBackoffMs: [1000, 2000, 4000] });
		live.start(s.state.job, [], false);
		await vi.advanceTimersByTimeAsync(1000);
		expect(refreshGraph).toHaveBeenCalledTimes(1);
		// The reload hands the page the same run, still without a snapshot: the next wait is longer.
		live.start(s.state.job, [], false);
		await vi.advanceTimersByTimeAsync(1999);
		expect(refreshGraph).toHaveBeenCalledTimes(1);
		await vi.advanceTimersByTimeAsync(1);
		expect(refreshGraph).toHaveBeenCalledTimes(2);
		// Progress shows up at the next poll: one more read, and the backoff is over.
		live.start(s.state.job, [], false);
		s.state.progress = [running('main/a/x')];
		await vi.advanceTimersByTimeAsync(10_000);
		expect(live.graphSettled).toBe(true);
		const calls = refreshGraph.mock.calls.length;
		await vi.advanceTimersByTimeAsync(60_000);
		expect(refreshGraph.mock.calls.length).toBe(calls);
	});

	it('drops an answer for the previous run once the page shows another', async () => {
		let release!: (v: unknown) => void;
		const fetchJson = vi.fn((url: string) => (url.endsWith('/a') ? new Promise((r) => (release = r)) : Promise.resolve(url.includes('run_progress') ? [] : job('b', 'running'))));
		const live = new RunLive({ workspace: 'demo', fetchJson, refreshGraph: async () => {}, graphBackoffMs: [60_000] });
		live.start(job('a', 'running'), [running('main/a/x')], true);
		await vi.advanceTimersByTimeAsync(2000);
		live.start(job('b', 'running'), [], true);
		release([running('main/a/old')]);
		await vi.advanceTimersByTimeAsync(0);
		expect(live.jobId).toBe('b');
		expect(live.progress).toEqual([]);
		expect(live.job?.id).toBe('b');
	});

	it('asks with the share token of a link viewer', async () => {
		const s = server();
		const live = new RunLive({ workspace: 'demo', fetchJson: s.fetchJson, refreshGraph: async () => {}, viewToken: 'tok.123', graphBackoffMs: [60_000] });
		live.start(s.state.job, [running('x')], true);
		await vi.advanceTimersByTimeAsync(2000);
		expect(s.asked.every((u) => u.endsWith('?view_token=tok.123'))).toBe(true);
	});
});

describe('runStatuses', () => {
	it('colours live progress, then the settled outcome (a failure wins, a row count stays)', () => {
		const uid = (u: string) => ({ 'model.p.a': 'dbt:main/s/a', 'model.p.b': 'dbt:main/s/b', 'test.p.t': 'dbt:main/s/a' })[u];
		const m = runStatuses(
			[
				{ asset_kind: 'dbt', asset_path: 'main/s/a', status: 'materialized', row_count: 5 },
				{ asset_kind: 'dbt', asset_path: 'main/s/c', status: 'running' }
			],
			{ nodes: [{ unique_id: 'model.p.a', outcome: 'passed', rows_affected: 5 }, { unique_id: 'model.p.b', outcome: 'failed', message: 'boom' }] },
			uid
		);
		expect(m.get('dbt:main/s/a')).toEqual({ status: 'materialized', rowCount: 5, error: undefined });
		expect(m.get('dbt:main/s/b')).toMatchObject({ status: 'failed', error: 'boom' });
		expect(m.get('dbt:main/s/c')?.status).toBe('running');
	});
});
