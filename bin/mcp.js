// `npx tributary mcp --url … --token …`: the MCP server on stdio for a local assistant. Every
// message goes to the server's streamable HTTP endpoint (/api/w/{ws}/mcp) with the token, so the
// tools, their schemas, their answers and their gates are the server's, never this process's.
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
	CallToolRequestSchema,
	CallToolResultSchema,
	ErrorCode,
	ListResourcesRequestSchema,
	ListToolsRequestSchema,
	McpError,
	ReadResourceRequestSchema
} from '@modelcontextprotocol/sdk/types.js';

export const MCP_USAGE = `usage: tributary mcp [--url URL] [--token TOKEN] [--workspace WS]

  Serves the workspace's lineage to an MCP client (Claude Desktop, Cursor, VS Code, …) over
  stdio: search_assets, get_asset, trace_column, column_impact, diff, run_status. Each call is
  made to the server with the token, so it sees exactly what the token sees over the HTTP API.
  --url and --token default to $TRIBUTARY_URL and $TRIBUTARY_TOKEN; --workspace to
  $TRIBUTARY_WORKSPACE, else the token's only workspace. Nothing but MCP is written to stdout.`;

function fail(msg, code = 1) {
	process.stderr.write(`tributary mcp: ${msg}\n`);
	process.exit(code);
}

export async function mcp(argv) {
	const { values } = parseArgs({
		args: argv,
		options: { url: { type: 'string' }, token: { type: 'string' }, workspace: { type: 'string' }, help: { type: 'boolean', short: 'h' } }
	});
	if (values.help) {
		process.stderr.write(`${MCP_USAGE}\n`);
		process.exit(0);
	}
	const url = (values.url ?? process.env.TRIBUTARY_URL ?? '').replace(/\/$/, '');
	const token = values.token ?? process.env.TRIBUTARY_TOKEN;
	if (!url) fail('no server: pass --url or set TRIBUTARY_URL', 2);
	if (!token) fail('no token: pass --token or set TRIBUTARY_TOKEN (mint one in Settings → Tokens)', 2);
	const headers = { authorization: `Bearer ${token}` };
	let ws = values.workspace ?? process.env.TRIBUTARY_WORKSPACE;
	if (!ws) {
		const who = await fetch(`${url}/api/whoami`, { headers }).catch((e) => fail(`${url}: ${e.message}`));
		if (!who.ok) fail(`${url}/api/whoami: ${who.status} ${(await who.text()).slice(0, 300)}`);
		const list = (await who.json()).workspaces ?? [];
		if (list.length !== 1) fail(`this token reaches ${list.length} workspaces: pass --workspace`, 2);
		ws = list[0].id;
	}

	const upstream = new Client({ name: 'tributary-stdio', version: '0.1.0' });
	await upstream
		.connect(new StreamableHTTPClientTransport(new URL(`${url}/api/w/${ws}/mcp`), { requestInit: { headers } }))
		.catch((e) => fail(`${url}/api/w/${ws}/mcp: ${e.message}`));
	const info = upstream.getServerVersion() ?? { name: 'tributary', version: '0.1.0' };
	const server = new Server(info, { capabilities: { tools: {}, resources: {} }, instructions: upstream.getInstructions() });
	// The server's errors keep their code and message (an unknown tool, bad arguments: -32602).
	const relay = async (fn) => {
		try {
			return await fn();
		} catch (e) {
			if (e instanceof McpError) throw new McpError(e.code, e.message.replace(/^MCP error -?\d+: /, ''), e.data);
			throw new McpError(ErrorCode.InternalError, `${url}: ${e.message}`);
		}
	};
	server.setRequestHandler(ListToolsRequestSchema, (req) => relay(() => upstream.listTools(req.params)));
	server.setRequestHandler(CallToolRequestSchema, (req) => relay(() => upstream.request({ method: 'tools/call', params: req.params }, CallToolResultSchema)));
	server.setRequestHandler(ListResourcesRequestSchema, (req) => relay(() => upstream.listResources(req.params)));
	server.setRequestHandler(ReadResourceRequestSchema, (req) => relay(() => upstream.readResource(req.params)));
	const stdio = new StdioServerTransport();
	// The client closing stdin is the end of the session.
	process.stdin.on('end', () => process.exit(0));
	await server.connect(stdio);
}
