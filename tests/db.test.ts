import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/lib/server/db';
import { pipelinedTransaction, toBigInt, toNumber } from '../src/lib/server/db';
import { script, workspace, dbtNode, ZERO_UUID } from '../src/lib/server/schema';
import { testBackends } from './support/db';

describe.each(testBackends())('database on $name', (backend) => {
	let database: Database;
	beforeAll(async () => {
		database = await backend.open();
	});
	afterAll(async () => {
		await database?.close();
	});

	it('has every table of the data model', async () => {
		const rows = await database.rows<{ t: string }>(
			sql`select table_name as t from information_schema.tables where table_schema = 'public' order by 1`
		);
		const names = rows.map((r) => r.t);
		for (const t of [
			'account', 'session', 'workspace', 'member', 'group', 'group_member', 'folder', 'api_token',
			'script', 'job', 'warehouse', 'dbt_node', 'dbt_edge', 'dbt_column_edge', 'dbt_graph_column', 'dbt_graph_snapshot',
			'dbt_run_progress', 'asset_usage', 'producer_column_lineage'
		]) {
			expect(names).toContain(t);
		}
	});

	it('a pipelined transaction keeps everything when its last statements succeed, and nothing when one fails', async () => {
		await database.rows(sql`create table pipelined_probe (n int primary key)`);
		const count = async () => toNumber((await database.rows<{ n: unknown }>(sql`select count(*) as n from pipelined_probe`))[0].n);
		const run = (lastBad: boolean) =>
			pipelinedTransaction(database, async (tx) => {
				const [r] = await database.rows<{ n: unknown }>(sql`select count(*) as n from pipelined_probe`, tx);
				await database.rows(sql`insert into pipelined_probe values (${toNumber(r.n) + 1})`, tx);
				const last = Promise.all([
					database.rows(sql`insert into pipelined_probe values (100 + ${toNumber(r.n)})`, tx),
					database.rows(lastBad ? sql`insert into pipelined_probe values (1 / 0)` : sql`select 1`, tx)
				]);
				return { result: 'done', last };
			});
		expect(await run(false)).toBe('done');
		expect(await count()).toBe(2);
		const failed = await run(true).then(() => null, (e: { cause?: unknown }) => e);
		expect(String(failed?.cause ?? failed)).toMatch(/division by zero/);
		expect(await count()).toBe(2);
		// The connection it used is back in the pool and usable.
		expect(await run(false)).toBe('done');
		expect(await count()).toBe(4);
		await database.rows(sql`drop table pipelined_probe`);
	});

	it('normalises raw bigint results above 2^53 and array parameters', async () => {
		const [r] = await database.rows<{ big: unknown; n: unknown }>(
			sql`select ${sql.param('9007199254740993')}::bigint as big, count(*) as n from (values (1),(2)) v(x) where x = any(${sql.param([1, 2])}::int[])`
		);
		expect(toBigInt(r.big)).toBe(9007199254740993n);
		expect(toNumber(r.n)).toBe(2);
	});

	it('keeps a preview (NULL hash) and a version graph apart, and cascades a version delete', async () => {
		await database.db.insert(workspace).values({ id: 'ws1', name: 'one' });
		await database.db.insert(script).values({ workspace: 'ws1', hash: 42n, path: 'f/a/p', language: 'dbt', content: '', createdBy: 'x' });
		const base = { workspace: 'ws1', scriptPath: 'f/a/p', uniqueId: 'model.p.a', resourceType: 'model', name: 'a' };
		await database.db.insert(dbtNode).values({ ...base, scriptHash: 42n, jobId: ZERO_UUID });
		await database.db.insert(dbtNode).values({ ...base, scriptHash: null, jobId: ZERO_UUID });
		// The same preview row twice violates the NULL-hash partial unique index.
		await expect(database.db.insert(dbtNode).values({ ...base, scriptHash: null, jobId: ZERO_UUID })).rejects.toThrow();
		await expect(database.db.insert(dbtNode).values({ ...base, scriptHash: 42n, jobId: ZERO_UUID })).rejects.toThrow();
		await database.db.delete(script).where(sql`hash = 42`);
		const left = await database.rows<{ n: number }>(sql`select count(*)::int as n, bool_and(script_hash is null) as only_null from dbt_node`);
		expect(left[0]).toMatchObject({ n: 1, only_null: true });
	});
});
