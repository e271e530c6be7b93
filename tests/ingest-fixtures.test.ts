// Every real manifest in ../shared/fixtures, stored through the deploy ingest on both databases,
// or refused with a message naming the version. Expected numbers come from the raw JSON here.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/lib/server/db';
import { ingestUpload } from '../src/lib/server/ingest/deploy';
import { insertAccount } from '../src/lib/server/repo/accounts';
import { upsertWarehouse } from '../src/lib/server/repo/warehouses';
import { createWorkspace } from '../src/lib/server/repo/workspaces';
import { testBackends } from './support/db';
import { describeFixtures, FIXTURES } from './support/fixtures';

function manifests(dir: string): string[] {
	return readdirSync(dir).flatMap((f) => {
		const p = path.join(dir, f);
		if (statSync(p).isDirectory()) return f === 'json-schemas' ? [] : manifests(p);
		return /manifest.*\.json$/.test(f) ? [p] : [];
	});
}

interface Expect {
	version: number;
	nodes: number;
	tests: number;
	/** Relations the project writes: models (not ephemeral), seeds, snapshots. */
	written: Set<string>;
}

const KEPT = new Set(['model', 'seed', 'snapshot', 'test', 'analysis']);

function expectationsOf(file: string): Expect {
	const m = JSON.parse(readFileSync(file, 'utf8'));
	const version = Number(/manifest\/v(\d+)\.json/.exec(m.metadata.dbt_schema_version)![1]);
	const nodes = Object.values<any>(m.nodes ?? {});
	const kept = nodes.filter((n) => KEPT.has(n.resource_type));
	const written = new Set<string>();
	for (const n of kept) {
		if (!['model', 'seed', 'snapshot'].includes(n.resource_type) || n.config?.materialized === 'ephemeral') continue;
		written.add(n.unique_id);
	}
	return {
		version,
		nodes: kept.length + Object.keys(m.sources ?? {}).length + Object.keys(m.unit_tests ?? {}).length,
		tests: kept.filter((n) => n.resource_type === 'test').length + Object.keys(m.unit_tests ?? {}).length,
		written
	};
}

describeFixtures('every fixture manifest through the deploy ingest', () => {
	const files = manifests(FIXTURES).sort();

	it('finds the fixture manifests', () => {
		expect(files.length).toBeGreaterThanOrEqual(20);
	});

	describe.each(testBackends())('on $name', (backend) => {
		let database: Database;
		const ws = 'fixtures';
		beforeAll(async () => {
			database = await backend.open();
			await insertAccount(database, { id: 'a1', username: 'ci', passwordHash: null, instanceAdmin: true });
			await createWorkspace(database, { id: ws, name: 'Fixtures', creator: { accountId: 'a1', username: 'ci' } });
			await upsertWarehouse(database, ws, { name: 'main', defaultDatabase: null, settings: {} });
		});
		afterAll(async () => {
			await database?.close();
		});

		it.each(files.map((f) => [path.relative(FIXTURES, f), f]))('%s', async (_rel, file) => {
			const exp = expectationsOf(file);
			const scriptPath = `f/fixtures/${path.relative(FIXTURES, file).replace(/[^A-Za-z0-9_/-]/g, '_').replace(/\//g, '__')}`;
			const upload = () =>
				ingestUpload(database, {
					workspace: ws,
					path: scriptPath,
					kind: 'deploy',
					username: 'ci',
					manifest: { name: path.basename(file), bytes: new Uint8Array(readFileSync(file)) }
				});
			if (exp.version < 10) {
				await expect(upload()).rejects.toThrow(new RegExp(`${path.basename(file)}: schema version v${exp.version} is not supported \\(supported: v10, v11, v12\\)`));
				const [{ n }] = await database.rows<{ n: number }>(sql`select count(*)::int as n from script where path = ${scriptPath}`);
				expect(n).toBe(0);
				return;
			}
			const t0 = performance.now();
			const a = await upload();
			const ms = performance.now() - t0;
			expect(a.nodes).toBe(exp.nodes);
			const [stored] = await database.rows<{ nodes: number; tests: number; dangling: number }>(
				sql`select count(*)::int as nodes,
				       count(*) filter (where test_kind is not null)::int as tests,
				       (select count(*)::int from dbt_edge e where e.workspace = ${ws} and e.script_path = ${scriptPath}
				          and not exists (select 1 from dbt_node p where p.workspace = e.workspace and p.script_path = e.script_path
				                            and p.script_hash = e.script_hash and p.job_id = e.job_id and p.unique_id = e.parent_unique_id)) as dangling
				    from dbt_node where workspace = ${ws} and script_path = ${scriptPath}`
			);
			expect(stored).toEqual({ nodes: exp.nodes, tests: exp.tests, dangling: 0 });
			const writes = await database.rows<{ n: number }>(
				sql`select count(*)::int as n from asset_usage where workspace = ${ws} and script_path = ${scriptPath} and access in ('w', 'rw')`
			);
			// Distinct relations: two nodes may build the same relation (e.g. model versions).
			expect(writes[0].n).toBeLessThanOrEqual(exp.written.size);
			expect(writes[0].n).toBeGreaterThan(0);
			process.stderr.write(`[ingest] ${backend.name} ${path.relative(FIXTURES, file)}: ${a.nodes} nodes, ${a.edges} edges in ${ms.toFixed(0)} ms\n`);
		});
	});
});
