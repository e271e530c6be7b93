// The demo workspace an empty embedded database starts with: the project's own generated dbt
// projects deployed through the same ingest as any upload, so a first visit has something real
// to browse: a dbt project with dbt's column index, deployed twice (an earlier version, then the
// current one, which adds a model and a column, so comparing two versions shows something), producer scripts that read its relations
// and write lake tables, two recorded runs of the project (one succeeded, one failed), a preview
// of an unmerged change, and a second project deployed as dbt-core leaves it (compiled SQL and a
// catalog, no index), whose column lineage the queued lineage job infers once the worker starts,
// with a producer reading it. The runs and the preview go through the same service functions as POST jobs/record
// and POST scripts/dbt/preview, behind the same gates, as the admin.
import { buildPrincipal, grantOf, type Grant } from '../access';
import type { Database } from '../db';
import { ingestUpload, type UploadRequest } from '../ingest/deploy';
import { findAccountByUsername } from '../repo/accounts';
import { replaceFolder } from '../repo/folders';
import { upsertWarehouse } from '../repo/warehouses';
import { createWorkspace } from '../repo/workspaces';
import { deploySqlScript } from '../producers/deploy';
import { recordRun } from '../runner/record';
import { runnerIngest } from '../runner-ingest';
import { demoProducers, generateProject, projectTarGz, roasteryProducers, type GeneratedProject } from './generator';

export const DEMO_WORKSPACE = 'demo';
export const DEMO_PROJECT_PATH = 'f/demo/shop';
export const ROASTERY_PROJECT_PATH = 'f/demo/roastery';

const DESCRIPTOR = `# The demo project: builds into the warehouse "main" with column lineage on.
profile:
  warehouse: main
column_lineage: true
test_behavior: build
`;

const ROASTERY_DESCRIPTOR = `# The roastery: deployed from dbt-core's target/ (manifest and catalog, no column index).
profile:
  warehouse: main
`;

/** Should this start seed the demo? Only a fresh database, and by default only the embedded one. */
export function wantDemo(database: Database, freshDatabase: boolean): boolean {
	const flag = process.env.TRIBUTARY_DEMO;
	if (!freshDatabase || flag === '0') return false;
	return database.kind === 'pglite' || flag === '1';
}

export interface DemoSeed {
	jobId: string;
	/** The deploy of the version before the current one. */
	earlierJobId: string;
	nodes: number;
	columnEdges: number | null;
	producers: number;
	producerColumns: number;
	/** The jobs of the two recorded runs and of the preview, as Recent runs lists them. */
	runs: { succeeded: string; failed: string; preview: string };
	/** The second project: its deploy, and the lineage job (queued: the worker runs it) inferring its column lineage. */
	roastery: { jobId: string; lineageJobId: string; nodes: number };
}

const encode = (doc: unknown) => new TextEncoder().encode(typeof doc === 'string' ? doc : JSON.stringify(doc));

/** The files a deploy or a preview of a generated project uploads. */
async function uploadOf(project: GeneratedProject): Promise<Pick<UploadRequest, 'manifest' | 'columnLineage' | 'nodeColumns' | 'runResults' | 'project'>> {
	return {
		manifest: { name: 'manifest.json', bytes: encode(project.manifest) },
		columnLineage: { name: 'dbt.column_lineage.parquet', bytes: project.columnLineageParquet },
		nodeColumns: { name: 'dbt.node_columns.parquet', bytes: project.nodeColumnsParquet },
		runResults: { name: 'run_results.json', bytes: encode(project.runResults) },
		project: { name: 'project.tar.gz', bytes: await projectTarGz(project) }
	};
}

/** What `tributary record` uploads after a CI build: run_results and the JSON log, through POST jobs/record's service. */
async function recordDemoRun(database: Database, grant: Grant, project: GeneratedProject): Promise<string> {
	grant.requireRun(DEMO_PROJECT_PATH);
	const answer = await recordRun(grant, database, runnerIngest, {
		path: DEMO_PROJECT_PATH,
		runResults: { name: 'run_results.json', bytes: encode(project.runResults) },
		log: { name: 'dbt.log', bytes: encode(project.eventLog) }
	});
	return answer.job_id;
}

export async function seedDemo(database: Database, adminUsername: string): Promise<DemoSeed> {
	const admin = await findAccountByUsername(database, adminUsername);
	if (!admin) throw new Error(`demo: the admin account '${adminUsername}' does not exist`);
	// The deployed project and its succeeded build (seed 1); the next day's failed build (seed 2:
	// the same project, other timings and invocation); the change a preview shows.
	const [earlier, project, failing, changed] = await Promise.all([
		generateProject({ earlier: true }),
		generateProject(),
		generateProject({ seed: 2, failures: true }),
		generateProject({ change: true })
	]);
	await createWorkspace(database, { id: DEMO_WORKSPACE, name: 'Demo shop', creator: { accountId: admin.id, username: admin.username } });
	await replaceFolder(database, DEMO_WORKSPACE, { name: 'demo', readers: [], writers: [] });
	await upsertWarehouse(database, DEMO_WORKSPACE, {
		name: 'main',
		defaultDatabase: project.meta.database,
		// No path: an embedded DuckDB of the workspace's own, so Run builds the project for real.
		settings: { type: 'duckdb', schema: project.meta.schema, threads: 4 }
	});
	const earlierAnswer = await ingestUpload(database, {
		workspace: DEMO_WORKSPACE,
		path: DEMO_PROJECT_PATH,
		kind: 'deploy',
		username: admin.username,
		descriptor: DESCRIPTOR,
		pin: 'at_first_run',
		...(await uploadOf(earlier))
	});
	if (earlierAnswer.warnings.length) throw new Error(`demo: the earlier version deployed with warnings: ${earlierAnswer.warnings.join('; ')}`);
	const answer = await ingestUpload(database, {
		workspace: DEMO_WORKSPACE,
		path: DEMO_PROJECT_PATH,
		kind: 'deploy',
		username: admin.username,
		descriptor: DESCRIPTOR,
		// Starting never waits for an engine to be installed: the first run pins (and provisions) it.
		pin: 'at_first_run',
		...(await uploadOf(project))
	});
	if (answer.warnings.length) throw new Error(`demo: the generated project deployed with warnings: ${answer.warnings.join('; ')}`);
	const roastery = await generateProject({ roastery: true });
	const roasteryAnswer = await ingestUpload(database, {
		workspace: DEMO_WORKSPACE,
		path: ROASTERY_PROJECT_PATH,
		kind: 'deploy',
		username: admin.username,
		descriptor: ROASTERY_DESCRIPTOR,
		pin: 'at_first_run',
		manifest: { name: 'manifest.json', bytes: encode(roastery.manifest) },
		catalog: { name: 'catalog.json', bytes: encode(roastery.catalog) },
		runResults: { name: 'run_results.json', bytes: encode(roastery.runResults) },
		project: { name: 'project.tar.gz', bytes: await projectTarGz(roastery) }
	});
	if (roasteryAnswer.warnings.length) throw new Error(`demo: the roastery deployed with warnings: ${roasteryAnswer.warnings.join('; ')}`);
	if (!roasteryAnswer.lineage_job_id) throw new Error('demo: the roastery deploy queued no lineage job');
	let producerColumns = 0;
	// In order: the second producer reads the lake table the first one writes.
	for (const p of [...demoProducers, ...roasteryProducers]) {
		const a = await deploySqlScript(database, { workspace: DEMO_WORKSPACE, path: p.path, content: p.content, username: admin.username, mayReadScript: () => true });
		if (a.warnings.length) throw new Error(`demo: producer ${p.path} deployed with warnings: ${a.warnings.join('; ')}`);
		producerColumns += a.columns_annotated + a.columns_inferred;
	}

	// The admin as the API would see them after signing in (buildPrincipal reads the process
	// database, the one the start seeds).
	const grant = grantOf(await buildPrincipal({ accountId: admin.id, username: admin.username, instanceAdmin: admin.instanceAdmin, via: 'session' }, DEMO_WORKSPACE));
	const succeeded = await recordDemoRun(database, grant, project);
	const failed = await recordDemoRun(database, grant, failing);
	grant.requireWrite(DEMO_PROJECT_PATH);
	const preview = await ingestUpload(database, {
		workspace: DEMO_WORKSPACE,
		path: DEMO_PROJECT_PATH,
		kind: 'preview',
		username: admin.username,
		descriptor: DESCRIPTOR,
		...(await uploadOf(changed))
	});
	if (preview.warnings.length) throw new Error(`demo: the preview uploaded with warnings: ${preview.warnings.join('; ')}`);
	return {
		jobId: answer.job_id,
		earlierJobId: earlierAnswer.job_id,
		nodes: answer.nodes,
		columnEdges: answer.column_edges,
		producers: demoProducers.length + roasteryProducers.length,
		producerColumns,
		runs: { succeeded, failed, preview: preview.job_id },
		roastery: { jobId: roasteryAnswer.job_id, lineageJobId: roasteryAnswer.lineage_job_id, nodes: roasteryAnswer.nodes }
	};
}
