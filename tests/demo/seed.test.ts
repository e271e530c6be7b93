// The demo workspace is the project's own generated dbt project, deployed through the real
// ingest. What it must hold is computed here from the generator's output, not from the ingest.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap } from '../../src/lib/server/bootstrap';
import type { Database } from '../../src/lib/server/db';
import { demoProducers, generateProject } from '../../src/lib/server/demo/generator';
import { DEMO_PROJECT_PATH, DEMO_WORKSPACE, seedDemo, wantDemo } from '../../src/lib/server/demo/seed';
import { testBackends } from '../support/db';

describe.each(testBackends())('demo workspace on $name', (backend) => {
	let h: Database;
	beforeAll(async () => {
		h = await backend.open();
		process.env.TRIBUTARY_ADMIN_USER = 'admin';
		process.env.TRIBUTARY_ADMIN_PASSWORD = 'demo-admin-pw';
		await bootstrap(h);
	});
	afterAll(async () => {
		await h?.close();
	});

	it('is seeded only on a fresh database, by default only on the embedded one', () => {
		const saved = process.env.TRIBUTARY_DEMO;
		delete process.env.TRIBUTARY_DEMO;
		expect(wantDemo(h, false)).toBe(false);
		expect(wantDemo(h, true)).toBe(h.kind === 'pglite');
		process.env.TRIBUTARY_DEMO = '0';
		expect(wantDemo(h, true)).toBe(false);
		process.env.TRIBUTARY_DEMO = '1';
		expect(wantDemo(h, true)).toBe(true);
		if (saved === undefined) delete process.env.TRIBUTARY_DEMO;
		else process.env.TRIBUTARY_DEMO = saved;
	});

	it('deploys the generated project with all its nodes, column lineage and project files', async () => {
		const project = await generateProject();
		const m = project.manifest as { nodes: Record<string, { resource_type: string }>; sources: object; unit_tests?: object };
		const expectedNodes =
			Object.values(m.nodes).filter((n) => n.resource_type !== 'operation').length +
			Object.keys(m.sources).length +
			Object.keys(m.unit_tests ?? {}).length;
		const r = await seedDemo(h, 'admin');
		expect(r.nodes).toBe(expectedNodes);
		expect(r.columnEdges).toBe(project.meta.columnEdges.total);
		const [row] = await h.rows<{ n: number; archived: number }>(
			sql`select count(*)::int as n, (select count(*)::int from script_archive where workspace = ${DEMO_WORKSPACE}) as archived
			    from dbt_node where workspace = ${DEMO_WORKSPACE} and script_path = ${DEMO_PROJECT_PATH}`
		);
		expect(row).toEqual({ n: expectedNodes, archived: 1 });
		// Every relation the demo writes is published as asset usage under the warehouse `main`.
		const usage = await h.rows<{ asset_path: string }>(
			sql`select asset_path from asset_usage where workspace = ${DEMO_WORKSPACE} and asset_kind = 'dbt' and access = 'w'`
		);
		expect(usage.length).toBe(project.meta.models + project.meta.seeds + project.meta.snapshots - ephemeralCount(project.manifest));
		for (const u of usage) expect(u.asset_path.startsWith('main/')).toBe(true);
		// The two producers: each writes a lake table and has column lineage stored.
		expect(r.producers).toBe(2);
		const lake = await h.rows<{ script_path: string; asset_path: string }>(
			sql`select script_path, asset_path from asset_usage where workspace = ${DEMO_WORKSPACE} and asset_kind = 'ducklake' and access = 'w' order by 1`
		);
		expect(lake.map((x) => x.script_path)).toEqual(['f/demo/producers/daily_revenue', 'f/demo/producers/monthly_city_revenue']);
		// Every `-- column x <- …` line of the demo SQL is stored as annotation lineage of x.
		const annotated = demoProducers.flatMap((p) =>
			[...p.content.matchAll(/^\s*(?:--|\/\/)\s*column\s+(\w+)\s*<-/gm)].map((m) => `${p.path} ${m[1]}`)
		);
		expect(annotated.length).toBeGreaterThan(0);
		const stored = await h.rows<{ k: string }>(
			sql`select distinct script_path || ' ' || output_column as k from producer_column_lineage
			    where workspace = ${DEMO_WORKSPACE} and source = 'annotation' order by 1`
		);
		expect(stored.map((x) => x.k)).toEqual([...new Set(annotated)].sort());
	});
});

function ephemeralCount(manifest: Record<string, unknown>): number {
	const nodes = (manifest as { nodes: Record<string, { config?: { materialized?: string } }> }).nodes;
	return Object.values(nodes).filter((n) => n.config?.materialized === 'ephemeral').length;
}
