import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { JobDetail, RunProgressItem } from '$lib/types/jobs';
import { JOB_LOG_TAIL } from '$lib/types/jobs';
import type { JobDetailFrom, JobPoll } from '$lib/types/jobs';
import { mergeJobLog, mergeProgress, RunLive, runStatuses } from './run-live.svelte';

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

/**
 * A server whose answers the test sets, recording every URL asked. It answers like the real one:
 * `run_progress?since=` with the rows written after the cursor (a write counter here), `jobs/get`
 * with `log_offset=` with the log after that many characters.
 */
function server() {
	const asked: string[] = [];
	const state = { job: job('a', 'running'), progress: [] as RunProgressItem[], log: '' };
	let version = 0;
	const written = new Map<string, number>();
	const stamp = () => {
		for (const p of state.progress) {
			const k = `${p.asset_kind}:${p.asset_path}:${p.status}:${p.row_count ?? ''}`;
			if (!written.has(k)) written.set(k, ++version);
		}
	};
	const answer = async (url: string): Promise<unknown> => {
		asked.push(url);
		const q = new URL(url, 'http://x').searchParams;
		const changes = (since: number) => {
			stamp();
			const rows = state.progress.filter((p) => written.get(`${p.asset_kind}:${p.asset_path}:${p.status}:${p.row_count ?? ''}`)! > since);
			return { cursor: String(version), total: state.progress.length, rows };
		};
		if (url.includes('/run_progress/')) return q.has('since') ? changes(Number(q.get('since'))) : state.progress;
		const progress = q.has('progress_since') ? { progress: changes(Number(q.get('progress_since'))) } : {};
		if (q.get('logs') === 'false') return { ...state.job, logs: '', ...progress };
		if (q.has('log_offset')) {
			const from = Math.min(Number(q.get('log_offset')), state.log.length);
			return { ...state.job, logs: state.log.slice(from), log_from: from, log_length: state.log.length, ...progress } satisfies JobPoll;
		}
		return { ...state.job, logs: state.log, ...progress };
	};
	return { asked, state, answer, fetchJson: vi.fn(answer) };
}
const query = (url: string) => Object.fromEntries(new URL(url, 'http://x').searchParams);

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
		// One request per poll: the job and its progress changes together.
		expect(s.asked.map((u) => u.split('/')[5])).toEqual(['get']);
		await vi.advanceTimersByTimeAsync(2000);
		expect(s.asked).toHaveLength(2);
		s.state.job = job('a', 'success');
		await vi.advanceTimersByTimeAsync(2000);
		expect(live.job?.status).toBe('success');
		expect(refreshGraph).toHaveBeenCalledTimes(1);
		await vi.advanceTimersByTimeAsync(10_000);
		expect(s.asked).toHaveLength(3);
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
		const fetchJson = vi.fn((url: string) =>
			new URL(url, 'http://x').pathname.endsWith('/a')
				? new Promise((r) => (release = r))
				: Promise.resolve({ ...job('b', 'running'), progress: { cursor: '1', total: 0, rows: [] } })
		);
		const live = new RunLive({ workspace: 'demo', fetchJson, refreshGraph: async () => {}, graphBackoffMs: [60_000] });
		live.start(job('a', 'running'), [running('main/a/x')], true);
		await vi.advanceTimersByTimeAsync(2000);
		live.start(job('b', 'running'), [], true);
		release({ ...job('a', 'running'), progress: { cursor: '9', total: 1, rows: [running('main/a/old')] } });
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
		expect(s.asked.length).toBeGreaterThan(0);
		expect(s.asked.every((u) => query(u).view_token === 'tok.123')).toBe(true);
	});

	it('reads progress in full first, then only the changes since the last cursor, merged by relation', async () => {
		const s = server();
		s.state.progress = [running('main/a/x'), running('main/a/y')];
		const live = new RunLive({ workspace: 'demo', fetchJson: s.fetchJson, refreshGraph: async () => {}, graphBackoffMs: [60_000] });
		// No cursor from the page: the first poll asks for everything.
		live.start(s.state.job, [], true);
		await vi.advanceTimersByTimeAsync(2000);
		const p1 = s.asked.filter((u) => u.includes('/get/'));
		expect(query(p1[0]).progress_since).toBe('0');
		expect(live.progress.map((p) => p.asset_path)).toEqual(['main/a/x', 'main/a/y']);
		// y is built and z starts: the next poll carries the cursor and gets those two rows only.
		s.state.progress = [running('main/a/x'), { asset_kind: 'dbt', asset_path: 'main/a/y', status: 'materialized', row_count: 3 }, running('main/a/w')];
		const rows = vi.fn();
		s.fetchJson.mockImplementation(async (url: string) => {
			const r = await s.answer(url);
			rows((r as JobPoll).progress!.rows.length);
			return r;
		});
		await vi.advanceTimersByTimeAsync(2000);
		const p2 = s.asked.filter((u) => u.includes('/get/'));
		expect(query(p2[1]).progress_since).not.toBe('0');
		expect(rows).toHaveBeenLastCalledWith(2);
		expect(live.progress).toEqual([
			running('main/a/w'),
			running('main/a/x'),
			{ asset_kind: 'dbt', asset_path: 'main/a/y', status: 'materialized', row_count: 3 }
		]);
		// Nothing new: the list on screen is the same object (no repaint).
		const before = live.progress;
		await vi.advanceTimersByTimeAsync(2000);
		expect(rows).toHaveBeenLastCalledWith(0);
		expect(live.progress).toBe(before);
	});

	it('starts from the cursor the page data carries, and re-reads in full when the row count disagrees', async () => {
		const s = server();
		s.state.progress = [running('main/a/x')];
		await s.fetchJson('/api/w/demo/jobs/run_progress/a?since=0'); // the page load's read
		const live = new RunLive({ workspace: 'demo', fetchJson: s.fetchJson, refreshGraph: async () => {}, graphBackoffMs: [60_000] });
		live.start(s.state.job, [running('main/a/x')], true, { progressCursor: '1', logLength: 0 });
		await vi.advanceTimersByTimeAsync(2000);
		const since = () => s.asked.map((u) => query(u).progress_since ?? query(u).since);
		expect(since().slice(1)).toEqual(['1']);
		// A row disappears (a run settling removes rows): the counts disagree, the next read is full.
		s.state.progress = [];
		await vi.advanceTimersByTimeAsync(2000);
		expect(live.progress).toEqual([running('main/a/x')]);
		await vi.advanceTimersByTimeAsync(2000);
		expect(since().slice(1)).toEqual(['1', '1', '0']);
		expect(live.progress).toEqual([]);
	});

	it('asks for the log only while it is shown, then only what follows what it holds; a viewer shown no log asks for none', async () => {
		const s = server();
		s.state.log = 'line 1\n';
		const live = new RunLive({ workspace: 'demo', fetchJson: s.fetchJson, refreshGraph: async () => {}, graphBackoffMs: [60_000] });
		live.start({ ...s.state.job, logs: 'line 1\n' }, [running('x')], true, { logLength: 7 });
		s.state.log += 'line 2\n';
		// The log panel is closed: no log is asked for, the one held stays.
		await vi.advanceTimersByTimeAsync(2000);
		expect(query(s.asked[0])).toMatchObject({ logs: 'false' });
		expect(query(s.asked[0]).log_offset).toBeUndefined();
		expect(live.job?.logs).toBe('line 1\n');
		// Opened: the next poll asks for what follows the 7 characters held.
		live.showLog = true;
		s.asked.length = 0;
		await vi.advanceTimersByTimeAsync(2000);
		const gets = () => s.asked.filter((u) => u.includes('/get/')).map(query);
		expect(gets()[0].log_offset).toBe('7');
		expect(live.job?.logs).toBe('line 1\nline 2\n');
		await vi.advanceTimersByTimeAsync(2000);
		expect(gets()[1].log_offset).toBe('14');
		expect(live.job?.logs).toBe('line 1\nline 2\n');

		const r = server();
		const viewer = new RunLive({ workspace: 'demo', fetchJson: r.fetchJson, refreshGraph: async () => {}, viewToken: 'tok.1', graphBackoffMs: [60_000] });
		viewer.showLog = true;
		viewer.start({ ...r.state.job, redacted: true }, [running('x')], true, { logLength: null });
		await vi.advanceTimersByTimeAsync(2000);
		expect(r.asked.filter((u) => u.includes('/get/')).map(query)[0]).toEqual({ logs: 'false', progress_since: '0', view_token: 'tok.1' });
	});
});

describe('RunLive: the log read when its panel opens', () => {
	beforeEach(() => vi.useFakeTimers());
	afterEach(() => vi.useRealTimers());
	const gets = (asked: string[]) => asked.filter((u) => u.includes('/get/')).map(query);

	it('reads the tail once on opening a settled run, keeps it across a re-read of the same run, and catches up', async () => {
		const s = server();
		s.state.job = job('a', 'success');
		s.state.log = 'line 1\n';
		const live = new RunLive({ workspace: 'demo', fetchJson: s.fetchJson, refreshGraph: async () => {}, graphBackoffMs: [60_000] });
		// The page's data carries no log.
		live.start(s.state.job, [], true);
		await vi.advanceTimersByTimeAsync(5000);
		expect(s.asked).toEqual([]);
		live.showLog = true;
		await vi.advanceTimersByTimeAsync(0);
		expect(gets(s.asked)).toEqual([{ log_offset: '0' }]);
		expect(live.job?.logs).toBe('line 1\n');
		// Closed and opened again: what is held is shown, nothing is asked.
		live.showLog = false;
		live.showLog = true;
		await vi.advanceTimersByTimeAsync(0);
		expect(gets(s.asked)).toHaveLength(1);
		// The same run re-read (its data has no log): the log held stays, and the open panel asks for what follows it.
		s.state.log += 'line 2\n';
		live.start(s.state.job, [], true);
		expect(live.job?.logs).toBe('line 1\n');
		await vi.advanceTimersByTimeAsync(0);
		expect(gets(s.asked)[1]).toEqual({ log_offset: '7' });
		expect(live.job?.logs).toBe('line 1\nline 2\n');
		// Another run: its own log's tail, never the previous one's.
		s.state.job = job('b', 'success');
		s.state.log = 'other\n';
		live.start(s.state.job, [], true);
		expect(live.job?.logs).toBe('');
		await vi.advanceTimersByTimeAsync(0);
		expect(gets(s.asked)[2]).toEqual({ log_offset: '0' });
		expect(live.job?.logs).toBe('other\n');
	});

	it('never reads the log of a run this viewer is shown none of', async () => {
		const s = server();
		s.state.job = job('a', 'success');
		s.state.log = 'secret\n';
		const live = new RunLive({ workspace: 'demo', fetchJson: s.fetchJson, refreshGraph: async () => {}, viewToken: 'tok.1', graphBackoffMs: [60_000] });
		live.start({ ...s.state.job, redacted: true }, [], true);
		live.showLog = true;
		await vi.advanceTimersByTimeAsync(5000);
		expect(s.asked).toEqual([]);
	});
});

describe('mergeProgress', () => {
	const a = running('main/s/a');
	const b = running('main/s/b');
	it('takes a full answer as it is, and notes whether it holds every row', () => {
		expect(mergeProgress(null, { cursor: '5', total: 2, rows: [a, b] })).toEqual({ progress: [a, b], complete: true, changed: true });
		expect(mergeProgress(null, { cursor: '5', total: 3, rows: [a, b] }).complete).toBe(false);
	});
	it('replaces rows by relation, adds new ones in path order, and keeps the list when nothing changed', () => {
		const builtA = { ...a, status: 'materialized' as const, row_count: 4 };
		const c = running('main/s/c');
		const m = mergeProgress([b, c], { cursor: '9', total: 3, rows: [builtA, running('main/s/c')] });
		expect(m.progress).toEqual([builtA, b, c]);
		expect(m.complete).toBe(true);
		const held = [a, b];
		const none = mergeProgress(held, { cursor: '9', total: 2, rows: [] });
		expect(none.progress).toBe(held);
		expect(none.changed).toBe(false);
		// The same relation of another kind is another row.
		expect(mergeProgress([a], { cursor: '1', total: 2, rows: [{ ...a, asset_kind: 'ducklake' }] }).progress).toHaveLength(2);
		// A row seen twice (a cursor held back by a long transaction) is merged, not doubled.
		expect(mergeProgress([a, b], { cursor: '1', total: 2, rows: [a, b] }).progress).toEqual([a, b]);
	});
	it('says the list is incomplete when the server counts fewer rows than are held', () => {
		expect(mergeProgress([a, b], { cursor: '3', total: 1, rows: [] }).complete).toBe(false);
	});
});

describe('mergeJobLog', () => {
	const held = { ...job('a', 'running'), logs: 'abc' };
	const answer = (logs: string, from: number, length: number): JobDetailFrom => ({ ...job('a', 'running'), logs, log_from: from, log_length: length });
	it('appends an answer that continues the held log', () => {
		expect(mergeJobLog(held, 3, answer('de', 3, 5))).toMatchObject({ job: { logs: 'abcde', logs_truncated: false }, logLength: 5 });
		expect(mergeJobLog(held, 3, answer('', 3, 3))).toMatchObject({ job: { logs: 'abc' }, logLength: 3 });
	});
	it('replaces the log when the answer skipped a part, or is of another job', () => {
		expect(mergeJobLog(held, 3, answer('xyz', 10, 13))).toMatchObject({ job: { logs: 'xyz', logs_truncated: true }, logLength: 13 });
		expect(mergeJobLog({ ...held, id: 'b' }, 3, answer('full', 0, 4))).toMatchObject({ job: { logs: 'full', logs_truncated: false } });
	});
	it('keeps the tail when the appended log grows past the limit', () => {
		const big = 'x'.repeat(JOB_LOG_TAIL);
		const m = mergeJobLog({ ...held, logs: big }, JOB_LOG_TAIL, answer('END', JOB_LOG_TAIL, JOB_LOG_TAIL + 3));
		expect(m.job.logs).toHaveLength(JOB_LOG_TAIL);
		expect(m.job.logs.endsWith('END')).toBe(true);
		expect(m.job.logs_truncated).toBe(true);
	});
	it('holds no log position for a redacted answer or one without offsets', () => {
		expect(mergeJobLog(held, 3, { ...answer('', 0, 0), redacted: true }).logLength).toBeNull();
		const { log_from: _f, log_length: _l, ...plain } = answer('abc', 0, 3);
		expect(mergeJobLog(held, 3, plain)).toMatchObject({ job: { logs: 'abc' }, logLength: null });
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
