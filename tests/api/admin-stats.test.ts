// GET /api/admin/stats on both databases: instance admins only (401 without credentials, 403 to a
// workspace admin who is not one); live workers counted from their presence rows (gone when they
// stop); the queue's depth by kind; and the graph cache staying within its configured byte bound
// while a 3000-model folder is opened by 20 callers who each see a different redaction.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap } from '../../src/lib/server/bootstrap';
import { setDatabase, type Database } from '../../src/lib/server/db';
import { generateProject } from '../../src/lib/server/demo/generator';
import { graphCacheOf } from '../../src/lib/server/graph-cache';
import { insertJob } from '../../src/lib/server/repo/jobs';
import { Worker } from '../../src/lib/server/runner/worker';
import { runnerIngest } from '../../src/lib/server/runner-ingest';
import type { InstanceStats } from '../../src/lib/types/admin';
import { ApiClient, login, useInstanceAdmin } from '../support/api';
import { testBackends } from '../support/db';

const ROOT = { username: 'root', password: 'root-password-1' };
const WS = 'stats';
const CALLERS = 20;
const CACHE_MB = 64;

describe.each(testBackends())('admin stats on $name', (backend) => {
	let database: Database;
	let root: ApiClient;
	let restoreAdmin: (() => void) | undefined;
	const savedCacheMb = process.env.TRIBUTARY_GRAPH_CACHE_MB;

	const stats = async () => {
		const r = await root.get('/api/admin/stats');
		expect(r.status, JSON.stringify(r.body)).toBe(200);
		return r.body as InstanceStats;
	};

	beforeAll(async () => {
		// Read when the cache of this database is first made: a bound small enough that 20 answers cannot all fit.
		process.env.TRIBUTARY_GRAPH_CACHE_MB = String(CACHE_MB);
		database = await backend.open();
		setDatabase(database);
		restoreAdmin = useInstanceAdmin(ROOT);
		await bootstrap(database);
		root = await login(ROOT.username, ROOT.password);
		expect((await root.post('/api/workspaces', { id: WS, name: 'Stats' })).status).toBe(201);
	}, 60_000);
	afterAll(async () => {
		restoreAdmin?.();
		if (savedCacheMb === undefined) delete process.env.TRIBUTARY_GRAPH_CACHE_MB;
		else process.env.TRIBUTARY_GRAPH_CACHE_MB = savedCacheMb;
		await database?.close();
	});

	it('is for instance admins only', async () => {
		expect((await new ApiClient().get('/api/admin/stats')).status).toBe(401);
		expect((await root.post(`/api/w/${WS}/users`, { username: 'wanda', password: 'wanda-password-1', is_admin: true })).status).toBe(201);
		const wanda = await login('wanda');
		const r = await wanda.get('/api/admin/stats');
		expect(r.status).toBe(403);
		expect(r.body.error).toMatch(/instance admin/);
		const s = await stats();
		expect(s.database.kind).toBe(backend.name);
		expect(s.database.pool_max === null).toBe(backend.name === 'pglite');
		if (backend.name === 'postgres') expect(s.database.connections!.open).toBeGreaterThan(0);
		expect(s.process.rss_bytes).toBeGreaterThan(0);
		expect(s.graph_cache.max_bytes).toBe(CACHE_MB * 1024 * 1024);
	});

	it('counts the workers alive and the jobs queued', async () => {
		expect((await stats()).workers.alive).toBe(0);
		const worker = new Worker({ database, ingest: runnerIngest, pollMs: 30, heartbeatMs: 100, staleS: 5, slots: 3, lineageSlots: 1 }).start();
		try {
			await expect.poll(async () => (await stats()).workers, { timeout: 10_000 }).toMatchObject({ alive: 1, slots: 4 });
		} finally {
			await worker.stop();
		}
		expect((await stats()).workers.alive).toBe(0);
		const before = (await stats()).queue.run?.queued ?? 0;
		await insertJob(database.db, {
			workspace: WS,
			kind: 'run',
			scriptPath: 'f/data/nothing',
			scriptHash: null,
			createdBy: 'root',
			permissionedAs: 'u/root',
			status: 'queued',
			args: {},
			result: null,
			logs: ''
		});
		expect((await stats()).queue.run.queued).toBe(before + 1);
	});

	it(`a 3000-model folder opened by ${CALLERS} callers who see different redactions stays within the cache bound`, async () => {
		const project = await generateProject({ models: 3000, columnEdges: 3000, seed: 3 });
		const readers = Array.from({ length: CALLERS }, (_, i) => `reader${i}`);
		for (const username of readers) expect((await root.post(`/api/w/${WS}/users`, { username, password: `${username}-password-1` })).status).toBe(201);
		// Each reads `data` and a folder of their own: twenty principals, twenty cache keys.
		expect((await root.post(`/api/w/${WS}/folders`, { name: 'data', readers: readers.map((u) => `u/${u}`) })).status).toBe(201);
		for (const [i, username] of readers.entries()) expect((await root.post(`/api/w/${WS}/folders`, { name: `side${i}`, readers: [`u/${username}`] })).status).toBe(201);
		const form = new FormData();
		form.set('path', 'f/data/big');
		form.set('manifest', new Blob([new TextEncoder().encode(JSON.stringify(project.manifest))]), 'manifest.json');
		const deployed = await root.call('POST', `/api/w/${WS}/scripts/dbt/deploy`, { form });
		expect(deployed.status, JSON.stringify(deployed.body)).toBe(201);
		const callers: ApiClient[] = [];
		for (const username of readers) callers.push(await login(username));
		const cache = graphCacheOf(database);
		let peak = 0;
		for (const caller of callers) {
			const r = await caller.get(`/api/w/${WS}/assets/graph?folder=data`);
			expect(r.status).toBe(200);
			expect(r.body.assets.length).toBeGreaterThan(3000);
			peak = Math.max(peak, cache.stats.bytes);
		}
		const s = await stats();
		expect(peak).toBeLessThanOrEqual(CACHE_MB * 1024 * 1024);
		expect(s.graph_cache.bytes).toBeLessThanOrEqual(s.graph_cache.max_bytes);
		// The bound was what held: not every answer fit, so some were evicted.
		expect(s.graph_cache.evictions, JSON.stringify(s.graph_cache)).toBeGreaterThan(0);
		expect(s.graph_cache.entries).toBeLessThan(CALLERS);
	}, 240_000);
});
