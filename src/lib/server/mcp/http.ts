// The MCP endpoint's plumbing outside the SDK: its size bound, its JSON-RPC refusals, and the
// event its tools run with.
import type { RequestEvent } from '@sveltejs/kit';

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
