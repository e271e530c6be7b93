// The run lens's latest runs on a folder's canvas, on both databases: GET jobs/list's read rule
// (folder grants, the creator, a token's jobs:read paths) decides which runs are looked at, the
// newest run or recorded job wins over older ones, queued ones, previews and deploys, and only
// the canvas's own relations get a status (nothing about a relation the caller does not see).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantOf, type Principal } from '../../src/lib/server/access';
import type { Database } from '../../src/lib/server/db';
import { latestRuns } from '../../src/lib/server/api/jobs/latest-runs';
import { insertJob, upsertProgress, type NewJob } from '../../src/lib/server/repo/jobs';
import type { AssetGraph, DbtProvenance } from '../../src/lib/types/asset-graph';
import { testBackends } from '../support/db';
import { buildJobWorld, SECRET_PATH, WS, type JobWorld } from '../support/jobs-world';

const prov = (uniqueId: string): DbtProvenance => ({
	script_path: SECRET_PATH,
	script_hash: '000000000000002a',
	unique_id: uniqueId,
	resource_type: 'model',
	materialized: 'table',
	materialize_strategy: null,
	data_tests: [],
	authored: true
});

// The canvas the caller was given: two relations of the project (a third, hidden_rel, is not on it).
const graph = (): AssetGraph => ({
	assets: [
		{ kind: 'dbt', path: 'main/analytics/orders', dbt: { ...prov('model.p.orders'), data_tests: [{ kind: 'not_null', column: 'order_id', severity: null }, { kind: 'unique', column: 'order_id', severity: 'warn' }] } },
		{ kind: 'dbt', path: 'main/analytics/customers', dbt: prov('model.p.customers') }
	],
	runnables: [{ path: SECRET_PATH, language: 'dbt', script_hash: '000000000000002a', dbt: { model_count: 2 } }],
	edges: [],
	dbt_edges: [{ from_asset_path: 'main/analytics/customers', to_asset_path: 'main/analytics/orders' }],
	hidden: 0
});

const principal = (username: string, over: Partial<Principal> = {}): Principal => ({
	workspace: WS,
	username,
	accountId: username,
	isAdmin: false,
	instanceAdmin: false,
	groups: [],
	readFolders: new Set(),
	writeFolders: new Set(),
	scopes: null,
	via: 'session',
	...over
});

describe.each(testBackends())('latest runs for the run lens on $name', (backend) => {
	let database: Database;
	let w: JobWorld;
	let latest: string;

	beforeAll(async () => {
		database = await backend.open();
		w = await buildJobWorld(database);
		const job = (over: Partial<NewJob>): NewJob => ({
			workspace: WS,
			kind: 'recorded',
			scriptPath: SECRET_PATH,
			scriptHash: 42n,
			createdBy: 'wendy',
			permissionedAs: 'u/wendy',
			status: 'failure',
			...over
		});
		const now = Date.now();
		latest = await database.db.transaction((tx) =>
			insertJob(
				tx,
				job({
					createdAt: new Date(now),
					result: {
						nodes: [
							{ unique_id: 'model.p.customers', outcome: 'passed', message: 'dbt said so' },
							{ unique_id: 'test.p.not_null_orders_order_id.1a2b3c', outcome: 'passed' },
							{ unique_id: 'test.p.unique_orders_order_id.4d5e6f', outcome: 'warned' },
							{ unique_id: 'test.p.not_null_hidden_rel_id.7a8b9c', outcome: 'failed' }
						]
					}
				})
			)
		);
		await upsertProgress(database, WS, latest, [
			{ assetKind: 'dbt', assetPath: 'main/analytics/orders', status: 'failed', error: 'Database Error in model orders' },
			{ assetKind: 'dbt', assetPath: 'main/analytics/hidden_rel', status: 'materialized', rowCount: 3 }
		]);
		// Newer, but not a run's outcome: a queued run, a preview and a deploy are passed over.
		for (const [i, over] of ([{ status: 'queued', kind: 'run' }, { kind: 'preview', status: 'success' }, { kind: 'deploy', status: 'success' }] as const).entries()) {
			await database.db.transaction((tx) => insertJob(tx, job({ ...over, createdAt: new Date(now + 1000 * (i + 1)) })));
		}
	}, 120_000);

	afterAll(async () => {
		w?.restoreEnv();
		await database?.close();
	});

	it.each([
		['a folder reader', principal('rita', { readFolders: new Set(['secret']) })],
		['a folder writer', principal('wendy', { writeFolders: new Set(['secret']) })],
		['a workspace admin', principal('wsadmin', { isAdmin: true })],
		['a token reaching the project', principal('rita', { readFolders: new Set(['secret']), scopes: ['jobs:read:f/secret/*'], via: 'token' })]
	])('%s gets the newest run, statuses of the canvas’s relations only', async (_name, p) => {
		const r = await latestRuns(grantOf(p), database, graph());
		expect(r!.runs.map((x) => x.id)).toEqual([latest]);
		expect(r!.statuses).toEqual({ 'dbt:main/analytics/orders': 'failed', 'dbt:main/analytics/customers': 'passed' });
		// Its tests: one passed, one warned (the worst wins); hidden_rel's failure is not on this canvas.
		expect(r!.tests).toEqual({ 'dbt:main/analytics/orders': 'warn' });
		// Statuses only: no message, no row count, nothing about hidden_rel.
		expect(JSON.stringify(r)).not.toMatch(/Database Error|dbt said so|hidden_rel/);
	});

	it.each([
		['a member without a grant on the folder', principal('olga', { readFolders: new Set(['sec']) })],
		['a token reaching another folder only', principal('rita', { readFolders: new Set(['secret']), scopes: ['jobs:read:f/sec/*'], via: 'token' })]
	])('%s gets no run', async (_name, p) => {
		expect(await latestRuns(grantOf(p), database, graph())).toEqual({ runs: [], statuses: {}, tests: {}, jobs: {} });
	});

	it('a token without jobs:read gets nothing at all', async () => {
		expect(await latestRuns(grantOf(principal('rita', { readFolders: new Set(['secret']), scopes: ['assets:read'], via: 'token' })), database, graph())).toBeNull();
	});

	it('a canvas without dbt projects asks for no runs', async () => {
		expect(await latestRuns(grantOf(principal('rita', { readFolders: new Set(['secret']) })), database, { ...graph(), runnables: [] })).toBeNull();
	});
});
