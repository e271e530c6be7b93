// POST mcp: the MCP server (streamable HTTP, stateless: one JSON answer per request) over the
// gated reads, for the caller of this request (bearer token or session). docs/mcp.md.
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { principalWithLineageStamp, workspacePrincipal } from '$lib/server/access';
import { handleApi } from '$lib/server/http';
import { jsonRpcError, MAX_MCP_REQUEST_BYTES, mcpToolEvent } from '$lib/server/mcp/http';
import { createMcpServer } from '$lib/server/mcp/server';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = handleApi(async (event) => {
	// The caller must be a member before anything is parsed: an outsider gets the 404 every read gives.
	// The stamp the column walks' cached reads are keyed by rides on the same statement.
	await principalWithLineageStamp(event, event.params.ws);
	const text = await event.request.text();
	if (Buffer.byteLength(text) > MAX_MCP_REQUEST_BYTES) return jsonRpcError(413, -32600, `the request is ${Buffer.byteLength(text)} bytes; at most ${MAX_MCP_REQUEST_BYTES}`);
	let body: unknown;
	try {
		body = JSON.parse(text);
	} catch {
		return jsonRpcError(400, -32700, 'the request body is not JSON');
	}
	const server = createMcpServer({ event: mcpToolEvent(event), ws: event.params.ws });
	const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
	await server.connect(transport);
	try {
		return await transport.handleRequest(event.request, { parsedBody: body });
	} finally {
		await server.close();
	}
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
