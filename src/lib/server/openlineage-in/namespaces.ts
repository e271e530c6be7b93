// The namespace mapping's input: a namespace as OpenLineage clients send it, and an existing folder.
import { badRequest } from '../api-error';
import type { Database } from '../db';
import { isSegment } from '../paths';
import { getFolder } from '../repo/folders';
import { MAX_NAMESPACE_BYTES } from './event';

export async function parseNamespaceInput(database: Database, ws: string, body: Record<string, unknown>): Promise<{ namespace: string; folder: string | null }> {
	const { namespace, folder } = body;
	if (typeof namespace !== 'string' || namespace.trim() === '') throw badRequest('namespace: an OpenLineage job namespace (a non-empty string), or "*" for the workspace default');
	if (Buffer.byteLength(namespace) > MAX_NAMESPACE_BYTES) throw badRequest(`namespace: over the limit of ${MAX_NAMESPACE_BYTES} bytes`);
	if (namespace.includes('\u0000') || !namespace.isWellFormed()) throw badRequest('namespace: contains a character that cannot be stored');
	if (folder === null) return { namespace, folder: null };
	if (typeof folder !== 'string' || !isSegment(folder)) throw badRequest('folder: a folder name (letters, digits, _ and -), or null to remove the mapping');
	if (!(await getFolder(database, ws, folder))) throw badRequest(`folder: no folder ${folder} in this workspace; create it first`);
	return { namespace, folder };
}
