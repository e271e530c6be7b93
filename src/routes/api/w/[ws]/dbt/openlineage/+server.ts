// GET dbt/openlineage?path=&ref=: a deployed version's lineage as OpenLineage RunEvents, streamed
// as NDJSON (docs/openlineage.md, "OpenLineage out"). Gated like the graph reads; shape only for a caller who may
// not read the project's authored parts.
import { workspaceGrant } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { badRequest, handleApi } from '$lib/server/http';
import { exportVersion, ndjsonResponse } from '$lib/server/api/openlineage/export';
import { parseVersionRef } from '$lib/server/api/openlineage/parse';
import { requireScriptPath } from '$lib/server/paths';
import { hashToHex } from '$lib/types/script-hash';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	const q = event.url.searchParams;
	if (q.getAll('path').length !== 1) throw badRequest('path is required once: the dbt project, f/<folder>/<name> or u/<user>/<name>');
	const path = requireScriptPath(q.get('path'));
	const ref = parseVersionRef(q);
	const grant = await workspaceGrant(event, event.params.ws);
	const { hash, events } = await exportVersion(grant, await getDatabase(), path, ref);
	return ndjsonResponse(events, { 'x-script-hash': hashToHex(hash) });
});
