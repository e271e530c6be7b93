import { createHmac, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { testBackends } from '../../../tests/support/db';
import { workspaceSecret } from './bootstrap';
import { setDatabase, type Database } from './db';
import { insertAccount } from './repo/accounts';
import { insertJob } from './repo/jobs';
import { createWorkspace } from './repo/workspaces';
import {
	createShareLink,
	MAX_ACTIVE_SHARE_LINKS,
	parseShareToken,
	revokeShareLink,
	shareLinksOf,
	shareMac,
	shareUrl,
	signStoredShareToken,
	storedShareMac,
	verifyShareToken,
	verifyShareTokenWithKey
} from './share';

// A pass-through spy on the comparison, to see that verification compares in constant time and
// never stops at the first domain that matches.
const compare = vi.hoisted(() => ({ calls: 0 }));
vi.mock('@oslojs/crypto/subtle', async (importOriginal) => {
	const real = await importOriginal<typeof import('@oslojs/crypto/subtle')>();
	return {
		constantTimeEqual: (a: Uint8Array, b: Uint8Array) => {
			compare.calls++;
			return real.constantTimeEqual(a, b);
		}
	};
});

const key = new Uint8Array(32).map((_, i) => i + 1);
const otherKey = new Uint8Array(32).map((_, i) => 100 + i);
const job = '0b7c2a36-1f7e-4d8e-9a55-3c1d2e4f5a6b';
const jobB = '7e1d9c44-5b2a-4f60-8d13-0a9b8c7d6e5f';
const link = '5d0c3a1e-8b7f-4e2d-9c6a-1f0e2d3c4b5a';
const linkB = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';

/** A token of the signed format, made as the releases before stored links made it (node:crypto). */
function signedToken(k: Uint8Array, jobId: string, domain: string): string {
	return `${jobId}.${createHmac('sha256', k).update(`${jobId}${domain}`).digest('hex')}`;
}

/** Changes one hex digit of the MAC at `i` (0 = its first digit), whichever the format. */
function flipMacDigit(token: string, i: number): string {
	const at = token.length - 64 + i;
	const c = token[at];
	return token.slice(0, at) + (c === '0' ? '1' : '0') + token.slice(at + 1);
}

describe('share tokens (pure)', () => {
	it("a stored link's token is `{job_id}.{link_id}.{hex HMAC-SHA256(key, 'link:' ‖ job_id ‖ link_id ‖ domain)}`, checked against node:crypto", () => {
		const expected = createHmac('sha256', key).update(`link:${job}${link}public`).digest('hex');
		expect(signStoredShareToken(key, job, link, 'public')).toBe(`${job}.${link}.${expected}`);
	});

	it('verifies a token of either format to its job, domain and link (none for the signed format)', () => {
		expect(verifyShareTokenWithKey(key, signStoredShareToken(key, job, link, 'member'))).toEqual({ jobId: job, domain: 'member', linkId: link });
		expect(verifyShareTokenWithKey(key, signStoredShareToken(key, job, link, 'public'))).toEqual({ jobId: job, domain: 'public', linkId: link });
		expect(verifyShareTokenWithKey(key, signedToken(key, job, 'member'))).toEqual({ jobId: job, domain: 'member', linkId: null });
		expect(verifyShareTokenWithKey(key, signedToken(key, job, 'public'))).toEqual({ jobId: job, domain: 'public', linkId: null });
		expect(Buffer.from(shareMac(key, job, 'public')).toString('hex')).toBe(signedToken(key, job, 'public').slice(37));
	});

	it('separates the domains: a member MAC is not a public MAC, in either format', () => {
		expect(Buffer.from(shareMac(key, job, 'member')).equals(Buffer.from(shareMac(key, job, 'public')))).toBe(false);
		expect(Buffer.from(storedShareMac(key, job, link, 'member')).equals(Buffer.from(storedShareMac(key, job, link, 'public')))).toBe(false);
		// Relabelling is impossible: the token carries no domain field, only the MAC decides it.
		expect(verifyShareTokenWithKey(key, signStoredShareToken(key, job, link, 'member'))?.domain).toBe('member');
	});

	it('separates the formats: a signed MAC under a link id, or a stored MAC without one, proves nothing', () => {
		const signedMac = signedToken(key, job, 'public').slice(37);
		expect(verifyShareTokenWithKey(key, `${job}.${link}.${signedMac}`)).toBeNull();
		const storedMac = signStoredShareToken(key, job, link, 'public').slice(74);
		expect(verifyShareTokenWithKey(key, `${job}.${storedMac}`)).toBeNull();
	});

	it.each([0, 1, 31, 63])('rejects a token with MAC digit %i changed, in either format', (i) => {
		expect(verifyShareTokenWithKey(key, flipMacDigit(signStoredShareToken(key, job, link, 'public'), i))).toBeNull();
		expect(verifyShareTokenWithKey(key, flipMacDigit(signedToken(key, job, 'public'), i))).toBeNull();
	});

	it('compares with constantTimeEqual, every domain, whether or not one matched', () => {
		for (const t of [
			signStoredShareToken(key, job, link, 'member'),
			signStoredShareToken(key, job, link, 'public'),
			flipMacDigit(signStoredShareToken(key, job, link, 'member'), 0),
			signedToken(key, job, 'member'),
			flipMacDigit(signedToken(key, job, 'public'), 0)
		]) {
			compare.calls = 0;
			verifyShareTokenWithKey(key, t);
			expect(compare.calls).toBe(2);
		}
	});

	it('rejects the MAC of job A presented for job B, and of link A for link B', () => {
		const stored = signStoredShareToken(key, job, link, 'public');
		expect(verifyShareTokenWithKey(key, `${jobB}${stored.slice(36)}`)).toBeNull();
		expect(verifyShareTokenWithKey(key, `${job}.${linkB}${stored.slice(73)}`)).toBeNull();
		expect(verifyShareTokenWithKey(key, `${jobB}.${signedToken(key, job, 'public').slice(37)}`)).toBeNull();
	});

	it('rejects a token made with another key (another workspace or instance)', () => {
		expect(verifyShareTokenWithKey(key, signStoredShareToken(otherKey, job, link, 'public'))).toBeNull();
		expect(verifyShareTokenWithKey(key, signedToken(otherKey, job, 'public'))).toBeNull();
	});

	it.each([
		['empty', ''],
		['no dot', `${job}${'a'.repeat(64)}`],
		['short MAC', `${job}.${'a'.repeat(63)}`],
		['long MAC', `${job}.${'a'.repeat(65)}`],
		['uppercase MAC', `${job}.${'A'.repeat(64)}`],
		['non-hex MAC', `${job}.${'g'.repeat(64)}`],
		['not a uuid', `${'x'.repeat(36)}.${'a'.repeat(64)}`],
		['extra segment', `${job}.${'a'.repeat(64)}.x`],
		['a link id that is not a uuid', `${job}.${'x'.repeat(36)}.${'a'.repeat(64)}`],
		['a stored token without its second dot', `${job}.${link}x${'a'.repeat(64)}`],
		['a stored token with a short MAC', `${job}.${link}.${'a'.repeat(63)}`],
		['a stored token with an uppercase link id', `${job}.${link.toUpperCase()}.${'a'.repeat(64)}`],
		['a number', 42],
		['null', null]
	])('parses nothing from a malformed token (%s)', (_n, token) => {
		expect(parseShareToken(token)).toBeNull();
		expect(verifyShareTokenWithKey(key, token)).toBeNull();
	});

	it('refuses to sign something that is not a job or link id', () => {
		expect(() => signStoredShareToken(key, 'not-a-uuid', link, 'member')).toThrow(/job id/);
		expect(() => signStoredShareToken(key, job, 'not-a-uuid', 'member')).toThrow(/link id/);
	});

	it('builds the run page url with the token as view_token', () => {
		const t = signStoredShareToken(key, job, link, 'member');
		expect(shareUrl('acme', job, t)).toBe(`/w/acme/run/${job}?view_token=${t}`);
	});
});

const DAY = 86_400;

describe.each(testBackends())('share links with the workspace key on $name', (backend) => {
	let database: Database;
	const saved = process.env.TRIBUTARY_SECRET;
	let run = '';
	let other = '';
	/** A clock for the service: each test moves it as it needs. */
	const t0 = new Date('2030-01-01T00:00:00.000Z');
	const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);


	beforeAll(async () => {
		// The stored instance secret (generated on first use), not one from the environment.
		delete process.env.TRIBUTARY_SECRET;
		database = await backend.open();
		setDatabase(database);
		const creator = { accountId: randomUUID(), username: 'ann' };
		await insertAccount(database, { id: creator.accountId, username: 'ann', passwordHash: 'x', instanceAdmin: false });
		for (const ws of ['acme', 'other']) expect(await createWorkspace(database, { id: ws, name: ws, creator })).not.toBeNull();
		const base = { kind: 'run', scriptPath: 'u/ann/p', scriptHash: 1n, createdBy: 'ann', permissionedAs: 'u/ann', status: 'success' } as const;
		run = await database.db.transaction((tx) => insertJob(tx, { workspace: 'acme', ...base }));
		other = await database.db.transaction((tx) => insertJob(tx, { workspace: 'acme', ...base }));
	});
	afterAll(async () => {
		if (saved !== undefined) process.env.TRIBUTARY_SECRET = saved;
		else delete process.env.TRIBUTARY_SECRET;
		await database?.close();
	});
	afterEach(() => {
		delete process.env.TRIBUTARY_SECRET;
	});

	it.each([
		['never', null],
		['1 day', DAY],
		['7 days', 7 * DAY],
		['30 days', 30 * DAY]
	])('makes a link that expires %s: valid until then, and answered as invalid from that instant', async (_n, expiresIn) => {
		const made = await createShareLink(database, 'acme', run, { kind: 'public', expiresIn, createdBy: 'ann' }, t0);
		expect(made.token.startsWith(`${run}.${made.link.id}.`)).toBe(true);
		expect(made.url).toBe(shareUrl('acme', run, made.token));
		expect(made.link).toMatchObject({ workspace: 'acme', jobId: run, kind: 'public', createdBy: 'ann', createdAt: t0, revokedAt: null, lastUsedAt: null });
		expect(made.link.expiresAt).toEqual(expiresIn === null ? null : at(expiresIn));
		const grant = { jobId: run, domain: 'public', linkId: made.link.id };
		expect(await verifyShareToken(database, 'acme', made.token, t0)).toEqual(grant);
		if (expiresIn === null) {
			expect(await verifyShareToken(database, 'acme', made.token, at(10 * 365 * DAY))).toEqual(grant);
		} else {
			expect(await verifyShareToken(database, 'acme', made.token, new Date(at(expiresIn).getTime() - 1))).toEqual(grant);
			expect(await verifyShareToken(database, 'acme', made.token, at(expiresIn))).toBeNull();
			expect(await verifyShareToken(database, 'acme', made.token, at(expiresIn + DAY))).toBeNull();
		}
		// Only in its own workspace.
		expect(await verifyShareToken(database, 'other', made.token, t0)).toBeNull();
	});

	it('gives every link its own token and row, for the same job and kind', async () => {
		const a = await createShareLink(database, 'acme', run, { kind: 'member', expiresIn: null, createdBy: 'ann' }, t0);
		const b = await createShareLink(database, 'acme', run, { kind: 'member', expiresIn: null, createdBy: 'ann' }, t0);
		expect(a.token).not.toBe(b.token);
		expect(a.link.id).not.toBe(b.link.id);
	});

	it('a revoked link verifies to nothing from then on; revoking again keeps the first revocation', async () => {
		const made = await createShareLink(database, 'acme', run, { kind: 'member', expiresIn: 30 * DAY, createdBy: 'ann' }, t0);
		expect(await verifyShareToken(database, 'acme', made.token, at(60))).not.toBeNull();
		const revoked = await revokeShareLink(database, 'acme', run, made.link.id, 'bob', at(120));
		expect(revoked).toMatchObject({ id: made.link.id, revokedAt: at(120), revokedBy: 'bob' });
		expect(await verifyShareToken(database, 'acme', made.token, at(121))).toBeNull();
		expect(await revokeShareLink(database, 'acme', run, made.link.id, 'carol', at(500))).toMatchObject({ revokedAt: at(120), revokedBy: 'bob' });
		// Another run's link, an unknown id and something that is not an id: no such link.
		const elsewhere = await createShareLink(database, 'acme', other, { kind: 'public', expiresIn: null, createdBy: 'ann' }, t0);
		expect(await revokeShareLink(database, 'acme', run, elsewhere.link.id, 'bob', at(130))).toBeNull();
		expect(await verifyShareToken(database, 'acme', elsewhere.token, at(131))).not.toBeNull();
		expect(await revokeShareLink(database, 'acme', run, randomUUID(), 'bob', at(130))).toBeNull();
		expect(await revokeShareLink(database, 'acme', run, 'not-a-uuid', 'bob', at(130))).toBeNull();
	});

	it('a token whose MAC is right but whose row disagrees or is missing opens nothing', async () => {
		const k = await workspaceSecret(database, 'acme');
		const made = await createShareLink(database, 'acme', run, { kind: 'member', expiresIn: null, createdBy: 'ann' }, t0);
		// Signed for the other audience, or for another job, than the row says; or for no row at all.
		expect(await verifyShareToken(database, 'acme', signStoredShareToken(k, run, made.link.id, 'public'), t0)).toBeNull();
		expect(await verifyShareToken(database, 'acme', signStoredShareToken(k, other, made.link.id, 'member'), t0)).toBeNull();
		expect(await verifyShareToken(database, 'acme', signStoredShareToken(k, run, randomUUID(), 'member'), t0)).toBeNull();
	});

	it('lists a run\'s links, the valid ones first, then newest first, each with its state', async () => {
		const listed = await shareLinksOf(database, 'acme', run, at(3 * DAY));
		expect(listed.length).toBeGreaterThan(5);
		const states = listed.map((l) => (l.revokedAt ? 'revoked' : l.expiresAt && l.expiresAt <= at(3 * DAY) ? 'expired' : 'active'));
		const firstInactive = states.findIndex((s) => s !== 'active');
		expect(firstInactive).toBeGreaterThan(0);
		expect(states.slice(firstInactive).every((s) => s !== 'active')).toBe(true);
		expect(states).toContain('revoked');
		expect(states).toContain('expired');
		expect(listed.every((l) => l.jobId === run)).toBe(true);
		expect((await shareLinksOf(database, 'other', run, t0)).length).toBe(0);
	});

	it('records a use at most once a minute: a second use within it writes nothing', async () => {
		const made = await createShareLink(database, 'acme', other, { kind: 'public', expiresIn: null, createdBy: 'ann' }, t0);
		// xmin is the row version's transaction: it moves when, and only when, the row is written.
		const row = async () =>
			(await database.rows<{ x: string; last: Date | string | null }>(sql`select xmin::text as x, last_used_at as last from share_link where id = ${made.link.id}::uuid`))[0];
		const created = await row();
		expect(created.last).toBeNull();
		await verifyShareToken(database, 'acme', made.token, at(10));
		const first = await row();
		expect(new Date(first.last!)).toEqual(at(10));
		expect(first.x).not.toBe(created.x);
		for (const s of [11, 30, 69]) {
			await verifyShareToken(database, 'acme', made.token, at(s));
			expect(await row(), `at +${s}s`).toEqual(first);
		}
		await verifyShareToken(database, 'acme', made.token, at(71));
		const later = await row();
		expect(new Date(later.last!)).toEqual(at(71));
		expect(later.x).not.toBe(first.x);
	});

	it('refuses a link past the limit of valid links per run, naming it; revoking makes room', async () => {
		const own = await database.db.transaction((tx) =>
			insertJob(tx, { workspace: 'acme', kind: 'run', scriptPath: 'u/ann/p', scriptHash: 1n, createdBy: 'ann', permissionedAs: 'u/ann', status: 'success' })
		);
		const made = [];
		for (let i = 0; i < MAX_ACTIVE_SHARE_LINKS; i++) made.push(await createShareLink(database, 'acme', own, { kind: 'public', expiresIn: i === 0 ? 60 : null, createdBy: 'ann' }, t0));
		await expect(createShareLink(database, 'acme', own, { kind: 'public', expiresIn: null, createdBy: 'ann' }, t0)).rejects.toMatchObject({
			status: 409,
			message: expect.stringContaining(`${MAX_ACTIVE_SHARE_LINKS} valid share links`)
		});
		// An expired link no longer counts, nor does a revoked one.
		await createShareLink(database, 'acme', own, { kind: 'public', expiresIn: null, createdBy: 'ann' }, at(60));
		await expect(createShareLink(database, 'acme', own, { kind: 'public', expiresIn: null, createdBy: 'ann' }, at(60))).rejects.toMatchObject({ status: 409 });
		await revokeShareLink(database, 'acme', own, made[1].link.id, 'ann', at(61));
		await createShareLink(database, 'acme', own, { kind: 'public', expiresIn: null, createdBy: 'ann' }, at(62));
		// Every valid one is listed, ahead of the inactive ones.
		const listed = await shareLinksOf(database, 'acme', own, at(63));
		expect(listed.slice(0, MAX_ACTIVE_SHARE_LINKS).every((l) => l.revokedAt === null && l.expiresAt === null)).toBe(true);
	});

	it('a link of the signed format (minted before links were stored) still opens its run, with no row and no expiry', async () => {
		const k = await workspaceSecret(database, 'acme');
		const old = signedToken(k, run, 'member');
		expect(await verifyShareToken(database, 'acme', old, t0)).toEqual({ jobId: run, domain: 'member', linkId: null });
		expect(await verifyShareToken(database, 'acme', old, at(50 * 365 * DAY))).toEqual({ jobId: run, domain: 'member', linkId: null });
		expect(await verifyShareToken(database, 'other', old, t0)).toBeNull();
		expect(await verifyShareToken(database, 'acme', flipMacDigit(old, 10), t0)).toBeNull();
		// It is no row: the run's listing does not show it.
		expect((await shareLinksOf(database, 'acme', run, t0)).some((l) => old.includes(l.id))).toBe(false);
	});

	it('a new instance secret ends every link, of both formats', async () => {
		const old = signedToken(await workspaceSecret(database, 'acme'), run, 'public');
		const made = await createShareLink(database, 'acme', run, { kind: 'public', expiresIn: null, createdBy: 'ann' }, t0);
		expect(await verifyShareToken(database, 'acme', old, t0)).not.toBeNull();
		expect(await verifyShareToken(database, 'acme', made.token, t0)).not.toBeNull();
		process.env.TRIBUTARY_SECRET = 'a-rotated-instance-secret-of-enough-length';
		expect(await verifyShareToken(database, 'acme', old, t0)).toBeNull();
		expect(await verifyShareToken(database, 'acme', made.token, t0)).toBeNull();
	});
});
