import { describe, expect, it } from 'vitest';
import { AUTH_CACHE_MS, AuthCache, authChanged } from './cache';

function clock() {
	let t = 1_000;
	return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('the short-lived memory of looked-up identities', () => {
	it('answers from memory until AUTH_CACHE_MS has passed, then looks up again', async () => {
		const c = clock();
		const cache = new AuthCache<string>(c.now);
		let lookups = 0;
		const load = async () => `v${++lookups}`;
		expect(await cache.through('k', load)).toBe('v1');
		c.advance(AUTH_CACHE_MS - 1);
		expect(await cache.through('k', load)).toBe('v1');
		c.advance(1);
		expect(await cache.through('k', load)).toBe('v2');
	});

	it('forgets everything when access changes, including a lookup under way when it changed', async () => {
		const c = clock();
		const cache = new AuthCache<string>(c.now);
		let lookups = 0;
		expect(await cache.through('k', async () => `v${++lookups}`)).toBe('v1');
		authChanged();
		expect(cache.get('k')).toBeUndefined();
		let release!: () => void;
		const gate = new Promise<void>((r) => (release = r));
		const slow = cache.through('k', async () => {
			await gate;
			return `v${++lookups}`;
		});
		authChanged();
		release();
		// The caller whose lookup started before the change gets its answer, but it is not kept.
		expect(await slow).toBe('v2');
		expect(cache.get('k')).toBeUndefined();
		expect(await cache.through('k', async () => `v${++lookups}`)).toBe('v3');
	});

	it('concurrent misses of one key share one lookup; nothing is kept for a null or a failure', async () => {
		const cache = new AuthCache<string>(clock().now);
		let lookups = 0;
		const [a, b] = await Promise.all([cache.through('k', async () => `v${++lookups}`), cache.through('k', async () => `v${++lookups}`)]);
		expect([a, b, lookups]).toEqual(['v1', 'v1', 1]);
		expect(await cache.through('none', async () => null)).toBeNull();
		expect(cache.get('none')).toBeUndefined();
		await expect(cache.through('bad', async () => Promise.reject(new Error('down')))).rejects.toThrow('down');
		expect(cache.get('bad')).toBeUndefined();
	});
});
