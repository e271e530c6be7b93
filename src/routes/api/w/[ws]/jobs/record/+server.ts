// POST jobs/record: store a run made elsewhere (CI) from its artifacts, as if it had run here.
import { workspaceGrant } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { handleApi, jsonSafe } from '$lib/server/http';
import { recordRun } from '$lib/server/runner/record';
import { runnerIngest } from '$lib/server/runner-ingest';
import { readRecordForm } from '$lib/server/runner/record-form';
import { gateUpload, readUploadHead } from '$lib/server/upload-head';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = handleApi(async (event) => {
	const grant = await workspaceGrant(event, event.params.ws);
	// Gated on the path (query or first fields) before a byte of the files is read.
	const head = await readUploadHead(event.request, event.url, 'a `run_results` file');
	const path = gateUpload(head, (path) => grant.requireRun(path));
	const input = await readRecordForm(head.request, path);
	return jsonSafe(await recordRun(grant, await getDatabase(), runnerIngest, input), { status: 201 });
});
