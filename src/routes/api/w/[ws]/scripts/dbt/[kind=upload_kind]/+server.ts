// POST scripts/dbt/deploy and scripts/dbt/preview: the same upload, stored as a new version or
// as a preview graph reachable only through its job.
import { canWritePath, requireScope, workspacePrincipal } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { forbidden, handleApi, jsonSafe } from '$lib/server/http';
import { ingestUpload } from '$lib/server/ingest/deploy';
import { readUploadForm } from '$lib/server/ingest/upload-form';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = handleApi(async (event) => {
	const p = await workspacePrincipal(event, event.params.ws);
	const kind = event.params.kind as 'deploy' | 'preview';
	const upload = await readUploadForm(event.request, { workspace: p.workspace, username: p.username, kind });
	if (!canWritePath(p, upload.path)) throw forbidden(`you may not write ${upload.path}`);
	requireScope(p, 'scripts', 'write', upload.path);
	return jsonSafe(await ingestUpload(await getDatabase(), upload), { status: 201 });
});
