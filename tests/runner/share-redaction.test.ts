// What a share-link viewer of a FAILED run sees, through the real routes, the real worker and a
// real share link, on both databases: dbt's own error messages quote SQL and file paths (the
// recorded failure says `syntax error at or near "final"`, `LINE 43: final as (` and
// `models/orders.sql`), so a viewer who may not read the project gets the outcome (failed, which
// node, dbt's status word) without them, and without the resolution digest (an unsalted hash of
// the withheld vars). A member who may read the project keeps all of it.
import path from 'node:path';
import type { Cookies } from '@sveltejs/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../src/lib/server/auth/authenticate';
import type { Database } from '../../src/lib/server/db';
import { load as runPageLoad } from '../../src/routes/w/[ws]/run/[id]/+page.server';
import { ApiClient } from '../support/api';
import { testBackends } from '../support/db';
import { describeFixtures } from '../support/fixtures';
import { buildRunnerWorld, PG_LOGS, WS, type RunnerWorld } from '../support/runner-world';

const FAILED_RUN = path.join(PG_LOGS, 'run', 'failed_run.log.jsonl');
const RUN_MANIFEST = path.join(PG_LOGS, 'run', 'manifest.json');
const FAILED = 'model.jaffle_shop.orders';

// What dbt's message for the failed model holds (see the recorded log): none reaches a viewer
// who may not read the project.
const AUTHORED = ['syntax error', 'final as', 'models/orders.sql', 'target/run', 'Database Error in model orders', 'v-secret-start'];

/** The run page's data as its load function answers it, for a client (its session) and a link. */
async function runPage(client: ApiClient, id: string, token: string | null): Promise<any> {
	const url = new URL(`http://localhost/w/${WS}/run/${id}${token ? `?view_token=${token}` : ''}`);
	const request = new Request(url, { headers: client.jar.values.size ? { cookie: client.jar.header() } : {} });
	const cookies = { get: (n: string) => client.jar.values.get(n), set: () => {}, delete: () => {} } as unknown as Cookies;
	const auth = await authenticate({ request, cookies, url });
	const data = (await runPageLoad({ url, request, cookies, params: { ws: WS, id }, locals: { auth }, depends: () => {}, parent: async () => ({}) } as never)) as any;
	// The page's progress travels as JSON text; the rows are what the page parses from it.
	expect(typeof data.progressJson).toBe('string');
	return { ...data, progress: JSON.parse(data.progressJson) };
}

describeFixtures('a share-link viewer of a failed run', () => {
	describe.each(testBackends())('on $name', (backend) => {
		let database: Database;
		let w: RunnerWorld;
		let id = '';
		const links = { member: '', public: '' };

		beforeAll(async () => {
			database = await backend.open();
			w = await buildRunnerWorld(database);
			await w.deploy('broken', { speed: 100, commands: { run: { log: FAILED_RUN, manifest: RUN_MANIFEST } } }, { manifest: RUN_MANIFEST, descriptor: 'vars:\n  start: "{{ start }}"\n' });
			const job = await w.waitJob(await w.run('broken', { command: 'run', select: ['orders'], start: 'v-secret-start' }));
			expect(job.status, job.logs).toBe('failure');
			id = job.id;
			for (const kind of ['member', 'public'] as const) {
				const r = await w.wendy.get(`/api/w/${WS}/jobs/share/${id}?kind=${kind}`);
				expect(r.status).toBe(200);
				links[kind] = r.body.token;
			}
		}, 120_000);
		afterAll(async () => {
			await w?.close();
		});

		// carl is a member without a grant on the folder; rita reads it.
		const viewers = () =>
			[
				['anon + public link', new ApiClient(), links.public],
				['carl + member link', w.carl, links.member]
			] as const;

		it('the reader gets dbt\'s messages and the digest (the baseline the redaction is measured against)', async () => {
			const r = await w.rita.get(`/api/w/${WS}/jobs/get/${id}?progress_since=0`);
			expect(r.body.redacted).toBe(false);
			expect(r.body.result.error).toContain(`${FAILED} [error]: Database Error in model orders (models/orders.sql)`);
			expect(r.body.result.nodes.find((n: any) => n.unique_id === FAILED).message).toContain('syntax error at or near "final"');
			expect(r.body.result.resolution_digest).toMatch(/^[0-9a-f]{64}$/);
			const progress = (await w.rita.get(`/api/w/${WS}/jobs/run_progress/${id}`)).body;
			expect(progress.find((p: any) => p.asset_path === 'main/public/orders')).toMatchObject({ status: 'failed', error: expect.stringContaining('syntax error') });
			const page = await runPage(w.rita, id, null);
			expect(page.job.result.nodes.find((n: any) => n.unique_id === FAILED).message).toContain('syntax error');
			expect(page.progress.find((p: any) => p.asset_path === 'main/public/orders').error).toContain('syntax error');
		});

		it.each([0, 1])('jobs/get: the outcome without dbt\'s messages or the digest (viewer %i)', async (i) => {
			const [name, client, token] = viewers()[i];
			const r = await client.get(`/api/w/${WS}/jobs/get/${id}?view_token=${token}`);
			expect(r.status, name).toBe(200);
			expect(r.body.redacted).toBe(true);
			const text = JSON.stringify(r.body);
			for (const m of AUTHORED) expect(text, `${name}: ${m}`).not.toContain(m);
			expect(text).not.toContain('resolution_digest');
			// The generic outcome: which node failed, dbt's status word, and why in words that quote nothing.
			const reason = 'Database error in model orders: the SQL could not be parsed';
			expect(r.body.status).toBe('failure');
			expect(r.body.result.error).toBe(`1 dbt node did not succeed:\n  ${FAILED} [error]: ${reason}`);
			expect(r.body.result.messages_withheld).toBe(true);
			const node = r.body.result.nodes.find((n: any) => n.unique_id === FAILED);
			expect(node).toMatchObject({ unique_id: FAILED, status: 'error', outcome: 'failed', reason });
			expect(node.message).toBeUndefined();
			// The nodes that succeeded are still there, with their statuses.
			expect(r.body.result.nodes.filter((n: any) => n.outcome === 'passed').length).toBe(r.body.result.totals.success);
			expect(r.body.result.totals.error).toBe(1);
		});

		it.each([0, 1])('jobs/run_progress and the poll\'s progress: statuses without errors (viewer %i)', async (i) => {
			const [name, client, token] = viewers()[i];
			const full = await client.get(`/api/w/${WS}/jobs/run_progress/${id}?view_token=${token}`);
			expect(full.status, name).toBe(200);
			const since = await client.get(`/api/w/${WS}/jobs/run_progress/${id}?since=0&view_token=${token}`);
			const poll = await client.get(`/api/w/${WS}/jobs/get/${id}?logs=false&progress_since=0&view_token=${token}`);
			for (const rows of [full.body, since.body.rows, poll.body.progress.rows]) {
				expect(rows.find((p: any) => p.asset_path === 'main/public/orders')).toEqual({ asset_kind: 'dbt', asset_path: 'main/public/orders', status: 'failed' });
				expect(rows.every((p: any) => p.error === undefined)).toBe(true);
				for (const m of AUTHORED) expect(JSON.stringify(rows)).not.toContain(m);
			}
		});

		it.each([0, 1])('the run page\'s data: no message, no digest (viewer %i)', async (i) => {
			const [name, client, token] = viewers()[i];
			const page = await runPage(client, id, token);
			expect(page.job.redacted, name).toBe(true);
			const text = JSON.stringify(page);
			for (const m of AUTHORED) expect(text, `${name}: ${m}`).not.toContain(m);
			expect(text).not.toContain('resolution_digest');
			expect(page.progress.find((p: any) => p.asset_path === 'main/public/orders').status).toBe('failed');
			expect(page.job.result.nodes.find((n: any) => n.unique_id === FAILED)).toMatchObject({ status: 'error', reason: 'Database error in model orders: the SQL could not be parsed' });
		});

		it('a reader who opens the link keeps what they may read', async () => {
			const r = await w.rita.get(`/api/w/${WS}/jobs/get/${id}?view_token=${links.member}`);
			expect(r.body.redacted).toBe(false);
			expect(r.body.result.nodes.find((n: any) => n.unique_id === FAILED).message).toContain('syntax error');
			const page = await runPage(w.rita, id, links.member);
			expect(page.progress.find((p: any) => p.asset_path === 'main/public/orders').error).toContain('syntax error');
		});
	});
});
