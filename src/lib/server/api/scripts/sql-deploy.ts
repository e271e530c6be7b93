// POST scripts/sql/deploy's service: the body read and checked (each refusal names its field),
// the grant asked for the path, then the producer deploy (producers/deploy.ts).
import type { Grant } from '../../access';
import { getDatabase } from '../../db';
import { badRequest, readJsonObject } from '../../http';
import { requireProducerBody } from '../../limits';
import { requireScriptPath } from '../../paths';
import { deploySqlScript, type SqlDeployAnswer } from '../../producers/deploy';

export async function deploySqlAs(grant: Grant, request: Request): Promise<SqlDeployAnswer> {
	requireProducerBody(Number(request.headers.get('content-length') ?? 0));
	const body = await readJsonObject(request);
	const path = requireScriptPath(body.path);
	const content = body.content;
	if (typeof content !== 'string' || content.trim() === '') throw badRequest('content: the SQL script is required (a non-empty string)');
	// Postgres text cannot hold NUL; refusing it here beats a failed insert.
	if (content.includes('\u0000')) throw badRequest('content: the script contains a NUL character');
	grant.requireWrite(path);
	return deploySqlScript(await getDatabase(), {
		workspace: grant.workspace,
		path,
		content,
		username: grant.username,
		mayReadScript: (scriptPath) => grant.mayRead(scriptPath)
	});
}
