// POST scripts/sql/deploy {path, content}: a producer script version, its lineage and its asset
// usage (DESIGN.md §7, §8).
import { workspaceGrant } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { badRequest, handleApi, jsonSafe, readJsonObject } from '$lib/server/http';
import { requireScriptPath } from '$lib/server/paths';
import { requireProducerBody } from '$lib/server/limits';
import { deploySqlScript } from '$lib/server/producers/deploy';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = handleApi(async (event) => {
	const grant = await workspaceGrant(event, event.params.ws);
	requireProducerBody(Number(event.request.headers.get('content-length') ?? 0));
	const body = await readJsonObject(event.request);
	const path = requireScriptPath(body.path);
	const content = body.content;
	if (typeof content !== 'string' || content.trim() === '') throw badRequest('content: the SQL script is required (a non-empty string)');
	// Postgres text cannot hold NUL; refusing it here beats a failed insert.
	if (content.includes('\u0000')) throw badRequest('content: the script contains a NUL character');
	grant.requireWrite(path);
	const answer = await deploySqlScript(await getDatabase(), {
		workspace: grant.workspace,
		path,
		content,
		username: grant.username,
		mayReadScript: (scriptPath) => grant.mayRead(scriptPath)
	});
	return jsonSafe(answer, { status: 201 });
});
