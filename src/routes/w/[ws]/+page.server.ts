import { canWriteFolder, pagePrincipal } from '$lib/server/access';
import type { PageServerLoad } from './$types';

export interface RecentRun {
	id: string;
	kind: string;
	status: string;
	scriptPath: string | null;
	createdAt: string;
}

export const load: PageServerLoad = async (event) => {
	// The page gates itself too: kit may run this load in parallel with the layout's.
	const p = await pagePrincipal(event, event.params.ws);
	const folders = [...p.readFolders].sort().map((name) => ({ name, canWrite: canWriteFolder(p, name) }));
	// Runs are listed once the jobs API lands; until then the section shows its empty state.
	const recentRuns: RecentRun[] = [];
	return { folders, recentRuns };
};
