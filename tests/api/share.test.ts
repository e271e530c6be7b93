// Share links through the real routes, on both databases: minting (who may, which kinds), the
// token format, the two domains, and every way a presented token must fail.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/lib/server/db';
import { removeMember } from '../../src/lib/server/repo/workspaces';
import { ApiClient } from '../support/api';
import { testBackends } from '../support/db';
import { buildJobWorld, login, OTHER_WS, tamper, WS, type JobWorld } from '../support/jobs-world';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
/** A stored link's token: job id, link id, MAC. */
const TOKEN = new RegExp(`^${UUID}\\.${UUID}\\.[0-9a-f]{64}$`);

describe.each(testBackends())('share links on $name', (backend) => {
	let database: Database;
	let w: JobWorld;
	let member = '';
	let pub = '';

	const get = (c: ApiClient, id: string, token?: string) =>
		c.get(`/api/w/${WS}/jobs/get/${id}${token === undefined ? '' : `?view_token=${encodeURIComponent(token)}`}`);
	const share = (c: ApiClient, id: string, query: string, token?: string) =>
		c.get(`/api/w/${WS}/jobs/share/${id}?${query}${token === undefined ? '' : `&view_token=${token}`}`);

	beforeAll(async () => {
		database = await backend.open();
		w = await buildJobWorld(database);
	});
	afterAll(async () => {
		w?.restoreEnv();
		await database?.close();
	});

	describe('minting', () => {
		it('answers the stored link with its token and url for each kind, the url opening the run page', async () => {
			const m = await share(w.c.rita, w.jobs.R, 'kind=member');
			const p = await share(w.c.rita, w.jobs.R, 'kind=public');
			expect(m.status).toBe(200);
			expect(p.status).toBe(200);
			expect(Object.keys(m.body).sort()).toEqual(
				['created_at', 'created_by', 'expires_at', 'id', 'job_id', 'kind', 'last_used_at', 'revoked_at', 'revoked_by', 'state', 'token', 'url']
			);
			expect(m.body).toMatchObject({ job_id: w.jobs.R, kind: 'member', created_by: 'rita', expires_at: null, state: 'active' });
			member = m.body.token;
			pub = p.body.token;
			expect(member).toMatch(TOKEN);
			expect(pub).toMatch(TOKEN);
			expect(member.startsWith(`${w.jobs.R}.${m.body.id}.`)).toBe(true);
			expect(member).not.toBe(pub);
			expect(m.body.url).toBe(`/w/${WS}/run/${w.jobs.R}?view_token=${member}`);
			expect(p.body.url).toBe(`/w/${WS}/run/${w.jobs.R}?view_token=${pub}`);
		});

		it('makes a new link each time, whoever mints it (each can be revoked alone)', async () => {
			const again = await share(w.c.wsadmin, w.jobs.R, 'kind=member');
			expect(again.body.token).toMatch(TOKEN);
			expect(again.body.token).not.toBe(member);
			expect(again.body.created_by).toBe('wsadmin');
			// carl created R without being able to read its folder: still entitled to share it.
			const carls = await share(w.c.carl, w.jobs.R, 'kind=public');
			expect(carls.status).toBe(200);
			expect(carls.body.token).not.toBe(pub);
		});

		it.each([['', 'kind'], ['kind=', 'kind'], ['kind=private', 'kind'], ['kind=MEMBER', 'kind'], ['kind=member&kind=public', 'kind'], ['kind=public&expires_in=0', 'expires_in'], ['kind=public&expires_in=1.5', 'expires_in'], ['kind=public&expires_in=-1', 'expires_in'], ['kind=public&expires_in=31536001', 'expires_in'], ['kind=public&expires_in=1&expires_in=2', 'expires_in']])(
			'answers 400 naming the field for ?%s',
			async (q, field) => {
				const r = await share(w.c.rita, w.jobs.R, q);
				expect(r.status).toBe(400);
				expect(r.body.error).toMatch(new RegExp(`^${field}\\b`));
			}
		);

		it('is refused to someone who sees the run only through a link (forwarding is how they share)', async () => {
			const olgaMember = await share(w.c.olga, w.jobs.R, 'kind=member', member);
			expect(olgaMember.status).toBe(403);
			expect(olgaMember.body.error).toMatch(/forward the link you have/);
			// A public link does not buy a member link, nor the other way round.
			expect((await share(w.c.olga, w.jobs.R, 'kind=member', pub)).status).toBe(403);
			expect((await share(w.c.olga, w.jobs.R, 'kind=public', member)).status).toBe(403);
			expect((await share(w.c.anon, w.jobs.R, 'kind=public', pub)).status).toBe(401);
			expect((await share(w.c.sam, w.jobs.R, 'kind=public', pub)).status).toBe(404);
			// Nor may a link holder mint for a descendant the link reaches.
			expect((await share(w.c.olga, w.jobs.C, 'kind=member', member)).status).toBe(403);
		});
	});

	describe('domains', () => {
		it('a member link opens the run for a signed-in member without access, and for nobody else', async () => {
			expect((await get(w.c.olga, w.jobs.R)).status).toBe(403);
			const r = await get(w.c.olga, w.jobs.R, member);
			expect(r.status).toBe(200);
			expect(r.body.redacted).toBe(true);
			expect((await get(w.c.anon, w.jobs.R, member)).status).toBe(401);
			expect((await get(w.c.sam, w.jobs.R, member)).status).toBe(404);
		});

		it('a public link opens the run without a session, read-only', async () => {
			const r = await get(w.c.anon, w.jobs.R, pub);
			expect(r.status).toBe(200);
			expect(r.body.redacted).toBe(true);
			expect(r.body.logs).toBe('');
			expect((await w.c.anon.get(`/api/w/${WS}/jobs/run_progress/${w.jobs.R}?view_token=${pub}`)).status).toBe(200);
		});

		it('a member link stops working when its holder leaves the workspace', async () => {
			expect((await w.c.root.post(`/api/w/${WS}/users`, { username: 'tess', password: 'tess-password-1' })).status).toBe(201);
			const tess = await login('tess');
			expect((await get(tess, w.jobs.R, member)).status).toBe(200);
			expect(await removeMember(database, WS, 'tess')).toBe(true);
			expect((await get(tess, w.jobs.R, member)).status).toBe(404);
			// ...while a public link still opens for them, as for anyone.
			expect((await get(tess, w.jobs.R, pub)).status).toBe(200);
		});

		it('a link opens the job it names and its descendants, never its parent or sibling', async () => {
			expect((await get(w.c.anon, w.jobs.C, pub)).status).toBe(200);
			expect((await get(w.c.anon, w.jobs.G, pub)).status).toBe(200);
			expect((await get(w.c.anon, w.jobs.P, pub)).status).toBe(404);
			expect((await get(w.c.anon, w.jobs.S, pub)).status).toBe(404);
		});

		it('a link opens no other endpoint of the workspace', async () => {
			for (const path of ['jobs/list', 'folders', 'tokens', 'users']) {
				expect((await w.c.anon.get(`/api/w/${WS}/${path}?view_token=${pub}`)).status, path).toBe(401);
			}
		});
	});

	describe('presented tokens that must fail', () => {
		it.each([0, 1, 31, 62, 63])('MAC digit %i changed: anonymous 401, a member without access 403', async (i) => {
			expect((await get(w.c.anon, w.jobs.R, tamper(pub, i))).status).toBe(401);
			expect((await get(w.c.olga, w.jobs.R, tamper(member, i))).status).toBe(403);
		});

		it('the MAC of one job under the id of another', async () => {
			const forged = `${w.jobs.P}.${pub.slice(37)}`;
			expect((await get(w.c.anon, w.jobs.P, forged)).status).toBe(401);
			expect((await get(w.c.anon, w.jobs.R, forged)).status).toBe(401);
		});

		it('a valid link for job A presented for unrelated job B', async () => {
			const forS = (await share(w.c.rita, w.jobs.S, 'kind=public')).body.token;
			expect((await get(w.c.anon, w.jobs.S, forS)).status).toBe(200);
			const r = await get(w.c.anon, w.jobs.R, forS);
			expect(r.status).toBe(404);
			expect(JSON.stringify(r.body)).not.toContain('carl');
		});

		it('a link of another workspace', async () => {
			const x = (await w.c.root.get(`/api/w/${OTHER_WS}/jobs/share/${w.jobs.X}?kind=public`)).body.token;
			expect((await w.c.anon.get(`/api/w/${OTHER_WS}/jobs/get/${w.jobs.X}?view_token=${x}`)).status).toBe(200);
			expect((await get(w.c.anon, w.jobs.X, x)).status).toBe(401);
		});

		it.each([
			['truncated', () => pub.slice(0, -1)],
			['without its link id', () => `${pub.slice(0, 37)}${pub.slice(74)}`],
			['padded', () => `${pub}0`],
			['uppercased', () => pub.toUpperCase()],
			['without its job id', () => pub.slice(37)],
			['empty', () => ''],
			['10 KB', () => 'a'.repeat(10_000)],
			['with a NUL', () => `${pub.slice(0, -1)}\u0000`]
		])('a malformed token (%s)', async (_n, make) => {
			const r = await get(w.c.anon, w.jobs.R, make());
			expect(r.status).toBe(401);
			expect(r.body.error).toMatch(/share link is not valid/);
		});

		it('reads the query before the header, so one request carries one token', async () => {
			const r = await w.c.anon.get(`/api/w/${WS}/jobs/get/${w.jobs.R}?view_token=${tamper(pub)}`, { headers: { 'x-view-token': pub } });
			expect(r.status).toBe(401);
			const viaHeader = await w.c.anon.get(`/api/w/${WS}/jobs/get/${w.jobs.R}`, { headers: { 'x-view-token': pub } });
			expect(viaHeader.status).toBe(200);
		});
	});
});
