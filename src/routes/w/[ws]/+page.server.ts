import { canWriteFolder, jobListAccess, pagePrincipal, scopeAllows } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { listJobs } from '$lib/server/repo/jobs';
import type { PageServerLoad } from './$types';

export interface RecentRun {
	id: string;
	kind: string;
	status: string;
	scriptPath: string | null;
	createdBy: string;
	createdAt: string;
}

export const load: PageServerLoad = async (event) => {
	// The page gates itself too: kit may run this load in parallel with the layout's.
	const p = await pagePrincipal(event, event.params.ws);
	const folders = [...p.readFolders].sort().map((name) => ({ name, canWrite: canWriteFolder(p, name) }));
	// The same read rule and limit as GET jobs/list, applied in SQL.
	const rows = scopeAllows(p, 'jobs', 'read') ? await listJobs(await getDatabase(), p.workspace, { limit: 25 }, jobListAccess(p)) : [];
	const recentRuns: RecentRun[] = rows.map((r) => ({
		id: r.id,
		kind: r.kind,
		status: r.status,
		scriptPath: r.scriptPath,
		createdBy: r.createdBy,
		createdAt: r.createdAt.toISOString()
	}));
	return { folders, recentRuns };
};
