import { describe, expect, it } from 'vitest';
import { addressKey, LoginThrottle, pairDelayMs, type ThrottlePolicy } from './throttle';

const POLICY: ThrottlePolicy = {
	pair: { free: 2, baseMs: 1000, maxMs: 8000, forgetMs: 60_000 },
	username: { max: 5, windowMs: 60_000 },
	address: { max: 8, windowMs: 60_000 },
	knownMs: 1_000_000,
	maxEntries: 100
};

/** One attempt: `fail` leaves it counted (a wrong password, or one still being checked), `ok` is a right password. */
type Step = [outcome: 'fail' | 'ok', atMs: number, username: string, address: string, expected: 'allowed' | [reason: string, retryAfterS: number]];

function run(steps: Step[], policy = POLICY): unknown[] {
	let now = 0;
	const t = new LoginThrottle(policy, () => now);
	return steps.map(([outcome, at, username, address]) => {
		now = at;
		const a = t.attempt(username, address);
		if (!a.allowed) return [a.reason, a.retryAfterS];
		if (outcome === 'ok') a.succeeded();
		return 'allowed';
	});
}

const fails = (n: number, at: number, username: string, address: (i: number) => string): Step[] =>
	Array.from({ length: n }, (_, i) => ['fail', at, username, address(i), 'allowed'] as Step);

describe('LoginThrottle', () => {
	it.each<[string, Step[], Partial<ThrottlePolicy>?]>([
		[
			'backs off exponentially per username + address after the free failures, up to the cap',
			[
				['fail', 0, 'u', 'A', 'allowed'],
				['fail', 0, 'u', 'A', 'allowed'],
				['fail', 0, 'u', 'A', ['pair', 1]],
				['fail', 1000, 'u', 'A', 'allowed'],
				['fail', 1000, 'u', 'A', ['pair', 2]],
				['fail', 3000, 'u', 'A', 'allowed'],
				['fail', 3000, 'u', 'A', ['pair', 4]],
				['fail', 7000, 'u', 'A', 'allowed'],
				['fail', 7000, 'u', 'A', ['pair', 8]],
				['fail', 15_000, 'u', 'A', 'allowed'],
				['fail', 15_000, 'u', 'A', ['pair', 8]]
			],
			{ username: { max: 100, windowMs: 60_000 } }
		],
		[
			'does not extend a wait for attempts refused during it, and rounds the wait up',
			[
				['fail', 0, 'u', 'A', 'allowed'],
				['fail', 0, 'u', 'A', 'allowed'],
				['fail', 500, 'u', 'A', ['pair', 1]],
				['fail', 999, 'u', 'A', ['pair', 1]],
				['ok', 1000, 'u', 'A', 'allowed']
			]
		],
		[
			'counts an attempt still being checked, so parallel guesses cannot all slip through',
			[
				['fail', 0, 'u', 'A', 'allowed'],
				['fail', 0, 'u', 'A', 'allowed'],
				['ok', 0, 'u', 'A', ['pair', 1]]
			]
		],
		[
			'clears a pair on a right password',
			[
				['fail', 0, 'u', 'A', 'allowed'],
				['ok', 0, 'u', 'A', 'allowed'],
				['fail', 0, 'u', 'A', 'allowed'],
				['fail', 0, 'u', 'A', 'allowed'],
				['fail', 0, 'u', 'A', ['pair', 1]]
			]
		],
		[
			"forgets a pair's failures after forgetMs",
			[
				['fail', 0, 'u', 'A', 'allowed'],
				['fail', 0, 'u', 'A', 'allowed'],
				['fail', 0, 'u', 'A', ['pair', 1]],
				['fail', 60_000, 'u', 'A', 'allowed'],
				['fail', 60_000, 'u', 'A', 'allowed'],
				['fail', 60_000, 'u', 'A', ['pair', 1]]
			]
		],
		[
			"does not slow the same username from another address by one pair's backoff",
			[
				['fail', 0, 'u', 'A', 'allowed'],
				['fail', 0, 'u', 'A', 'allowed'],
				['fail', 0, 'u', 'A', ['pair', 1]],
				['ok', 0, 'u', 'B', 'allowed']
			]
		],
		[
			'caps failures per username over all addresses for a window',
			[
				...fails(5, 0, 'u', (i) => `10.0.0.${i}`),
				['ok', 10_000, 'u', '10.0.1.1', ['username', 50]],
				['ok', 60_000, 'u', '10.0.1.1', 'allowed']
			]
		],
		[
			'exempts an address the account signed in from before from the username cap',
			[
				['ok', 0, 'u', 'home', 'allowed'],
				...fails(5, 1, 'u', (i) => `10.0.0.${i}`),
				['fail', 2, 'u', '10.0.1.1', ['username', 60]],
				['ok', 2, 'u', 'home', 'allowed']
			]
		],
		[
			'takes back the counted attempt of a right password from the username cap',
			[
				...fails(4, 0, 'u', (i) => `10.0.0.${i}`),
				['ok', 0, 'u', '10.0.0.9', 'allowed'],
				['fail', 0, 'u', '10.0.1.1', 'allowed'],
				['fail', 0, 'u', '10.0.1.2', ['username', 60]]
			]
		],
		[
			'caps failures per address over all usernames, except for accounts known there',
			[
				['ok', 0, 'me', 'A', 'allowed'],
				...Array.from({ length: 8 }, (_, i) => ['fail', 1000, `user${i}`, 'A', 'allowed'] as Step),
				['fail', 1000, 'user9', 'A', ['address', 60]],
				['ok', 1000, 'me', 'A', 'allowed'],
				['fail', 1000, 'user9', 'B', 'allowed']
			]
		]
	])('%s', (_name, steps, policy = {}) => {
		expect(run(steps, { ...POLICY, ...policy })).toEqual(steps.map((s) => s[4]));
	});

	it('keeps each table within maxEntries, forgetting the oldest', () => {
		const steps: Step[] = [
			['fail', 0, 'u', 'A', 'allowed'],
			['fail', 0, 'u', 'A', 'allowed'],
			...fails(3, 0, 'other', (i) => `B${i}`),
			// The u/A pair was pushed out of a 3-entry table: its backoff is gone.
			['fail', 0, 'u', 'A', 'allowed']
		];
		expect(run(steps, { ...POLICY, maxEntries: 3 })).toEqual(steps.map((s) => s[4]));
	});
});

describe('pairDelayMs', () => {
	it.each([
		[0, 0],
		[1, 0],
		[2, 1000],
		[3, 2000],
		[5, 8000],
		[6, 8000],
		[60, 8000]
	])('after %i failures waits %i ms', (failures, ms) => {
		expect(pairDelayMs(POLICY.pair, failures)).toBe(ms);
	});
});

describe('addressKey', () => {
	it.each([
		['192.0.2.1', '192.0.2.1'],
		['::ffff:192.0.2.1', '192.0.2.1'],
		['::FFFF:192.0.2.1', '192.0.2.1'],
		['0:0:0:0:0:ffff:192.0.2.1', '192.0.2.1'],
		['2001:db8:aa:bb:1:2:3:4', '2001:db8:aa:bb::/64'],
		['2001:db8:aa:bb::1', '2001:db8:aa:bb::/64'],
		['2001:0db8:00aa:00bb:ffff::', '2001:db8:aa:bb::/64'],
		['2001:db8::1', '2001:db8:0:0::/64'],
		['fe80::1%eth0', 'fe80:0:0:0::/64'],
		['::1', '0:0:0:0::/64']
	])('%s counts as %s', (address, key) => {
		expect(addressKey(address)).toBe(key);
	});
});
