// One workspace for the lineage reads: callers with and without access to each project, two
// projects describing one relation, a run reading its version, a run with its own snapshot, a
// preview, a producer, and the real jaffle-shop deployed through the API. Synthetic graphs are
// written with the graph repo directly (the read side is what these tests are about).
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { expect } from 'vitest';
import { directComponents } from '../../src/lib/lineage/components';
import { bootstrap } from '../../src/lib/server/bootstrap';
import { setDatabase, type Database } from '../../src/lib/server/db';
import { graphDigest, replaceGraph, versionKey, type GraphContent, type NodeRow } from '../../src/lib/server/repo/graph';
import { insertJob, type NewJob } from '../../src/lib/server/repo/jobs';
import { insertScriptVersion, newScriptHash, publishAssetUsage, type AssetUse } from '../../src/lib/server/repo/scripts';
import { producerColumnLineage, ZERO_UUID } from '../../src/lib/server/schema';
import { hashToHex, hexToHash } from '../../src/lib/types/script-hash';
import { ApiClient, login, useInstanceAdmin } from './api';
import { fixture } from './fixtures';

export const WS = 'acme';
export const ROOT = { username: 'root', password: 'root-password-1' };
export const SHOP = 'f/analytics/shop';
export const LEDGER = 'f/finance/ledger';
export const REPORT = 'f/analytics/report';
export const JAFFLE = 'f/analytics/jaffle';
/** Planted in every authored field of the synthetic projects: a redacted answer contains none. */
export const SECRET = 'authored-secret';

export type Caller = 'root' | 'wsadmin' | 'alice' | 'carol' | 'bob' | 'anon';

export interface LineageWorld {
	database: Database;
	c: Record<Caller, ApiClient>;
	hashes: { shopV1: bigint; shopV2: bigint; ledger: bigint; report: bigint; jaffle: bigint };
	/**
	 * RUN1: alice's run of shop v1, no own snapshot. RUN2: a run of shop v1 that stored its own
	 * snapshot (an extra `stock_weekly`). PREVIEW: alice's preview of shop (NULL hash).
	 * BOBRUN: bob's run of shop v1 (bob created it but cannot read the folder). GONE: a run of
	 * a version since deleted. DEPLOY: the jaffle deploy job.
	 */
	jobs: Record<'RUN1' | 'RUN2' | 'PREVIEW' | 'BOBRUN' | 'GONE' | 'DEPLOY', string>;
	token(user: Caller, scopes: string[]): Promise<ApiClient>;
	/** jaffle-shop's manifest, parsed: expected values are computed from it, not from our code. */
	manifest: any;
	restoreEnv(): void;
}

async function ok(p: Promise<{ status: number; body: unknown }>): Promise<any> {
	const r = await p;
	expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
	return r.body;
}

export { login };

export function node(uniqueId: string, assetPath: string | null, extra: Partial<NodeRow> = {}): NodeRow {
	const name = uniqueId.split('.').pop()!;
	const resourceType = uniqueId.split('.')[0];
	return {
		uniqueId,
		resourceType,
		name,
		assetPath,
		materialized: resourceType === 'source' ? null : 'table',
		materializeStrategy: resourceType === 'source' ? null : 'replace',
		uniqueKey: null,
		tags: [`${SECRET}-tag`],
		description: `${SECRET} description of ${name}`,
		testKind: null,
		testColumn: null,
		testArgs: null,
		severity: null,
		attachedNode: null,
		columns: { id: `${SECRET} column doc` },
		columnSchema: [{ name: 'id', type: 'INTEGER' }],
		freshness: resourceType === 'source' ? { warn_after: { count: 1, period: 'day' } } : null,
		rawCode: resourceType === 'source' ? null : `select * /* ${SECRET} sql of ${name} */`,
		originalFilePath: resourceType === 'source' ? 'models/sources.yml' : `models/${SECRET}/${name}.sql`,
		...extra
	};
}

export function testNode(uniqueId: string, attached: string): NodeRow {
	return node(uniqueId, null, {
		resourceType: 'test',
		materialized: 'test',
		materializeStrategy: null,
		attachedNode: attached,
		testKind: 'accepted_values',
		testColumn: 'status',
		testArgs: { values: [`${SECRET}-placed`, 'shipped'] },
		severity: 'ERROR',
		rawCode: null
	});
}

type Col = [string, string, string, string, string];

export function content(nodes: NodeRow[], edges: [string, string][], cols: Col[] | null): GraphContent {
	const columnEdges = cols && cols.map(([pu, pc, cu, cc, k]) => ({ parentUniqueId: pu, parentColumn: pc, childUniqueId: cu, childColumn: cc, lineageKind: k }));
	const comps = columnEdges ? directComponents(columnEdges) : [];
	return {
		nodes,
		edges: edges.map(([parent, child]) => ({ parent, child })),
		columnEdges: columnEdges && columnEdges.map((e, i) => ({ ...e, component: comps[i] }))
	};
}

const A = (name: string) => `main/analytics/${name}`;

/** Shop v1: the seed's two families (orders, stock), a `scan` beside a `copy`, a test with args. */
export const shopV1 = () =>
	content(
		[
			node('model.shop.raw_orders', A('raw_orders')),
			node('model.shop.orders', A('orders')),
			node('model.shop.stock', A('stock')),
			node('model.shop.stock_daily', A('stock_daily')),
			testNode('test.shop.accepted_values_orders_status', 'model.shop.orders')
		],
		[
			['model.shop.raw_orders', 'model.shop.orders'],
			['model.shop.stock', 'model.shop.stock_daily'],
			['model.shop.orders', 'test.shop.accepted_values_orders_status']
		],
		[
			['model.shop.raw_orders', 'id', 'model.shop.orders', 'order_id', 'copy'],
			['model.shop.raw_orders', 'status', 'model.shop.orders', 'order_id', 'scan'],
			['model.shop.stock', 'sku', 'model.shop.stock_daily', 'sku', 'copy']
		]
	);

/** Shop v2 (the current version): the stock family is gone. */
export const shopV2 = () =>
	content(
		[node('model.shop.raw_orders', A('raw_orders')), node('model.shop.orders', A('orders')), testNode('test.shop.accepted_values_orders_status', 'model.shop.orders')],
		[
			['model.shop.raw_orders', 'model.shop.orders'],
			['model.shop.orders', 'test.shop.accepted_values_orders_status']
		],
		[
			['model.shop.raw_orders', 'id', 'model.shop.orders', 'order_id', 'copy'],
			['model.shop.raw_orders', 'status', 'model.shop.orders', 'order_id', 'scan']
		]
	);

/** RUN2's own snapshot: v1 plus `stock_weekly` downstream of `stock_daily`. */
export const run2Snapshot = () => {
	const g = shopV1();
	return content(
		[...g.nodes, node('model.shop.stock_weekly', A('stock_weekly'))],
		[...g.edges.map((e) => [e.parent, e.child] as [string, string]), ['model.shop.stock_daily', 'model.shop.stock_weekly']],
		[
			...g.columnEdges!.map((e) => [e.parentUniqueId, e.parentColumn, e.childUniqueId, e.childColumn, e.lineageKind] as Col),
			['model.shop.stock_daily', 'sku', 'model.shop.stock_weekly', 'sku', 'copy']
		]
	);
};

/** The ledger project (folder finance) reads shop's `orders` as a source. */
export const ledger = () =>
	content(
		[node('source.ledger.analytics.orders', A('orders')), node('model.ledger.ledger', 'main/finance/ledger')],
		[['source.ledger.analytics.orders', 'model.ledger.ledger']],
		[['source.ledger.analytics.orders', 'order_id', 'model.ledger.ledger', 'order_ref', 'copy']]
	);

/** The preview: a buffer parse with models the deployed version never had. */
export const previewGraph = () =>
	content(
		[node('model.shop.draft_src', A('draft_src'), { rawCode: 'select 4' }), node('model.shop.draft', A('draft'), { rawCode: 'select 3' })],
		[['model.shop.draft_src', 'model.shop.draft']],
		[['model.shop.draft_src', 'raw', 'model.shop.draft', 'clean', 'mod']]
	);

function usesOf(g: GraphContent): AssetUse[] {
	return g.nodes
		.filter((n) => n.assetPath !== null && n.resourceType !== 'test')
		.map((n) => ({ assetKind: 'dbt' as const, assetPath: n.assetPath!, access: n.resourceType === 'source' ? ('r' as const) : ('w' as const) }));
}

export async function deployGraph(database: Database, path: string, g: GraphContent, by: string): Promise<bigint> {
	const hash = newScriptHash();
	await database.db.transaction(async (tx) => {
		await insertScriptVersion(tx, { workspace: WS, hash, path, language: 'dbt', content: '', createdBy: by });
		await replaceGraph(database, tx, versionKey(WS, path, hash), g, { digest: graphDigest(g), permissionedAs: `u/${by}` });
		await publishAssetUsage(database, tx, WS, path, hash, usesOf(g));
	});
	return hash;
}

function form(fields: Record<string, string | Uint8Array>, names: Record<string, string>): FormData {
	const f = new FormData();
	for (const [k, v] of Object.entries(fields)) {
		if (typeof v === 'string') f.set(k, v);
		else f.set(k, new Blob([v as Uint8Array<ArrayBuffer>]), names[k]);
	}
	return f;
}

export async function buildLineageWorld(database: Database): Promise<LineageWorld> {
	setDatabase(database);
	const restoreAdmin = useInstanceAdmin(ROOT);
	await bootstrap(database, { log: () => {} });
	const root = await login(ROOT.username, ROOT.password);
	await ok(root.post('/api/workspaces', { id: WS, name: 'Acme' }));
	await ok(root.post(`/api/w/${WS}/users`, { username: 'wsadmin', password: 'wsadmin-password-1', is_admin: true }));
	for (const u of ['alice', 'carol', 'bob']) await ok(root.post(`/api/w/${WS}/users`, { username: u, password: `${u}-password-1` }));
	await ok(root.post(`/api/w/${WS}/groups`, { name: 'finance-team', members: ['carol'] }));
	await ok(root.post(`/api/w/${WS}/folders`, { name: 'analytics', readers: [], writers: ['u/alice'] }));
	await ok(root.post(`/api/w/${WS}/folders`, { name: 'finance', readers: ['g/finance-team'], writers: [] }));
	// A folder whose name is a prefix of `analytics`: none of its grants reach `analytics`.
	await ok(root.post(`/api/w/${WS}/folders`, { name: 'analytic', readers: ['u/bob'], writers: [] }));
	await ok(root.post(`/api/w/${WS}/warehouses`, { name: 'main', default_database: 'jaffle_shop' }));

	const c: LineageWorld['c'] = {
		root,
		wsadmin: await login('wsadmin'),
		alice: await login('alice'),
		carol: await login('carol'),
		bob: await login('bob'),
		anon: new ApiClient()
	};

	const shopV1Hash = await deployGraph(database, SHOP, shopV1(), 'alice');
	const shopV2Hash = await deployGraph(database, SHOP, shopV2(), 'alice');
	const ledgerHash = await deployGraph(database, LEDGER, ledger(), 'root');
	const gone = await deployGraph(database, 'f/analytics/gone', shopV1(), 'alice');

	// A producer: reads shop's orders, writes a lake table, with column lineage of its own.
	const reportHash = newScriptHash();
	await database.db.transaction(async (tx) => {
		await insertScriptVersion(tx, { workspace: WS, hash: reportHash, path: REPORT, language: 'sql', content: `select order_id /* ${SECRET} */`, createdBy: 'alice' });
		await publishAssetUsage(database, tx, WS, REPORT, reportHash, [
			{ assetKind: 'dbt', assetPath: A('orders'), access: 'r' },
			{ assetKind: 'ducklake', assetPath: 'main/report', access: 'w' }
		]);
		await tx.insert(producerColumnLineage).values({
			workspace: WS,
			scriptPath: REPORT,
			scriptHash: reportHash,
			outputAssetKind: 'ducklake',
			outputAssetPath: 'main/report',
			outputColumn: 'order_ref',
			inputAssetKind: 'dbt',
			inputAssetPath: A('orders'),
			inputColumn: 'order_id',
			source: 'annotation',
			lineageKind: 'copy'
		});
	});

	const job = (over: Partial<NewJob>): Promise<string> =>
		database.db.transaction((tx) =>
			insertJob(tx, {
				workspace: WS,
				kind: 'run',
				scriptPath: SHOP,
				scriptHash: shopV1Hash,
				createdBy: 'alice',
				permissionedAs: 'u/alice',
				status: 'success',
				...over
			})
		);
	const RUN1 = await job({});
	const RUN2 = await job({});
	const snap = run2Snapshot();
	await database.db.transaction((tx) =>
		replaceGraph(database, tx, { workspace: WS, scriptPath: SHOP, scriptHash: shopV1Hash, jobId: RUN2 }, snap, { digest: graphDigest(snap), permissionedAs: 'u/alice' })
	);
	const PREVIEW = await job({ kind: 'preview', scriptHash: null });
	const pv = previewGraph();
	await database.db.transaction((tx) =>
		replaceGraph(database, tx, { workspace: WS, scriptPath: SHOP, scriptHash: null, jobId: PREVIEW }, pv, { digest: graphDigest(pv), permissionedAs: 'u/alice' })
	);
	const BOBRUN = await job({ createdBy: 'bob', permissionedAs: 'u/bob' });
	const GONE = await job({ scriptPath: 'f/analytics/gone', scriptHash: gone });
	// Deleting the version's row takes its graph with it (ON DELETE CASCADE); the job remains.
	await database.rows(sql`delete from script where workspace = ${WS} and hash = ${gone.toString()}::bigint`);

	const JAFFLE_DIR = fixture('jaffle-shop-1.12-duckdb-docs-generate');
	const INDEX = fixture('constructed-index', 'jaffle-shop-1.12', 'index');
	const manifestBytes = new Uint8Array(readFileSync(`${JAFFLE_DIR}/manifest.json`));
	const deployed = await ok(
		c.alice.call('POST', `/api/w/${WS}/scripts/dbt/deploy`, {
			form: form(
				{
					path: JAFFLE,
					manifest: manifestBytes,
					column_lineage: new Uint8Array(readFileSync(`${INDEX}/dbt.column_lineage.parquet`)),
					node_columns: new Uint8Array(readFileSync(`${INDEX}/dbt.node_columns.parquet`))
				},
				{ manifest: 'manifest.json', column_lineage: 'dbt.column_lineage.parquet', node_columns: 'dbt.node_columns.parquet' }
			)
		})
	);

	return {
		database,
		c,
		hashes: { shopV1: shopV1Hash, shopV2: shopV2Hash, ledger: ledgerHash, report: reportHash, jaffle: hexToHash(deployed.hash)! },
		jobs: { RUN1, RUN2, PREVIEW, BOBRUN, GONE, DEPLOY: deployed.job_id },
		async token(user, scopes) {
			const r = await c[user].post(`/api/w/${WS}/tokens`, { label: `t-${scopes.join('-') || 'all'}`, scopes });
			expect(r.status, JSON.stringify(r.body)).toBe(201);
			return new ApiClient().withBearer(r.body.token);
		},
		manifest: JSON.parse(new TextDecoder().decode(manifestBytes)),
		restoreEnv: restoreAdmin
	};
}

export const hex = hashToHex;
export { ZERO_UUID };

/**
 * jaffle-shop's asset path per unique_id, derived from the manifest by the rule of DESIGN.md §3
 * for this fixture (warehouse `main`, default database `jaffle_shop`, so no qualification).
 */
export function jaffleAssetPaths(manifest: any): Map<string, string> {
	const out = new Map<string, string>();
	for (const n of [...Object.values(manifest.nodes), ...Object.values(manifest.sources)] as any[]) {
		if (!['model', 'seed', 'snapshot', 'source'].includes(n.resource_type)) continue;
		expect(n.database).toBe('jaffle_shop');
		const name = n.resource_type === 'source' ? n.identifier || n.name : n.alias || n.name;
		out.set(n.unique_id, `main/${n.schema.toLowerCase()}/${name.toLowerCase()}`);
	}
	return out;
}
