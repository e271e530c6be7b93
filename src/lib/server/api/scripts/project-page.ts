// A dbt project's page: its versions (each deploy), the model graph of one version, its runs and
// previews. Versions are the project's deploy jobs, read with the same job read rule as
// jobs/list; the graph is the asset graph with that version named (GET assets/graph?
// dbt_script_hash=), narrowed to this project's relations.
import { error, type Cookies } from '@sveltejs/kit';
import type { Grant } from '../../access';
import { describeLock } from '../../dbt-engine-spec';
import { getDatabase } from '../../db';
import { ApiError } from '../../http';
import { canvasPayload, directionFromCookies } from '../graph/canvas';
import { folderOf, parseScriptPath } from '../../paths';
import { processWorker } from '../../runner/worker';
import { hexToHash } from '../../../types/script-hash';
import { unpinnedAssetGraph } from '../graph/reads';
import { jobResultOf, jobRowsAs } from '../jobs/reads';
import { jobSummaryOf } from '../jobs/wire';
import { readVersion } from './version';

const engineKindOf = (v: { lock: { engine: string } | null }): 'dbt-core' | 'fusion' => (v.lock?.engine === 'dbt-fusion' ? 'fusion' : 'dbt-core');

export interface VersionRow {
	hash: string;
	jobId: string;
	deployedAt: string;
	deployedBy: string;
	nodes: number | null;
	edges: number | null;
	columnEdges: number | null;
	dbtVersion: string | null;
	hasProjectFiles: boolean;
	/** False while its deploy job pins it. */
	live: boolean;
}

/** The project page of `path`: 404 for a path the caller cannot see or with no deployed version. */
export async function projectPage(grant: Grant, path: string, view: { v: string | null; select: string | null; cookies: Pick<Cookies, 'get'> }) {
	// One answer for "missing" and "not yours", as everywhere else.
	if (!parseScriptPath(path) || !grant.maySee(path)) error(404, 'no such project');
	const database = await getDatabase();
	const deploys = await jobRowsAs(grant, { scriptPath: path, kind: 'deploy', limit: 30 });
	const versions: VersionRow[] = [];
	for (const d of deploys) {
		// A deploy that failed to pin left no version behind.
		if (d.scriptHash === null || d.status === 'failure' || d.status === 'canceled') continue;
		const payload = await jobResultOf(grant, d.id);
		const r = (payload?.result ?? {}) as Record<string, unknown>;
		const num = (v: unknown) => (typeof v === 'number' ? v : null);
		versions.push({
			hash: jobSummaryOf(d).script_hash!,
			jobId: d.id,
			deployedAt: d.createdAt.toISOString(),
			deployedBy: d.createdBy,
			nodes: num(r.nodes),
			edges: num(r.edges),
			columnEdges: num(r.column_edges),
			dbtVersion: typeof r.dbt_version === 'string' ? r.dbt_version : null,
			hasProjectFiles: r.has_project_files === true,
			live: d.status === 'success'
		});
	}
	if (versions.length === 0) error(404, 'no deployed version of this project');
	const asked = view.v;
	const version = versions.find((v) => v.hash === asked) ?? versions.find((v) => v.live) ?? versions[0];
	const detail = await readVersion(grant, database, hexToHash(version.hash)!).catch(() => null);
	// Said beside the Run button before anyone presses it: this worker cannot start dbt at all.
	const runProblem = detail && grant.mayRun(path) ? await processWorker()?.engineProblem(engineKindOf(detail)) : null;
	let graph;
	try {
		// GET assets/graph's gate. The canvas needs the shape only; the details pane reads a
		// relation's authored fields on selection.
		grant.require('assets', 'read');
		graph = await unpinnedAssetGraph(grant, database, { folder: folderOf(path), assetKinds: new Set(['dbt']), scriptHash: hexToHash(version.hash) }, { fields: 'shape' });
	} catch (e) {
		if (e instanceof ApiError) error(e.status, e.message);
		throw e;
	}
	const runs = (await jobRowsAs(grant, { scriptPath: path, limit: 40 })).filter((j) => j.kind !== 'deploy').map(jobSummaryOf);
	return {
		path,
		versions,
		version,
		runs,
		mayRun: grant.mayRun(path),
		mayDeploy: grant.mayWrite(path),
		mayDelete: grant.mayDelete(path),
		lockLine: detail?.lock ? describeLock(detail.lock) : null,
		pinJob: detail && !detail.live ? detail.deploy_job : null,
		runProblem: runProblem ?? null,
		...canvasPayload(graph, { projectFilter: (s) => s === path, focus: view.select, direction: directionFromCookies(view.cookies) })
	};
}
