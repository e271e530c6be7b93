import { describe, expect, it } from 'vitest';
import type { Principal } from './access';
import { ByteLru, digestKey, etagMatches, graphResponse, principalKey, serialize } from './graph-cache';

const principal = (over: Partial<Principal> = {}): Principal => ({
	workspace: 'acme',
	username: 'alice',
	accountId: 'a1',
	isAdmin: false,
	instanceAdmin: false,
	groups: [],
	readFolders: new Set(['analytics']),
	writeFolders: new Set(),
	scopes: null,
	via: 'session',
	...over
});

const always = async () => true;

describe('ByteLru', () => {
	it('drops the least recently used entries past its byte budget', () => {
		const c = new ByteLru<string>(100, 100);
		c.set('a', 'A', 40);
		c.set('b', 'B', 40);
		expect(c.get('a')).toBe('A'); // a is now the most recent
		c.set('c', 'C', 40); // 120 > 100: b goes
		expect(c.has('b')).toBe(false);
		expect(c.get('a')).toBe('A');
		expect(c.get('c')).toBe('C');
		expect(c.stats).toMatchObject({ entries: 2, bytes: 80, evictions: 1 });
		// Replacing an entry counts its new size only.
		c.set('a', 'A2', 10);
		expect(c.stats.bytes).toBe(50);
	});

	it('never stores an entry larger than its per-entry bound, and stores nothing with a zero budget', () => {
		const c = new ByteLru<string>(100, 50);
		expect(c.set('big', 'x', 60)).toBe(false);
		expect(c.has('big')).toBe(false);
		const off = new ByteLru<string>(0);
		expect(off.set('a', 'x', 1)).toBe(false);
	});

	it('shares one build among concurrent misses of a key, and counts hits', async () => {
		const c = new ByteLru<number>(1000);
		let builds = 0;
		const build = async () => {
			builds++;
			await new Promise((r) => setTimeout(r, 20));
			return 7;
		};
		const all = await Promise.all(Array.from({ length: 50 }, () => c.getOrBuild('k', build, () => 1, always)));
		expect(all.every((v) => v === 7)).toBe(true);
		expect(builds).toBe(1);
		expect(await c.getOrBuild('k', build, () => 1, always)).toBe(7);
		expect(builds).toBe(1);
		expect(c.stats.misses).toBe(1);
		expect(c.stats.hits).toBe(50);
	});

	it('answers but does not store a build whose inputs moved underneath it', async () => {
		const c = new ByteLru<number>(1000);
		let n = 0;
		const build = async () => ++n;
		expect(await c.getOrBuild('k', build, () => 1, async () => false)).toBe(1);
		expect(c.has('k')).toBe(false);
		expect(c.stats.unstable).toBe(1);
		expect(await c.getOrBuild('k', build, () => 1, always)).toBe(2);
		expect(await c.getOrBuild('k', build, () => 1, always)).toBe(2);
	});

	it('a failed build is not cached and does not poison later reads', async () => {
		const c = new ByteLru<number>(1000);
		await expect(c.getOrBuild('k', async () => Promise.reject(new Error('boom')), () => 1, always)).rejects.toThrow('boom');
		expect(await c.getOrBuild('k', async () => 3, () => 1, always)).toBe(3);
	});
});

describe('principalKey', () => {
	it('separates every difference a gate looks at', () => {
		const base = principalKey(principal());
		expect(principalKey(principal({ readFolders: new Set(['analytics', 'finance']) }))).not.toBe(base);
		expect(principalKey(principal({ username: 'bob' }))).not.toBe(base);
		expect(principalKey(principal({ isAdmin: true }))).not.toBe(base);
		expect(principalKey(principal({ workspace: 'other' }))).not.toBe(base);
		expect(principalKey(principal({ scopes: ['assets:read'] }))).not.toBe(base);
		expect(principalKey(principal({ scopes: ['assets:read', 'scripts:read'] }))).not.toBe(principalKey(principal({ scopes: ['assets:read'] })));
		expect(principalKey(null)).not.toBe(base);
	});

	it('is the same for callers every gate decides alike', () => {
		const base = principalKey(principal({ scopes: ['scripts:read', 'assets:read'] }));
		// Writing a folder implies reading it; groups matter only through the folders they grant.
		expect(principalKey(principal({ readFolders: new Set(), writeFolders: new Set(['analytics']), scopes: ['assets:read', 'scripts:read'] }))).toBe(base);
		expect(principalKey(principal({ groups: ['g'], scopes: ['assets:read', 'scripts:read'], via: 'token', accountId: 'other' }))).toBe(base);
		// Without scripts of their own under u/, a member's name decides nothing.
		expect(principalKey(principal({ username: 'bob' }), { ownPaths: false })).toBe(principalKey(principal(), { ownPaths: false }));
		expect(principalKey(principal({ username: 'bob' }), { ownPaths: true })).not.toBe(principalKey(principal(), { ownPaths: true }));
		// Admins read everything: their name does not matter, their token scope does.
		expect(principalKey(principal({ isAdmin: true, username: 'x' }))).toBe(principalKey(principal({ isAdmin: true, username: 'y', readFolders: new Set() })));
	});
});

describe('ETags', () => {
	it('match a list, weak forms and *, and nothing else', () => {
		const etag = `"${digestKey(['a'])}"`;
		expect(etagMatches(etag, etag)).toBe(true);
		expect(etagMatches(`"x", W/${etag}`, etag)).toBe(true);
		expect(etagMatches('*', etag)).toBe(true);
		expect(etagMatches(`"${digestKey(['b'])}"`, etag)).toBe(false);
		expect(etagMatches(null, etag)).toBe(false);
	});

	it('a matching If-None-Match is a 304 without a body; otherwise the bytes as JSON', async () => {
		const body = { bytes: serialize({ n: 1n }), etag: '"e"' };
		const hit = graphResponse(body, '"e"');
		expect(hit.status).toBe(304);
		expect(await hit.text()).toBe('');
		expect(hit.headers.get('etag')).toBe('"e"');
		const miss = graphResponse(body, '"other"');
		expect(miss.status).toBe(200);
		expect(miss.headers.get('content-type')).toBe('application/json');
		expect(await miss.json()).toEqual({ n: '1' });
	});
});
