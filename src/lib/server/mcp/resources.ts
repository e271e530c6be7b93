// MCP resources: one README-like summary per dbt project the caller can see (what it holds, by
// resource type, and its producers), read from the same gated asset graph as search_assets.
import { assetReadGrant } from '../access';
import { getDatabase } from '../db';
import { unpinnedAssetGraph } from '../api/graph/reads';
import type { AssetGraph } from '../../types/asset-graph';
import type { ToolContext } from './tools';

const PREFIX = 'tributary://project/';

export const projectUri = (path: string) => `${PREFIX}${path}`;

async function graphOf(ctx: ToolContext): Promise<AssetGraph> {
	const grant = await assetReadGrant(ctx.event, ctx.ws);
	return unpinnedAssetGraph(grant, await getDatabase(), { folder: null, assetKinds: null, scriptHash: null }, { fields: 'shape' });
}

export async function listProjectResources(ctx: ToolContext) {
	const g = await graphOf(ctx);
	return g.runnables
		.filter((r) => r.language === 'dbt')
		.map((r) => ({
			uri: projectUri(r.path),
			name: r.path,
			title: `dbt project ${r.path}`,
			description: `${r.dbt?.model_count ?? 0} models; version ${r.script_hash ?? 'preview'}`,
			mimeType: 'text/markdown'
		}));
}

/** The summary, or null when the caller sees no such project (an unknown one and a hidden one alike). */
export async function readProjectResource(ctx: ToolContext, uri: string): Promise<string | null> {
	if (!uri.startsWith(PREFIX)) return null;
	const path = uri.slice(PREFIX.length);
	const g = await graphOf(ctx);
	const project = g.runnables.find((r) => r.language === 'dbt' && r.path === path);
	if (!project) return null;
	const byType = new Map<string, number>();
	let tests = 0;
	const schemas = new Set<string>();
	for (const a of g.assets) {
		if (a.dbt?.script_path !== path) continue;
		byType.set(a.dbt.resource_type, (byType.get(a.dbt.resource_type) ?? 0) + 1);
		tests += a.dbt.data_tests.length;
		schemas.add(a.path.slice(0, a.path.lastIndexOf('/')));
	}
	const written = new Set(g.assets.filter((a) => a.dbt?.script_path === path).map((a) => `${a.kind}:${a.path}`));
	const producers = new Set(g.edges.filter((e) => e.runnable_path !== path && written.has(`${e.asset_kind}:${e.asset_path}`)).map((e) => e.runnable_path));
	const count = (t: string) => byType.get(t) ?? 0;
	return [
		`# ${path}`,
		'',
		`dbt project, version ${project.script_hash ?? '(preview)'}.`,
		'',
		'| what | count |',
		'|---|---|',
		`| models | ${count('model')} |`,
		`| sources | ${count('source')} |`,
		`| seeds | ${count('seed')} |`,
		`| snapshots | ${count('snapshot')} |`,
		`| data tests | ${tests} |`,
		`| schemas | ${schemas.size} |`,
		// Exposures, semantic models and metrics join this table once the ingest stores them.
		`| producers reading or writing its relations | ${producers.size} |`,
		'',
		`Relations: use the tool search_assets with \`path:${path}\`-style selectors or names; trace a column with trace_column.`
	].join('\n');
}
