// MCP clients of the official SDK for the tests: over streamable HTTP into the in-process app
// (the transport's fetch goes through ApiClient, so the real hook and route answer), and over
// stdio through `tributary mcp` against a real HTTP server (startBridge).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ApiClient } from './api';

/** A fetch that answers from the in-process app as `api` (its cookies or bearer token). */
export function appFetch(api: ApiClient): typeof fetch {
	return (async (input: string | URL | Request, init?: RequestInit) => {
		const req = new Request(input, init);
		const url = new URL(req.url);
		const headers: Record<string, string> = {};
		req.headers.forEach((v, k) => {
			if (k !== 'content-type') headers[k] = v;
		});
		const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : await req.text();
		const r = await api.call(req.method, url.pathname + url.search, {
			headers,
			raw: body === undefined ? undefined : { body, contentType: req.headers.get('content-type') ?? 'application/json' }
		});
		const text = r.body === null ? null : typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
		return new Response(r.status === 202 || r.status === 204 ? null : text, { status: r.status, headers: r.headers });
	}) as typeof fetch;
}

export async function mcpClient(api: ApiClient, ws: string): Promise<Client> {
	const c = new Client({ name: 'test', version: '0.0.0' });
	await c.connect(new StreamableHTTPClientTransport(new URL(`http://localhost/api/w/${ws}/mcp`), { fetch: appFetch(api) }));
	return c;
}

/** A tool's answer as JSON (the text content), or its error text when isError. */
export async function callJson(c: Client, name: string, args: Record<string, unknown>): Promise<{ error: string | null; body: any; text: string }> {
	const r = (await c.callTool({ name, arguments: args })) as { isError?: boolean; content: { type: string; text: string }[] };
	const text = r.content.map((x) => x.text).join('');
	if (r.isError) return { error: text, body: null, text };
	return { error: null, body: JSON.parse(text), text };
}
