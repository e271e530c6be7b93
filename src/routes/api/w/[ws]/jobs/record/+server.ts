// POST jobs/record: store a run made elsewhere (CI) from its artifacts, as if it had run here.
import { requireRunAccess, workspacePrincipal } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { handleApi, jsonSafe } from '$lib/server/http';
import { recordRun } from '$lib/server/runner/record';
import { readRecordForm } from '$lib/server/runner/record-form';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = handleApi(async (event) => {
	const p = await workspacePrincipal(event, event.params.ws);
	const input = await readRecordForm(event.request);
	requireRunAccess(p, input.path);
	return jsonSafe(await recordRun(await getDatabase(), p, input), { status: 201 });
});
