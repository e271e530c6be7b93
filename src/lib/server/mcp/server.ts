// The MCP server over the gated reads (docs/mcp.md), built on the official SDK's low-level
// Server so that refusals are protocol errors with our messages: an unknown tool, arguments that
// fail their schema or are too big are JSON-RPC errors (-32602); a read's own 400 (an unknown
// column, a bad selector) too; what the caller may not see is a tool error, as over HTTP.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListResourcesRequestSchema, ListToolsRequestSchema, McpError, ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import { ApiError } from '../http';
import { fitAnswer } from './bound';
import { listProjectResources, readProjectResource } from './resources';
import { TOOL_BY_NAME, TOOLS, type ToolContext } from './tools';

/** The JSON of one call's arguments at most (a selector, a path and a column fit many times over). */
export const MAX_ARGUMENT_BYTES = 8192;

export const SERVER_INFO = { name: 'tributary', version: '0.1.0' };

const ajv = new Ajv2020({ strict: false, allErrors: false, useDefaults: false });
const validators = new Map<string, ValidateFunction>(TOOLS.map((t) => [t.name, ajv.compile(t.inputSchema)]));

function schemaMessage(tool: string, e: ErrorObject): string {
	const at = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '';
	if (e.keyword === 'additionalProperties') return `${tool}: unknown argument "${(e.params as { additionalProperty: string }).additionalProperty}"`;
	if (e.keyword === 'required') return `${tool}: argument "${(e.params as { missingProperty: string }).missingProperty}" is required`;
	return `${tool}: argument "${at}" ${e.message ?? 'is invalid'}`;
}

const invalid = (message: string) => new McpError(ErrorCode.InvalidParams, message);

export function createMcpServer(ctx: ToolContext): Server {
	const server = new Server(SERVER_INFO, {
		capabilities: { tools: {}, resources: {} },
		instructions:
			"Tributary's dbt lineage: search relations with dbt selectors, read one, trace a column up and down across projects and producers, list what a column change breaks, diff two versions of a project, and read a run's status. Everything is what the token's owner may see."
	});
	server.setRequestHandler(ListToolsRequestSchema, async () => ({
		tools: TOOLS.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }))
	}));
	server.setRequestHandler(CallToolRequestSchema, async (req) => {
		const { name } = req.params;
		const tool = TOOL_BY_NAME.get(name);
		if (!tool) throw invalid(`unknown tool "${String(name).slice(0, 80)}": the tools are ${TOOLS.map((t) => t.name).join(', ')}`);
		const args = req.params.arguments ?? {};
		const bytes = Buffer.byteLength(JSON.stringify(args));
		if (bytes > MAX_ARGUMENT_BYTES) throw invalid(`${name}: the arguments are ${bytes} bytes; at most ${MAX_ARGUMENT_BYTES}`);
		const validate = validators.get(name)!;
		if (!validate(args)) throw invalid(schemaMessage(name, validate.errors![0]));
		let answer: unknown;
		try {
			answer = await tool.run(ctx, args);
		} catch (e) {
			if (!(e instanceof ApiError)) throw e;
			// Bad input as the HTTP read would say it (400: its message names the argument).
			if (e.status === 400) throw invalid(`${name}: ${e.message}`);
			// Refused or not found: the same words the HTTP read answers, as a tool error.
			return { isError: true, content: [{ type: 'text' as const, text: `${e.status}: ${e.message}` }] };
		}
		return { content: [{ type: 'text' as const, text: fitAnswer(answer) }] };
	});
	// A project's summary. Refusals of the read (a token without assets:read) are protocol errors
	// here: a resource has no error result of its own.
	const asProtocol = async <T>(fn: () => Promise<T>): Promise<T> => {
		try {
			return await fn();
		} catch (e) {
			if (e instanceof ApiError) throw new McpError(ErrorCode.InvalidRequest, `${e.status}: ${e.message}`);
			throw e;
		}
	};
	server.setRequestHandler(ListResourcesRequestSchema, () => asProtocol(async () => ({ resources: await listProjectResources(ctx) })));
	server.setRequestHandler(ReadResourceRequestSchema, (req) =>
		asProtocol(async () => {
			const text = await readProjectResource(ctx, req.params.uri);
			if (text === null) throw new McpError(RESOURCE_NOT_FOUND, `no such resource: ${req.params.uri.slice(0, 200)} (resources/list names the projects you can read)`);
			return { contents: [{ uri: req.params.uri, mimeType: 'text/markdown', text }] };
		})
	);
	return server;
}

/** MCP's code for a resource that does not exist (the specification's, not JSON-RPC's). */
const RESOURCE_NOT_FOUND = -32002;
