// What inference needs from a dbt project's manifest.json and catalog.json, as a plan: plain,
// serializable data (it is stored with a version and sent to worker threads), from which
// `resolverOf` builds the lookup from the relations the SQL names to manifest nodes with their
// columns in catalog order (else the manifest's declared columns, order unknown to the warehouse).
import { splitRelationName } from '../relation-path';
import { dialectOf } from './dialect';
import type { InferDialect, ParentRelation, RelationLookup } from './types';

// The artifacts are read defensively as plain data: their shape varies across dbt versions, and a
// field this code does not need must not stop it.
type Json = any;

/** A relation SQL may read: a model (not ephemeral), seed, snapshot or source. */
export interface PlannedRelation {
	node: string;
	/** Its name's parts, lowercased (`['db', 'main', 'stg_orders']`). */
	parts: string[];
	/** Its columns in catalog order; null when the catalog does not list it. */
	columns: string[] | null;
	/** The catalog's type of each of `columns` (same order; null where the catalog gives none). */
	types?: (string | null)[] | null;
	/** With no catalog columns: the manifest's declared (YAML) columns, maybe not all of them. */
	declared: string[] | null;
}

export interface PlannedModel {
	node: string;
	/** Null when the model is skipped (`skip` says why). */
	sql: string | null;
	skip: string | null;
	/** The model's own columns in catalog order, when the catalog has it. */
	outputColumns: string[] | null;
	/** Its `depends_on.nodes`: where two nodes share a relation, the one it depends on is meant. */
	dependsOn: string[];
}

export interface InferencePlan {
	adapterType: string | null;
	dialect: InferDialect;
	/** Set when the adapter has no dialect of its own here (generic SQL is parsed). */
	dialectWarning: string | null;
	relations: PlannedRelation[];
	models: PlannedModel[];
	/** Relations the catalog does not list (their columns come from the manifest, or from inference). */
	notInCatalog: string[];
	/** No catalog, or one that lacks relations of this manifest (another project's?), counted. */
	catalogWarning: string | null;
	/** Models without compiled SQL (a manifest from `dbt parse`), counted, with the command that gives it. */
	compiledWarning?: string | null;
}

const RELATION_TYPES = new Set(['model', 'seed', 'snapshot', 'source']);

function catalogEntryColumns(entry: Json): Json[] | null {
	if (!entry || typeof entry.columns !== 'object' || entry.columns === null) return null;
	return (Object.values(entry.columns) as Json[]).filter((c) => typeof c?.name === 'string').sort((a, b) => (Number(a.index) || 0) - (Number(b.index) || 0));
}

function catalogColumns(entry: Json): string[] | null {
	return catalogEntryColumns(entry)?.map((c) => c.name as string) ?? null;
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

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function catalogWarningOf(catalog: Json | null, relations: PlannedRelation[], notInCatalog: string[]): string | null {
	if (catalog === null || catalog === undefined)
		return 'no catalog.json (from `dbt docs generate`): columns come from the compiled SQL and the YAML, so `select *` over a seed, source or snapshot cannot be expanded';
	if (notInCatalog.length === 0) return null;
	const missing = new Set(notInCatalog);
	const models = relations.filter((r) => missing.has(r.node) && r.node.startsWith('model.')).length;
	const others = notInCatalog.length - models;
	const listed = Object.keys(catalog?.nodes ?? {}).length + Object.keys(catalog?.sources ?? {}).length;
	const what = [models ? plural(models, 'model') : null, others ? plural(others, 'other relation') : null].filter(Boolean).join(' and ');
	const head =
		notInCatalog.length === relations.length
			? `the catalog lists none of the manifest's ${plural(relations.length, 'relation')} (${listed} entries: a catalog of another project?)`
			: `the catalog lacks ${what} of the manifest's ${plural(relations.length, 'relation')}`;
	return `${head}: their columns come from the compiled SQL and the YAML, so lineage through them may be partial`;
}

const NO_SQL = 'no compiled SQL in the manifest (run dbt compile, run or build)';

function compiledWarningOf(models: PlannedModel[]): string | null {
	const sqlModels = models.filter((m) => m.skip !== 'a Python model' && !m.skip?.startsWith('ephemeral'));
	const without = sqlModels.filter((m) => m.skip === NO_SQL).length;
	if (without === 0) return null;
	const head = without === sqlModels.length ? `no model has compiled SQL (a manifest from \`dbt parse\`)` : `${plural(without, 'model')} of ${sqlModels.length} have no compiled SQL`;
	return `${head}: column lineage is inferred from compiled SQL, which \`dbt compile\`, \`dbt run\` or \`dbt build\` write into the manifest`;
}

/** The inference plan of a manifest and (maybe) its catalog. Never throws on odd input: what cannot be read is left out. */
export function inferencePlan(manifest: unknown, catalog: unknown | null): InferencePlan {
	const m = manifest as Json;
	const cat = (catalog ?? null) as Json;
	const nodes: Json[] = [...Object.values((m?.nodes ?? {}) as Record<string, Json>), ...Object.values((m?.sources ?? {}) as Record<string, Json>)];
	const relations: PlannedRelation[] = [];
	const notInCatalog: string[] = [];
	for (const n of nodes) {
		if (!RELATION_TYPES.has(n?.resource_type) || typeof n.unique_id !== 'string') continue;
		if (n.resource_type === 'model' && n.config?.materialized === 'ephemeral') continue;
		const parts = relationParts(n);
		if (!parts) continue;
		const entry = catalogEntryColumns((n.resource_type === 'source' ? cat?.sources : cat?.nodes)?.[n.unique_id]);
		const columns = entry?.map((c) => c.name as string) ?? null;
		if (!columns) notInCatalog.push(n.unique_id);
		const types = entry?.map((c) => (typeof c.type === 'string' ? c.type : null)) ?? null;
		relations.push({ node: n.unique_id, parts, columns, types, declared: columns ? null : declaredColumns(n) });
	}
	const models: PlannedModel[] = [];
	for (const n of Object.values((m?.nodes ?? {}) as Record<string, Json>)) {
		if (n?.resource_type !== 'model' || typeof n.unique_id !== 'string') continue;
		const base = {
			node: n.unique_id as string,
			outputColumns: catalogColumns(cat?.nodes?.[n.unique_id]),
			dependsOn: Array.isArray(n.depends_on?.nodes) ? (n.depends_on.nodes as unknown[]).filter((d): d is string => typeof d === 'string') : []
		};
		if (n.language === 'python') models.push({ ...base, sql: null, skip: 'a Python model' });
		else if (n.config?.materialized === 'ephemeral') models.push({ ...base, sql: null, skip: 'ephemeral: inlined into the models that read it' });
		else if (typeof n.compiled_code !== 'string' || n.compiled_code.trim() === '')
			models.push({ ...base, sql: null, skip: NO_SQL });
		else models.push({ ...base, sql: n.compiled_code, skip: null });
	}
	const adapterType = typeof m?.metadata?.adapter_type === 'string' ? m.metadata.adapter_type : null;
	const { dialect, warning } = dialectOf(adapterType);
	return {
		adapterType,
		dialect,
		dialectWarning: warning,
		relations,
		models,
		notInCatalog,
		catalogWarning: catalogWarningOf(cat, relations, notInCatalog),
		compiledWarning: compiledWarningOf(models)
	};
}

export interface Resolver {
	/** A relation as written in the SQL; `dependsOn` decides between nodes that share it. */
	resolve(parts: string[], dependsOn?: ReadonlySet<string> | null): ParentRelation | null;
	/** The lookup for one model's SQL. */
	forModel(model: Pick<PlannedModel, 'dependsOn'>): RelationLookup;
	/** A node's relation as the SQL would see it (catalog columns, else inferred, else declared); null if it has none. */
	relation(node: string): ParentRelation | null;
}

/**
 * The relation lookup of a plan. `inferred` gives columns of relations the catalog lacks, as
 * inference found them for the models upstream; they count as the relation's columns. It is read
 * at each lookup, so a caller may fill it as the models upstream are done.
 */
export function resolverOf(plan: Pick<InferencePlan, 'relations'>, inferred?: ReadonlyMap<string, string[]> | null): Resolver {
	// Every spelling of a relation (`db.schema.name`, `schema.name`, `name`) → the nodes that have it.
	// Two nodes may share a table (a seed and the source declared over it): the reader's depends_on decides.
	const bySpelling = new Map<string, PlannedRelation[]>();
	const fullSpellings = new Set<string>();
	const byNode = new Map<string, PlannedRelation>();
	for (const r of plan.relations) {
		byNode.set(r.node, r);
		fullSpellings.add(r.parts.join('.'));
		for (let k = 0; k < r.parts.length; k++) {
			const key = r.parts.slice(k).join('.');
			const list = bySpelling.get(key);
			if (list) list.push(r);
			else bySpelling.set(key, [r]);
		}
	}
	// Declared columns are not necessarily all of them: they name columns, but `*` over them is not trusted.
	const parentOf = (r: PlannedRelation): ParentRelation => {
		const fromInference = r.columns === null ? (inferred?.get(r.node) ?? null) : null;
		return fromInference ? { node: r.node, columns: fromInference, declared: null } : { node: r.node, columns: r.columns, declared: r.declared };
	};
	const resolve = (parts: string[], dependsOn?: ReadonlySet<string> | null): ParentRelation | null => {
		const key = parts.map((p) => p.toLowerCase()).join('.');
		const all = bySpelling.get(key) ?? [];
		const candidates = dependsOn && all.some((c) => dependsOn.has(c.node)) ? all.filter((c) => dependsOn.has(c.node)) : all;
		const distinct = [...new Map(candidates.map((c) => [c.node, c])).values()];
		if (distinct.length === 1) return parentOf(distinct[0]);
		// A full name shared by nodes of different kinds: prefer the source, as dbt's own lineage does.
		if (distinct.length > 1 && fullSpellings.has(key)) {
			const source = distinct.find((c) => c.node.startsWith('source.'));
			return source ? parentOf(source) : null;
		}
		return null;
	};
	return {
		resolve,
		forModel(model) {
			const dependsOn = new Set(model.dependsOn);
			return (parts) => resolve(parts, dependsOn);
		},
		relation(node) {
			const r = byNode.get(node);
			return r ? parentOf(r) : null;
		}
	};
}
