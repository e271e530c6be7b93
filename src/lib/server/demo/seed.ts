// The demo workspace an empty embedded database starts with: the project's own generated dbt
// project deployed through the same ingest as any upload, so a first visit has something real
// to browse: a dbt project and two producer scripts that read its relations and write lake tables.
import type { Database } from '../db';
import { ingestUpload } from '../ingest/deploy';
import { findAccountByUsername } from '../repo/accounts';
import { replaceFolder } from '../repo/folders';
import { upsertWarehouse } from '../repo/warehouses';
import { createWorkspace } from '../repo/workspaces';
import { deploySqlScript } from '../producers/deploy';
import { demoProducers, generateProject, projectTarGz } from './generator';

export const DEMO_WORKSPACE = 'demo';
export const DEMO_PROJECT_PATH = 'f/demo/shop';

const DESCRIPTOR = `# The demo project: builds into the warehouse "main" with column lineage on.
profile:
  warehouse: main
column_lineage: true
test_behavior: build
`;

/** Should this start seed the demo? Only a fresh database, and by default only the embedded one. */
export function wantDemo(h: Database, freshDatabase: boolean): boolean {
	const flag = process.env.TRIBUTARY_DEMO;
	if (!freshDatabase || flag === '0') return false;
	return h.kind === 'pglite' || flag === '1';
}

export async function seedDemo(h: Database, adminUsername: string): Promise<{ jobId: string; nodes: number; columnEdges: number | null; producers: number; producerColumns: number }> {
	const admin = await findAccountByUsername(h, adminUsername);
	if (!admin) throw new Error(`demo: the admin account '${adminUsername}' does not exist`);
	const project = await generateProject();
	await createWorkspace(h, { id: DEMO_WORKSPACE, name: 'Demo shop', creator: { accountId: admin.id, username: admin.username } });
	await replaceFolder(h, DEMO_WORKSPACE, { name: 'demo', readers: [], writers: [] });
	await upsertWarehouse(h, DEMO_WORKSPACE, {
		name: 'main',
		defaultDatabase: project.meta.database,
		settings: { type: 'duckdb', path: `${project.meta.database}.duckdb`, schema: project.meta.schema, threads: 4 }
	});
	const answer = await ingestUpload(h, {
		workspace: DEMO_WORKSPACE,
		path: DEMO_PROJECT_PATH,
		kind: 'deploy',
		username: admin.username,
		descriptor: DESCRIPTOR,
		manifest: { name: 'manifest.json', bytes: new TextEncoder().encode(JSON.stringify(project.manifest)) },
		columnLineage: { name: 'dbt.column_lineage.parquet', bytes: project.columnLineageParquet },
		nodeColumns: { name: 'dbt.node_columns.parquet', bytes: project.nodeColumnsParquet },
		runResults: { name: 'run_results.json', bytes: new TextEncoder().encode(JSON.stringify(project.runResults)) },
		project: { name: 'project.tar.gz', bytes: await projectTarGz(project) }
	});
	if (answer.warnings.length) throw new Error(`demo: the generated project deployed with warnings: ${answer.warnings.join('; ')}`);
	let producerColumns = 0;
	// In order: the second producer reads the lake table the first one writes.
	for (const p of demoProducers) {
		const a = await deploySqlScript(h, { workspace: DEMO_WORKSPACE, path: p.path, content: p.content, username: admin.username, mayReadScript: () => true });
		if (a.warnings.length) throw new Error(`demo: producer ${p.path} deployed with warnings: ${a.warnings.join('; ')}`);
		producerColumns += a.columns_annotated + a.columns_inferred;
	}
	return { jobId: answer.job_id, nodes: answer.nodes, columnEdges: answer.column_edges, producers: demoProducers.length, producerColumns };
}
