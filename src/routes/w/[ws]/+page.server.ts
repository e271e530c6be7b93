import { canWriteFolder, jobListAccess, jobScopeAllows, pagePrincipal, scopeAllows, shapePathFilter } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { listJobs } from '$lib/server/repo/jobs';
import { listProjects, PROJECT_LIST_LIMIT } from '$lib/server/repo/projects';
import { hashToHex } from '$lib/types/script-hash';
import type { PageServerLoad } from './$types';

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
}

export const load: PageServerLoad = async (event) => {
	// The page gates itself too: kit may run this load in parallel with the layout's.
	const p = await pagePrincipal(event, event.params.ws);
	const h = await getDatabase();
	const folders = [...p.readFolders].sort().map((name) => ({ name, canWrite: canWriteFolder(p, name) }));
	// Projects are listed to whoever may see their shape (the pipeline page's rule); a run is
	// shown only where the caller's token reaches the path's jobs.
	const mayListJobs = scopeAllows(p, 'jobs', 'read');
	const projects: ProjectItem[] = (await listProjects(h, p.workspace, shapePathFilter(p))).map((r) => ({
		path: r.path,
		language: r.language,
		version: hashToHex(r.hash),
		deployedAt: r.deployedAt.toISOString(),
		deployedBy: r.deployedBy,
		nodes: r.deploy?.nodes ?? null,
		edges: r.deploy?.edges ?? null,
		reads: r.deploy?.reads ?? null,
		writes: r.deploy?.writes ?? null,
		lastRun: r.lastRun && mayListJobs && jobScopeAllows(p, r.path) ? { ...r.lastRun, createdAt: r.lastRun.createdAt.toISOString() } : null
	}));
	// The same read rule and limit as GET jobs/list, applied in SQL.
	const rows = mayListJobs ? await listJobs(h, p.workspace, { limit: 25 }, jobListAccess(p)) : [];
	const recentRuns: RecentRun[] = rows.map((r) => ({
		id: r.id,
		kind: r.kind,
		status: r.status,
		command: r.command,
		scriptPath: r.scriptPath,
		createdBy: r.createdBy,
		createdAt: r.createdAt.toISOString()
	}));
	return { folders, projects, projectLimit: PROJECT_LIST_LIMIT, recentRuns };
};
