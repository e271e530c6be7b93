// The pages apply the API's gates, on both databases. The settings page: each section it serves (tokens,
// members, groups, folders, warehouses) is served exactly when the API endpoint that reads it
// answers 200 to the same caller, with the same entries (finding 10: an admin's assets:read token
// read every admin section from the page while the API answered 403). Revoking a token follows
// one rule on the page and in the API: its owner or a workspace admin, `tokens:write` for a token.
// The canvas pages read the graph under GET assets/graph's gate, and offer a run only to whom
// the run API would accept. The home page lists and creates workspaces under the API's rules.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actions as homeActions, load as homeLoad } from '../../src/routes/+page.server';
import { load as projectLoad } from '../../src/routes/w/[ws]/dbt/[...path]/+page.server';
import { load as pipelineLoad } from '../../src/routes/w/[ws]/pipeline/[folder]/+page.server';
import { load as runLoad } from '../../src/routes/w/[ws]/run/[id]/+page.server';
import { actions, load } from '../../src/routes/w/[ws]/settings/+page.server';
import { load as workspaceLoad } from '../../src/routes/w/[ws]/+page.server';
import type { ApiClient } from '../support/api';
import { testBackends } from '../support/db';
import { needFixtures } from '../support/fixtures';
import { pageEventOf, pageOutcome } from '../support/pages';
import { buildLineageWorld, JAFFLE, LEDGER, REPORT, SHOP, WS, type Caller, type LineageWorld } from '../support/lineage-world';

/** Each page section and the API endpoint that reads the same thing, with the name of an entry. */
const SECTIONS: [section: string, api: string, name: (x: any) => string][] = [
	['tokens', 'tokens', (t) => t.id],
	['members', 'users', (m) => m.username],
	['groups', 'groups', (g) => g.name],
	['folders', 'folders', (f) => f.name],
	['warehouses', 'warehouses', (w) => w.name]
];

/** Callers: [name, user, token scopes or null for the session]. */
const CALLERS: [string, Caller, string[] | null][] = [
	['wsadmin session', 'wsadmin', null],
	['wsadmin token, no scopes', 'wsadmin', []],
	['wsadmin token assets:read', 'wsadmin', ['assets:read']],
	['wsadmin token users:read tokens:read', 'wsadmin', ['users:read', 'tokens:read']],
	['wsadmin token folders:read warehouses:read', 'wsadmin', ['folders:read', 'warehouses:read']],
	['alice session', 'alice', null],
	['alice token assets:read', 'alice', ['assets:read']],
	['alice token tokens:read', 'alice', ['tokens:read']]
];

// The lineage world deploys the real jaffle-shop manifest.
describe.skipIf(!needFixtures('the page gates')).each(testBackends())('page gates ($name)', (backend) => {
	let w: LineageWorld;
	const clients = new Map<string, ApiClient>();

	beforeAll(async () => {
		w = await buildLineageWorld(await backend.open());
		for (const [name, user, scopes] of CALLERS) clients.set(name, scopes === null ? w.c[user] : await w.token(user, scopes));
	}, 120_000);

	afterAll(async () => {
		w?.restoreEnv();
		await w?.database.close();
	});

	const settingsLoad = async (c: ApiClient) =>
		pageOutcome(load((await pageEventOf(c, `/w/${WS}/settings`, { ws: WS })) as never));

	it.each(CALLERS)('%s: each section exactly when the API reads it', async (name) => {
		const c = clients.get(name)!;
		const page = await settingsLoad(c);
		expect(page.status, JSON.stringify(page.data)).toBe(200);
		for (const [section, api, nameOf] of SECTIONS) {
			const r = await c.get(`/api/w/${WS}/${api}`);
			const served = section === 'tokens' ? page.data.tokens : page.data.admin?.[section];
			if (r.status !== 200) {
				expect([401, 403, 404], `${section}: ${JSON.stringify(r.body)}`).toContain(r.status);
				expect(served ?? null, `${name}: the page serves ${section} the API refuses (${r.status})`).toBeNull();
			} else {
				expect(served, `${name}: ${section}`).not.toBeNull();
				expect(served.map(nameOf).sort(), section).toEqual(r.body.map(nameOf).sort());
			}
		}
	});

	it('the table covers both answers of every section', async () => {
		const seen = new Set<string>();
		for (const [name] of CALLERS) {
			for (const [section, api] of SECTIONS) seen.add(`${section}:${(await clients.get(name)!.get(`/api/w/${WS}/${api}`)).status === 200}`);
		}
		for (const [section] of SECTIONS) {
			expect(seen).toContain(`${section}:true`);
			expect(seen).toContain(`${section}:false`);
		}
	});

	// Who revokes whose token: [case, revoker (name in CALLERS or a user's session), owner of the token, expected status].
	const REVOKE: [string, string, Caller, number][] = [
		['the owner, by session', 'alice session', 'alice', 200],
		['a workspace admin, a member\'s token', 'wsadmin session', 'alice', 200],
		['a workspace admin\'s token without tokens:write', 'wsadmin token users:read tokens:read', 'alice', 403],
		['the owner\'s token without tokens:write', 'alice token tokens:read', 'alice', 403],
		['the owner\'s token with no scopes', 'alice', 'alice', 200],
		['another member', 'bob', 'alice', 404],
		['a member, an admin\'s token', 'alice session', 'wsadmin', 404]
	];

	it.each(REVOKE)('revoking: %s (by %s, a token of %s) → %i, on the page and in the API', async (_case, by, owner, status) => {
		const revoker = clients.get(by) ?? (by === 'alice' ? await w.token('alice', []) : w.c[by as Caller]);
		const mint = async () => {
			const r = await w.c[owner].post(`/api/w/${WS}/tokens`, { label: 'to-revoke', scopes: ['assets:read'] });
			expect(r.status).toBe(201);
			return r.body.id as string;
		};
		const remaining = async (id: string) => (await w.c[owner].get(`/api/w/${WS}/tokens`)).body.some((t: { id: string }) => t.id === id);

		const viaPage = await mint();
		const page = await pageOutcome(actions.revokeToken((await pageEventOf(revoker, `/w/${WS}/settings?/revokeToken`, { ws: WS }, { id: viaPage })) as never));
		expect(page.status, JSON.stringify(page.data)).toBe(status);
		expect(await remaining(viaPage)).toBe(status !== 200);

		const viaApi = await mint();
		const api = await revoker.call('DELETE', `/api/w/${WS}/tokens/${viaApi}`);
		expect(api.status, JSON.stringify(api.body)).toBe(status);
		expect(await remaining(viaApi)).toBe(status !== 200);
	});

	// The project page lists its versions from deploy jobs, so it needs jobs:read as well.
	it.each([
		['alice session', 200, 200, null],
		['alice token assets:read jobs:read', 200, 200, ['assets:read', 'jobs:read']],
		['alice token assets:read', 200, 404, ['assets:read']],
		['alice token jobs:read (no assets:read)', 403, 403, ['jobs:read']]
	] as const)('the pipeline and project pages: %s → %i and %i, as GET assets/graph', async (_name, pipelineStatus, projectStatus, scopes) => {
		const c = scopes === null ? w.c.alice : await w.token('alice', [...scopes]);
		expect((await c.get(`/api/w/${WS}/assets/graph?folder=analytics`)).status).toBe(pipelineStatus);
		const pipeline = await pageOutcome(pipelineLoad((await pageEventOf(c, `/w/${WS}/pipeline/analytics`, { ws: WS, folder: 'analytics' })) as never));
		expect(pipeline.status, JSON.stringify(pipeline.data)).toBe(pipelineStatus);
		const project = await pageOutcome(projectLoad((await pageEventOf(c, `/w/${WS}/dbt/${JAFFLE}`, { ws: WS, path: JAFFLE })) as never));
		expect(project.status, JSON.stringify(project.data)).toBe(projectStatus);
	});

	it.each([
		['alice session', true, null],
		['alice token without jobs:run', false, ['assets:read', 'jobs:read']],
		['alice token with jobs:run', true, ['assets:read', 'jobs:read', 'jobs:run']],
		['wsadmin session', true, 'wsadmin']
	] as const)('run buttons: %s → %s, as the run API decides', async (_name, may, scopes) => {
		const c = scopes === null ? w.c.alice : scopes === 'wsadmin' ? w.c.wsadmin : await w.token('alice', [...scopes]);
		const run = await pageOutcome(runLoad((await pageEventOf(c, `/w/${WS}/run/${w.jobs.RUN1}`, { ws: WS, id: w.jobs.RUN1 })) as never));
		expect(run.status, JSON.stringify(run.data)).toBe(200);
		expect(run.data.mayResume).toBe(may);
		expect(run.data.mayShare).toBe(true);
		const project = await pageOutcome(projectLoad((await pageEventOf(c, `/w/${WS}/dbt/${JAFFLE}`, { ws: WS, path: JAFFLE })) as never));
		expect(project.status, JSON.stringify(project.data)).toBe(200);
		expect(project.data.mayRun).toBe(may);
		// The API's answer to the same caller: a refusal for exactly the callers the page hides the buttons from.
		for (const path of [SHOP, JAFFLE]) {
			const api = await c.post(`/api/w/${WS}/jobs/run/p/${path}`, { command: 'unknown-command' });
			expect(api.status === 403, JSON.stringify(api.body)).toBe(!may);
		}
	});

	// Deploy and delete controls: shown exactly to the callers the upload and delete APIs let through.
	it.each([
		['alice session (writes analytics)', 'alice', null, JAFFLE, true],
		['alice token with scripts:read only', 'alice', ['assets:read', 'jobs:read', 'scripts:read'], JAFFLE, false],
		['carol session (reads finance only)', 'carol', null, LEDGER, false],
		['wsadmin session', 'wsadmin', null, JAFFLE, true]
	] as const)('deploy and delete buttons: %s', async (_name, user, scopes, path, may) => {
		const c = scopes === null ? w.c[user as Caller] : await w.token(user, [...scopes]);
		if (path === JAFFLE) {
			const project = await pageOutcome(projectLoad((await pageEventOf(c, `/w/${WS}/dbt/${path}`, { ws: WS, path })) as never));
			expect(project.status, JSON.stringify(project.data)).toBe(200);
			expect([project.data.mayDeploy, project.data.mayDelete]).toEqual([may, may]);
		}
		const folder = path.split('/')[1];
		const pipeline = await pageOutcome(pipelineLoad((await pageEventOf(c, `/w/${WS}/pipeline/${folder}`, { ws: WS, folder })) as never));
		expect(pipeline.status, JSON.stringify(pipeline.data)).toBe(200);
		expect(pipeline.data.mayDeploy).toBe(may);
		if (folder === 'analytics') expect(pipeline.data.deletable.includes(REPORT)).toBe(may);
		if (!may) {
			// The API refuses the same callers (nothing is deleted for the others here: the world is shared).
			const del = await c.call('DELETE', `/api/w/${WS}/scripts/p/${path}`);
			expect(del.status, JSON.stringify(del.body)).toBe(403);
			const f = new FormData();
			f.set('path', path);
			expect((await c.call('POST', `/api/w/${WS}/scripts/dbt/deploy?path=${encodeURIComponent(path)}`, { form: f })).status).toBe(403);
		}
	});

	// The workspace page's projects: each caller sees exactly the projects whose folder it reads.
	it.each([
		['bob (reads only the folder `analytic`, a prefix of `analytics`)', 'bob', []],
		['alice (writes analytics)', 'alice', [JAFFLE, REPORT, SHOP]],
		['carol (reads finance through her group)', 'carol', [LEDGER]],
		['wsadmin (workspace admin)', 'wsadmin', [JAFFLE, REPORT, SHOP, LEDGER].sort()]
	] as const)('the workspace page lists projects: %s', async (_name, user, paths) => {
		const page = await pageOutcome(workspaceLoad((await pageEventOf(w.c[user as Caller], `/w/${WS}`, { ws: WS })) as never));
		expect(page.status, JSON.stringify(page.data)).toBe(200);
		expect(page.data.projects.map((p: { path: string }) => p.path)).toEqual(paths);
		expect(JSON.stringify(page.data.projects)).not.toContain('f/analytics/gone');
	});

	it('the workspace page: a project\'s size and last run are what its project page and the jobs list say', async () => {
		const page = await pageOutcome(workspaceLoad((await pageEventOf(w.c.alice, `/w/${WS}`, { ws: WS })) as never));
		const jaffle = page.data.projects.find((p: { path: string }) => p.path === JAFFLE);
		const project = await pageOutcome(projectLoad((await pageEventOf(w.c.alice, `/w/${WS}/dbt/${JAFFLE}`, { ws: WS, path: JAFFLE })) as never));
		expect(jaffle.language).toBe('dbt');
		expect(jaffle.nodes).toBe(project.data.version.nodes);
		expect(jaffle.nodes).toBeGreaterThan(10);
		expect(jaffle.version).toBe(project.data.version.hash);
		const shop = page.data.projects.find((p: { path: string }) => p.path === SHOP);
		const runs = (await w.c.alice.get(`/api/w/${WS}/jobs/list?script_path=${SHOP}`)).body.filter((j: { kind: string; status: string }) => (j.kind === 'run' || j.kind === 'recorded') && j.status !== 'queued');
		expect(shop.lastRun?.id).toBe(runs[0].id);
		const report = page.data.projects.find((p: { path: string }) => p.path === REPORT);
		expect(report.language).toBe('sql');
		// A token without jobs:read lists the projects but none of their runs.
		const narrow = await pageOutcome(workspaceLoad((await pageEventOf(await w.token('alice', ['assets:read']), `/w/${WS}`, { ws: WS })) as never));
		expect(narrow.data.projects.map((p: { path: string }) => p.path)).toEqual([JAFFLE, REPORT, SHOP]);
		expect(narrow.data.projects.every((p: { lastRun: unknown }) => p.lastRun === null)).toBe(true);
		expect(narrow.data.recentRuns).toEqual([]);
	});

	it.each([
		['the instance admin, by session', 'root', null, true],
		['the instance admin, token workspaces:write', 'root', ['workspaces:write'], true],
		['the instance admin, token assets:read', 'root', ['assets:read'], false],
		['a workspace admin', 'wsadmin', null, false]
	] as const)('creating a workspace: %s → %s, on the home page and in the API', async (name, user, scopes, may) => {
		const c = scopes === null ? w.c[user] : await w.token(user, [...scopes]);
		const id = `ws-${name.length}-${scopes?.length ?? 0}-${user}`;
		const form = await pageOutcome(homeActions.create((await pageEventOf(c, '/?/create', {}, { id: `${id}-page`, name: 'X' })) as never));
		if (may) expect(form).toEqual({ status: 303, redirect: `/w/${id}-page` });
		else expect(form.status, JSON.stringify(form.data)).toBe(403);
		const api = await c.post('/api/workspaces', { id: `${id}-api`, name: 'X' });
		expect(api.status, JSON.stringify(api.body)).toBe(may ? 201 : 403);
	});

	it('the home page and whoami list the same workspaces: a token only its own', async () => {
		expect((await w.c.root.post('/api/workspaces', { id: 'elsewhere', name: 'Elsewhere' })).status).toBe(201);
		for (const [c, expected] of [
			[w.c.root, true],
			[await w.token('root', []), false]
		] as const) {
			const home = await pageOutcome(homeLoad((await pageEventOf(c, '/', {})) as never));
			const who = await c.get('/api/whoami');
			const ids = home.data.workspaces.map((x: { id: string }) => x.id).sort();
			expect(ids).toEqual(who.body.workspaces.map((x: { id: string }) => x.id).sort());
			expect(ids.includes('elsewhere')).toBe(expected);
			expect(ids).toContain(WS);
		}
	});
});
