// The MCP endpoint's plumbing around the SDK: its size bound, its JSON-RPC refusals, the event
// its tools run with, and one stateless exchange.
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { RequestEvent } from '@sveltejs/kit';
import { createMcpServer } from './server';

/** One JSON-RPC request body at most (a batch of calls included). */
export const MAX_MCP_REQUEST_BYTES = 65_536;

export function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
	return new Response(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }), {
		status,
		headers: { 'content-type': 'application/json', ...headers }
	});
}

/**
 * The request as the tools see it: the same caller (locals) on a URL without a query, so a
 * `view_token` on the MCP URL never turns a tool's job read into a share-link read.
 */
export function mcpToolEvent(event: Pick<RequestEvent, 'locals' | 'url'>): Pick<RequestEvent, 'locals' | 'url' | 'request'> {
	const url = new URL(event.url.pathname, event.url.origin);
	return { locals: event.locals, url, request: new Request(url) };
}

/**
 * One stateless MCP exchange: the body bounded and parsed (JSON-RPC errors for either), a server
 * made for this caller's request, the SDK's transport answering, the server closed after.
 */
export async function serveMcp(event: Pick<RequestEvent, 'locals' | 'url' | 'request'>, ws: string): Promise<Response> {
	const text = await event.request.text();
	if (Buffer.byteLength(text) > MAX_MCP_REQUEST_BYTES) return jsonRpcError(413, -32600, `the request is ${Buffer.byteLength(text)} bytes; at most ${MAX_MCP_REQUEST_BYTES}`);
	let body: unknown;
	try {
		body = JSON.parse(text);
	} catch {
		return jsonRpcError(400, -32700, 'the request body is not JSON');
	}
	const server = createMcpServer({ event: mcpToolEvent(event), ws });
	const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
	await server.connect(transport);
	try {
		return await transport.handleRequest(event.request, { parsedBody: body });
	} finally {
		await server.close();
	}
}
