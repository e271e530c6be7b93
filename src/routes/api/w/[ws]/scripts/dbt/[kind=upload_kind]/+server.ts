// POST scripts/dbt/deploy and scripts/dbt/preview: the same upload, stored as a new version or
// as a preview graph reachable only through its job.
import { workspaceGrant } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { handleApi, jsonSafe } from '$lib/server/http';
import { ingestUpload, queueSourceDeploy } from '$lib/server/ingest/deploy';
import { readUploadForm } from '$lib/server/ingest/upload-form';
import { requireScriptPath } from '$lib/server/paths';
import { gateUpload, readUploadHead } from '$lib/server/upload-head';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = handleApi(async (event) => {
	const grant = await workspaceGrant(event, event.params.ws);
	const kind = event.params.kind as 'deploy' | 'preview';
	// Gated on the path (query or first fields) before a byte of the files is read.
	const head = await readUploadHead(event.request, event.url, 'a `manifest` file');
	const path = gateUpload(head, (path) => {
		requireScriptPath(path);
		grant.requireWrite(path);
	});
	const upload = await readUploadForm(head.request, { workspace: grant.workspace, username: grant.username, kind }, path);
	if (!upload.manifest) return jsonSafe(await queueSourceDeploy(await getDatabase(), upload), { status: 202 });
	return jsonSafe(await ingestUpload(await getDatabase(), upload), { status: 201 });
});
