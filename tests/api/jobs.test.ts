// The jobs/* read API through the real routes and hook, on both databases: the gate matrix of
// job read access (DESIGN.md §6), redaction of what the author wrote, run progress, and the
// listing's read rule applied in SQL before its LIMIT.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/lib/server/db';
import { ASK_FOR_SHARE_LINK } from '../../src/lib/server/access';
import { insertJob, progressOf, upsertProgress } from '../../src/lib/server/repo/jobs';
import { ApiClient } from '../support/api';
import { testBackends } from '../support/db';
import { AUTHORED_MARKERS, buildJobWorld, jobClock, login, OTHER_WS, SECRET_PATH, tamper, WS, type JobWorld } from '../support/jobs-world';

/**
 * Who calls. Folder `secret` (where job R lives): readers u/rita and g/analysts (gina), writer
 * u/wendy. Folder `sec` (a name that is a prefix of `secret`) is read by olga. carl created R
 * but has no grant on `secret`. sam is a member of the other workspace only. Links are minted
 * for R by rita unless the name says otherwise: `(S)` a link to R's sibling, `(X)` a link minted
 * in the other workspace; `tampered` has one MAC digit changed; `(header)` sends X-View-Token
 * instead of ?view_token=. `tok <user> <scopes>` is a bearer token of that user.
 */
type CallerKey = string;

// Expected answers for job R. `redacted`: whether jobs/get withholds the authored fields
// (args.vars, code in the result, the log); '-' where there is no 200.
//
// caller                                              get  redacted  progress  share
const MATRIX: [CallerKey, number, boolean | '-', number, number][] = [
	['root (instance admin, workspace admin)',           200, false,    200,      200],
	['wsadmin (workspace admin)',                        200, false,    200,      200],
	['carl (created R, no grant on the folder)',         200, true,     200,      200],
	['rita (folder reader)',                             200, false,    200,      200],
	['gina (reader through a group)',                    200, false,    200,      200],
	['wendy (folder writer)',                            200, false,    200,      200],
	['olga (member, no grant)',                          403, '-',      403,      403],
	['sam (member of another workspace)',                404, '-',      404,      404],
	['anon',                                             401, '-',      401,      401],
	['expired session',                                  401, '-',      401,      401],
	['olga + member link',                               200, true,     200,      403],
	['olga + public link',                               200, true,     200,      403],
	['olga + member link (header)',                      200, true,     200,      403],
	['sam + member link',                                404, '-',      404,      404],
	['anon + member link',                               401, '-',      401,      401],
	['anon + public link',                               200, true,     200,      401],
	['anon + public link (header)',                      200, true,     200,      401],
	['sam + public link',                                200, true,     200,      404],
	['anon + tampered public link',                      401, '-',      401,      401],
	['olga + tampered member link',                      403, '-',      403,      403],
	['rita + tampered member link',                      200, false,    200,      200],
	['anon + public link (S)',                           404, '-',      404,      401],
	['olga + member link (S)',                           403, '-',      403,      403],
	['anon + public link (X)',                           401, '-',      401,      401],
	['tok rita (no scopes)',                             200, false,    200,      200],
	['tok rita jobs:read',                               200, true,     200,      200],
	['tok rita assets:read',                             403, '-',      403,      403],
	['tok rita jobs:read scripts:read:f/secret/*',       200, false,    200,      200],
	['tok rita jobs:read scripts:read:f/sec/*',          200, true,     200,      200],
	['tok rita jobs:read:f/secret/*',                    200, true,     200,      200],
	['tok rita jobs:read:f/sec/*',                       403, '-',      403,      403],
	['tok olga jobs:read',                               403, '-',      403,      403],
	['tok olga jobs:read + public link',                 200, true,     200,      403],
	['tok olga assets:read + public link',               403, '-',      403,      403],
	['tok sam jobs:read (other workspace)',              404, '-',      404,      404],
	['tok sam jobs:read (other workspace) + public link', 200, true,    200,      404]
];

interface Caller {
	client: ApiClient;
	token?: string;
	header?: boolean;
}

function withToken(url: string, c: Caller): [string, { headers?: Record<string, string> }] {
	if (!c.token) return [url, {}];
	if (c.header) return [url, { headers: { 'x-view-token': c.token } }];
	return [`${url}${url.includes('?') ? '&' : '?'}view_token=${c.token}`, {}];
}

function call(c: Caller, url: string) {
	const [u, opts] = withToken(url, c);
	return c.client.get(u, opts);
}

const EXPECTED_PROGRESS = [
	{ asset_kind: 'dbt', asset_path: 'main/analytics/customers', status: 'materialized', row_count: 12 },
	{ asset_kind: 'dbt', asset_path: 'main/analytics/orders', status: 'failed', error: 'Database Error in model orders' },
	{ asset_kind: 'dbt', asset_path: 'main/analytics/payments', status: 'running' }
];
/** What a caller who may not read the project gets: the statuses, not dbt's message (it quotes SQL and paths). */
const REDACTED_PROGRESS = EXPECTED_PROGRESS.map(({ error: _message, ...row }) => row);

describe.each(testBackends())('jobs API on $name', (backend) => {
	let database: Database;
	let w: JobWorld;
	const callers = new Map<CallerKey, Caller>();
	const links = { member: '', public: '', memberS: '', publicS: '', publicX: '' };

	async function mint(c: ApiClient, ws: string, id: string, kind: 'member' | 'public'): Promise<string> {
		const r = await c.get(`/api/w/${ws}/jobs/share/${id}?kind=${kind}`);
		expect(r.status, JSON.stringify(r.body)).toBe(200);
		return r.body.token;
	}

	beforeAll(async () => {
		database = await backend.open();
		w = await buildJobWorld(database);
		const { c, jobs } = w;
		links.member = await mint(c.rita, WS, jobs.R, 'member');
		links.public = await mint(c.rita, WS, jobs.R, 'public');
		links.memberS = await mint(c.rita, WS, jobs.S, 'member');
		links.publicS = await mint(c.rita, WS, jobs.S, 'public');
		links.publicX = await mint(c.root, OTHER_WS, jobs.X, 'public');

		const expired = await login('carl');
		const stale = new ApiClient({ cookie: expired.jar.header() });
		expect((await expired.post('/api/auth/logout')).status).toBe(200);

		const add = (k: CallerKey, v: Caller) => callers.set(k, v);
		add('root (instance admin, workspace admin)', { client: c.root });
		add('wsadmin (workspace admin)', { client: c.wsadmin });
		add('carl (created R, no grant on the folder)', { client: c.carl });
		add('rita (folder reader)', { client: c.rita });
		add('gina (reader through a group)', { client: c.gina });
		add('wendy (folder writer)', { client: c.wendy });
		add('olga (member, no grant)', { client: c.olga });
		add('sam (member of another workspace)', { client: c.sam });
		add('anon', { client: c.anon });
		add('expired session', { client: stale });
		add('olga + member link', { client: c.olga, token: links.member });
		add('olga + public link', { client: c.olga, token: links.public });
		add('olga + member link (header)', { client: c.olga, token: links.member, header: true });
		add('sam + member link', { client: c.sam, token: links.member });
		add('anon + member link', { client: c.anon, token: links.member });
		add('anon + public link', { client: c.anon, token: links.public });
		add('anon + public link (header)', { client: c.anon, token: links.public, header: true });
		add('sam + public link', { client: c.sam, token: links.public });
		add('anon + tampered public link', { client: c.anon, token: tamper(links.public) });
		add('olga + tampered member link', { client: c.olga, token: tamper(links.member) });
		add('rita + tampered member link', { client: c.rita, token: tamper(links.member) });
		add('anon + public link (S)', { client: c.anon, token: links.publicS });
		add('olga + member link (S)', { client: c.olga, token: links.memberS });
		add('anon + public link (X)', { client: c.anon, token: links.publicX });
		add('tok rita (no scopes)', { client: await w.token('rita', []) });
		add('tok rita jobs:read', { client: await w.token('rita', ['jobs:read']) });
		add('tok rita assets:read', { client: await w.token('rita', ['assets:read']) });
		add('tok rita jobs:read scripts:read:f/secret/*', { client: await w.token('rita', ['jobs:read', 'scripts:read:f/secret/*']) });
		add('tok rita jobs:read scripts:read:f/sec/*', { client: await w.token('rita', ['jobs:read', 'scripts:read:f/sec/*']) });
		add('tok rita jobs:read:f/secret/*', { client: await w.token('rita', ['jobs:read:f/secret/*']) });
		add('tok rita jobs:read:f/sec/*', { client: await w.token('rita', ['jobs:read:f/sec/*']) });
		const olgaJobs = await w.token('olga', ['jobs:read']);
		add('tok olga jobs:read', { client: olgaJobs });
		add('tok olga jobs:read + public link', { client: olgaJobs, token: links.public });
		add('tok olga assets:read + public link', { client: await w.token('olga', ['assets:read']), token: links.public });
		const samJobs = await w.token('sam', ['jobs:read'], OTHER_WS);
		add('tok sam jobs:read (other workspace)', { client: samJobs });
		add('tok sam jobs:read (other workspace) + public link', { client: samJobs, token: links.public });
	});
	afterAll(async () => {
		w?.restoreEnv();
		await database?.close();
	});

	const caller = (k: CallerKey): Caller => {
		const c = callers.get(k);
		if (!c) throw new Error(`no caller ${k}`);
		return c;
	};

	describe('gate matrix on job R', () => {
		it('covers every caller of the table', () => {
			expect([...callers.keys()].sort()).toEqual(MATRIX.map((r) => r[0]).sort());
		});

		it.each(MATRIX)('jobs/get: %s → %i', async (k, status, redacted) => {
			const r = await call(caller(k), `/api/w/${WS}/jobs/get/${w.jobs.R}`);
			expect(r.status, JSON.stringify(r.body)).toBe(status);
			if (status === 403 && k.startsWith('olga')) expect(r.body.error).toBe(ASK_FOR_SHARE_LINK);
			if (status !== 200) {
				expect(JSON.stringify(r.body)).not.toContain('secret_column');
				return;
			}
			expect(r.body.id).toBe(w.jobs.R);
			expect(r.body.redacted).toBe(redacted);
			const text = JSON.stringify(r.body);
			if (redacted) {
				for (const m of AUTHORED_MARKERS) expect(text).not.toContain(m);
				expect(r.body.args).toEqual({ command: 'build', select: ['orders'] });
				expect(r.body.logs).toBe('');
				// The outcome stays (what failed, dbt's status word, why in words that quote nothing); dbt's message does not.
				expect(r.body.result.nodes[0]).toEqual({
					unique_id: 'model.p.orders',
					status: 'error',
					outcome: 'failed',
					reason: 'Database error in model orders: a referenced column was not found'
				});
				expect(r.body.result.messages_withheld).toBe(true);
				expect(text).not.toContain('Database Error');
			} else {
				expect(r.body.args.vars).toEqual({ api_key: 'v-secret-api-key' });
				expect(r.body.logs).toContain('select secret_column');
				expect(r.body.result.nodes[0].compiled_code).toBe('select secret_column from raw');
				// A reader of the project gets dbt's whole message, quoted SQL included.
				expect(r.body.result.nodes[0].message).toMatch(/^Database Error in model orders \(models\/secret_orders\.sql\)\n {2}Binder Error: Referenced column "secret_column"/);
			}
		});

		it.each(MATRIX)('jobs/run_progress: %s → %i', async (k, _get, redacted, status) => {
			const r = await call(caller(k), `/api/w/${WS}/jobs/run_progress/${w.jobs.R}`);
			expect(r.status, JSON.stringify(r.body)).toBe(status);
			if (status === 200) expect(r.body).toEqual(redacted === true ? REDACTED_PROGRESS : EXPECTED_PROGRESS);
			else expect(Array.isArray(r.body)).toBe(false);
		});

		it.each(MATRIX)('jobs/share: %s → %i', async (k, _get, _red, _p, status) => {
			const r = await call(caller(k), `/api/w/${WS}/jobs/share/${w.jobs.R}?kind=public`);
			expect(r.status, JSON.stringify(r.body)).toBe(status);
			if (status === 200) {
				// A link of its own (each is stored and revocable alone) that opens R.
				expect(r.body.token.startsWith(`${w.jobs.R}.${r.body.id}.`)).toBe(true);
				expect(r.body.token).not.toBe(links.public);
				expect((await call({ client: w.c.anon, token: r.body.token }, `/api/w/${WS}/jobs/get/${w.jobs.R}`)).status).toBe(200);
			} else expect(r.body.token).toBeUndefined();
		});
	});

	describe('a share link reaches its job and descendants only', () => {
		// R's family: P → R → C → G, and S is R's sibling under P. U is olga's own job.
		const FAMILY: [string, 'P' | 'R' | 'C' | 'G' | 'S' | 'U', number, number][] = [
			// job                       anon + public(R)  olga + member(R)
			['R, the shared job', 'R', 200, 200],
			['C, its child', 'C', 200, 200],
			['G, its grandchild', 'G', 200, 200],
			['P, its parent', 'P', 404, 403],
			['S, its sibling', 'S', 404, 403],
			['U, unrelated', 'U', 404, 200]
		];
		it.each(FAMILY)('%s', async (_n, job, anonStatus, olgaStatus) => {
			for (const path of ['get', 'run_progress']) {
				const url = `/api/w/${WS}/jobs/${path}/${w.jobs[job]}`;
				expect((await call({ client: w.c.anon, token: links.public }, url)).status).toBe(anonStatus);
				expect((await call({ client: w.c.olga, token: links.member }, url)).status).toBe(olgaStatus);
			}
		});

		it('answers through the job of the workspace in the URL only', async () => {
			const x = `/api/w/${OTHER_WS}/jobs/get/${w.jobs.X}`;
			expect((await call({ client: w.c.anon, token: links.publicX }, x)).status).toBe(200);
			// The same job id asked in acme is not found: jobs never cross workspaces.
			expect((await w.c.rita.get(`/api/w/${WS}/jobs/get/${w.jobs.X}`)).status).toBe(404);
			expect((await w.c.root.get(`/api/w/${WS}/jobs/get/${w.jobs.X}`)).status).toBe(404);
		});

		it('stops walking up after a bounded depth, and on a cycle', async () => {
			const at = jobClock();
			const chain: string[] = [w.jobs.G];
			for (let i = 0; i < 33; i++) {
				const parent = chain[chain.length - 1];
				chain.push(
					await database.db.transaction((tx) =>
						insertJob(tx, { workspace: WS, kind: 'run', scriptPath: SECRET_PATH, scriptHash: 42n, createdBy: 'wendy', permissionedAs: 'u/wendy', status: 'success', parentJob: parent, createdAt: at() })
					)
				);
			}
			// chain[i] is i steps below G, so i + 2 below R.
			const anonPublic = (id: string) => call({ client: w.c.anon, token: links.public }, `/api/w/${WS}/jobs/get/${id}`);
			expect((await anonPublic(chain[30])).status).toBe(200);
			expect((await anonPublic(chain[31])).status).toBe(404);

			const a = crypto.randomUUID();
			const b = crypto.randomUUID();
			const mk = (id: string, parent: string) =>
				database.db.transaction((tx) =>
					insertJob(tx, { workspace: WS, kind: 'run', scriptPath: SECRET_PATH, scriptHash: 42n, createdBy: 'wendy', permissionedAs: 'u/wendy', status: 'success', parentJob: parent }, id)
				);
			await mk(a, b);
			await mk(b, a);
			expect((await anonPublic(a)).status).toBe(404);
		});
	});

	describe('jobs/get', () => {
		it('answers the job with its fields as the API writes them', async () => {
			const r = await w.c.rita.get(`/api/w/${WS}/jobs/get/${w.jobs.R}`);
			expect(r.status).toBe(200);
			expect(Object.keys(r.body).sort()).toEqual(
				['args', 'completed_at', 'created_at', 'created_by', 'id', 'kind', 'logs', 'logs_truncated', 'parent_job', 'redacted', 'result', 'script_hash', 'script_path', 'started_at', 'status'].sort()
			);
			expect(r.body).toMatchObject({
				kind: 'run',
				status: 'failure',
				script_path: SECRET_PATH,
				script_hash: '000000000000002a',
				created_by: 'carl',
				parent_job: w.jobs.P,
				logs_truncated: false
			});
			expect(typeof r.body.result).toBe('object');
			expect(new Date(r.body.created_at).toISOString()).toBe(r.body.created_at);
			expect(r.headers.get('cache-control')).toContain('no-store');
		});

		it('accepts an uppercase id as the same job', async () => {
			const r = await w.c.rita.get(`/api/w/${WS}/jobs/get/${w.jobs.R.toUpperCase()}`);
			expect(r.status).toBe(200);
			expect(r.body.id).toBe(w.jobs.R);
		});

		it('serves the tail of a long log and says it was cut', async () => {
			const id = await database.db.transaction((tx) =>
				insertJob(tx, { workspace: WS, kind: 'run', scriptPath: SECRET_PATH, scriptHash: 42n, createdBy: 'rita', permissionedAs: 'u/rita', status: 'success', logs: `${'x'.repeat(250_000)}THE END` })
			);
			const r = await w.c.rita.get(`/api/w/${WS}/jobs/get/${id}`);
			expect(r.body.logs_truncated).toBe(true);
			expect(r.body.logs.length).toBe(200_000);
			expect(r.body.logs.endsWith('THE END')).toBe(true);
		});

		it.each([
			['not a uuid', 'not-a-uuid'],
			['a number', '12345'],
			['a uuid with a NUL', `${'0'.repeat(8)}-0000-0000-0000-00000000000%00`],
			['10 KB', 'a'.repeat(10_000)],
			['SQL', "1'%20or%20'1'='1"]
		])('answers 400 for an id that is %s', async (_n, id) => {
			for (const path of ['get', 'run_progress', 'share']) {
				const r = await w.c.rita.get(`/api/w/${WS}/jobs/${path}/${id}?kind=member`);
				expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBe(400);
				expect(r.body.error).toMatch(/^id /);
			}
			expect((await w.c.anon.get(`/api/w/${WS}/jobs/get/${id}`)).status).toBe(400);
		});

		it('answers 404 for a job that does not exist, and 400 for a malformed workspace', async () => {
			const r = await w.c.rita.get(`/api/w/${WS}/jobs/get/${crypto.randomUUID()}`);
			expect(r.status).toBe(404);
			expect(r.body.error).toBe('no such job');
			expect((await call({ client: w.c.anon, token: links.public }, `/api/w/${WS}/jobs/get/${crypto.randomUUID()}`)).status).toBe(404);
			expect((await w.c.rita.get(`/api/w/ACME/jobs/get/${w.jobs.R}`)).status).toBe(400);
		});
	});

	describe('jobs/run_progress', () => {
		it('answers an empty array for a job with no progress', async () => {
			const r = await w.c.rita.get(`/api/w/${WS}/jobs/run_progress/${w.jobs.G}`);
			expect(r.status).toBe(200);
			expect(r.body).toEqual([]);
		});

		it('shows the latest state of each relation (upserts replace, the last of a batch wins)', async () => {
			await upsertProgress(database, WS, w.jobs.C, [
				{ assetKind: 'dbt', assetPath: 'main/b', status: 'running' },
				{ assetKind: 'dbt', assetPath: 'main/a', status: 'running' }
			]);
			await upsertProgress(database, WS, w.jobs.C, [
				{ assetKind: 'dbt', assetPath: 'main/b', status: 'failed', error: 'boom' },
				{ assetKind: 'dbt', assetPath: 'main/a', status: 'materialized', rowCount: 3 },
				{ assetKind: 'dbt', assetPath: 'main/b', status: 'materialized', rowCount: 0 }
			]);
			const r = await w.c.rita.get(`/api/w/${WS}/jobs/run_progress/${w.jobs.C}`);
			expect(r.body).toEqual([
				{ asset_kind: 'dbt', asset_path: 'main/a', status: 'materialized', row_count: 3 },
				{ asset_kind: 'dbt', asset_path: 'main/b', status: 'materialized', row_count: 0 }
			]);
			// Another workspace's rows for the same job id are not this job's.
			expect(await progressOf(database, OTHER_WS, w.jobs.C)).toEqual([]);
		});
	});

	describe('jobs/list', () => {
		const ids = (body: { id: string }[]) => body.map((j) => j.id);
		let family: string[];

		beforeAll(async () => {
			// 60 jobs nobody but admins may read, all newer than everything else: a listing that
			// filtered after its LIMIT would return none of the caller's.
			const at = jobClock(Date.now());
			for (let i = 0; i < 60; i++) {
				await database.db.transaction((tx) =>
					insertJob(tx, { workspace: WS, kind: 'run', scriptPath: 'f/hidden/x', scriptHash: 1n, createdBy: 'wendy', permissionedAs: 'u/wendy', status: 'success', createdAt: at() })
				);
			}
			const older = jobClock(Date.now() - 48 * 3600_000);
			for (const status of ['queued', 'running'] as const) {
				await database.db.transaction((tx) =>
					insertJob(tx, { workspace: WS, kind: 'run', scriptPath: 'u/olga/other', scriptHash: 3n, createdBy: 'olga', permissionedAs: 'u/olga', status, createdAt: older() })
				);
			}
			family = [w.jobs.P, w.jobs.R, w.jobs.C, w.jobs.G, w.jobs.S];
		});

		it('applies the read rule before the LIMIT', async () => {
			const r = await w.c.olga.get(`/api/w/${WS}/jobs/list?limit=3`);
			expect(r.status).toBe(200);
			expect(r.body).toHaveLength(3);
			expect(r.body.every((j: { created_by: string }) => j.created_by === 'olga')).toBe(true);
			expect(ids(r.body)[0]).toBe(w.jobs.U);
		});

		it('lists newest first, with the summary fields only', async () => {
			const r = await w.c.rita.get(`/api/w/${WS}/jobs/list?script_path=${SECRET_PATH}&limit=5`);
			expect(r.status).toBe(200);
			expect(Object.keys(r.body[0]).sort()).toEqual(
				['completed_at', 'created_at', 'created_by', 'id', 'kind', 'script_hash', 'script_path', 'status'].sort()
			);
			const times = r.body.map((j: { created_at: string }) => j.created_at);
			expect([...times].sort().reverse()).toEqual(times);
		});

		it('shows each caller what the job rule gives them', async () => {
			const rita = ids((await w.c.rita.get(`/api/w/${WS}/jobs/list?limit=500`)).body);
			for (const id of family) expect(rita).toContain(id);
			expect(rita).not.toContain(w.jobs.U);
			expect(rita).not.toContain(w.jobs.X);
			expect(rita.length).toBeGreaterThan(family.length);

			expect(ids((await w.c.carl.get(`/api/w/${WS}/jobs/list?limit=500`)).body)).toEqual([w.jobs.R]);
			expect(ids((await w.c.olga.get(`/api/w/${WS}/jobs/list?limit=500`)).body)).toHaveLength(3);

			const admin = ids((await w.c.wsadmin.get(`/api/w/${WS}/jobs/list?limit=500`)).body);
			expect(admin).toContain(w.jobs.U);
			expect(admin).toContain(w.jobs.R);
			expect(admin).not.toContain(w.jobs.X);
			expect((await w.c.root.get(`/api/w/${WS}/jobs/list`)).body).toHaveLength(50);
		});

		it('is for members: 401 anonymous, 404 another workspace, a share link opens no listing', async () => {
			expect((await w.c.anon.get(`/api/w/${WS}/jobs/list`)).status).toBe(401);
			expect((await w.c.anon.get(`/api/w/${WS}/jobs/list?view_token=${links.public}`)).status).toBe(401);
			expect((await w.c.sam.get(`/api/w/${WS}/jobs/list`)).status).toBe(404);
			const olga = ids((await w.c.olga.get(`/api/w/${WS}/jobs/list?limit=500&view_token=${links.member}`)).body);
			expect(olga).not.toContain(w.jobs.R);
		});

		it('narrows to the token: jobs:read needed, its paths respected, the job rule still applies', async () => {
			expect((await (await w.token('rita', ['assets:read'])).get(`/api/w/${WS}/jobs/list`)).status).toBe(403);
			const scoped = ids((await (await w.token('rita', ['jobs:read:f/secret/*'])).get(`/api/w/${WS}/jobs/list?limit=500`)).body);
			expect(scoped.length).toBeGreaterThanOrEqual(family.length);
			expect((await (await w.token('rita', ['jobs:read:f/sec/*'])).get(`/api/w/${WS}/jobs/list`)).body).toEqual([]);
			// jobs:read alone does not let olga past the job rule.
			expect(ids((await (await w.token('olga', ['jobs:read'])).get(`/api/w/${WS}/jobs/list?limit=500`)).body)).toHaveLength(3);
			// An exact-path scope reaches that path and nothing beside it.
			const exact = (await (await w.token('olga', ['jobs:read:u/olga/mine'])).get(`/api/w/${WS}/jobs/list?limit=500`)).body;
			expect(ids(exact)).toEqual([w.jobs.U]);
		});

		it('filters by script_path, kind and status', async () => {
			const byPath = (await w.c.olga.get(`/api/w/${WS}/jobs/list?script_path=u/olga/other`)).body;
			expect(byPath).toHaveLength(2);
			expect((await w.c.olga.get(`/api/w/${WS}/jobs/list?kind=deploy`)).body.map((j: { id: string }) => j.id)).toEqual([w.jobs.U]);
			const running = (await w.c.olga.get(`/api/w/${WS}/jobs/list?status=running`)).body;
			expect(running).toHaveLength(1);
			expect(running[0]).toMatchObject({ status: 'running', completed_at: null });
			expect((await w.c.rita.get(`/api/w/${WS}/jobs/list?status=failure&kind=run`)).body.map((j: { id: string }) => j.id)).toContain(w.jobs.R);
			// A folder that exists but the caller cannot read lists nothing (never an error that
			// would tell them it holds jobs).
			expect((await w.c.olga.get(`/api/w/${WS}/jobs/list?script_path=${SECRET_PATH}`)).body).toEqual([]);
		});

		it.each([
			['kind=bogus', 'kind'],
			['status=done', 'status'],
			['limit=0', 'limit'],
			['limit=501', 'limit'],
			['limit=abc', 'limit'],
			['limit=-1', 'limit'],
			['limit=1.5', 'limit'],
			['limit=', 'limit'],
			['kind=run&kind=deploy', 'kind'],
			['script_path=f/../x', 'script_path'],
			['script_path=f%2Fa', 'script_path'],
			['script_path=f/a/%25', 'script_path']
		])('answers 400 naming the field for %s', async (q, field) => {
			const r = await w.c.rita.get(`/api/w/${WS}/jobs/list?${q}`);
			expect(r.status).toBe(400);
			expect(r.body.error).toMatch(new RegExp(`^${field}\\b`));
		});

		it('accepts the bounds of limit', async () => {
			expect((await w.c.root.get(`/api/w/${WS}/jobs/list?limit=1`)).body).toHaveLength(1);
			expect((await w.c.root.get(`/api/w/${WS}/jobs/list?limit=500`)).status).toBe(200);
		});
	});
});
