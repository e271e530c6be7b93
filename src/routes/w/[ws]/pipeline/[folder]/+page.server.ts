// The pipeline canvas of a folder (api/graph/pipeline-page.ts).
import { pageGrant } from '$lib/server/access';
import { pipelinePage } from '$lib/server/api/graph/pipeline-page';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
	const grant = await pageGrant(event, event.params.ws);
	// Re-run by the page while an OpenLineage job's run goes (its card's colour).
	event.depends('tributary:pipeline-runs');
	return pipelinePage(grant, event.params.folder, { select: event.url.searchParams.get('select'), cookies: event.cookies });
};
