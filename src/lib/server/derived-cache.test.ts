// The database level of the graph cache (graph-cache.ts `persisted`, repo/derived-cache.ts) and
// the canvas payload it backs (api/graph/canvas.ts storedCanvasPayload), on both databases.
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBackends } from '../../../tests/support/db';
import type { AssetGraph, DbtProvenance } from '$lib/types/asset-graph';
import type { Database } from './db';
import { persisted, persistedKeyOf, persistedWritesDone } from './graph-cache';
import { canvasPayload, storedCanvasPayload } from './api/graph/canvas';
import { insertAccount } from './repo/accounts';
import { readDerived, writeDerived } from './repo/derived-cache';
import { createWorkspace } from './repo/workspaces';

const prov = (uniqueId: string): DbtProvenance => ({
	script_path: 'f/demo/shop',
	script_hash: '0000000000000001',
	unique_id: uniqueId,
	resource_type: 'model',
	materialized: 'table',
	materialize_strategy: null,
	data_tests: [],
	authored: true
});

// A folder big enough to be grouped (more than a flat level), so its first cut opens groups.
const graph = (): AssetGraph => {
	const names = Array.from({ length: 200 }, (_, i) => `${['stg', 'int', 'fct'][i % 3]}_${['orders', 'billing', 'users', 'events'][i % 4]}__${i}`);
	return {
		assets: names.map((n) => ({ kind: 'dbt', path: `main/analytics/${n}`, dbt: prov(`model.shop.${n}`) })),
		runnables: [{ path: 'f/demo/shop', language: 'dbt', script_hash: '0000000000000001', dbt: { model_count: names.length } }],
		edges: [],
		dbt_edges: names.slice(1).map((n, i) => ({ from_asset_path: `main/analytics/${names[i]}`, to_asset_path: `main/analytics/${n}` })),
		hidden: 0
	};
};

const rows = async (database: Database) => (await database.rows<{ key: string }>(sql`select key from derived_cache order by key`)).map((r) => r.key);

describe.each(testBackends())('derived cache on $name', (backend) => {
	let database: Database;

	beforeAll(async () => {
		database = await backend.open();
		const creator = { accountId: randomUUID(), username: 'ann' };
		await insertAccount(database, { id: creator.accountId, username: 'ann', passwordHash: 'x', instanceAdmin: false });
		for (const ws of ['acme', 'other']) expect(await createWorkspace(database, { id: ws, name: ws, creator })).not.toBeNull();
	});

	afterAll(async () => {
		await persistedWritesDone();
		await database?.close();
	});

	it('builds once, stores after the answer, and reads the stored value back instead of building', async () => {
		const first = await persisted(database, 'acme', 'k1', async () => ({ a: [1, 2], b: 'x' }), async () => true);
		await persistedWritesDone();
		expect(persistedKeyOf(first)).toBe('k1');
		const again = await persisted(database, 'acme', 'k1', async () => ({ a: [], b: 'rebuilt' }), async () => true);
		expect(again).toEqual({ a: [1, 2], b: 'x' });
		expect(again).not.toBe(first);
		expect(persistedKeyOf(again)).toBe('k1');
	});

	it('does not keep a build whose inputs moved during it', async () => {
		await persisted(database, 'acme', 'k2', async () => ({ v: 1 }), async () => false);
		await persistedWritesDone();
		expect(await readDerived(database, 'k2')).toBeNull();
		expect(await persisted(database, 'acme', 'k2', async () => ({ v: 2 }), async () => true)).toEqual({ v: 2 });
	});

	it('rebuilds when a stored body is unreadable', async () => {
		await writeDerived(database, 'acme', 'k3', new Uint8Array([1, 2, 3]), 1 << 30);
		expect(await persisted(database, 'acme', 'k3', async () => ({ v: 'built' }), async () => false)).toEqual({ v: 'built' });
	});

	it('drops the least recently used rows past its byte budget', async () => {
		const body = (n: number) => new Uint8Array(n).fill(7);
		await writeDerived(database, 'other', 'lru-a', body(400), 1 << 30);
		await new Promise((r) => setTimeout(r, 5));
		await writeDerived(database, 'other', 'lru-b', body(400), 1 << 30);
		await new Promise((r) => setTimeout(r, 5));
		// Every row fits under the budget but the oldest, which goes.
		const held = (await database.rows<{ b: string | number }>(sql`select coalesce(sum(bytes), 0) as b from derived_cache where key not in ('lru-a')`))[0];
		await writeDerived(database, 'other', 'lru-c', body(400), Number(held.b) + 400);
		const keys = await rows(database);
		expect(keys).not.toContain('lru-a');
		expect(keys).toEqual(expect.arrayContaining(['lru-b', 'lru-c']));
	});

	it('goes with its workspace', async () => {
		await writeDerived(database, 'other', 'gone-with-ws', new Uint8Array([1]), 1 << 30);
		await database.rows(sql`delete from workspace where id = 'other'`);
		expect(await readDerived(database, 'gone-with-ws')).toBeNull();
	});

	it('answers the canvas payload as text, the same as built in process, and reads its first cut back', async () => {
		const { timing: _t, ...built } = canvasPayload(graph());
		expect(built.open.length).toBeGreaterThan(0);
		const stored = await storedCanvasPayload(database, 'acme', graph());
		expect(JSON.parse(stored.canvas)).toEqual(built);
		await persistedWritesDone();
		const cuts = (await rows(database)).filter((k) => k.includes(':fc:'));
		expect(cuts).toHaveLength(1);
		// A fresh graph object (no payload in memory): the stored cut, the same text.
		expect((await storedCanvasPayload(database, 'acme', graph())).canvas).toBe(stored.canvas);
		// A stored cut that does not lay out the cut it names is not used.
		const bogus = gzipSync(JSON.stringify({ open: ['g:nowhere'], layouts: {} }));
		await database.rows(sql`update derived_cache set body = ${bogus} where key = ${cuts[0]}`);
		expect((await storedCanvasPayload(database, 'acme', graph())).canvas).toBe(stored.canvas);
		// Another direction is another cut.
		const tb = await storedCanvasPayload(database, 'acme', graph(), { direction: 'TB' });
		expect(JSON.parse(tb.canvas).direction).toBe('TB');
	});

	it('keeps the payload text under the key of the graph it came from', async () => {
		const g = await persisted(database, 'acme', 'graph-key', async () => graph(), async () => true);
		const first = await storedCanvasPayload(database, 'acme', g);
		await persistedWritesDone();
		expect((await rows(database)).some((k) => k.endsWith(':cp:LR::graph-key'))).toBe(true);
		// After a "restart": the graph read back, its payload text read back whole.
		const back = await persisted(database, 'acme', 'graph-key', async () => graph(), async () => true);
		expect(back).not.toBe(g);
		expect((await storedCanvasPayload(database, 'acme', back)).canvas).toBe(first.canvas);
	});
});
