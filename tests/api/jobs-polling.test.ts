// What the run page's polls use, through the real routes and hook, on both databases:
// `jobs/get?logs=false|log_offset=`, `jobs/run_progress?since=` (and its cursor under writes
// that run concurrently with the reads: a row must never be missed), and a `show` job's data
// rows withheld from a viewer who may not read the project.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/lib/server/db';
import { insertJob, upsertProgress, type ProgressUpdate } from '../../src/lib/server/repo/jobs';
import { JOB_LOG_TAIL, type RunProgressItem } from '../../src/lib/types/jobs';
import type { ApiClient } from '../support/api';
import { testBackends } from '../support/db';
import { AUTHORED_MARKERS, buildJobWorld, SECRET_PATH, WS, type JobWorld } from '../support/jobs-world';

interface Changes {
	cursor: string;
	total: number;
	rows: RunProgressItem[];
}

const key = (p: { asset_kind: string; asset_path: string }) => `${p.asset_kind}:${p.asset_path}`;

/**
 * The changes a cursor read answered: exactly `must` on PGlite (one connection: no transaction
 * runs beside the reads); on Postgres every row of `must` and otherwise only rows of `may` (rows
 * written before the cursor come again while a transaction anywhere on the server, another
 * test's included, holds the snapshot's xmin back: a row may come twice, never not at all).
 */
function expectChanges(backend: string, rows: RunProgressItem[], must: RunProgressItem[], may: string[] = []): void {
	const got = [...rows].sort((a, b) => (key(a) < key(b) ? -1 : 1));
	if (backend === 'pglite') {
		expect(got).toEqual([...must].sort((a, b) => (key(a) < key(b) ? -1 : 1)));
		return;
	}
	for (const m of must) expect(got).toContainEqual(m);
	const allowed = new Set([...must.map(key), ...may]);
	for (const r of got) expect(allowed, `unexpected row ${key(r)}`).toContain(key(r));
}
const item = (path: string, status: RunProgressItem['status'], extra: Partial<RunProgressItem> = {}): RunProgressItem => ({ asset_kind: 'dbt', asset_path: path, status, ...extra });

describe.each(testBackends())('run page polling on $name', (backend) => {
	let database: Database;
	let w: JobWorld;
	let publicLink = '';
	let memberLink = '';

	const newJob = (over: Partial<Parameters<typeof insertJob>[1]> = {}) =>
		database.db.transaction((tx) =>
			insertJob(tx, { workspace: WS, kind: 'run', scriptPath: SECRET_PATH, scriptHash: 42n, createdBy: 'rita', permissionedAs: 'u/rita', status: 'running', ...over })
		);
	const progressUrl = (id: string, since?: string) => `/api/w/${WS}/jobs/run_progress/${id}${since === undefined ? '' : `?since=${since}`}`;
	const changes = async (c: ApiClient, id: string, since: string): Promise<Changes> => {
		const r = await c.get(progressUrl(id, since));
		expect(r.status, JSON.stringify(r.body)).toBe(200);
		return r.body as Changes;
	};

	beforeAll(async () => {
		database = await backend.open();
		w = await buildJobWorld(database);
		publicLink = (await w.c.rita.get(`/api/w/${WS}/jobs/share/${w.jobs.R}?kind=public`)).body.token;
		memberLink = (await w.c.rita.get(`/api/w/${WS}/jobs/share/${w.jobs.R}?kind=member`)).body.token;
	});
	afterAll(async () => {
		w?.restoreEnv();
		await database?.close();
	});

	describe('jobs/get log parameters', () => {
		it('logs=false answers the job without its log; the default still carries it', async () => {
			const full = await w.c.rita.get(`/api/w/${WS}/jobs/get/${w.jobs.R}`);
			const bare = await w.c.rita.get(`/api/w/${WS}/jobs/get/${w.jobs.R}?logs=false`);
			expect(full.body.logs).toContain('select secret_column');
			expect(bare.status).toBe(200);
			expect(bare.body.logs).toBe('');
			expect(bare.body.logs_truncated).toBe(false);
			expect({ ...bare.body, logs: full.body.logs }).toEqual(full.body);
			expect((await w.c.rita.get(`/api/w/${WS}/jobs/get/${w.jobs.R}?logs=true`)).body).toEqual(full.body);
		});

		it('log_offset=N answers the log after N characters, where it starts and how long it is', async () => {
			// Multi-byte and astral characters: offsets count characters the way Postgres does.
			const log = 'début ✓ 🚀 line one\nline two\n';
			const id = await newJob({ logs: log });
			const all = await w.c.rita.get(`/api/w/${WS}/jobs/get/${id}?log_offset=0`);
			expect(all.status).toBe(200);
			const length = [...log].length;
			expect(all.body).toMatchObject({ logs: log, log_from: 0, log_length: length, logs_truncated: false });
			const tail = await w.c.rita.get(`/api/w/${WS}/jobs/get/${id}?log_offset=11`);
			expect(tail.body).toMatchObject({ logs: [...log].slice(11).join(''), log_from: 11, log_length: length });
			const none = await w.c.rita.get(`/api/w/${WS}/jobs/get/${id}?log_offset=${length}`);
			expect(none.body).toMatchObject({ logs: '', log_from: length, log_length: length });
			// An offset past the end (a log that is not the one held) starts at the end.
			const past = await w.c.rita.get(`/api/w/${WS}/jobs/get/${id}?log_offset=${length + 50}`);
			expect(past.body).toMatchObject({ logs: '', log_from: length, log_length: length });
			// Appending and continuing from log_length gives exactly the new part.
			await database.db.execute(sql`update job set logs = logs || ${'line three ✓\n'} where id = ${id}::uuid`);
			const more = await w.c.rita.get(`/api/w/${WS}/jobs/get/${id}?log_offset=${length}`);
			expect(more.body).toMatchObject({ logs: 'line three ✓\n', log_from: length, log_length: length + 13 });
		});

		it('log_offset never sends more than the tail, and says a part was skipped', async () => {
			const id = await newJob({ logs: `${'x'.repeat(JOB_LOG_TAIL + 5000)}THE END` });
			const r = await w.c.rita.get(`/api/w/${WS}/jobs/get/${id}?log_offset=10`);
			expect(r.body.logs).toHaveLength(JOB_LOG_TAIL);
			expect(r.body.logs.endsWith('THE END')).toBe(true);
			expect(r.body).toMatchObject({ log_from: 5007, log_length: JOB_LOG_TAIL + 5007, logs_truncated: true });
		});

		it('a viewer who may not read the project gets no log whatever the parameters', async () => {
			for (const q of ['log_offset=0', 'logs=false', 'logs=true']) {
				const r = await w.c.anon.get(`/api/w/${WS}/jobs/get/${w.jobs.R}?${q}&view_token=${publicLink}`);
				expect(r.status).toBe(200);
				expect(r.body.redacted).toBe(true);
				expect(r.body.logs).toBe('');
				for (const m of AUTHORED_MARKERS) expect(JSON.stringify(r.body)).not.toContain(m);
			}
		});

		it.each([
			['logs=no', /logs must be true or false/],
			['log_offset=-1', /log_offset must be/],
			['log_offset=1.5', /log_offset must be/],
			['log_offset=abc', /log_offset must be/],
			['log_offset=1&log_offset=2', /once/],
			['logs=false&log_offset=3', /cannot be combined/]
		])('400 for %s', async (q, message) => {
			const r = await w.c.rita.get(`/api/w/${WS}/jobs/get/${w.jobs.R}?${q}`);
			expect(r.status).toBe(400);
			expect(r.body.error).toMatch(message);
		});

		it('progress_since= adds the progress changes to the job answer (one request per poll)', async () => {
			const id = await newJob({ logs: 'start\n' });
			await upsertProgress(database, WS, id, [{ assetKind: 'dbt', assetPath: 'main/s/a', status: 'running' }]);
			const first = await w.c.rita.get(`/api/w/${WS}/jobs/get/${id}?log_offset=0&progress_since=0`);
			expect(first.status).toBe(200);
			expect(first.body).toMatchObject({ id, logs: 'start\n', log_from: 0, log_length: 6 });
			expect(first.body.progress).toMatchObject({ total: 1, rows: [{ asset_kind: 'dbt', asset_path: 'main/s/a', status: 'running' }] });
			expect(first.headers.get('x-progress-cursor')).toBe(first.body.progress.cursor);
			await upsertProgress(database, WS, id, [{ assetKind: 'dbt', assetPath: 'main/s/b', status: 'running' }]);
			const next = await w.c.rita.get(`/api/w/${WS}/jobs/get/${id}?log_offset=6&progress_since=${first.body.progress.cursor}`);
			expect(next.body).toMatchObject({ logs: '', log_from: 6, log_length: 6 });
			expectChanges(backend.name, next.body.progress.rows, [item('main/s/b', 'running')], ['dbt:main/s/a']);
			expect(next.body.progress.total).toBe(2);
			// The same through a share link, without a log.
			const viaLink = await w.c.anon.get(`/api/w/${WS}/jobs/get/${w.jobs.R}?logs=false&progress_since=0&view_token=${publicLink}`);
			expect(viaLink.body.progress.rows).toHaveLength(3);
			expect(viaLink.body.logs).toBe('');
			// The page's usual poll (no log, a cursor): the same changes, the rest of the job as always.
			const bare = await w.c.rita.get(`/api/w/${WS}/jobs/get/${id}?logs=false&progress_since=${first.body.progress.cursor}`);
			expect(bare.status).toBe(200);
			expect(bare.body.progress.total).toBe(2);
			expectChanges(backend.name, bare.body.progress.rows, [item('main/s/b', 'running')], ['dbt:main/s/a']);
			expect(bare.body).toMatchObject({ id, logs: '', logs_truncated: false, redacted: false, status: 'running' });
			expect(bare.body.log_from).toBeUndefined();
			expect(bare.headers.get('x-progress-cursor')).toBe(bare.body.progress.cursor);
			const again = await w.c.rita.get(`/api/w/${WS}/jobs/get/${id}?logs=false&progress_since=${bare.body.progress.cursor}`);
			expect(again.body.progress.total).toBe(2);
			expectChanges(backend.name, again.body.progress.rows, [], ['dbt:main/s/a', 'dbt:main/s/b']);
			const cursorR = viaLink.body.progress.cursor;
			await upsertProgress(database, WS, w.jobs.R, [{ assetKind: 'dbt', assetPath: 'main/analytics/payments', status: 'running' }]);
			for (const q of ['logs=false', 'log_offset=0']) {
				const linked = await w.c.anon.get(`/api/w/${WS}/jobs/get/${w.jobs.R}?${q}&progress_since=${cursorR}&view_token=${publicLink}`);
				expect(linked.status).toBe(200);
				expect(linked.body).toMatchObject({ redacted: true, logs: '' });
				expectChanges(backend.name, linked.body.progress.rows, [item('main/analytics/payments', 'running')], ['dbt:main/analytics/customers', 'dbt:main/analytics/orders']);
				for (const m of AUTHORED_MARKERS) expect(JSON.stringify(linked.body)).not.toContain(m);
			}
			// Without the parameter the answer has no progress field.
			expect((await w.c.rita.get(`/api/w/${WS}/jobs/get/${id}`)).body.progress).toBeUndefined();
			const bad = await w.c.rita.get(`/api/w/${WS}/jobs/get/${id}?progress_since=x`);
			expect(bad.status).toBe(400);
			expect(bad.body.error).toMatch(/progress_since must be/);
		});

		it('checks access before anything else about the job', async () => {
			expect((await w.c.olga.get(`/api/w/${WS}/jobs/get/${w.jobs.R}?logs=false`)).status).toBe(403);
			expect((await w.c.anon.get(`/api/w/${WS}/jobs/get/${w.jobs.R}?log_offset=0`)).status).toBe(401);
		});
	});

	describe('jobs/run_progress?since=', () => {
		it('without since answers the array as before, with the cursor in a header', async () => {
			const r = await w.c.rita.get(progressUrl(w.jobs.R));
			expect(Array.isArray(r.body)).toBe(true);
			expect(r.body.map(key)).toEqual(['dbt:main/analytics/customers', 'dbt:main/analytics/orders', 'dbt:main/analytics/payments']);
			expect(r.headers.get('x-progress-cursor')).toMatch(/^[0-9]+$/);
		});

		it('since=0 answers every row in the wrapper; the cursor then answers only what changed', async () => {
			const id = await newJob();
			await upsertProgress(database, WS, id, [
				{ assetKind: 'dbt', assetPath: 'main/s/a', status: 'running' },
				{ assetKind: 'dbt', assetPath: 'main/s/b', status: 'running' }
			]);
			const first = await changes(w.c.rita, id, '0');
			expect(first.total).toBe(2);
			expect(first.rows.map(key)).toEqual(['dbt:main/s/a', 'dbt:main/s/b']);
			expect(first.cursor).toMatch(/^[0-9]+$/);
			const quiet = await changes(w.c.rita, id, first.cursor);
			expect(quiet.total).toBe(2);
			expectChanges(backend.name, quiet.rows, [], ['dbt:main/s/a', 'dbt:main/s/b']);
			await upsertProgress(database, WS, id, [
				{ assetKind: 'dbt', assetPath: 'main/s/b', status: 'materialized', rowCount: 7 },
				{ assetKind: 'dbt', assetPath: 'main/s/c', status: 'running' }
			]);
			const next = await changes(w.c.rita, id, quiet.cursor);
			expect(next.total).toBe(3);
			expectChanges(backend.name, next.rows, [item('main/s/b', 'materialized', { row_count: 7 }), item('main/s/c', 'running')], ['dbt:main/s/a']);
			if (backend.name === 'pglite') expect(next.rows.map(key)).toEqual(['dbt:main/s/b', 'dbt:main/s/c']);
			// Another job's writes are not this job's changes.
			const other = await newJob();
			await upsertProgress(database, WS, other, [{ assetKind: 'dbt', assetPath: 'main/s/z', status: 'running' }]);
			expectChanges(backend.name, (await changes(w.c.rita, id, next.cursor)).rows, [], ['dbt:main/s/a', 'dbt:main/s/b', 'dbt:main/s/c']);
			const header = (await w.c.rita.get(progressUrl(id, next.cursor))).headers.get('x-progress-cursor');
			expect(header).toMatch(/^[0-9]+$/);
		});

		it('a cursor it cannot vouch for (from the future, another database) answers every row', async () => {
			const r = await changes(w.c.rita, w.jobs.R, '9000000000000000000');
			expect(r.rows).toHaveLength(3);
		});

		it.each(['abc', '-1', '1.5', '', '99999999999999999999'])('400 for since=%s', async (since) => {
			const r = await w.c.rita.get(progressUrl(w.jobs.R, since));
			expect(r.status).toBe(400);
			expect(r.body.error).toMatch(/since must be a cursor/);
		});

		it('keeps the gate: a share link reads changes, a member without access does not', async () => {
			const viaLink = await w.c.anon.get(`${progressUrl(w.jobs.R, '0')}&view_token=${publicLink}`);
			expect(viaLink.status).toBe(200);
			expect(viaLink.body.rows).toHaveLength(3);
			expect((await w.c.olga.get(progressUrl(w.jobs.R, '0'))).status).toBe(403);
			expect((await w.c.anon.get(progressUrl(w.jobs.R, '0'))).status).toBe(401);
		});

		it('misses no row written concurrently with the reads (writes in transactions, savepoints and batches)', async () => {
			const id = await newJob();
			const N = 60;
			const final = new Map<string, ProgressUpdate>();
			let done = false;
			const writer = (async () => {
				for (let i = 0; i < N; i++) {
					const a: ProgressUpdate = { assetKind: 'dbt', assetPath: `main/s/m${String(i).padStart(3, '0')}`, status: 'running' };
					const b: ProgressUpdate = { ...a, status: 'materialized', rowCount: i };
					if (i % 3 === 0) {
						// Two rows in one transaction, the second in a savepoint.
						const c: ProgressUpdate = { assetKind: 'ducklake', assetPath: `main/t${i}`, status: 'failed', error: `e${i}` };
						await database.db.transaction(async (tx) => {
							await upsertProgress(database, WS, id, [a], tx);
							await new Promise((r) => setTimeout(r, 2));
							await tx.transaction(async (sp) => upsertProgress(database, WS, id, [c], sp));
						});
						final.set(`${c.assetKind}:${c.assetPath}`, c);
					} else await upsertProgress(database, WS, id, [a]);
					// …and later the same relation again: the update must be seen too.
					await upsertProgress(database, WS, id, [b]);
					final.set(`${b.assetKind}:${b.assetPath}`, b);
					if (i % 10 === 0) await new Promise((r) => setTimeout(r, 1));
				}
				done = true;
			})();
			const held = new Map<string, RunProgressItem>();
			let cursor = '0';
			let reads = 0;
			const reader = (async () => {
				for (;;) {
					const last = done;
					const c = await changes(w.c.rita, id, cursor);
					for (const r of c.rows) held.set(key(r), r);
					cursor = c.cursor;
					reads++;
					if (last) return;
					await new Promise((r) => setTimeout(r, 0));
				}
			})();
			await Promise.all([writer, reader]);
			expect(reads).toBeGreaterThan(2);
			const expected = [...final.values()].map((u) => ({
				asset_kind: u.assetKind,
				asset_path: u.assetPath,
				status: u.status,
				...(u.rowCount === undefined || u.rowCount === null ? {} : { row_count: u.rowCount }),
				...(u.error === undefined || u.error === null ? {} : { error: u.error })
			}));
			expect([...held.values()].sort((x, y) => (key(x) < key(y) ? -1 : 1))).toEqual(expected.sort((x, y) => (key(x) < key(y) ? -1 : 1)));
		});

		// Needs a second connection (PGlite has one): registered for Postgres only, not skipped.
		if (backend.name === 'postgres') it(
			'sees a row whose transaction began (and stamped updated_at) before a read and committed after it',
			async () => {
				const id = await newJob();
				await upsertProgress(database, WS, id, [{ assetKind: 'dbt', assetPath: 'main/s/early', status: 'running' }]);
				const start = await changes(w.c.rita, id, '0');
				let release!: () => void;
				const gate = new Promise<void>((r) => (release = r));
				let wrote!: () => void;
				const written = new Promise<void>((r) => (wrote = r));
				// updated_at = now() is this transaction's START: a time cursor taken by the reads
				// below is later than it, and would skip the row once it commits.
				const tx = database.db.transaction(async (t) => {
					await t.execute(sql`select now()`);
					await upsertProgress(database, WS, id, [{ assetKind: 'dbt', assetPath: 'main/s/late', status: 'materialized', rowCount: 1 }], t);
					// …and one in a savepoint (a subtransaction id, above its parent's).
					await t.transaction((sp) => upsertProgress(database, WS, id, [{ assetKind: 'dbt', assetPath: 'main/s/sub', status: 'running' }], sp));
					wrote();
					await gate;
				});
				await written;
				await new Promise((r) => setTimeout(r, 20));
				// A read while the transaction is open: it cannot see the rows yet.
				const during = await changes(w.c.rita, id, start.cursor);
				expectChanges(backend.name, during.rows, [], ['dbt:main/s/early']);
				// Another transaction commits meanwhile (the cursor moves past it, not past the open one).
				await upsertProgress(database, WS, id, [{ assetKind: 'dbt', assetPath: 'main/s/other', status: 'running' }]);
				const between = await changes(w.c.rita, id, during.cursor);
				expectChanges(backend.name, between.rows, [item('main/s/other', 'running')], ['dbt:main/s/early']);
				release();
				await tx;
				const after = await changes(w.c.rita, id, between.cursor);
				expect(after.rows.map(key)).toEqual(expect.arrayContaining(['dbt:main/s/late', 'dbt:main/s/sub']));
				expect(after.total).toBe(4);
			},
			30_000
		);
	});

	describe('a show job’s rows', () => {
		let showJob = '';
		beforeAll(async () => {
			// A child of R, so R's share links open it.
			showJob = await newJob({
				createdBy: 'carl',
				permissionedAs: 'u/carl',
				parentJob: w.jobs.R,
				status: 'success',
				args: { command: 'show', model: 'orders', limit: 5 },
				result: {
					engine: 'dbt-core',
					engine_version: '1.8.2',
					command: 'show',
					model: 'orders',
					limit: 5,
					node: 'orders',
					rows: [{ customer_email: 'v-row-data@example.com', amount: 12 }],
					invocation_args: { command: 'show', model: 'orders' }
				}
			});
		});

		it('are answered to whoever may read the project', async () => {
			for (const c of [w.c.rita, w.c.wendy, w.c.root]) {
				const r = await c.get(`/api/w/${WS}/jobs/get/${showJob}`);
				expect(r.status).toBe(200);
				expect(r.body.redacted).toBe(false);
				expect(r.body.result.rows).toEqual([{ customer_email: 'v-row-data@example.com', amount: 12 }]);
				expect(r.body.result.rows_withheld).toBeUndefined();
			}
		});

		it('are withheld, and said to be, from share-link viewers and others who may not read it', async () => {
			const outsiders: [string, ApiClient, string][] = [
				['anon + public link', w.c.anon, `?view_token=${publicLink}`],
				['olga + member link', w.c.olga, `?view_token=${memberLink}`],
				['carl (its creator, no grant)', w.c.carl, '']
			];
			for (const [who, c, q] of outsiders) {
				for (const extra of ['', 'logs=false', 'log_offset=0']) {
					const sep = q ? '&' : '?';
					const r = await c.get(`/api/w/${WS}/jobs/get/${showJob}${q}${extra ? `${sep}${extra}` : ''}`);
					expect(r.status, who).toBe(200);
					expect(r.body.redacted, who).toBe(true);
					expect(r.body.result.rows, who).toBeUndefined();
					expect(r.body.result.rows_withheld, who).toBe(true);
					expect(JSON.stringify(r.body), who).not.toContain('v-row-data');
					// The shape of what ran stays.
					expect(r.body.result).toMatchObject({ command: 'show', model: 'orders', limit: 5 });
				}
			}
		});
	});
});
