import { canWriteFolder, grantOf, pagePrincipal } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { workspaceHome } from '$lib/server/pages/workspace-home';
import type { PageServerLoad } from './$types';

export type { ProjectItem, RecentRun } from '$lib/server/pages/workspace-home';

export const load: PageServerLoad = async (event) => {
	// The page gates itself too: kit may run this load in parallel with the layout's.
	const p = await pagePrincipal(event, event.params.ws);
	const folders = [...p.readFolders].sort().map((name) => ({ name, canWrite: canWriteFolder(p, name) }));
	return { folders, ...(await workspaceHome(grantOf(p), await getDatabase())) };
};
