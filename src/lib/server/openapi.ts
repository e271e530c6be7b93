// The OpenAPI document of every endpoint (GET /api/openapi.json). A test walks src/routes and
// fails when an endpoint is missing here, so the document cannot drift from the code.

import { modelEvent } from '../lineage/openlineage';

type Schema = Record<string, unknown>;

interface Op {
	method: 'get' | 'post' | 'delete';
	path: string;
	summary: string;
	/** Who may call it, in words (the gate lives in access/). */
	gate: string;
	query?: Record<string, { description: string; required?: boolean; array?: boolean; schema?: Schema }>;
	body?: Schema;
	multipart?: Record<string, string>;
	ok: { status: number; description: string; schema?: Schema; csv?: string; contentType?: string; example?: unknown; /** Another success status with the same answer (200 when an upsert replaced). */ also?: number };
	errors?: number[];
	/** Error statuses whose body is not the `{error}` object (the MCP endpoint answers JSON-RPC errors). */
	errorBodies?: Record<number, Schema>;
}

const str = { type: 'string' };
const bool = { type: 'boolean' };
const int = { type: 'integer' };
const strs = { type: 'array', items: str };
const obj = (properties: Record<string, Schema>, required: string[] = []): Schema => ({
	type: 'object',
	properties,
	...(required.length ? { required } : {})
});
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const PATH_FOOTPRINT = obj(
	{ path: str, languages: strs, versions: int, graphs: int, jobs: int, runs: int, previews: int, active: int },
	['path', 'languages', 'versions', 'graphs', 'jobs', 'runs', 'previews', 'active']
);

const IMPACT_CSV =
	'format=csv: a header row (kind,asset_path,column,depth,kinds,via,tests), one row per column; kinds joined with >, via and tests with ;. Headers X-Impact-Truncated and X-Impact-Withheld carry truncated and withheld';

function impactQuery(extra: Op['query']): Op['query'] {
	return {
		asset_path: { description: 'one relation: dbt://main/schema/name (or main/schema/name), or ducklake://<path> for a lake table', required: true },
		column: { description: 'a column of that relation (a 400 when a readable relation has no such column)', required: true },
		direction: { description: 'downstream (default) or upstream', schema: { enum: ['downstream', 'upstream'] } },
		format: { description: 'json (default) or csv', schema: { enum: ['json', 'csv'] } },
		...extra
	};
}

const schemas: Record<string, Schema> = {
	Error: obj({ error: str }, ['error']),
	JsonRpcError: obj(
		{ jsonrpc: { const: '2.0' }, id: { type: ['string', 'integer', 'null'] }, error: obj({ code: int, message: str, data: {} }, ['code', 'message']) },
		['jsonrpc', 'error']
	),
	Whoami: obj({ username: str, instance_admin: bool, workspaces: { type: 'array', items: obj({ id: str, is_admin: bool }) } }),
	JobSummary: obj({
		id: str, kind: { enum: ['run', 'deploy', 'preview', 'recorded', 'lineage'] }, status: { enum: ['queued', 'running', 'success', 'failure', 'canceled'] },
		script_path: { type: ['string', 'null'] }, script_hash: { type: ['string', 'null'] }, created_by: str, created_at: str, completed_at: { type: ['string', 'null'] }
	}),
	JobDetail: {
		allOf: [
			{ $ref: '#/components/schemas/JobSummary' },
			obj({ started_at: { type: ['string', 'null'] }, parent_job: { type: ['string', 'null'], description: "a lineage job: the deploy or preview that queued it" }, args: { type: 'object' }, result: { type: ['object', 'null'], description: 'a lineage job: progress {done, total} (models) while it runs; at the end models {analyzed, partial, failed, too_complex, skipped}, column_edges, cache_hits, seconds, budget_seconds (the time budget of the inference), over_budget (models not analysed when it ran out), warnings; error when it failed' }, logs: str, logs_truncated: bool, redacted: bool, log_from: { type: 'integer', description: 'with log_offset only: where logs starts, in characters' }, log_length: { type: 'integer', description: 'with log_offset only: the whole log length in characters' } })
		]
	},
	ShareLinkInfo: obj(
		{
			id: str,
			job_id: str,
			kind: { enum: ['member', 'public'], description: 'member: a signed-in member without access; public: anyone with the link' },
			created_by: str,
			created_at: str,
			expires_at: { type: ['string', 'null'], description: 'null: valid until revoked' },
			revoked_at: { type: ['string', 'null'] },
			revoked_by: { type: ['string', 'null'] },
			last_used_at: { type: ['string', 'null'], description: 'recorded at most once a minute' },
			state: { enum: ['active', 'expired', 'revoked'] }
		},
		['id', 'job_id', 'kind', 'created_by', 'created_at', 'expires_at', 'revoked_at', 'revoked_by', 'last_used_at', 'state']
	),
	ShareLink: {
		allOf: [
			{ $ref: '#/components/schemas/ShareLinkInfo' },
			obj({ token: { type: 'string', description: 'the view_token; in this answer and nowhere else' }, url: { type: 'string', description: 'the run page with the token, relative to the site' } }, ['token', 'url'])
		]
	},
	RunProgressItem: obj({ asset_kind: str, asset_path: str, status: { enum: ['running', 'materialized', 'failed'] }, row_count: int, error: str }, ['asset_kind', 'asset_path', 'status']),
	ColumnLineage: obj({
		edges: { type: 'array', items: obj({ from_asset_path: str, from_column: str, to_asset_path: str, to_column: str, kind: { enum: ['copy', 'mod'] }, provenance: { enum: ['engine', 'inferred'], description: 'engine: the uploaded index; inferred: from the compiled SQL by a lineage job' } }) },
		truncated: bool,
		scan_edges: {
			type: 'array',
			description: 'include=scan only: the scan edges (a column read by JOIN, WHERE or GROUP BY) touching the asked relations, never mixed into edges; at most 2000',
			items: obj({ from_asset_path: str, from_column: str, to_asset_path: str, to_column: str, kind: { enum: ['scan'] }, provenance: { enum: ['engine', 'inferred'] } })
		},
		scan_truncated: { type: 'boolean', description: 'include=scan only: scan edges were left out at the cap' }
	}),
	ColumnImpact: obj(
		{
			columns: {
				type: 'array',
				items: obj(
					{
						kind: { enum: ['dbt', 'ducklake', 'openlineage'] },
						asset_path: str,
						column: str,
						depth: { type: 'integer', description: 'edges from the asked column along the shortest path (1: a direct child or parent)' },
						kinds: { type: 'array', items: { enum: ['copy', 'mod', 'producer'] }, description: 'the edge kinds along that path; producer where an annotation did not say copy or mod' },
						via: { type: 'array', items: str, description: 'producer script paths on that path' }
					},
					['kind', 'asset_path', 'column', 'depth', 'kinds', 'via']
				)
			},
			truncated: { type: 'boolean', description: 'reachable columns were left out (at most 5000 are listed, nearest first)' },
			withheld: { type: 'integer', description: "reached columns of relations the caller may not see (outside the token's assets:read): counted, never named, not walked through" },
			tests: { type: 'object', additionalProperties: { type: 'array', items: obj({ kind: { type: ['string', 'null'] }, column: { type: ['string', 'null'] }, severity: { type: ['string', 'null'] } }) }, description: 'the dbt tests on each listed relation, by asset path' },
			consumers: { type: 'array', items: ref('ImpactConsumer'), description: 'downstream only, absent when none: the metrics, semantic models, saved queries and exposures reached (docs/exposures-and-metrics.md)' }
		},
		['columns', 'truncated', 'withheld', 'tests']
	),
	AssetGraph: obj({
		assets: { type: 'array', items: { type: 'object', description: 'kind, path, dbt provenance (shape always; authored fields only to readers of the project)' } },
		runnables: { type: 'array', items: { type: 'object', description: 'scripts: dbt projects with dbt.model_count, producers with column_lineage' } },
		edges: { type: 'array', items: { type: 'object', description: 'script reads/writes asset' } },
		dbt_edges: { type: 'array', items: { type: 'object', description: 'ref() between relations' } },
		hidden: { type: 'integer', description: 'how many scripts and assets in scope the caller may not see (their names and edges are withheld)' },
		dbt_snapshot_job: { type: 'string', description: 'pinned reads only: the job whose snapshot is drawn (omitted otherwise)' },
		dbt_graph_ingested_at: { type: 'string', description: 'pinned reads only (omitted otherwise)' },
		consumers: {
			type: 'array',
			items: { type: 'object', description: 'an exposure, semantic model, metric or saved query (types/consumers.ts GraphConsumer): for readers of its project only, and only when every relation it reads is drawn' },
			description: 'absent when none'
		}
	}),
	ImpactConsumer: obj(
		{
			type: { enum: ['semantic_model', 'metric', 'saved_query', 'exposure'] },
			name: str,
			label: { type: ['string', 'null'] },
			unique_id: str,
			script_path: str,
			via: { type: 'array', items: str, description: 'the columns (`orders.amount`) or entries (`metric revenue`) that reach it' }
		},
		['type', 'name', 'unique_id', 'script_path', 'via']
	),
	GraphDiff: obj({
		from: obj({ hash: { type: ['string', 'null'], description: '16 hex digits; null for a preview' }, job_id: { type: ['string', 'null'], description: 'the job whose own graph it is; null for a version graph' } }),
		to: obj({ hash: { type: ['string', 'null'] }, job_id: { type: ['string', 'null'] } }),
		models: obj({
			added: strs,
			removed: strs,
			renamed: { type: 'array', items: obj({ from: str, to: str }), description: 'a removed and an added model with the same SQL' },
			modified: {
				type: 'array',
				items: obj({
					unique_id: str,
					asset_path: { type: ['string', 'null'] },
					changes: { type: 'array', items: { enum: ['sql', 'materialized', 'tests', 'columns', 'column_types', 'column_lineage', 'description', 'tags', 'resource_type'] } },
					classification: { enum: ['breaking', 'partial', 'non_breaking', 'unknown'] },
					reason: { type: 'string', description: 'absent for a caller who may see the shape only' }
				}, ['unique_id', 'changes', 'classification'])
			}
		}),
		columns: {
			type: 'object',
			description: 'absent for a caller who may see the shape only; impact null when the from graph has no column lineage',
			properties: {
				added: { type: 'array', items: obj({ asset_path: str, column: str, type: { type: ['string', 'null'] } }) },
				removed: { type: 'array', items: obj({ asset_path: str, column: str, type: { type: ['string', 'null'] }, impact: { type: ['array', 'null'], items: ref('ImpactEntry') }, consumers: { type: 'array', items: ref('ImpactConsumer') } }) },
				retyped: { type: 'array', items: obj({ asset_path: str, column: str, from_type: { type: ['string', 'null'] }, to_type: { type: ['string', 'null'] }, impact: { type: ['array', 'null'], items: ref('ImpactEntry') }, consumers: { type: 'array', items: ref('ImpactConsumer') } }) }
			}
		},
		asset_paths: { type: 'object', additionalProperties: { type: ['string', 'null'] }, description: 'the relation of every unique_id listed under models' },
		ref_edges: obj({ added: { type: 'array', items: ref('RefEdgeChange') }, removed: { type: 'array', items: ref('RefEdgeChange') } }),
		column_edges: { type: ['object', 'null'], properties: { added: int, removed: int }, description: 'over the edges touching a changed model; null without column lineage on a side (or for a shape-only caller)' },
		consumers: { type: 'array', items: ref('ImpactConsumer'), description: 'what the removed and retyped columns break past the relations; absent when none and for a shape-only caller' },
		classification: { type: ['string', 'null'], enum: ['breaking', 'partial', 'non_breaking', 'unknown', null], description: 'the worst of the changes; null when nothing changed' },
		authored: bool
	}, ['from', 'to', 'models', 'asset_paths', 'ref_edges', 'column_edges', 'classification', 'authored']),
	ImpactEntry: obj({ kind: { type: 'string', description: 'dbt, ducklake, ...' }, asset_path: str, column: str, depth: int, kinds: strs, via: { type: 'array', items: str, description: 'producer scripts on the way' } }, ['kind', 'asset_path', 'column', 'depth']),
	RefEdgeChange: obj({ from_unique_id: str, to_unique_id: str, from_asset_path: { type: ['string', 'null'] }, to_asset_path: { type: ['string', 'null'] } }),
	DeployAnswer: obj({
		hash: { type: ['string', 'null'], description: '16 hex digits; null for a preview' },
		job_id: str,
		nodes: int,
		edges: int,
		column_edges: { type: ['integer', 'null'], description: 'null when the graph has no column lineage' },
		typed_nodes: int,
		dropped: obj({ column_edges_outside_graph: int, column_edges_over_cap: int, unnamed_columns: int, rows_not_decoded: bool }),
		warnings: strs,
		warehouse: str,
		default_database: { type: ['string', 'null'] },
		has_project_files: bool,
		url: str,
		lineage_job_id: { type: ['string', 'null'], description: 'the queued lineage job inferring column lineage from the compiled SQL (no index uploaded); null when none runs' },
		column_lineage: obj({
			source: { enum: ['engine', 'inferred', null], description: 'engine: the uploaded index (it wins over compiled SQL); inferred: the lineage job infers it; null: none' },
			models: obj({ analyzed: int, partial: int, failed: int, skipped: int, pending: { ...int, description: 'models waiting for the lineage job' } })
		})
	})
};

/** One line of an OpenLineage answer, made by the export's own mapping from a two-model project. */
function openLineageExample(): unknown {
	const orders = { uniqueId: 'model.shop.orders', resourceType: 'model', assetPath: 'main/analytics/orders', rawCode: "select id as order_id, sum(amount) as total from {{ ref('raw_orders') }} where status = 'placed' group by 1", columnSchema: [{ name: 'order_id', type: 'INTEGER' }, { name: 'total', type: 'DECIMAL(18,2)' }] };
	const raw = { uniqueId: 'model.shop.raw_orders', resourceType: 'model', assetPath: 'main/analytics/raw_orders' };
	const edge = (pc: string, cc: string, k: string) => ({ parentUniqueId: raw.uniqueId, parentColumn: pc, childUniqueId: orders.uniqueId, childColumn: cc, lineageKind: k });
	return modelEvent(
		{
			workspace: 'acme',
			scriptPath: 'f/analytics/shop',
			node: orders,
			parents: [raw],
			columnEdges: [edge('id', 'order_id', 'copy'), edge('amount', 'total', 'mod'), edge('status', 'total', 'scan')],
			nodeOf: (id) => (id === raw.uniqueId ? raw : undefined),
			authored: true,
			naming: { workspace: 'acme', defaultDatabase: new Map([['main', 'warehouse_db']]) },
			datasetAllowed: () => true
		},
		{ eventType: 'COMPLETE', eventTime: '2026-08-10T07:03:40.079Z', runId: '5f0c9b2e-8d1a-5c3e-9f47-2b6a1d0e3c58' }
	);
}

const OPENLINEAGE_SPEC = 'https://openlineage.io/spec/2-0-2/OpenLineage.json';
const OL_REQUIRED = ['eventTime', 'producer', 'schemaURL'];
const olBase = { eventTime: { type: 'string', format: 'date-time' }, producer: { type: 'string', format: 'uri' }, schemaURL: { type: 'string', format: 'uri' } };
const olJob = obj({ namespace: str, name: str, facets: { type: 'object' } }, ['namespace', 'name']);
const olDatasets = { type: 'array', items: obj({ namespace: str, name: str, facets: { type: 'object' } }, ['namespace', 'name']) };
/** The outline of an OpenLineage RunEvent; the official schema (${OPENLINEAGE_SPEC}) is its full statement. */
const RUN_EVENT = {
	...obj({ ...olBase, eventType: { enum: ['START', 'RUNNING', 'COMPLETE', 'ABORT', 'FAIL', 'OTHER'] }, run: obj({ runId: { type: 'string', format: 'uuid' }, facets: { type: 'object' } }, ['runId']), job: olJob, inputs: olDatasets, outputs: olDatasets }, [...OL_REQUIRED, 'run', 'job']),
	description: `one OpenLineage RunEvent per line, as ${OPENLINEAGE_SPEC}#/$defs/RunEvent states it in full`
};
/**
 * What the receiver takes: a RunEvent, DatasetEvent or JobEvent. Only the outline is spelled out
 * here (the spec is not fetched by clients of this document); the receiver validates against the
 * official schemas and answers 400 naming the JSON path.
 */
const OPENLINEAGE_EVENT = {
	...obj({ ...olBase, eventType: { enum: ['START', 'RUNNING', 'COMPLETE', 'ABORT', 'FAIL', 'OTHER'] }, run: { type: 'object' }, job: olJob, inputs: olDatasets, outputs: olDatasets, dataset: { type: 'object' } }, OL_REQUIRED),
	description: `an OpenLineage event of spec 2-0-2 (${OPENLINEAGE_SPEC}): a RunEvent, DatasetEvent or JobEvent`
};

const WS = 'Workspace id ([a-z0-9-], at most 50 characters)';

const HASH = { type: 'string', pattern: '^[0-9a-fA-F]{16}$' };
/** A script path (paths.ts): u/<user>/<name> or f/<folder>/<name>, segments of [A-Za-z0-9_-]. */
const SCRIPT_PATH = { type: 'string', pattern: '^[uf](/[A-Za-z0-9_-]+){2,}$', maxLength: 255 };
const WORKSPACE_ID = { type: 'string', pattern: '^[a-z0-9-]{1,50}$' };
/** What the parsers accept for a query parameter of this name, wherever it appears (an op's own schema wins). */
const QUERY_SCHEMAS: Record<string, Schema> = {
	dbt_script_hash: HASH,
	path: SCRIPT_PATH,
	script_path: SCRIPT_PATH,
	fields: { enum: ['full', 'shape'] },
	include: { enum: ['scan'] },
	status: { enum: ['queued', 'running', 'success', 'failure', 'canceled'] },
	limit: { type: 'integer', minimum: 1, maximum: 500 },
	logs: { enum: ['true', 'false'] },
	log_offset: { type: 'integer', minimum: 0 },
	expires_in: { type: 'integer', minimum: 1, maximum: 31536000 }
};
/** Path parameters that are uuids (a 400 names the parameter otherwise). */
const UUID_PARAMS = new Set(['id', 'link']);
/** Path parameters that are version hashes. */
const HASH_PARAMS = new Set(['hash']);
const uploadFields = {
	path: 'u/<user>/<name> or f/<folder>/<name>',
	descriptor: 'YAML descriptor (optional)',
	manifest: 'file: target/manifest.json (required; schema v10–v12). Its compiled SQL (dbt compile, run or build) is what column lineage is inferred from when no index is uploaded',
	catalog: 'file: target/catalog.json from dbt docs generate (optional): typed columns when no node_columns index, and the column order `select *` is expanded with; not JSON or not a catalog is a 400',
	column_lineage: 'file: dbt.column_lineage.parquet (optional; flat index or info_schema v1 names)',
	node_columns: 'file: dbt.node_columns.parquet (optional)',
	run_results: 'file: run_results.json (optional)',
	project: 'file: tar.gz of the project directory without target/, logs/, .env* (optional; needed to run)'
};

export const operations: Op[] = [
	{
		method: 'post', path: '/api/auth/login', summary: 'Sign in; sets the session cookie', gate: 'anyone',
		body: obj({ username: str, password: str }, ['username', 'password']),
		ok: { status: 200, description: 'signed in', schema: obj({ username: str }) }, errors: [400, 401, 429]
	},
	{
		method: 'post', path: '/api/auth/password', summary: "Change the caller's own password: the current one is checked (under the sign-in throttle); every session of the account ends and a fresh one is started for this browser (a new cookie). API tokens stay",
		gate: 'signed in by a browser session (a token may not change its owner\'s password)',
		body: obj({ current_password: str, new_password: { type: 'string', minLength: 8, maxLength: 1000, description: 'at least 8 characters; not the current password, not the username' } }, ['current_password', 'new_password']),
		ok: { status: 200, description: 'changed', schema: obj({ username: str, sessions_ended: int }) }, errors: [400, 401, 403, 429]
	},
	{ method: 'post', path: '/api/auth/logout', summary: 'End the session', gate: 'signed in', ok: { status: 200, description: 'signed out' }, errors: [400, 401] },
	{ method: 'get', path: '/api/whoami', summary: 'The caller and their workspaces', gate: 'signed in or token', ok: { status: 200, description: 'the caller', schema: ref('Whoami') }, errors: [401] },
	{
		method: 'get', path: '/api/admin/stats', summary: "This process's caches and memory, and the instance's queue depth, live workers and database connections", gate: 'instance admin (a token also needs instance:read)',
		ok: { status: 200, description: 'stats: process, graph_cache, layout_cache, queue, workers, database' }, errors: [401, 403]
	},
	{
		method: 'post', path: '/api/workspaces', summary: 'Create a workspace; the caller becomes its admin', gate: 'instance admin',
		body: obj({ id: WORKSPACE_ID, name: str }, ['id', 'name']), ok: { status: 201, description: 'created' }, errors: [400, 401, 403, 409]
	},
	{
		method: 'post', path: '/api/w/{ws}/fork', summary: "Fork the workspace: a new one with its folders, grants, groups, members, warehouses (without secrets) and every path's newest live version with its graph, column lineage and producers; the caller becomes its admin",
		gate: 'workspace admin (a token also needs workspaces:write)',
		body: obj({ id: str, name: str }, ['id']),
		ok: { status: 201, description: 'the fork and what it copied', schema: obj({ id: str, name: str, forked_from: str, copied: { type: 'object' } }) },
		errors: [400, 401, 403, 404, 409]
	},
	{
		method: 'post', path: '/api/w/{ws}/mcp', summary: 'The MCP server (streamable HTTP, stateless, JSON answers): tools search_assets, get_asset, trace_column, column_impact, diff, run_status over the same gated reads as this API (docs/mcp.md)',
		gate: 'member; each tool the gate of its HTTP read (assets:read, scripts:read, jobs:read …)',
		body: { type: 'object', description: 'a JSON-RPC 2.0 request of the Model Context Protocol' },
		ok: { status: 200, description: 'the JSON-RPC answer (202 for a notification)' }, errors: [400, 401, 404, 406, 413],
		// Refused before a tool runs (not JSON, not acceptable, too big): a JSON-RPC error, as MCP clients read it.
		errorBodies: { 400: ref('JsonRpcError'), 406: ref('JsonRpcError'), 413: ref('JsonRpcError') }
	},
	{ method: 'get', path: '/api/w/{ws}/mcp', summary: 'Not served: the MCP endpoint is stateless (no server stream)', gate: 'member', ok: { status: 405, description: 'POST only' }, errors: [401, 404] },
	{ method: 'delete', path: '/api/w/{ws}/mcp', summary: 'Not served: the MCP endpoint keeps no session', gate: 'member', ok: { status: 405, description: 'POST only' }, errors: [401, 404] },
	{ method: 'get', path: '/api/w/{ws}/users', summary: 'Members of the workspace', gate: 'workspace admin', ok: { status: 200, description: 'members' }, errors: [401, 403, 404] },
	{
		method: 'post', path: '/api/w/{ws}/users', summary: 'Create the account if new and add the member', gate: 'workspace admin',
		body: obj({ username: str, password: str, is_admin: bool }, ['username']), ok: { status: 201, description: 'added (200 when updated)', also: 200 }, errors: [400, 401, 403, 404, 409]
	},
	{
		method: 'delete', path: '/api/w/{ws}/users/{username}', summary: 'Remove a member: its group memberships, its grants in folders and its API tokens in this workspace go with it; the account stays',
		gate: 'workspace admin (a token also needs users:write)',
		ok: { status: 200, description: 'removed', schema: obj({ username: str, removed: bool, tokens_revoked: int }) }, errors: [400, 401, 403, 404, 409]
	},
	{ method: 'get', path: '/api/w/{ws}/groups', summary: 'Groups and their members', gate: 'workspace admin', ok: { status: 200, description: 'groups' }, errors: [401, 403, 404] },
	{
		method: 'post', path: '/api/w/{ws}/groups', summary: 'Create or replace a group', gate: 'workspace admin',
		body: obj({ name: str, members: strs }, ['name']), ok: { status: 201, description: 'created (200 when replaced)', also: 200 }, errors: [400, 401, 403, 404]
	},
	{ method: 'get', path: '/api/w/{ws}/folders', summary: 'Folders and their grants', gate: 'workspace admin', ok: { status: 200, description: 'folders' }, errors: [401, 403, 404] },
	{
		method: 'post', path: '/api/w/{ws}/folders', summary: 'Create or replace a folder and its grants', gate: 'workspace admin',
		body: obj({ name: str, readers: { ...strs, description: 'u/<user> or g/<group>' }, writers: strs }, ['name']),
		ok: { status: 201, description: 'created (200 when replaced)', also: 200 }, errors: [400, 401, 403, 404]
	},
	{ method: 'get', path: '/api/w/{ws}/warehouses', summary: 'Warehouses (secrets shown as "***")', gate: 'workspace admin', ok: { status: 200, description: 'warehouses' }, errors: [401, 403, 404] },
	{
		method: 'post', path: '/api/w/{ws}/warehouses', summary: 'Create or replace a warehouse', gate: 'workspace admin',
		body: obj({ name: str, default_database: str, settings: { type: 'object', description: 'dbt profile target; settings.secrets are write-only' } }, ['name']),
		ok: { status: 201, description: 'created (200 when replaced)', also: 200 }, errors: [400, 401, 403, 404]
	},
	{
		method: 'get', path: '/api/w/{ws}/tokens', summary: "The caller's tokens (never their secret); with all=true every member's, each with its owner", gate: 'member (a token needs tokens:read); all=true: a workspace admin',
		query: { all: { description: 'true: every token of the workspace, with `owner` (a workspace admin\'s view, to revoke a member\'s token)', schema: { enum: ['true', 'false'] } } },
		ok: { status: 200, description: 'tokens' }, errors: [401, 403, 404]
	},
	{
		method: 'post', path: '/api/w/{ws}/tokens', summary: 'Mint a token acting as the caller, narrowed by scopes; shown once', gate: 'member',
		body: obj({ label: str, scopes: { ...strs, description: '{domain}:{action}[:{path}|{prefix}/*,...]' }, expires_at: { type: 'string', format: 'date-time' } }, ['label']),
		ok: { status: 201, description: 'the token', schema: obj({ token: str, id: str, label: str, scopes: strs, expires_at: { type: ['string', 'null'] } }) },
		errors: [400, 401, 403, 404]
	},
	{ method: 'delete', path: '/api/w/{ws}/tokens/{id}', summary: 'Revoke a token', gate: 'its owner or a workspace admin', ok: { status: 200, description: 'revoked' }, errors: [401, 403, 404] },
	{
		method: 'post', path: '/api/w/{ws}/scripts/dbt/deploy', summary: 'Deploy a dbt project version from its artifacts', gate: 'write access to the path + scripts:write',
		query: { path: { description: 'the path written (else the form\'s `path` field, which must come before the first file): the gate runs on it before the files are read' } },
		multipart: uploadFields, ok: { status: 201, description: 'what was stored and dropped', schema: ref('DeployAnswer') }, errors: [400, 401, 403, 404, 409, 413]
	},
	{
		method: 'post', path: '/api/w/{ws}/scripts/dbt/preview', summary: 'Store an unmerged change as a preview graph reachable only through its job', gate: 'write access to the path + scripts:write',
		query: { path: { description: 'the path written (else the form\'s `path` field, which must come before the first file): the gate runs on it before the files are read' } },
		multipart: uploadFields, ok: { status: 201, description: 'the preview job and its page', schema: ref('DeployAnswer') }, errors: [400, 401, 403, 404, 413]
	},
	{
		method: 'get', path: '/api/w/{ws}/scripts/dbt/version/{hash}', summary: 'One deployed dbt project version: its path, whether it is live (false while its deploy job pins it), its engine lock and its deploy job', gate: 'read access to its path + scripts:read (anyone else gets the 404 of a missing version)',
		ok: {
			status: 200,
			description: 'the version',
			schema: obj(
				{
					hash: str, path: str, created_by: str, created_at: str, live: bool,
					lock: { type: ['object', 'null'], description: 'the engine its runs use (dbt-core and adapter versions); null until pinned or when unpinned' },
					has_project_files: bool,
					deploy_job: { type: ['object', 'null'], properties: { id: str, status: str } }
				},
				['hash', 'path', 'created_by', 'created_at', 'live', 'lock', 'has_project_files', 'deploy_job']
			)
		},
		errors: [400, 401, 403, 404]
	},
	{
		method: 'get', path: '/api/w/{ws}/scripts/p/{path}', summary: 'What deleting a project or producer would take away: its versions, the graphs stored for them and its previews, its runs and previews, and the jobs still queued or running', gate: 'read access to the path + scripts:read (anyone else gets the 404 of an empty path)',
		ok: { status: 200, description: 'the footprint', schema: PATH_FOOTPRINT }, errors: [400, 401, 403, 404]
	},
	{
		method: 'delete', path: '/api/w/{ws}/scripts/p/{path}', summary: 'Delete a project or producer: every version, graph, run, preview, deploy job (their logs and share links) and asset usage stored under its path', gate: 'write access to the path + scripts:write; a reader of the path gets 403, anyone else the 404 of an empty path; 409 while one of its jobs is queued or running',
		ok: { status: 200, description: 'what was deleted', schema: PATH_FOOTPRINT }, errors: [400, 401, 403, 404, 409]
	},
	{
		method: 'post', path: '/api/w/{ws}/scripts/sql/deploy', summary: 'Deploy a producer SQL script version: its reads, writes and column lineage', gate: 'write access to the path + scripts:write',
		body: obj({ path: str, content: str }, ['path', 'content']),
		ok: { status: 201, description: 'hash, job_id, url, target, writes, reads, columns_annotated, columns_inferred, lineage_edges, columns, warnings' }, errors: [400, 401, 403, 404, 413]
	},
	{
		method: 'get', path: '/api/w/{ws}/assets/graph', summary: 'The asset graph of a folder: relations, producers, usage and ref() edges', gate: 'assets:read; dbt provenance only for scripts the caller can see; authored fields only with scripts:read on the path',
		query: { folder: { description: 'folder name (default: every path the caller can read)' }, asset_kinds: { description: 'comma-separated: dbt, ducklake, openlineage (unknown kinds are a 400)' }, dbt_script_hash: { description: 'pin one dbt version (16 hex digits)' }, fields: { description: 'full (default) or shape: shape leaves out SQL, descriptions, columns, typed columns, freshness and test args (tags and file path stay, under the same gate); never read from the database' } },
		ok: { status: 200, description: 'the asset graph, with an ETag: If-None-Match with it answers 304 (no body) while nothing the caller may see changed', schema: ref('AssetGraph') }, errors: [400, 401, 403, 404]
	},
	{
		method: 'get', path: '/api/w/{ws}/assets/column_lineage', summary: 'The direct (copy/mod) column-lineage component of the asked relations', gate: 'assets:read; per owning project, scripts:read on its path (else no edges)',
		query: { asset_path: { description: '1 to 1000 relation paths (dbt://main/schema/name or main/schema/name)', required: true, array: true }, dbt_script_hash: { description: 'pin one dbt version' }, include: { description: 'scan: also the scan edges touching the asked relations, in scan_edges (default: none)' } },
		ok: { status: 200, description: 'edges, nearest the selection first, at most 5000', schema: ref('ColumnLineage') }, errors: [400, 401, 403, 404]
	},
	{
		method: 'get', path: '/api/w/{ws}/assets/column_impact', summary: 'Every column one column feeds (or is fed by) across dbt models, producers and lake tables, with depth, copy/mod chain, producers on the way and the tests on the listed relations', gate: "as assets/column_lineage: assets:read; per project, scripts:read on its path (else no columns); producers only with scripts:read on theirs; columns outside the token's assets:read are withheld (counted)",
		query: impactQuery({ dbt_script_hash: { description: 'pin one dbt version' } }),
		ok: { status: 200, description: 'the impact list, nearest first', schema: ref('ColumnImpact'), csv: IMPACT_CSV }, errors: [400, 401, 403, 404]
	},
	{
		method: 'get', path: '/api/w/{ws}/jobs/dbt_graph/{id}', summary: "The graph as this job saw it: its own snapshot, else its version's graph, else the current one", gate: 'job read access (creator, share link, path) + assets:read; authored fields only to readers of the project',
		query: { view_token: { description: 'share link token (or header X-View-Token)' }, folder: { description: 'limit to a folder' }, asset_kinds: { description: 'comma-separated: dbt, ducklake, openlineage' }, fields: { description: 'full (default) or shape, as for assets/graph' } },
		ok: { status: 200, description: 'the pinned asset graph, with an ETag (If-None-Match answers 304)', schema: ref('AssetGraph') }, errors: [400, 401, 403, 404]
	},
	{
		method: 'get', path: '/api/w/{ws}/jobs/dbt_column_lineage/{id}', summary: "Column lineage pinned to the job's graph", gate: 'job read access + assets:read; a caller who cannot read the project gets edges: []',
		query: { asset_path: { description: '1 to 1000 relation paths', required: true, array: true }, view_token: { description: 'share link token' }, include: { description: 'scan: also the scan edges, as on assets/column_lineage' } },
		ok: { status: 200, description: 'edges', schema: ref('ColumnLineage') }, errors: [400, 401, 403, 404]
	},
	{
		method: 'get', path: '/api/w/{ws}/jobs/dbt_column_impact/{id}', summary: "The impact list in the job's pinned graph (dbt's lineage only), with dbt_column_lineage's fallbacks", gate: 'job read access + assets:read; a caller who cannot read the project gets columns: []',
		query: impactQuery({ view_token: { description: 'share link token' } }),
		ok: { status: 200, description: 'the impact list', schema: ref('ColumnImpact'), csv: IMPACT_CSV }, errors: [400, 401, 403, 404]
	},
	{
		method: 'get', path: '/api/w/{ws}/jobs/get/{id}', summary: 'A job: status, result, log tail', gate: "job read access + jobs:read; log and authored args withheld (redacted: true) from callers who cannot read the project, and so are dbt's messages (result.messages_withheld: true; each failed or warned node carries `reason` instead, dbt's error kind, the node and a fixed cause, quoting nothing; result.error is then the generic outcome with those reasons), result.resolution_digest and a show job's data rows (result.rows_withheld: true)",
		query: {
			view_token: { description: 'share link token' },
			logs: { description: 'true (default) or false: false answers without the log (logs is empty)' },
			log_offset: { description: 'characters of the log the caller already holds: logs is only what follows them (at most the tail), and the answer adds log_from (where logs starts) and log_length (the next log_offset); not with logs=false' },
			progress_since: { description: 'a run_progress cursor, or 0: the answer adds progress, the rows changed after it (as run_progress?since=)' }
		},
		ok: { status: 200, description: 'the job', schema: ref('JobDetail') }, errors: [400, 401, 403, 404]
	},
	{
		method: 'get', path: '/api/w/{ws}/jobs/list', summary: 'Jobs the caller may read, newest first (filtered in SQL before the limit)', gate: 'member + jobs:read',
		query: { script_path: { description: 'only this path' }, kind: { description: 'run | deploy | preview | recorded | lineage | openlineage', schema: { enum: ['run', 'deploy', 'preview', 'recorded', 'lineage', 'openlineage'] } }, status: { description: 'queued | running | success | failure | canceled' }, limit: { description: '1 to 500, default 50' } },
		ok: { status: 200, description: 'jobs', schema: { type: 'array', items: ref('JobSummary') } }, errors: [400, 401, 403, 404]
	},
	{
		method: 'get', path: '/api/w/{ws}/jobs/run_canvas/{id}', summary: "The run page's canvas: its pinned graph's compact canvas and first cut laid out, the same bytes for every viewer of one redaction", gate: 'as the run page: job read access (share link included) + assets:read; the shape only, tags and file paths only to readers of the project',
		query: { view_token: { description: 'share link token (or header X-View-Token)' }, direction: { description: 'LR (default) or TB', schema: { enum: ['LR', 'TB'] } } },
		ok: { status: 200, description: 'the canvas payload (wire, open, direction, layouts, producerLineage), with an ETag (If-None-Match answers 304)', schema: { type: 'object' } }, errors: [400, 401, 403, 404]
	},
	{
		method: 'get', path: '/api/w/{ws}/jobs/run_progress/{id}', summary: 'Per-relation progress of a run', gate: "job read access + jobs:read; a row's error (dbt's message) only to callers who may read the project",
		query: {
			view_token: { description: 'share link token' },
			since: { description: 'a cursor from an earlier answer (its cursor field, or the X-Progress-Cursor header), or 0: answers {cursor, total, rows} with only the rows changed after it (a row may come again; merge by asset_kind + asset_path; hold more rows than total and re-read with since=0)' }
		},
		ok: {
			status: 200,
			description: 'progress rows by asset path (an array; with since, the object {cursor, total, rows}); header X-Progress-Cursor: the cursor for since',
			schema: {
				oneOf: [
					{ type: 'array', items: ref('RunProgressItem') },
					obj({ cursor: str, total: int, rows: { type: 'array', items: ref('RunProgressItem') } }, ['cursor', 'total', 'rows'])
				]
			}
		},
		errors: [400, 401, 403, 404]
	},
	{
		method: 'get', path: '/api/w/{ws}/jobs/share/{id}', summary: 'Make a share link for a run (the older form of POST jobs/share_links/{id}; the link is stored the same way)', gate: 'the caller sees the run on their own account (not through a link) + jobs:read',
		query: {
			kind: { description: 'member (a signed-in member without access) or public (anyone with the link)', required: true, schema: { enum: ['member', 'public'] } },
			expires_in: { description: 'seconds from now, 1 to 31536000 (a year); absent: until revoked' }
		},
		ok: { status: 200, description: 'the link', schema: ref('ShareLink') }, errors: [400, 401, 403, 404, 409]
	},
	{
		method: 'get', path: '/api/w/{ws}/jobs/share_links/{id}', summary: "A run's share links: who made each, when, its expiry, last use and state (valid ones first, then newest first; never a token)",
		gate: 'the caller sees the run on their own account (not through a link) + jobs:read: whoever may make a link',
		ok: { status: 200, description: 'the links', schema: { type: 'array', items: ref('ShareLinkInfo') } }, errors: [400, 401, 403, 404]
	},
	{
		method: 'post', path: '/api/w/{ws}/jobs/share_links/{id}', summary: 'Make a share link for a run, valid until it expires or is revoked; a 409 when the run already has 100 valid links',
		gate: 'the caller sees the run on their own account (not through a link) + jobs:read',
		body: obj(
			{
				kind: { enum: ['member', 'public'], description: 'member: a signed-in member without access; public: anyone with the link' },
				expires_in: { type: ['integer', 'null'], minimum: 1, maximum: 31536000, description: 'seconds from now (the run page offers 86400, 604800, 2592000); absent or null: until revoked' }
			},
			['kind']
		),
		ok: { status: 201, description: 'the link, with its token', schema: ref('ShareLink') }, errors: [400, 401, 403, 404, 409]
	},
	{
		method: 'delete', path: '/api/w/{ws}/jobs/share_links/{id}/{link}', summary: 'Revoke one share link of a run: from then on it answers as any invalid link (revoking again keeps the first revocation)',
		gate: 'whoever may make a link to the run',
		ok: { status: 200, description: 'the link as revoked', schema: ref('ShareLinkInfo') }, errors: [400, 401, 403, 404]
	},
	{
		method: 'post', path: '/api/w/{ws}/jobs/run/p/{path}', summary: 'Queue a dbt run of the current version of a path', gate: 'write access to the path + jobs:run',
		body: obj({
			command: { enum: ['build', 'run', 'test', 'parse', 'show', 'retry', 'compile', 'seed', 'snapshot'] },
			select: strs, exclude: strs, vars: { type: 'object' }, model: str, limit: int, retry_job: str
		}, ['command']),
		ok: { status: 201, description: 'the queued job', schema: obj({ job_id: str }) }, errors: [400, 401, 403, 404]
	},
	{
		method: 'post', path: '/api/w/{ws}/jobs/cancel/{id}', summary: "Cancel a queued or running job (its dbt process tree is killed)", gate: 'its creator, or write access to its path + jobs:run',
		ok: { status: 200, description: 'the job as canceled' }, errors: [400, 401, 403, 404, 409]
	},
	{
		method: 'post', path: '/api/w/{ws}/jobs/record', summary: 'Record a run made elsewhere from its artifacts, as if it ran here', gate: 'write access to the path + jobs:run',
		query: { path: { description: 'the path written (else the form\'s `path` field, which must come before the first file): the gate runs on it before the files are read' } },
		multipart: { path: 'u/<user>/<name> or f/<folder>/<name>', run_results: 'file: run_results.json (required)', manifest: 'file: manifest.json (optional; a snapshot is stored when its graph differs)', log: 'file: the JSON event log (optional)' },
		ok: { status: 201, description: 'the recorded job', schema: obj({ job_id: str }) }, errors: [400, 401, 403, 404, 413]
	},
	{
		method: 'get', path: '/api/w/{ws}/dbt/openlineage', summary: "A deployed version's lineage as OpenLineage RunEvents: one COMPLETE event per dbt model, seed and snapshot (inputs, output with schema and columnLineage facets), then one per exposure, semantic model, metric and saved query (for a reader of the project's authored parts; consumer datasets in namespace dbt-consumer://<ws>/<path>), then one per producer script around the project",
		gate: 'member + assets:read + read access to the path; SQL, schema and column lineage only to readers of the project (scripts:read), a producer only to readers of its path, datasets only within the assets:read scope',
		query: { path: { description: 'the dbt project: f/<folder>/<name> or u/<user>/<name>', required: true }, ref: { description: 'a version hash (16 hex digits) or latest (the default)' } },
		ok: { status: 200, description: 'NDJSON, streamed: one event per line; X-Script-Hash names the version', contentType: 'application/x-ndjson', schema: RUN_EVENT, example: openLineageExample() },
		errors: [400, 401, 403, 404, 410]
	},
	{
		method: 'get', path: '/api/w/{ws}/jobs/openlineage/{id}', summary: "A run's OpenLineage RunEvents: the run's START and COMPLETE/FAIL/ABORT, and per dbt node it ran START and COMPLETE/FAIL/ABORT as a child run (ParentRunFacet)",
		gate: "job read access (creator, share link, path) + assets:read; SQL, column lineage and dbt's messages only to readers of the project",
		query: { view_token: { description: 'share link token (or header X-View-Token)' } },
		ok: { status: 200, description: 'NDJSON: one event per line', contentType: 'application/x-ndjson', schema: RUN_EVENT },
		errors: [400, 401, 403, 404]
	},
	{
		method: 'get', path: '/api/w/{ws}/dbt/diff', summary: 'The lineage diff between two graphs of one dbt project: models, columns (with downstream impact), ref() and column edges, each model change classified',
		gate: 'both refs readable: a version (latest or a hash) needs read access to the path + assets:read; a job needs job read access (share links included) + assets:read. Columns, reasons and SQL-derived changes only when both refs show authored fields. Unknown refs, refs of another path and refs the caller may not read are one 404; a graph pruned by retention is 410 naming the rule',
		query: {
			path: { description: 'the project path (f/<folder>/<name> or u/<user>/<name>)', required: true },
			from: { description: 'latest (default), a version hash (16 hex digits), or a preview or run job id' },
			to: { description: 'as from', required: true },
			view_token: { description: 'share link token, for a job ref' }
		},
		ok: { status: 200, description: 'the diff (from equal to to: an empty diff)', schema: ref('GraphDiff') }, errors: [400, 401, 403, 404, 410]
	},
	{
		method: 'post', path: '/api/w/{ws}/openlineage/api/v1/lineage',
		summary: "Receive one OpenLineage event (RunEvent, DatasetEvent or JobEvent, spec 2-0-2) as an OpenLineage client's HTTP transport sends it (url https://<host>/api/w/{ws}/openlineage, api key a Tributary token): the job becomes a producer in the folder its namespace maps to, its datasets assets, its run a job of kind openlineage. Idempotent (the same event again answers status duplicate) and order-free",
		gate: "member + lineage:write (its paths must cover the job's producer path) + write access to the folder the job's namespace maps to (its own folder once it exists); an unmapped namespace is a 403 naming it",
		body: { ...OPENLINEAGE_EVENT, description: 'Content-Type application/json; Content-Encoding gzip accepted. At most TRIBUTARY_OPENLINEAGE_MAX_BYTES (5 MB) as sent and decompressed; validated against the official schemas (400 naming the JSON path); facets the schemas do not know are kept' },
		ok: {
			status: 201,
			description: 'stored (or a duplicate of a stored event)',
			schema: obj({ status: { enum: ['stored', 'duplicate'] }, job: { ...str, description: 'the producer path the job is drawn as' }, run: { ...str, description: "the run's page, /w/{ws}/run/{id}" }, version: { ...str, description: "the job's version (16 hex digits)" }, warnings: strs }, ['status', 'warnings'])
		},
		errors: [400, 401, 403, 404, 413, 415, 429, 503]
	},
	{
		method: 'post', path: '/api/w/{ws}/api/v1/lineage',
		summary: 'The OpenLineage receiver again (as openlineage/api/v1/lineage): where the Python client posts when its url is .../api/w/{ws}/openlineage without a trailing slash (it joins the endpoint with urljoin)',
		gate: 'as openlineage/api/v1/lineage',
		body: OPENLINEAGE_EVENT,
		ok: { status: 201, description: 'as openlineage/api/v1/lineage' },
		errors: [400, 401, 403, 404, 413, 415, 429, 503]
	},
	{ method: 'get', path: '/api/w/{ws}/openlineage/namespaces', summary: 'Which folder each OpenLineage job namespace writes into (* is the workspace default)', gate: 'workspace admin (a token also needs openlineage:read)', ok: { status: 200, description: 'the mappings', schema: { type: 'array', items: obj({ namespace: str, folder: str }) } }, errors: [401, 403, 404] },
	{
		method: 'post', path: '/api/w/{ws}/openlineage/namespaces', summary: 'Map an OpenLineage job namespace onto a folder (folder null removes the mapping; namespace * sets the workspace default)', gate: 'workspace admin (a token also needs openlineage:write)',
		body: obj({ namespace: str, folder: { type: ['string', 'null'] } }, ['namespace', 'folder']), ok: { status: 201, description: 'mapped (200 when replaced or removed)', also: 200 }, errors: [400, 401, 403, 404]
	},
	{ method: 'get', path: '/api/openapi.json', summary: 'This document', gate: 'anyone', ok: { status: 200, description: 'OpenAPI 3.1' } }
];

export function openapiDocument(): Record<string, unknown> {
	const paths: Record<string, Record<string, unknown>> = {};
	for (const op of operations) {
		const params: Schema[] = [];
		for (const m of op.path.matchAll(/\{(\w+)\}/g)) {
			params.push({ name: m[1], in: 'path', required: true, schema: UUID_PARAMS.has(m[1]) ? { type: 'string', format: 'uuid' } : HASH_PARAMS.has(m[1]) ? HASH : m[1] === 'ws' ? WORKSPACE_ID : str, description: m[1] === 'ws' ? WS : undefined });
		}
		// A share link is a credential: declared as a security scheme of the operation, not as a plain parameter.
		const viaLink = op.query?.view_token !== undefined;
		for (const [name, q] of Object.entries(op.query ?? {})) {
			if (name === 'view_token') continue;
			params.push({ name, in: 'query', required: !!q.required, description: q.description, schema: q.schema ?? QUERY_SCHEMAS[name] ?? (q.array ? strs : str), explode: true });
		}
		const success = {
				description: op.ok.description,
				...(op.ok.schema
					? {
							content: {
								[op.ok.contentType ?? 'application/json']: { schema: op.ok.schema, ...(op.ok.example ? { example: op.ok.example } : {}) },
								...(op.ok.csv ? { 'text/csv': { schema: { type: 'string', description: op.ok.csv } } } : {})
							}
						}
					: {})
		};
		const responses: Record<string, unknown> = { [op.ok.status]: success, ...(op.ok.also ? { [op.ok.also]: success } : {}) };
		for (const s of op.errors ?? []) responses[s] = { description: 'error', content: { 'application/json': { schema: op.errorBodies?.[s] ?? ref('Error') } } };
		const requestBody = op.body
			? { required: true, content: { 'application/json': { schema: op.body } } }
			: op.multipart
				? {
						required: true,
						content: {
							'multipart/form-data': {
								schema: obj(
									Object.fromEntries(Object.entries(op.multipart).map(([k, d]) => [k, { type: 'string', description: d, ...(d.startsWith('file') ? { format: 'binary' } : {}) }])),
									Object.entries(op.multipart).filter(([k, d]) => k === 'path' || d.includes('(required')).map(([k]) => k)
								)
							}
						}
					}
				: undefined;
		(paths[op.path] ??= {})[op.method] = {
			summary: op.summary,
			description: `Who may call it: ${op.gate}.`,
			...(viaLink ? { security: [{ session: [] }, { bearer: [] }, { viewToken: [] }, { viewTokenQuery: [] }] } : {}),
			...(params.length ? { parameters: params } : {}),
			...(requestBody ? { requestBody } : {}),
			responses
		};
	}
	return {
		openapi: '3.1.0',
		info: { title: 'Tributary', version: '0.1.0', description: 'dbt lineage and runs. Errors are {"error": "..."}.' },
		components: {
			schemas,
			securitySchemes: {
				session: { type: 'apiKey', in: 'cookie', name: 'tributary_session' },
				bearer: { type: 'http', scheme: 'bearer', description: 'API token; scopes narrow what it may do' },
				viewToken: { type: 'apiKey', in: 'header', name: 'X-View-Token', description: 'a share link of a run, on the operations that name it (also ?view_token=)' },
				viewTokenQuery: { type: 'apiKey', in: 'query', name: 'view_token', description: 'a share link of a run, as the link carries it' }
			}
		},
		security: [{ session: [] }, { bearer: [] }],
		paths
	};
}
