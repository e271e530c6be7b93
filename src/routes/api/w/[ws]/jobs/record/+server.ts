// POST jobs/record: store a run made elsewhere (CI) from its artifacts, as if it had run here.
import { requireRunAccess, workspacePrincipal } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { handleApi, jsonSafe } from '$lib/server/http';
import { recordRun } from '$lib/server/runner/record';
import { runnerIngest } from '$lib/server/runner-ingest';
import { readRecordForm } from '$lib/server/runner/record-form';
import { gateUpload, readUploadHead } from '$lib/server/upload-head';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = handleApi(async (event) => {
	const p = await workspacePrincipal(event, event.params.ws);
	// Gated on the path (query or first fields) before a byte of the files is read.
	const head = await readUploadHead(event.request, event.url, 'a `run_results` file');
	const path = gateUpload(head, (path) => requireRunAccess(p, path));
	const input = await readRecordForm(head.request, path);
	return jsonSafe(await recordRun(await getDatabase(), runnerIngest, p, input), { status: 201 });
});
