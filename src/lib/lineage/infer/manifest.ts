// What inference needs from a dbt project's manifest.json and catalog.json: each model's compiled
// SQL (or why it has none), and a lookup from the relations the SQL names to manifest nodes with
// their columns in catalog order (else the manifest's declared columns, order unknown to the warehouse).
import { splitRelationName } from '../relation-path';
import type { ParentRelation, RelationLookup } from './types';

// The artifacts are read defensively as plain data: their shape varies across dbt versions, and a
// field this code does not need must not stop it.
type Json = any;

export interface ModelToInfer {
	node: string;
	/** Null when the model is skipped (`skip` says why). */
	sql: string | null;
	skip: string | null;
	/** The model's own columns in catalog order, when the catalog has it. */
	outputColumns: string[] | null;
	/** Relation lookup for this model: where two nodes share a relation, the one it depends on. */
	resolve: RelationLookup;
}

export interface InferenceInputs {
	adapterType: string | null;
	models: ModelToInfer[];
	/** Relation lookup for SQL outside any one model (no depends_on to decide shared relations). */
	resolve: RelationLookup;
	/** Nodes with a relation that the catalog does not list (their columns come from the manifest, if at all). */
	notInCatalog: string[];
}

const RELATION_TYPES = new Set(['model', 'seed', 'snapshot', 'source']);

function catalogColumns(entry: Json): string[] | null {
	if (!entry || typeof entry.columns !== 'object' || entry.columns === null) return null;
	return (Object.values(entry.columns) as Json[])
		.filter((c) => typeof c?.name === 'string')
		.sort((a, b) => (Number(a.index) || 0) - (Number(b.index) || 0))
		.map((c) => c.name as string);
}

function declaredColumns(node: Json): string[] | null {
	const cols = node?.columns && typeof node.columns === 'object' ? Object.values(node.columns as Record<string, Json>) : [];
	const names = cols.map((c) => c?.name).filter((n): n is string => typeof n === 'string' && n !== '');
	return names.length ? names : null;
}

/** The parts of a node's relation, lowercased: from `relation_name`, else database/schema/alias|identifier. */
function relationParts(node: Json): string[] | null {
	if (typeof node.relation_name === 'string' && node.relation_name !== '') {
		const parts = splitRelationName(node.relation_name);
		if (parts) return parts.map((p) => p.toLowerCase());
	}
	const name = node.resource_type === 'source' ? (node.identifier ?? node.name) : (node.alias ?? node.name);
	if (typeof name !== 'string' || typeof node.schema !== 'string') return null;
	return [node.database, node.schema, name].filter((p): p is string => typeof p === 'string' && p !== '').map((p) => p.toLowerCase());
}

export function manifestInferenceInputs(manifest: Json, catalog: Json | null): InferenceInputs {
	const nodes: Json[] = [...Object.values((manifest?.nodes ?? {}) as Record<string, Json>), ...Object.values((manifest?.sources ?? {}) as Record<string, Json>)];
	// Every spelling of a relation (`db.schema.name`, `schema.name`, `name`) → the nodes that have it.
	// Two nodes may share a table (a seed and the source declared over it): the reader's depends_on decides.
	const bySpelling = new Map<string, ParentRelation[]>();
	const fullSpellings = new Set<string>();
	const notInCatalog: string[] = [];
	for (const n of nodes) {
		if (!RELATION_TYPES.has(n?.resource_type)) continue;
		if (n.resource_type === 'model' && n.config?.materialized === 'ephemeral') continue;
		const parts = relationParts(n);
		if (!parts) continue;
		const fromCatalog = catalogColumns((n.resource_type === 'source' ? catalog?.sources : catalog?.nodes)?.[n.unique_id]);
		if (!fromCatalog) notInCatalog.push(n.unique_id);
		// Declared columns are not necessarily all of them: they name columns, but `*` over them is not trusted.
		const parent: ParentRelation = { node: n.unique_id, columns: fromCatalog, declared: fromCatalog ? null : declaredColumns(n) };
		fullSpellings.add(parts.join('.'));
		for (let k = 0; k < parts.length; k++) {
			const key = parts.slice(k).join('.');
			bySpelling.set(key, [...(bySpelling.get(key) ?? []), parent]);
		}
	}
	const lookup = (parts: string[], dependsOn: Set<string> | null): ParentRelation | null => {
		const key = parts.map((p) => p.toLowerCase()).join('.');
		const all = bySpelling.get(key) ?? [];
		const candidates = dependsOn && all.some((c) => dependsOn.has(c.node)) ? all.filter((c) => dependsOn.has(c.node)) : all;
		const distinct = [...new Map(candidates.map((c) => [c.node, c])).values()];
		if (distinct.length === 1) return distinct[0];
		// A full name shared by nodes of different kinds: prefer the source, as dbt's own lineage does.
		if (distinct.length > 1 && fullSpellings.has(key)) return distinct.find((c) => c.node.startsWith('source.')) ?? null;
		return null;
	};
	const resolve: RelationLookup = (parts) => lookup(parts, null);
	const models: ModelToInfer[] = [];
	for (const n of Object.values((manifest?.nodes ?? {}) as Record<string, Json>)) {
		if (n?.resource_type !== 'model') continue;
		const outputColumns = catalogColumns(catalog?.nodes?.[n.unique_id]);
		const dependsOn = new Set<string>(Array.isArray(n.depends_on?.nodes) ? n.depends_on.nodes : []);
		const base = { node: n.unique_id as string, outputColumns, resolve: ((parts) => lookup(parts, dependsOn)) as RelationLookup };
		if (n.language === 'python') models.push({ ...base, sql: null, skip: 'a Python model' });
		else if (n.config?.materialized === 'ephemeral') models.push({ ...base, sql: null, skip: 'ephemeral: inlined into the models that read it' });
		else if (typeof n.compiled_code !== 'string' || n.compiled_code.trim() === '')
			models.push({ ...base, sql: null, skip: 'no compiled SQL in the manifest (run dbt compile, run or build)' });
		else models.push({ ...base, sql: n.compiled_code, skip: null });
	}
	return { adapterType: manifest?.metadata?.adapter_type ?? null, models, resolve, notInCatalog };
}
