// A run page (api/jobs/run-page.ts), open to whoever may read the job: runPageGrant checks a
// share link itself, since the workspace layout lets `?view_token=` through.
import { runPageGrant } from '$lib/server/access';
import { runPage } from '$lib/server/api/jobs/run-page';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
	// Re-run by the page while the run is live (statuses, and the graph it stores as it starts).
	event.depends('tributary:run');
	const gate = await runPageGrant(event, event.params.ws, event.params.id);
	return runPage(gate, { viewToken: event.url.searchParams.get('view_token'), cookies: event.cookies });
};
