// GET jobs/openlineage/{id}: a run's OpenLineage RunEvents (START and COMPLETE/FAIL per node),
// NDJSON like dbt/openlineage. Job read access (share links included) plus `assets:read`.
import { jobAccess, pinnedAccessOf, runGrantOf } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { handleApi } from '$lib/server/http';
import { exportRun, ndjsonResponse } from '$lib/server/api/openlineage/export';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const a = await jobAccess(event, event.params.ws, event.params.id);
	pinnedAccessOf(a);
	return ndjsonResponse(await exportRun(runGrantOf(a), await getDatabase()));
});
