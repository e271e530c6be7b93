import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBackends } from '../../../tests/support/db';
import {
	assetReadGrant,
	buildPrincipal,
	grantOf,
	canReadPath,
	canWritePath,
	filterAllows,
	jobReadDecision,
	mayManageAccounts,
	readablePathFilter,
	mayReadPath,
	mayWritePath,
	parseScope,
	requireMintWithin,
	requireScope,
	scopeAllows,
	scopePathFilter,
	scopesCovered,
	workspaceGrant,
	workspacePrincipal,
	type Principal
} from './access';
import type { AuthContext } from './auth/context';
import { setDatabase, type Database } from './db';
import { ApiError } from './http';
import { insertAccount } from './repo/accounts';
import { replaceFolder } from './repo/folders';
import { removeGroupMember, replaceGroup } from './repo/groups';
import { createWorkspace, removeMember, upsertMember } from './repo/workspaces';

function principal(over: Partial<Principal> = {}): Principal {
	return {
		workspace: 'ws',
		username: 'bob',
		accountId: 'acc-bob',
		isAdmin: false,
		instanceAdmin: false,
		groups: [],
		readFolders: new Set(),
		writeFolders: new Set(),
		scopes: null,
		via: 'session',
		...over
	};
}

const bob = principal({ readFolders: new Set(['a']), writeFolders: new Set(['w']) });
const admin = principal({ username: 'root', isAdmin: true });

describe('canReadPath', () => {
	it.each([
		['a folder bob reads', bob, 'f/a/x', true],
		['deeper in a folder bob reads', bob, 'f/a/x/y', true],
		['a folder whose name extends a readable one', bob, 'f/ab/x', false],
		['a folder bob has no grant on', bob, 'f/b/x', false],
		['a folder bob writes (writing implies reading)', bob, 'f/w/x', true],
		["bob's own user path", bob, 'u/bob/x', true],
		["alice's user path", bob, 'u/alice/x', false],
		['a user path whose owner extends bob', bob, 'u/bobby/x', false],
		['a folder itself, not a script path', bob, 'f/a', false],
		['a path with a dot-dot segment', bob, 'f/a/../b/x', false],
		['an empty path', bob, '', false],
		['a trailing slash', bob, 'f/a/x/', false],
		['an unknown root', bob, 'x/a/x', false],
		['admin reads any folder', admin, 'f/zzz/x', true],
		['admin reads any user path', admin, 'u/alice/x', true]
	])('%s: %s', (_name, p, path, expected) => {
		expect(canReadPath(p, path)).toBe(expected);
	});
});

describe('canWritePath', () => {
	it.each([
		['a folder bob only reads', bob, 'f/a/x', false],
		['a folder bob writes', bob, 'f/w/x', true],
		['a folder whose name extends a writable one', bob, 'f/wx/y', false],
		["bob's own user path", bob, 'u/bob/p', true],
		["alice's user path", bob, 'u/alice/p', false],
		['admin writes anywhere', admin, 'f/any/p', true],
		['not a script path', admin, 'f/any', false]
	])('%s: %s', (_name, p, path, expected) => {
		expect(canWritePath(p, path)).toBe(expected);
	});
});

describe('scopeAllows', () => {
	const t = (scopes: string[] | null) => principal({ scopes, via: scopes ? 'token' : 'session' });
	it.each([
		['no scopes: not narrowed', null, 'scripts', 'write', 'f/a/x', true],
		['domain and action, any path', ['scripts:read'], 'scripts', 'read', 'f/a/x', true],
		['another action of the domain', ['scripts:read'], 'scripts', 'write', 'f/a/x', false],
		['write does not imply read', ['scripts:write'], 'scripts', 'read', 'f/a/x', false],
		['another domain', ['scripts:read'], 'assets', 'read', undefined, false],
		['jobs:run is not jobs:read', ['jobs:run'], 'jobs', 'read', undefined, false],
		['prefix matches a direct child', ['scripts:read:f/a/*'], 'scripts', 'read', 'f/a/x', true],
		['prefix matches a deeper path', ['scripts:read:f/a/*'], 'scripts', 'read', 'f/a/x/y', true],
		['prefix never matches a sibling with a longer name', ['scripts:read:f/a/*'], 'scripts', 'read', 'f/ab/x', false],
		['prefix does not match the folder itself', ['scripts:read:f/a/*'], 'scripts', 'read', 'f/a', false],
		['exact path matches only itself', ['scripts:read:f/a/x'], 'scripts', 'read', 'f/a/x/y', false],
		['one of several patterns', ['scripts:read:f/a/x,u/bob/*'], 'scripts', 'read', 'u/bob/q', true],
		['none of several patterns', ['scripts:read:f/a/x,u/bob/*'], 'scripts', 'read', 'u/alice/q', false],
		['star pattern', ['scripts:read:*'], 'scripts', 'read', 'f/z/z', true],
		['path-restricted scope, route without a path', ['scripts:read:f/a/*'], 'scripts', 'read', undefined, true],
		['a second scope grants what the first does not', ['assets:read', 'scripts:read:f/b/*'], 'scripts', 'read', 'f/b/x', true],
		['an empty scope list allows nothing', [], 'assets', 'read', undefined, false]
	] as const)('%s', (_name, scopes, domain, action, path, expected) => {
		expect(scopeAllows(t(scopes as string[] | null), domain, action, path)).toBe(expected);
	});

	it('requireScope names the missing scope', () => {
		const p = t(['assets:read']);
		expect(() => requireScope(p, 'assets', 'read')).not.toThrow();
		try {
			requireScope(p, 'scripts', 'read', 'f/a/x');
			expect.unreachable();
		} catch (e) {
			expect(e).toBeInstanceOf(ApiError);
			expect((e as ApiError).status).toBe(403);
			expect((e as ApiError).message).toContain('scripts:read:f/a/x');
		}
	});
});

describe('a token never widens what its owner may do', () => {
	it.each([
		['scope on a folder the owner cannot read', bob, ['scripts:read:f/secret/*'], 'f/secret/x', false, false],
		['unrestricted scope, folder the owner cannot read', bob, ['scripts:read'], 'f/secret/x', false, false],
		['scope on a folder the owner reads', bob, ['scripts:read:f/a/*'], 'f/a/x', true, false],
		['scope elsewhere, folder the owner reads', bob, ['scripts:read:f/w/*'], 'f/a/x', false, false],
		['write scope on a folder the owner only reads', bob, ['scripts:write:f/a/*'], 'f/a/x', false, false],
		['write scope on a folder the owner writes', bob, ['scripts:write:f/w/*'], 'f/w/x', false, true],
		["scope on alice's user path", bob, ['scripts:read:u/alice/*'], 'u/alice/x', false, false],
		['admin narrowed to one folder', admin, ['scripts:read:f/a/*'], 'f/b/x', false, false],
		['admin narrowed, inside the folder', admin, ['scripts:read:f/a/*'], 'f/a/x', true, false]
	])('%s', (_name, owner, scopes, path, read, write) => {
		const p = { ...owner, scopes, via: 'token' as const };
		expect(mayReadPath(p, path)).toBe(read);
		expect(mayWritePath(p, path)).toBe(write);
		// The scope never changes what the owner's own checks answer.
		expect(canReadPath(p, path)).toBe(canReadPath(owner, path));
		expect(canWritePath(p, path)).toBe(canWritePath(owner, path));
	});
});

describe('the grant asks the same rules', () => {
	const token = { ...bob, via: 'token' as const, scopes: ['scripts:read:f/a/x', 'assets:read:main/s/t', 'jobs:run:f/w/*'] };

	it('shape, authored, write and run of a narrowed token', () => {
		const g = grantOf(token);
		// The folder grant shows the shape; the scope decides what was authored.
		expect([g.maySee('f/a/y'), g.mayRead('f/a/y'), g.redact('f/a/y')]).toEqual([true, false, 'shape']);
		expect([g.maySee('f/a/x'), g.mayRead('f/a/x'), g.redact('f/a/x')]).toEqual([true, true, 'authored']);
		expect([g.maySee('f/b/x'), g.redact('f/b/x')]).toEqual([false, 'shape']);
		// Writing needs scripts:write, which the token lacks; running needs jobs:run and write access.
		expect(g.mayWrite('f/w/z')).toBe(false);
		expect(g.mayRun('f/w/z')).toBe(true);
		expect(g.mayRun('f/a/x')).toBe(false);
		expect([g.assetGate()('main/s/t'), g.assetGate()('main/s/u')]).toEqual([true, false]);
		expect(g.readableOwners([{ key: { scriptPath: 'f/a/x' } }, { key: { scriptPath: 'f/a/y' } }] as never).map((o) => o.key.scriptPath)).toEqual(['f/a/x']);
		expect(g.scopes).toEqual(token.scopes);
	});

	it('a session is its owner: every readable path shows what was authored', () => {
		const g = grantOf(bob);
		expect([g.redact('f/a/y'), g.redact('u/bob/x'), g.redact('u/alice/x')]).toEqual(['authored', 'authored', 'shape']);
		expect([g.mayWrite('f/w/z'), g.mayRun('f/w/z'), g.mayWrite('f/a/x')]).toEqual([true, true, false]);
		expect(g.assetGate()('anything/at/all')).toBe(true);
	});

	it('is one object per principal', () => {
		expect(grantOf(bob)).toBe(grantOf(bob));
		expect(grantOf(bob)).not.toBe(grantOf({ ...bob }));
	});
});

describe('minting a token and managing accounts', () => {
	const refused = (f: () => void) => {
		try {
			f();
			return null;
		} catch (e) {
			return (e as ApiError).status;
		}
	};

	it('a narrowed token mints only within its own scopes, never an unrestricted token', () => {
		const narrowed = { ...bob, via: 'token' as const, scopes: ['scripts:read:f/a/*', 'jobs:read'] };
		expect(refused(() => requireMintWithin(narrowed, ['scripts:read:f/a/x']))).toBeNull();
		expect(refused(() => requireMintWithin(narrowed, ['scripts:read:f/b/x']))).toBe(403);
		expect(refused(() => requireMintWithin(narrowed, []))).toBe(403);
		// A session (or an unscoped token) mints whatever its owner may do.
		expect(refused(() => requireMintWithin(bob, []))).toBeNull();
	});

	it('only an instance admin adds existing accounts or sets their passwords', () => {
		expect(mayManageAccounts(admin)).toBe(false);
		expect(mayManageAccounts({ ...bob, instanceAdmin: true })).toBe(true);
	});
});

describe('parseScope', () => {
	it.each([
		['assets:read', { domain: 'assets', action: 'read', paths: null }],
		['jobs:run', { domain: 'jobs', action: 'run', paths: null }],
		['scripts:read:f/analytics/*', { domain: 'scripts', action: 'read', paths: [{ kind: 'prefix', prefix: 'f/analytics/' }] }],
		[
			'scripts:write:f/a/x,u/bob/*',
			{
				domain: 'scripts',
				action: 'write',
				paths: [
					{ kind: 'exact', path: 'f/a/x' },
					{ kind: 'prefix', prefix: 'u/bob/' }
				]
			}
		],
		['scripts:read:*', { domain: 'scripts', action: 'read', paths: [{ kind: 'any' }] }],
		['assets:read:main/db.schema/orders', { domain: 'assets', action: 'read', paths: [{ kind: 'exact', path: 'main/db.schema/orders' }] }],
		['if_jobs:filter_tags', { domain: 'if_jobs', action: 'filter_tags', paths: null }]
	])('accepts %s', (s, parsed) => {
		expect(parseScope(s)).toEqual(parsed);
	});

	it.each([
		'',
		'assets',
		'assets:',
		':read',
		'Assets:read',
		'assets:Read',
		'assets:read:',
		'scripts:read:f/a/',
		'scripts:read:/f/a',
		'scripts:read:f//a',
		'scripts:read:f/../x',
		'scripts:read:f/./x',
		'scripts:read:f/a/*/x',
		'scripts:read:f/a*',
		'scripts:read:f/a,,f/b',
		'scripts:read:f/a,',
		'scripts:read:f/a x',
		'scripts read',
		'a:b:c:d',
		'scripts:read:**'
	])('rejects %j', (s) => {
		expect(parseScope(s)).toBeNull();
	});

	it.each([null, undefined, 42, ['assets:read'], { domain: 'assets' }])('rejects a non-string %j', (s) => {
		expect(parseScope(s)).toBeNull();
	});
});

describe('scopePathFilter', () => {
	it.each([
		['not narrowed', null, { all: true }],
		['domain-wide scope', ['scripts:read'], { all: true }],
		['star pattern', ['scripts:read:*'], { all: true }],
		['paths', ['scripts:read:f/a/*,u/bob/x', 'scripts:read:f/c/*'], { all: false, exact: ['u/bob/x'], prefixes: ['f/a/', 'f/c/'] }],
		['no matching scope', ['assets:read'], { all: false, exact: [], prefixes: [] }]
	])('%s', (_name, scopes, expected) => {
		expect(scopePathFilter(principal({ scopes }), 'scripts', 'read')).toEqual(expected);
	});

	it.each([
		['f/a/x', true],
		['f/a/x/y', true],
		['f/ab/x', false],
		['f/a', false],
		['u/bob/x', true],
		['u/bob/xy', false]
	])('filterAllows %s', (path, expected) => {
		const f = scopePathFilter(principal({ scopes: ['scripts:read:f/a/*,u/bob/x'] }), 'scripts', 'read');
		expect(filterAllows(f, path)).toBe(expected);
	});
});

describe('scopesCovered (a narrowed token minting another)', () => {
	it.each([
		['anything under no narrowing', null, ['scripts:write'], true],
		['the same scope', ['jobs:run'], ['jobs:run'], true],
		['a narrower path', ['scripts:read:f/a/*'], ['scripts:read:f/a/b/*', 'scripts:read:f/a/x'], true],
		['a path under a domain-wide scope', ['scripts:read'], ['scripts:read:f/a/*'], true],
		['a wider scope', ['scripts:read:f/a/*'], ['scripts:read'], false],
		['a sibling folder', ['scripts:read:f/a/*'], ['scripts:read:f/ab/*'], false],
		['another action', ['scripts:read'], ['scripts:write'], false],
		['star from a restricted scope', ['scripts:read:f/a/*'], ['scripts:read:*'], false],
		['an invalid requested scope', ['scripts:read'], ['nope'], false]
	])('%s', (_name, held, requested, expected) => {
		expect(scopesCovered(held, requested)).toBe(expected);
	});
});

describe('jobReadDecision', () => {
	const job = (createdBy: string, scriptPath: string | null) => ({ createdBy, scriptPath });
	it.each([
		['the creator, whatever the path', bob, job('bob', 'f/secret/x'), false, { allowed: true, via: 'creator' }],
		['a valid share link', bob, job('alice', 'f/secret/x'), true, { allowed: true, via: 'share_link' }],
		['a share link without any principal', null, job('alice', 'f/secret/x'), true, { allowed: true, via: 'share_link' }],
		['a reader of the path', bob, job('alice', 'f/a/x'), false, { allowed: true, via: 'path' }],
		['admin', admin, job('alice', 'u/alice/x'), false, { allowed: true, via: 'path' }],
		['a member who cannot read the path', bob, job('alice', 'f/secret/x'), false, { allowed: false, status: 403 }],
		["a member and another user's path", bob, job('alice', 'u/alice/x'), false, { allowed: false, status: 403 }],
		['a member and a job without a path', bob, job('alice', null), false, { allowed: false, status: 403 }],
		['nobody', null, job('alice', 'f/a/x'), false, { allowed: false, status: 404 }]
	] as const)('%s', (_name, p, j, link, expected) => {
		expect(jobReadDecision(p, j, link)).toMatchObject(expected);
	});

	it('readablePathFilter mirrors canReadPath', () => {
		expect(readablePathFilter(bob)).toEqual({ all: false, folders: ['a', 'w'], userPrefix: 'u/bob/' });
		expect(readablePathFilter(admin).all).toBe(true);
	});
});

describe.each(testBackends())('principals from the database on $name', (backend) => {
	let database: Database;
	const ids = { root: randomUUID(), alice: randomUUID(), bob: randomUUID(), eve: randomUUID() };
	const auth = (name: keyof typeof ids, over: Partial<AuthContext> = {}): AuthContext => ({
		accountId: ids[name],
		username: name,
		instanceAdmin: false,
		via: 'session',
		...over
	});
	const status = async (p: Promise<unknown>) => {
		try {
			await p;
			return 200;
		} catch (e) {
			return (e as ApiError).status;
		}
	};

	beforeAll(async () => {
		database = await backend.open();
		setDatabase(database);
		for (const name of Object.keys(ids) as (keyof typeof ids)[]) {
			await insertAccount(database, { id: ids[name], username: name, passwordHash: null });
		}
		await createWorkspace(database, { id: 'acme', name: 'Acme', creator: { accountId: ids.root, username: 'root' } });
		await createWorkspace(database, { id: 'other', name: 'Other', creator: { accountId: ids.eve, username: 'eve' } });
		await upsertMember(database, { workspace: 'acme', accountId: ids.alice, username: 'alice' });
		await upsertMember(database, { workspace: 'acme', accountId: ids.bob, username: 'bob' });
		await replaceGroup(database, 'acme', 'analysts', ['alice', 'bob']);
		await replaceGroup(database, 'acme', 'engineers', ['bob']);
		await replaceFolder(database, 'acme', { name: 'finance', readers: ['g/analysts'], writers: [] });
		await replaceFolder(database, 'acme', { name: 'eng', readers: [], writers: ['g/engineers'] });
		await replaceFolder(database, 'acme', { name: 'private', readers: ['u/alice'], writers: [] });
	});
	afterAll(async () => {
		await database?.close();
	});

	it('collects groups and folder grants, direct and through groups', async () => {
		const alice = await buildPrincipal(auth('alice'), 'acme');
		expect(alice).toMatchObject({ workspace: 'acme', username: 'alice', isAdmin: false, groups: ['analysts'], scopes: null });
		expect([...alice.readFolders].sort()).toEqual(['finance', 'private']);
		expect([...alice.writeFolders]).toEqual([]);
		const bobP = await buildPrincipal(auth('bob'), 'acme');
		expect(bobP.groups).toEqual(['analysts', 'engineers']);
		expect(canWritePath(bobP, 'f/eng/x')).toBe(true);
		expect(canReadPath(bobP, 'f/eng/x')).toBe(true);
		expect(canReadPath(bobP, 'f/private/x')).toBe(false);
		expect(canReadPath(bobP, 'u/alice/x')).toBe(false);
	});

	it('admin reads every folder', async () => {
		const root = await buildPrincipal(auth('root'), 'acme');
		expect(root.isAdmin).toBe(true);
		expect([...root.readFolders].sort()).toEqual(['eng', 'finance', 'private']);
		expect(canReadPath(root, 'u/alice/x')).toBe(true);
	});

	it('a member removed from a group loses its access once the principal is rebuilt', async () => {
		expect(canReadPath(await buildPrincipal(auth('bob'), 'acme'), 'f/finance/report')).toBe(true);
		await removeGroupMember(database, 'acme', 'analysts', 'bob');
		const rebuilt = await buildPrincipal(auth('bob'), 'acme');
		expect(rebuilt.groups).toEqual(['engineers']);
		expect(canReadPath(rebuilt, 'f/finance/report')).toBe(false);
		// Alice is still in the group.
		expect(canReadPath(await buildPrincipal(auth('alice'), 'acme'), 'f/finance/report')).toBe(true);
	});

	it('a member removed from the workspace is refused', async () => {
		await upsertMember(database, { workspace: 'acme', accountId: ids.eve, username: 'eve' });
		expect(await status(buildPrincipal(auth('eve'), 'acme'))).toBe(200);
		await removeMember(database, 'acme', 'eve');
		expect(await status(buildPrincipal(auth('eve'), 'acme'))).toBe(404);
	});

	it('workspacePrincipal answers 400, 401 and 404 as documented', async () => {
		const ev = (a: AuthContext | null) => ({ locals: { auth: a } });
		expect(await status(workspacePrincipal(ev(auth('alice')), 'Bad_Id'))).toBe(400);
		expect(await status(workspacePrincipal(ev(null), 'acme'))).toBe(401);
		expect(await status(workspacePrincipal(ev(auth('alice')), 'other'))).toBe(404);
		expect(await status(workspacePrincipal(ev(auth('alice')), 'nowhere'))).toBe(404);
		const token = auth('eve', { via: 'token', token: { id: 't', workspace: 'other', scopes: [] } });
		expect(await status(workspacePrincipal(ev(token), 'other'))).toBe(200);
		// Eve's token for `other` does not open `acme`, even if eve becomes a member there.
		await upsertMember(database, { workspace: 'acme', accountId: ids.eve, username: 'eve' });
		expect(await status(workspacePrincipal(ev(token), 'acme'))).toBe(404);
		const scoped = auth('alice', { via: 'token', token: { id: 't2', workspace: 'acme', scopes: ['assets:read'] } });
		const p = await workspacePrincipal(ev(scoped), 'acme');
		expect(p).toMatchObject({ via: 'token', scopes: ['assets:read'] });
	});

	it('workspaceGrant builds one grant per request, and assetReadGrant needs assets:read', async () => {
		const ev = (a: AuthContext | null) => ({ locals: { auth: a } });
		const one = ev(auth('alice'));
		const g = await workspaceGrant(one, 'acme');
		expect(g.username).toBe('alice');
		expect(await workspaceGrant(one, 'acme')).toBe(g);
		expect(await assetReadGrant(one, 'acme')).toBe(g);
		expect(await workspaceGrant(ev(auth('alice')), 'acme')).not.toBe(g);
		expect(await status(workspaceGrant(ev(auth('alice')), 'nowhere'))).toBe(404);
		const narrow = auth('alice', { via: 'token', token: { id: 't3', workspace: 'acme', scopes: ['jobs:read'] } });
		expect(await status(workspaceGrant(ev(narrow), 'acme'))).toBe(200);
		expect(await status(assetReadGrant(ev(narrow), 'acme'))).toBe(403);
	});
});
