// POST mcp: the MCP server (streamable HTTP, stateless: one JSON answer per request) over the
// gated reads, for the caller of this request (bearer token or session). docs/mcp.md.
import { principalWithLineageStamp, workspacePrincipal } from '$lib/server/access';
import { handleApi } from '$lib/server/http';
import { jsonRpcError, serveMcp } from '$lib/server/mcp/http';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = handleApi(async (event) => {
	// The caller must be a member before anything is parsed: an outsider gets the 404 every read gives.
	// The stamp the column walks' cached reads are keyed by rides on the same statement.
	await principalWithLineageStamp(event, event.params.ws);
	return serveMcp(event, event.params.ws);
});

// Stateless: no server-initiated stream to open (GET) and no session to end (DELETE).
const STATELESS = 'this MCP endpoint is stateless: POST JSON-RPC requests to it';

export const GET: RequestHandler = handleApi(async (event) => {
	await workspacePrincipal(event, event.params.ws);
	return jsonRpcError(405, -32000, STATELESS, { allow: 'POST' });
});

export const DELETE: RequestHandler = handleApi(async (event) => {
	await workspacePrincipal(event, event.params.ws);
	return jsonRpcError(405, -32000, STATELESS, { allow: 'POST' });
});
