// Every workspace page: the workspace's name and who is signed in (a share link's viewer who is
// no member sees nothing beyond the URL; the run page verifies the link itself).
import { layoutPageGrant } from '$lib/server/access';
import { workspaceLayout } from '$lib/server/api/workspaces/workspaces';
import type { LayoutServerLoad } from './$types';

export const load: LayoutServerLoad = async (event) => workspaceLayout(await layoutPageGrant(event, event.params.ws), event.params.ws);
