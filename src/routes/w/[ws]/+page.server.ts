import { pageGrant } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { workspaceHome } from '$lib/server/pages/workspace-home';
import type { PageServerLoad } from './$types';

export type { ProjectItem, RecentRun } from '$lib/server/pages/workspace-home';

export const load: PageServerLoad = async (event) => {
	// The page gates itself too: kit may run this load in parallel with the layout's.
	const grant = await pageGrant(event, event.params.ws);
	const folders = grant.readableFolders().sort().map((name) => ({ name, canWrite: grant.mayWriteFolder(name) }));
	return { folders, ...(await workspaceHome(grant, await getDatabase())) };
};
