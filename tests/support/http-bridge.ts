// A real HTTP server in front of the in-process app (ApiClient): for clients that only speak
// HTTP (the OpenLineage Python client, the CLI). Bytes and the headers a client sends for a
// POST (content type, encoding, authorization) pass through unchanged.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiClient } from './api';

/** What came in, per request: its path and Content-Encoding (a test checks what a client sent). */
export interface BridgeRequest {
	path: string;
	encoding: string | null;
}

export async function startBridge(): Promise<{ url: string; seen: BridgeRequest[]; close(): Promise<void> }> {
	const seen: BridgeRequest[] = [];
	const server: Server = createServer(async (req, res) => {
		const chunks: Buffer[] = [];
		for await (const c of req) chunks.push(c as Buffer);
		const headers: Record<string, string> = {};
		for (const name of ['authorization', 'content-encoding', 'accept', 'mcp-protocol-version']) {
			const v = req.headers[name];
			if (typeof v === 'string') headers[name] = v;
		}
		const body = Buffer.concat(chunks);
		seen.push({ path: req.url!, encoding: headers['content-encoding'] ?? null });
		const r = await new ApiClient().call(req.method!, req.url!, {
			headers,
			raw: chunks.length ? { body: body as unknown as BodyInit, contentType: String(req.headers['content-type'] ?? '') } : undefined
		});
		const out: Record<string, string> = { 'content-type': 'application/json' };
		const retry = r.headers.get('retry-after');
		if (retry) out['retry-after'] = retry;
		res.writeHead(r.status, out);
		res.end(r.body === null ? undefined : typeof r.body === 'string' ? r.body : JSON.stringify(r.body));
	});
	await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		seen,
		close: () => new Promise<void>((ok) => server.close(() => ok()))
	};
}
