// The workspace page's reads: the projects the caller may see (dbt projects and producer
// scripts) with their last deploy, size and last run, and the recent jobs the caller may list.
// Access decisions are the access layer's; this only applies them.
import type { Grant } from '../../access';
import { getDatabase, type Database } from '../../db';
import { listJobs } from '../../repo/jobs';
import { listProjects, PROJECT_LIST_LIMIT } from '../../repo/projects';
import { processWorker } from '../../runner/worker';
import { hashToHex } from '../../../types/script-hash';

export interface RecentRun {
	id: string;
	kind: string;
	status: string;
	/** The dbt command, when the job ran one. */
	command: string | null;
	scriptPath: string | null;
	createdBy: string;
	createdAt: string;
}

export interface ProjectItem {
	path: string;
	/** `dbt`, or the producer's language (`sql`, `python`). */
	language: string;
	version: string;
	deployedAt: string;
	deployedBy: string;
	/** dbt: the nodes and edges its deploy stored (the project page's versions table says the same). */
	nodes: number | null;
	edges: number | null;
	/** A producer: the assets it reads and writes. */
	reads: number | null;
	writes: number | null;
	lastRun: { id: string; kind: string; status: string; command: string | null; createdAt: string } | null;
	/** The caller may run it and it can run here (project files deployed, the engine startable). */
	runnable: boolean;
}

export interface WorkspaceHome {
	projects: ProjectItem[];
	projectLimit: number;
	recentRuns: RecentRun[];
}

export async function workspaceHome(grant: Grant, database: Database): Promise<WorkspaceHome> {
	// Projects are listed to whoever may see their shape (the pipeline page's rule); a run is
	// shown only where the caller's token reaches the path's jobs.
	const mayListJobs = grant.allows('jobs', 'read');
	const rows = await listProjects(database, grant.workspace, grant.shapeFilter());
	// Whether this server can start each engine kind at all, asked once per kind.
	const problems = new Map<string, Promise<string | null>>();
	const engineProblem = (kind: 'dbt-core' | 'fusion') => {
		if (!problems.has(kind)) problems.set(kind, processWorker()?.engineProblem(kind) ?? Promise.resolve(null));
		return problems.get(kind)!;
	};
	const projects: ProjectItem[] = [];
	for (const r of rows) {
		const runnable = r.language === 'dbt' && r.hasArchive && grant.mayRun(r.path) && !(await engineProblem(r.lockEngine === 'dbt-fusion' ? 'fusion' : 'dbt-core'));
		projects.push({
			path: r.path,
			language: r.language,
			version: hashToHex(r.hash),
			deployedAt: r.deployedAt.toISOString(),
			deployedBy: r.deployedBy,
			nodes: r.deploy?.nodes ?? null,
			edges: r.deploy?.edges ?? null,
			reads: r.deploy?.reads ?? null,
			writes: r.deploy?.writes ?? null,
			lastRun: r.lastRun && mayListJobs && grant.reachesJobsOf(r.path) ? { ...r.lastRun, createdAt: r.lastRun.createdAt.toISOString() } : null,
			runnable
		});
	}
	// The same read rule and limit as GET jobs/list, applied in SQL.
	const jobs = mayListJobs ? await listJobs(database, grant.workspace, { limit: 25 }, grant.jobListing()) : [];
	const recentRuns: RecentRun[] = jobs.map((r) => ({
		id: r.id,
		kind: r.kind,
		status: r.status,
		command: r.command,
		scriptPath: r.scriptPath,
		createdBy: r.createdBy,
		createdAt: r.createdAt.toISOString()
	}));
	return { projects, projectLimit: PROJECT_LIST_LIMIT, recentRuns };
}

/** The workspace page: the folders the caller reads (and whether it writes each), then workspaceHome. */
export async function homePage(grant: Grant): Promise<WorkspaceHome & { folders: { name: string; canWrite: boolean }[] }> {
	const folders = grant.readableFolders().sort().map((name) => ({ name, canWrite: grant.mayWriteFolder(name) }));
	return { folders, ...(await workspaceHome(grant, await getDatabase())) };
}
