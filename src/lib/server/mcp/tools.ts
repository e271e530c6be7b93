// The MCP tools (docs/mcp.md): each a JSON schema for its arguments and a handler calling the
// same service as its HTTP read, with the caller's own request (so the same gates, scopes and
// withholding apply), and an answer bounded in size.
import type { RequestEvent } from '@sveltejs/kit';
import { canvasFromAssetGraph } from '../../lineage/canvas-model';
import { evaluateSelector, selectorGraph } from '../../lineage/selector';
import { assetReadGrant, diffRefAccess, lineageStampOf, runGrant } from '../access';
import { runStatusOf } from '../api/jobs/reads';
import { getDatabase } from '../db';
import { lineageDiff } from '../api/diff/reads';
import { badRequest } from '../http';
import { parseImpactQuery } from '../api/impact/parse';
import { unpinnedColumnImpact, unpinnedColumnTrace } from '../api/impact/reads';
import { parseAssetPaths } from '../api/graph/parse';
import { unpinnedAssetGraph } from '../api/graph/reads';
import { describeRelation } from '../api/graph/relation';
import { requireScriptPath } from '../paths';
import { hexToHash } from '../../types/script-hash';

/** What a tool runs with: the MCP request's own event (its caller), and the workspace. */
export interface ToolContext {
	event: Pick<RequestEvent, 'locals' | 'url' | 'request'>;
	ws: string;
}

export interface ToolDef {
	name: string;
	description: string;
	inputSchema: { type: 'object'; properties: Record<string, unknown>; required?: string[]; additionalProperties: false };
	run(ctx: ToolContext, args: Record<string, unknown>): Promise<unknown>;
}

const assetPath = {
	type: 'string',
	minLength: 1,
	maxLength: 300,
	description: 'a relation: dbt://<warehouse>/<schema>/<name> (or the bare path), ducklake://<path> or openlineage://<namespace>/<name>'
};
const column = { type: 'string', minLength: 1, maxLength: 255, description: 'a column name of that relation' };
const limit = (d: number, max: number) => ({ type: 'integer', minimum: 1, maximum: max, default: d, description: `how many items to list at most (default ${d})` });

/** The caller and the query as GET assets/column_impact gates and parses them. */
async function impactQuery(ctx: ToolContext, a: Record<string, unknown>, direction: 'upstream' | 'downstream') {
	const grant = await assetReadGrant(ctx.event, ctx.ws);
	return { grant, q: parseImpactQuery(new URLSearchParams({ asset_path: String(a.asset_path), column: String(a.column), direction })) };
}

async function impact(ctx: ToolContext, a: Record<string, unknown>, direction: 'upstream' | 'downstream') {
	const { grant, q } = await impactQuery(ctx, a, direction);
	return unpinnedColumnImpact(grant, await getDatabase(), q, { stamp: lineageStampOf(ctx.event) });
}

function cut<T>(items: T[], n: number): { items: T[]; note: string | null } {
	return items.length <= n ? { items, note: null } : { items: items.slice(0, n), note: `${items.length - n} more not listed (limit ${n})` };
}

export const TOOLS: ToolDef[] = [
	{
		name: 'search_assets',
		description:
			"Find relations and producer scripts with dbt's node selection syntax (as `dbt ls --select`: `tag:nightly`, `+orders`, `stg_*`, `path:models/marts`, `orders+2`, `a b --exclude c`) plus `kind:script` and `column:rel.col`; a plain word is also looked up by name. Only what the caller may see.",
		inputSchema: {
			type: 'object',
			properties: {
				selector: { type: 'string', minLength: 1, maxLength: 2000, description: 'a dbt selector, or a name' },
				folder: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,100}$', description: 'only this folder (default: the whole workspace)' },
				limit: limit(50, 500)
			},
			required: ['selector'],
			additionalProperties: false
		},
		async run(ctx, a) {
			const grant = await assetReadGrant(ctx.event, ctx.ws);
			const g = await unpinnedAssetGraph(grant, await getDatabase(), { folder: (a.folder as string | undefined) ?? null, assetKinds: null, scriptHash: null }, { fields: 'shape' });
			const canvas = canvasFromAssetGraph(g);
			const r = evaluateSelector(String(a.selector), selectorGraph(canvas.nodes, canvas.edges));
			if (r.kind === 'error') throw badRequest(`selector: ${r.message}`);
			const ids = r.kind === 'names' ? r.ids : r.kind === 'selection' ? [...r.ids] : [];
			const byId = new Map(canvas.nodes.map((n) => [n.id, n]));
			const found = ids.map((id) => byId.get(id)!).filter(Boolean);
			if (r.kind === 'selection') found.sort((x, y) => (x.id < y.id ? -1 : 1));
			const { items, note } = cut(found, (a.limit as number | undefined) ?? 50);
			return {
				matched: found.length,
				read_as: r.kind === 'names' ? 'name search' : 'selector',
				assets: items.map((n) => ({
					kind: n.type === 'runnable' ? 'script' : n.kind,
					path: n.type === 'runnable' ? n.path : `${n.kind}://${n.path}`,
					name: n.name,
					...(n.resourceType ? { resource_type: n.resourceType } : {}),
					...(n.materialized ? { materialized: n.materialized } : {}),
					...(n.uniqueId ? { unique_id: n.uniqueId } : {}),
					...(n.project ? { project: n.project } : {}),
					...(n.type === 'runnable' ? { language: n.kind } : {})
				})),
				...(r.kind === 'selection' && r.columns.length ? { columns: r.columns.slice(0, 200) } : {}),
				hidden: g.hidden,
				...(note ? { truncated: note } : {})
			};
		}
	},
	{
		name: 'get_asset',
		description:
			"One dbt relation as its projects describe it: resource type, materialization, description, SQL, columns (typed where the catalog said), tests, and how its column lineage came about. Fields the caller may not read are absent. (Exposures and metrics reading it join here once the ingest stores them.)",
		inputSchema: {
			type: 'object',
			properties: {
				asset_path: { ...assetPath, description: 'a dbt relation: dbt://<warehouse>/<schema>/<name> or the bare path' },
				version: { type: 'string', pattern: '^[0-9a-fA-F]{16}$', description: 'a project version (16 hex digits); default: the newest live version of every project describing it' }
			},
			required: ['asset_path'],
			additionalProperties: false
		},
		async run(ctx, a) {
			const grant = await assetReadGrant(ctx.event, ctx.ws);
			const database = await getDatabase();
			const [path] = parseAssetPaths(new URLSearchParams([['asset_path', String(a.asset_path)]]));
			const named = await grant.readableVersion(database, a.version ? hexToHash(String(a.version)) : null, 'version');
			const dbt = await describeRelation(grant, database, path, named);
			if (!dbt) return { asset_path: `dbt://${path}`, found: false, note: 'no dbt project you can read describes this relation' };
			return { asset_path: `dbt://${path}`, found: true, ...dbt };
		}
	},
	{
		name: 'trace_column',
		description:
			"Trace one column up (where it comes from) and down (what reads it) across dbt projects, producer scripts and OpenLineage jobs, to a depth. Each column listed with its depth, the edge kinds (copy, mod) along the way and the producers crossed; relations the caller may not see are withheld (counted).",
		inputSchema: {
			type: 'object',
			properties: {
				asset_path: assetPath,
				column,
				direction: { type: 'string', enum: ['upstream', 'downstream', 'both'], default: 'both' },
				depth: { type: 'integer', minimum: 1, maximum: 100, default: 10, description: 'edges from the column at most (default 10)' },
				limit: limit(200, 2000)
			},
			required: ['asset_path', 'column'],
			additionalProperties: false
		},
		async run(ctx, a) {
			const direction = (a.direction as string | undefined) ?? 'both';
			const depth = (a.depth as number | undefined) ?? 10;
			const n = (a.limit as number | undefined) ?? 200;
			const dirs = direction === 'both' ? (['upstream', 'downstream'] as const) : ([direction] as ['upstream' | 'downstream']);
			const { grant, q } = await impactQuery(ctx, a, dirs[0]);
			const answers = await unpinnedColumnTrace(grant, await getDatabase(), q, dirs, { stamp: lineageStampOf(ctx.event) });
			const out: Record<string, unknown> = { asset_path: a.asset_path, column: a.column, depth };
			dirs.forEach((d, i) => {
				const r = answers[i];
				const within = r.columns.filter((c) => c.depth <= depth);
				const { items, note } = cut(within, n);
				out[d] = {
					columns: items,
					withheld: r.withheld,
					...(within.length < r.columns.length ? { deeper: r.columns.length - within.length } : {}),
					...(note || r.truncated ? { truncated: note ?? 'the walk reached its bound: more columns exist' } : {})
				};
			});
			return out;
		}
	},
	{
		name: 'column_impact',
		description:
			'Everything one column feeds (downstream, the default) or is fed by (upstream), across projects and producers, with the tests on each listed relation: what a change to the column may break.',
		inputSchema: {
			type: 'object',
			properties: { asset_path: assetPath, column, direction: { type: 'string', enum: ['upstream', 'downstream'], default: 'downstream' }, limit: limit(200, 2000) },
			required: ['asset_path', 'column'],
			additionalProperties: false
		},
		async run(ctx, a) {
			const r = await impact(ctx, a, (a.direction as 'upstream' | 'downstream' | undefined) ?? 'downstream');
			const { items, note } = cut(r.columns, (a.limit as number | undefined) ?? 200);
			const listed = new Set(items.map((c) => c.asset_path));
			return {
				columns: items,
				tests: Object.fromEntries(Object.entries(r.tests).filter(([k]) => listed.has(k))),
				withheld: r.withheld,
				...(note || r.truncated ? { truncated: note ?? 'the walk reached its bound: more columns exist' } : {})
			};
		}
	},
	{
		name: 'diff',
		description:
			"The lineage diff between two refs of one dbt project (a version hash, a preview or run job id, or `latest`): models added, removed, renamed, modified, columns added/removed/retyped with their downstream readers, each change classified breaking, partial, non_breaking or unknown.",
		inputSchema: {
			type: 'object',
			properties: {
				path: { type: 'string', minLength: 1, maxLength: 255, description: 'the project path: f/<folder>/<name> or u/<user>/<name>' },
				from: { type: 'string', minLength: 1, maxLength: 64, default: 'latest' },
				to: { type: 'string', minLength: 1, maxLength: 64 }
			},
			required: ['path', 'to'],
			additionalProperties: false
		},
		async run(ctx, a) {
			const database = await getDatabase();
			const path = requireScriptPath(String(a.path));
			const from = await diffRefAccess(ctx.event, database, ctx.ws, path, (a.from as string | undefined) ?? 'latest');
			const to = await diffRefAccess(ctx.event, database, ctx.ws, path, String(a.to));
			return lineageDiff(from, to, database);
		}
	},
	{
		name: 'run_status',
		description: "A job's status and progress: for a dbt run each model's state (success, error, running, …) and row counts; its result. No log.",
		inputSchema: {
			type: 'object',
			properties: { job_id: { type: 'string', pattern: '^[0-9a-fA-F-]{36}$', description: 'the job id (a uuid)' }, limit: limit(100, 1000) },
			required: ['job_id'],
			additionalProperties: false
		},
		async run(ctx, a) {
			const { detail, rows } = await runStatusOf(await runGrant(ctx.event, ctx.ws, String(a.job_id)));
			const byStatus: Record<string, number> = {};
			for (const r of rows) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
			// Failures first: they are what a caller asks about.
			const ordered = [...rows].sort((x, y) => Number(y.status === 'failed') - Number(x.status === 'failed'));
			const { items, note } = cut(ordered, (a.limit as number | undefined) ?? 100);
			const { logs: _logs, logs_truncated: _cut, ...rest } = detail as unknown as Record<string, unknown>;
			return { ...rest, progress: { total: rows.length, by_status: byStatus, items, ...(note ? { truncated: note } : {}) } };
		}
	}
];

export const TOOL_BY_NAME = new Map(TOOLS.map((t) => [t.name, t]));

