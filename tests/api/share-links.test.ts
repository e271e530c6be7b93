// Share links with a lifetime, through the real routes on both databases: making one with each
// lifetime the run page offers, the run's list (who made each, when, expiry, last use), revoking
// one, who may do each (the right to make a link), a revoked or expired link answering exactly
// as a forged one, and the links minted before links were stored, which keep working.
import { createHmac } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { workspaceSecret } from '../../src/lib/server/bootstrap';
import type { Database } from '../../src/lib/server/db';
import { SHARE_LIFETIMES } from '../../src/lib/types/jobs';
import { load as runLoad } from '../../src/routes/w/[ws]/run/[id]/+page.server';
import type { ApiClient } from '../support/api';
import { testBackends } from '../support/db';
import { pageEventOf, pageOutcome } from '../support/pages';
import { buildJobWorld, tamper, WS, type JobWorld } from '../support/jobs-world';

const DAY_MS = 86_400_000;

describe.each(testBackends())('share links with a lifetime on $name', (backend) => {
	let database: Database;
	let w: JobWorld;

	const links = (c: ApiClient, id: string, token?: string) =>
		c.get(`/api/w/${WS}/jobs/share_links/${id}${token ? `?view_token=${token}` : ''}`);
	const create = (c: ApiClient, id: string, body: unknown, token?: string) =>
		c.post(`/api/w/${WS}/jobs/share_links/${id}${token ? `?view_token=${token}` : ''}`, body);
	const revoke = (c: ApiClient, id: string, link: string, token?: string) =>
		c.call('DELETE', `/api/w/${WS}/jobs/share_links/${id}/${link}${token ? `?view_token=${token}` : ''}`);
	const get = (c: ApiClient, id: string, token: string) => c.get(`/api/w/${WS}/jobs/get/${id}?view_token=${encodeURIComponent(token)}`);
	const progress = (c: ApiClient, id: string, token: string) => c.get(`/api/w/${WS}/jobs/run_progress/${id}?view_token=${encodeURIComponent(token)}`);
	const page = async (c: ApiClient, id: string, token: string) =>
		pageOutcome(runLoad((await pageEventOf(c, `/w/${WS}/run/${id}?view_token=${encodeURIComponent(token)}`, { ws: WS, id })) as never));

	/** A link of R made by `c`, its token and id. */
	async function make(c: ApiClient, kind: 'member' | 'public', expiresIn?: number | null): Promise<{ id: string; token: string }> {
		const r = await create(c, w.jobs.R, expiresIn === undefined ? { kind } : { kind, expires_in: expiresIn });
		expect(r.status, JSON.stringify(r.body)).toBe(201);
		return { id: r.body.id, token: r.body.token };
	}

	/**
	 * What every way of presenting `token` answers, with the page's redirect target made
	 * independent of the token (it sends the visitor back to the very URL they opened).
	 */
	async function answers(token: string): Promise<unknown[]> {
		const out: unknown[] = [];
		for (const c of [w.c.anon, w.c.olga, w.c.sam]) {
			for (const r of [await get(c, w.jobs.R, token), await progress(c, w.jobs.R, token)]) out.push({ status: r.status, body: r.body });
			const p = await page(c, w.jobs.R, token);
			out.push({ ...p, redirect: p.redirect?.replace(token, 'TOKEN') });
		}
		return out;
	}

	beforeAll(async () => {
		database = await backend.open();
		w = await buildJobWorld(database);
	});
	afterAll(async () => {
		w?.restoreEnv();
		await database?.close();
	});
	afterEach(() => {
		vi.useRealTimers();
	});

	describe('making a link', () => {
		it.each(SHARE_LIFETIMES.map((l) => [l.label, l.seconds] as const))('lasting %s: its expiry is that long after its making', async (_label, seconds) => {
			const r = await create(w.c.rita, w.jobs.R, { kind: 'public', expires_in: seconds });
			expect(r.status, JSON.stringify(r.body)).toBe(201);
			expect(r.headers.get('cache-control')).toBe('private, no-store');
			expect(r.body).toMatchObject({ job_id: w.jobs.R, kind: 'public', created_by: 'rita', revoked_at: null, last_used_at: null, state: 'active' });
			const made = Date.parse(r.body.created_at);
			expect(Math.abs(made - Date.now())).toBeLessThan(60_000);
			expect(r.body.expires_at === null ? null : Date.parse(r.body.expires_at) - made).toBe(seconds === null ? null : seconds * 1000);
			expect((await get(w.c.anon, w.jobs.R, r.body.token)).status).toBe(200);
		});

		it('lasts until revoked when no expires_in is given', async () => {
			const r = await create(w.c.wendy, w.jobs.R, { kind: 'member' });
			expect(r.status).toBe(201);
			expect(r.body.expires_at).toBeNull();
			expect((await get(w.c.olga, w.jobs.R, r.body.token)).status).toBe(200);
		});

		it('takes expires_in on the older GET too, and lists what it makes', async () => {
			const r = await w.c.rita.get(`/api/w/${WS}/jobs/share/${w.jobs.R}?kind=public&expires_in=86400`);
			expect(r.status).toBe(200);
			expect(Date.parse(r.body.expires_at) - Date.parse(r.body.created_at)).toBe(DAY_MS);
			expect((await links(w.c.rita, w.jobs.R)).body.map((l: { id: string }) => l.id)).toContain(r.body.id);
		});

		it.each([
			['no kind', {}, 'kind'],
			['an unknown kind', { kind: 'private' }, 'kind'],
			['expires_in 0', { kind: 'public', expires_in: 0 }, 'expires_in'],
			['expires_in negative', { kind: 'public', expires_in: -60 }, 'expires_in'],
			['expires_in fractional', { kind: 'public', expires_in: 1.5 }, 'expires_in'],
			['expires_in as text', { kind: 'public', expires_in: '86400' }, 'expires_in'],
			['expires_in past a year', { kind: 'public', expires_in: 365 * 86_400 + 1 }, 'expires_in'],
			['not an object', [1], 'the request body']
		])('answers 400 naming the field for %s, and makes nothing', async (_n, body, field) => {
			const before = (await links(w.c.rita, w.jobs.R)).body.length;
			const r = await create(w.c.rita, w.jobs.R, body);
			expect(r.status).toBe(400);
			expect(r.body.error.startsWith(field)).toBe(true);
			expect((await links(w.c.rita, w.jobs.R)).body.length).toBe(before);
		});
	});

	describe('a link that ends answers exactly as a forged one', () => {
		it('once expired (the clock moved past its day)', async () => {
			const pub = await make(w.c.rita, 'public', 86_400);
			const member = await make(w.c.rita, 'member', 86_400);
			expect((await get(w.c.anon, w.jobs.R, pub.token)).status).toBe(200);
			expect((await get(w.c.olga, w.jobs.R, member.token)).status).toBe(200);
			const forged = [await answers(tamper(pub.token)), await answers(tamper(member.token))];
			vi.useFakeTimers({ toFake: ['Date'] });
			vi.setSystemTime(Date.now() + DAY_MS - 5_000);
			expect((await get(w.c.anon, w.jobs.R, pub.token)).status).toBe(200);
			vi.setSystemTime(Date.now() + 10_000);
			expect([await answers(pub.token), await answers(member.token)]).toEqual(forged);
			// What the forged ones answer: nothing about the link, the run or why.
			expect(forged[0][0]).toEqual({ status: 401, body: { error: 'this share link is not valid; sign in or ask for a new link' } });
			expect(forged[1][3]).toEqual({ status: 403, body: { error: 'ask someone who can see this run for a share link' } });
			const listed = (await links(w.c.rita, w.jobs.R)).body.find((l: { id: string }) => l.id === pub.id);
			expect(listed.state).toBe('expired');
		});

		it('once revoked', async () => {
			const pub = await make(w.c.rita, 'public');
			const member = await make(w.c.wendy, 'member');
			expect((await get(w.c.anon, w.jobs.R, pub.token)).status).toBe(200);
			expect((await get(w.c.olga, w.jobs.R, member.token)).status).toBe(200);
			const forged = [await answers(tamper(pub.token)), await answers(tamper(member.token))];
			for (const l of [pub, member]) {
				const r = await revoke(w.c.wendy, w.jobs.R, l.id);
				expect(r.status, JSON.stringify(r.body)).toBe(200);
				expect(r.body).toMatchObject({ id: l.id, state: 'revoked', revoked_by: 'wendy' });
				expect(r.body.token).toBeUndefined();
			}
			expect([await answers(pub.token), await answers(member.token)]).toEqual(forged);
			// The other links of the run are untouched.
			const other = await make(w.c.rita, 'public');
			expect((await get(w.c.anon, w.jobs.R, other.token)).status).toBe(200);
		});

		it('revoking twice keeps the first revocation; a link of another run, or none, is 404', async () => {
			const l = await make(w.c.rita, 'public');
			const first = await revoke(w.c.rita, w.jobs.R, l.id);
			const second = await revoke(w.c.wendy, w.jobs.R, l.id);
			expect(second.status).toBe(200);
			expect(second.body).toMatchObject({ revoked_at: first.body.revoked_at, revoked_by: 'rita' });
			const ofS = (await create(w.c.rita, w.jobs.S, { kind: 'public' })).body;
			for (const id of [ofS.id, '00000000-0000-4000-8000-000000000000', 'not-a-link']) {
				const r = await revoke(w.c.rita, w.jobs.R, id);
				expect(r.status, id).toBe(404);
				expect(r.body).toEqual({ error: 'no such share link' });
			}
			expect((await get(w.c.anon, w.jobs.S, ofS.token)).status).toBe(200);
		});
	});

	describe('the list', () => {
		it('shows who made each link, when, its expiry, its last use and state; never a token', async () => {
			const a = await make(w.c.gina, 'member', 7 * 86_400);
			const b = await make(w.c.wendy, 'public', null);
			expect((await get(w.c.anon, w.jobs.R, b.token)).status).toBe(200);
			const r = await links(w.c.rita, w.jobs.R);
			expect(r.status).toBe(200);
			expect(r.headers.get('cache-control')).toBe('private, no-store');
			const byId = new Map(r.body.map((l: { id: string }) => [l.id, l]));
			expect(byId.get(a.id)).toMatchObject({ kind: 'member', created_by: 'gina', last_used_at: null, state: 'active' });
			expect(byId.get(b.id)).toMatchObject({ kind: 'public', created_by: 'wendy', expires_at: null, state: 'active' });
			expect(Math.abs(Date.parse((byId.get(b.id) as { last_used_at: string }).last_used_at) - Date.now())).toBeLessThan(60_000);
			const text = JSON.stringify(r.body);
			expect(text).not.toContain(a.token.slice(74));
			expect(text).not.toContain(b.token.slice(74));
			expect(r.body.every((l: { job_id: string }) => l.job_id === w.jobs.R)).toBe(true);
			// Valid links first, then newest first.
			const states = r.body.map((l: { state: string }) => l.state);
			expect(states.indexOf('active')).toBe(0);
			expect(states.slice(states.findIndex((s: string) => s !== 'active')).includes('active')).toBe(false);
		});

		it('records a use at most once a minute: opening the run again within it writes nothing', async () => {
			const l = await make(w.c.rita, 'public');
			const row = async () =>
				(await database.rows<{ x: string; last: unknown }>(sql`select xmin::text as x, last_used_at as last from share_link where id = ${l.id}::uuid`))[0];
			expect((await row()).last).toBeNull();
			expect((await get(w.c.anon, w.jobs.R, l.token)).status).toBe(200);
			const used = await row();
			expect(used.last).not.toBeNull();
			for (let i = 0; i < 3; i++) expect((await progress(w.c.anon, w.jobs.R, l.token)).status).toBe(200);
			expect(await row()).toEqual(used);
			vi.useFakeTimers({ toFake: ['Date'] });
			vi.setSystemTime(Date.now() + 61_000);
			expect((await get(w.c.anon, w.jobs.R, l.token)).status).toBe(200);
			expect((await row()).x).not.toBe(used.x);
		});
	});

	describe('who may make, list and revoke links: whoever may make one', () => {
		// [caller, what it gets]: the run's creator and readers of its folder, readers through a
		// group and writers may; a member without access is told to ask for a link; an outsider
		// learns nothing; a link holder forwards the link it has.
		const CASES: [string, (w: JobWorld) => Promise<{ client: ApiClient; token?: () => string }>, number][] = [
			['wendy (writer of the folder)', async (w) => ({ client: w.c.wendy }), 200],
			['rita (read-only member of the folder)', async (w) => ({ client: w.c.rita }), 200],
			['gina (read-only, through a group)', async (w) => ({ client: w.c.gina }), 200],
			['carl (made the run, no grant on the folder)', async (w) => ({ client: w.c.carl }), 200],
			['a token of rita with jobs:read', async (w) => ({ client: await w.token('rita', ['jobs:read']) }), 200],
			['olga (member, no grant)', async (w) => ({ client: w.c.olga }), 403],
			['a token of rita without jobs:read', async (w) => ({ client: await w.token('rita', ['assets:read']) }), 403],
			['olga holding a member link', async (w) => ({ client: w.c.olga, token: () => held }), 403],
			['sam (outsider: member of another workspace)', async (w) => ({ client: w.c.sam }), 404],
			['anon', async (w) => ({ client: w.c.anon }), 401],
			['anon holding a public link', async (w) => ({ client: w.c.anon, token: () => heldPublic }), 401]
		];
		let held = '';
		let heldPublic = '';

		beforeAll(async () => {
			held = (await make(w.c.rita, 'member')).token;
			heldPublic = (await make(w.c.rita, 'public')).token;
		});

		it.each(CASES)('%s', async (_n, callerOf, status) => {
			const { client, token } = await callerOf(w);
			const t = token?.();
			const victim = await make(w.c.wendy, 'public');

			const listed = await links(client, w.jobs.R, t);
			expect(listed.status, JSON.stringify(listed.body)).toBe(status);
			if (status === 200) expect(listed.body.map((l: { id: string }) => l.id)).toContain(victim.id);
			else expect(Object.keys(listed.body)).toEqual(['error']);

			const made = await create(client, w.jobs.R, { kind: 'public', expires_in: 86_400 }, t);
			expect(made.status, JSON.stringify(made.body)).toBe(status === 200 ? 201 : status);
			if (status !== 200) expect(Object.keys(made.body)).toEqual(['error']);

			const revoked = await revoke(client, w.jobs.R, victim.id, t);
			expect(revoked.status, JSON.stringify(revoked.body)).toBe(status);
			if (status === 200) expect((await get(w.c.anon, w.jobs.R, victim.token)).status).toBe(401);
			else {
				expect(Object.keys(revoked.body)).toEqual(['error']);
				// Refused: the link still opens the run.
				expect((await get(w.c.anon, w.jobs.R, victim.token)).status).toBe(200);
			}
		});
	});

	describe('links minted before links were stored', () => {
		/** A link as the releases before this one minted it: `{job}.{HMAC(workspace key, job ‖ domain)}`, no row. */
		const oldLink = async (kind: 'member' | 'public') =>
			`${w.jobs.R}.${createHmac('sha256', await workspaceSecret(database, WS)).update(`${w.jobs.R}${kind}`).digest('hex')}`;

		it('keep opening the run and its descendants, to the same audience, and are in no list', async () => {
			const pub = await oldLink('public');
			const member = await oldLink('member');
			expect((await get(w.c.anon, w.jobs.R, pub)).status).toBe(200);
			expect((await get(w.c.anon, w.jobs.C, pub)).status).toBe(200);
			expect((await get(w.c.anon, w.jobs.P, pub)).status).toBe(404);
			expect((await get(w.c.olga, w.jobs.R, member)).status).toBe(200);
			expect((await get(w.c.anon, w.jobs.R, member)).status).toBe(401);
			// Still no key to mint with: a link holder may not make or see links.
			expect((await create(w.c.olga, w.jobs.R, { kind: 'public' }, member)).status).toBe(403);
			const listed = JSON.stringify((await links(w.c.rita, w.jobs.R)).body);
			expect(listed).not.toContain(pub.slice(37, 60));
			// Years later: no expiry.
			vi.useFakeTimers({ toFake: ['Date'] });
			vi.setSystemTime(Date.now() + 20 * DAY_MS);
			expect((await get(w.c.anon, w.jobs.R, pub)).status).toBe(200);
		});

		it('end, with every stored link, when the instance secret changes', async () => {
			const old = await oldLink('public');
			const stored = await make(w.c.rita, 'public');
			const forged = await answers(tamper(old));
			process.env.TRIBUTARY_SECRET = 'another-instance-secret-for-this-test';
			try {
				expect(await answers(old)).toEqual(forged);
				expect((await get(w.c.anon, w.jobs.R, stored.token)).status).toBe(401);
			} finally {
				delete process.env.TRIBUTARY_SECRET;
			}
			expect((await get(w.c.anon, w.jobs.R, old)).status).toBe(200);
		});
	});
});
