// A dbt project's page (api/scripts/project-page.ts).
import { pageGrant } from '$lib/server/access';
import { projectPage } from '$lib/server/api/scripts/project-page';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
	const grant = await pageGrant(event, event.params.ws);
	const q = event.url.searchParams;
	return projectPage(grant, event.params.path, { v: q.get('v'), select: q.get('select'), cookies: event.cookies });
};
