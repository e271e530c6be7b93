import { pageGrant } from '$lib/server/access';
import { homePage } from '$lib/server/api/workspaces/home-page';
import type { PageServerLoad } from './$types';

export type { ProjectItem, RecentRun } from '$lib/server/api/workspaces/home-page';

// The page gates itself too: kit may run this load in parallel with the layout's.
export const load: PageServerLoad = async (event) => homePage(await pageGrant(event, event.params.ws));
