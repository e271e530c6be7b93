// ProjectSpec → catalog.json (v1), as `dbt docs generate` writes it after a build: every relation
// the warehouse holds (sources, seeds, snapshots, non-ephemeral models) with its columns in
// table order, typed as the warehouse reports them. Columns only declared in YAML are absent:
// the catalog describes the warehouse, not the docs.
import { isoUtc } from './manifest-builder';
import { isExecutable, type ProjectSpec, type RelationSpec } from './spec';

export const CATALOG_SCHEMA = 'https://schemas.getdbt.com/dbt/catalog/v1.json';

type Json = Record<string, unknown>;

const NO_STATS = { has_stats: { id: 'has_stats', label: 'Has Stats?', value: false, include: false, description: 'Indicates whether there are statistics for this table' } };

function entry(r: RelationSpec): Json {
	const columns: Json = {};
	let index = 1;
	for (const c of r.columns) {
		if (c.yamlOnly) continue;
		columns[c.name] = { type: c.type, index: index++, name: c.name, comment: null };
	}
	const view = r.resourceType === 'model' && r.materialized === 'view';
	return {
		metadata: { type: view ? 'VIEW' : 'BASE TABLE', schema: r.schema, name: r.alias, database: r.database, comment: null, owner: null },
		columns,
		stats: NO_STATS,
		unique_id: r.uniqueId
	};
}

export function buildCatalog(opts: { spec: ProjectSpec; invocationId: string; generatedAt: number }): Json {
	const nodes: Json = {};
	for (const n of opts.spec.nodes) {
		if (!isExecutable(n) || (n.resourceType === 'model' && n.materialized === 'ephemeral')) continue;
		nodes[n.uniqueId] = entry(n);
	}
	const sources: Json = {};
	for (const s of opts.spec.sources) sources[s.uniqueId] = entry(s);
	return {
		metadata: {
			dbt_schema_version: CATALOG_SCHEMA,
			dbt_version: opts.spec.dbtVersion,
			generated_at: isoUtc(opts.generatedAt),
			invocation_id: opts.invocationId,
			invocation_started_at: isoUtc(opts.generatedAt - 900),
			env: {}
		},
		nodes,
		sources,
		errors: null
	};
}
