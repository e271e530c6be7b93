import { randomUUID } from 'node:crypto';
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { testBackends } from '../../../tests/support/db';
import { workspaceSecret } from './bootstrap';
import { setDatabase, type Database } from './db';
import {
	mintShareToken,
	parseShareToken,
	shareMac,
	shareUrl,
	signShareToken,
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

/** Changes one hex digit of the MAC at `i` (0 = first MAC digit). */
function flipMacDigit(token: string, i: number): string {
	const at = 37 + i;
	const c = token[at];
	return token.slice(0, at) + (c === '0' ? '1' : '0') + token.slice(at + 1);
}

describe('share tokens (pure)', () => {
	it('is `{job_id}.{hex HMAC-SHA256(key, job_id ‖ domain)}`, checked against node:crypto', () => {
		const expected = createHmac('sha256', key).update(`${job}public`).digest('hex');
		expect(signShareToken(key, job, 'public')).toBe(`${job}.${expected}`);
	});

	it('verifies a token to its job and domain', () => {
		expect(verifyShareTokenWithKey(key, signShareToken(key, job, 'member'))).toEqual({ jobId: job, domain: 'member' });
		expect(verifyShareTokenWithKey(key, signShareToken(key, job, 'public'))).toEqual({ jobId: job, domain: 'public' });
	});

	it('separates the domains: a member MAC is not a public MAC', () => {
		const member = signShareToken(key, job, 'member');
		const pub = signShareToken(key, job, 'public');
		expect(member).not.toBe(pub);
		expect(Buffer.from(shareMac(key, job, 'member')).equals(Buffer.from(shareMac(key, job, 'public')))).toBe(false);
		// Relabelling is impossible: the token carries no domain field, only the MAC decides it.
		expect(verifyShareTokenWithKey(key, member)?.domain).toBe('member');
	});

	it.each([0, 1, 31, 63])('rejects a token with MAC digit %i changed', (i) => {
		const t = signShareToken(key, job, 'public');
		expect(verifyShareTokenWithKey(key, flipMacDigit(t, i))).toBeNull();
	});

	it('compares with constantTimeEqual, every domain, whether or not one matched', () => {
		for (const t of [signShareToken(key, job, 'member'), signShareToken(key, job, 'public'), flipMacDigit(signShareToken(key, job, 'member'), 0)]) {
			compare.calls = 0;
			verifyShareTokenWithKey(key, t);
			expect(compare.calls).toBe(2);
		}
	});

	it('rejects the MAC of job A presented for job B', () => {
		const mac = signShareToken(key, job, 'public').slice(37);
		expect(verifyShareTokenWithKey(key, `${jobB}.${mac}`)).toBeNull();
	});

	it('rejects a token made with another key (another workspace or instance)', () => {
		expect(verifyShareTokenWithKey(key, signShareToken(otherKey, job, 'public'))).toBeNull();
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
		['a number', 42],
		['null', null]
	])('parses nothing from a malformed token (%s)', (_n, token) => {
		expect(parseShareToken(token)).toBeNull();
		expect(verifyShareTokenWithKey(key, token)).toBeNull();
	});

	it('refuses to sign something that is not a job id', () => {
		expect(() => signShareToken(key, 'not-a-uuid', 'member')).toThrow(/job id/);
	});

	it('builds the run page url with the token as view_token', () => {
		const t = signShareToken(key, job, 'member');
		expect(shareUrl('acme', job, t)).toBe(`/w/acme/run/${job}?view_token=${t}`);
	});
});

describe.each(testBackends())('share tokens with the workspace key on $name', (backend) => {
	let h: Database;
	const saved = process.env.TRIBUTARY_SECRET;

	beforeAll(async () => {
		// The stored instance secret (generated on first use), not one from the environment.
		delete process.env.TRIBUTARY_SECRET;
		h = await backend.open();
		setDatabase(h);
	});
	afterAll(async () => {
		if (saved !== undefined) process.env.TRIBUTARY_SECRET = saved;
		await h?.close();
	});

	it('mints with the workspace key and verifies only in that workspace', async () => {
		const id = randomUUID();
		const t = await mintShareToken(h, 'acme', id, 'public');
		expect(t).toBe(signShareToken(await workspaceSecret(h, 'acme'), id, 'public'));
		expect(await verifyShareToken(h, 'acme', t)).toEqual({ jobId: id, domain: 'public' });
		expect(await verifyShareToken(h, 'other', t)).toBeNull();
		expect(await verifyShareToken(h, 'acme', flipMacDigit(t, 10))).toBeNull();
	});

	it('keeps the key stable across calls (links survive restarts)', async () => {
		const id = randomUUID();
		const a = await mintShareToken(h, 'acme', id, 'member');
		const b = await mintShareToken(h, 'acme', id, 'member');
		expect(a).toBe(b);
	});
});
