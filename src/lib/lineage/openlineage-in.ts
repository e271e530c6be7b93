// OpenLineage events received from other tools, mapped onto Tributary's assets and producers
// (docs/openlineage.md). Pure: the server resolves warehouses and applies the gates; this names
// things and reads facets.
//   job            → a producer script `f/<folder>/<namespace slug>/<name slug>` (language `openlineage`)
//   dataset        → a dbt relation when a warehouse declares the dataset's namespace (or it is one
//                    Tributary's own export named), a lake table of Tributary's export, else the
//                    external asset `openlineage://<namespace>/<name>`
//   columnLineage  → producer column lineage rows (DIRECT: copy or mod; INDIRECT kept as reads only)
import { relationAssetPath, splitRelationName } from './relation-path';

/** The asset kind of a dataset no known relation matched. */
export const OPENLINEAGE_ASSET_KIND = 'openlineage';
/** The language of the producer script an OpenLineage job is drawn as. */
export const OPENLINEAGE_LANGUAGE = 'openlineage';
/** The namespace key of a workspace's default folder in the namespace mapping. */
export const DEFAULT_NAMESPACE_KEY = '*';

export type ResolvedKind = 'dbt' | 'ducklake' | 'openlineage';

export interface ResolvedAsset {
	kind: ResolvedKind;
	path: string;
}

export interface OlDatasetRef {
	namespace: string;
	name: string;
}

/** A warehouse as dataset matching needs it. */
export interface WarehouseNaming {
	name: string;
	defaultDatabase: string | null;
	/** `settings.openlineage_namespace`, e.g. `postgres://db.example:5432`, `snowflake://acme-xy123`, `bigquery`. */
	openlineageNamespace: string | null;
}

export interface DatasetResolver {
	workspace: string;
	warehouses: readonly WarehouseNaming[];
}

/** A namespace compared as OpenLineage clients vary in writing it: no trailing slash, scheme and authority lowercased. */
export function normalizeNamespace(ns: string): string {
	const trimmed = ns.trim().replace(/\/+$/, '');
	const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/]*)(.*)$/.exec(trimmed);
	if (!m) return trimmed.toLowerCase();
	return `${m[1].toLowerCase()}://${m[2].toLowerCase()}${m[3]}`;
}

/**
 * `<namespace>/<name>` for an external dataset: `/` and `%` inside the namespace (after its
 * `scheme://`) are percent-encoded, so the first plain `/` past the scheme ends it and two
 * different (namespace, name) pairs never share a path.
 */
export function externalAssetPath(d: OlDatasetRef): string {
	const m = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)(.*)$/.exec(d.namespace);
	const [scheme, rest] = m ? [m[1], m[2]] : ['', d.namespace];
	return `${scheme}${rest.replace(/%/g, '%25').replace(/\//g, '%2F')}/${d.name}`;
}

/** The (namespace, name) of an external asset path (externalAssetPath's inverse), or null. */
export function externalDatasetOf(path: string): OlDatasetRef | null {
	const m = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)?([^/]*)\/(.*)$/s.exec(path);
	if (!m) return null;
	return { namespace: `${m[1] ?? ''}${decodeURIComponent(m[2])}`, name: m[3] };
}

/**
 * Where a dataset lands. Tributary's own export names a dbt relation `dbt://<workspace>/<warehouse>`
 * + `<db>.<schema>.<name>` and a lake table `ducklake://<workspace>/<catalog>` + `<table>`; a
 * warehouse that declares the dataset's namespace turns `db.schema.table` (or `schema.table`) into
 * its relation, compared case-insensitively as every relation path is. Anything else is external.
 */
export function resolveDataset(d: OlDatasetRef, r: DatasetResolver): ResolvedAsset {
	const own = /^(dbt|ducklake):\/\/([^/]+)\/([^/]+)$/.exec(d.namespace.trim());
	if (own && own[2] === r.workspace) {
		if (own[1] === 'ducklake') {
			if (/^[A-Za-z0-9_$]+(?:[.-][A-Za-z0-9_$]+)*$/.test(d.name)) return { kind: 'ducklake', path: `${own[3]}/${d.name}` };
		} else {
			const wh = r.warehouses.find((w) => w.name === own[3]);
			const path = relationPathOf(d.name, { name: own[3], defaultDatabase: wh?.defaultDatabase ?? null });
			if (path) return { kind: 'dbt', path };
		}
	}
	const ns = normalizeNamespace(d.namespace);
	for (const w of r.warehouses) {
		if (w.openlineageNamespace === null || normalizeNamespace(w.openlineageNamespace) !== ns) continue;
		const path = relationPathOf(d.name, w);
		if (path) return { kind: 'dbt', path };
	}
	return { kind: 'openlineage', path: externalAssetPath(d) };
}

/** resolveDataset for one resolver, each dataset resolved once (events name the same ones again and again). */
export function datasetResolverCache(r: DatasetResolver): (d: OlDatasetRef) => ResolvedAsset {
	const cache = new Map<string, ResolvedAsset>();
	return (d) => {
		const k = `${d.namespace}\u0000${d.name}`;
		let a = cache.get(k);
		if (!a) cache.set(k, (a = resolveDataset(d, r)));
		return a;
	};
}

function relationPathOf(name: string, w: { name: string; defaultDatabase: string | null }): string | null {
	const parts = splitRelationName(name);
	if (!parts) return null;
	if (parts.length === 3) return relationAssetPath({ database: parts[0], schema: parts[1], name: parts[2] }, w);
	if (parts.length === 2) return relationAssetPath({ schema: parts[0], name: parts[1] }, w);
	return null;
}

// ─── Job → script path ──────────────────────────────────────────────────────────────────────

const MAX_SCRIPT_PATH = 255;

function slug(s: string, max: number): string {
	const out = s.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '').slice(0, max);
	return out === '' ? 'x' : out;
}

/**
 * The producer path of a job in `folder`: `f/<folder>/<namespace>/<name>` with every run of
 * characters a path segment may not hold turned into `_`. `suffix` (a few hex digits of the
 * job's identity) tells apart two jobs whose names slug alike.
 */
export function jobScriptPath(folder: string, job: OlDatasetRef, suffix?: string): string {
	const head = `f/${folder}/${slug(job.namespace.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\//, ''), 60)}/`;
	const tail = suffix ? `-${suffix}` : '';
	return `${head}${slug(job.name, MAX_SCRIPT_PATH - head.length - tail.length)}${tail}`;
}

// ─── Facets → lineage ──────────────────────────────────────────────────────────────────────

export type ProducerKind = 'copy' | 'mod' | null;

export interface InputFieldLike {
	namespace: string;
	name: string;
	field: string;
	transformations?: { type?: string; subtype?: string }[];
}

/**
 * How an input field feeds an output column, in producer terms: DIRECT IDENTITY is a copy, any
 * other DIRECT a mod; INDIRECT alone (a filter, a join key) carries no value and is not a column
 * edge (null result). Without transformations (facet 1-0-x) the field's deprecated
 * `transformationType` decides: IDENTITY a copy, MASKED a mod, nothing an edge of unknown kind.
 */
export function producerKindOf(input: InputFieldLike, fieldTransformationType: unknown): { edge: boolean; kind: ProducerKind } {
	const ts = Array.isArray(input.transformations) ? input.transformations : [];
	if (ts.length === 0) {
		if (fieldTransformationType === 'IDENTITY') return { edge: true, kind: 'copy' };
		if (fieldTransformationType === 'MASKED') return { edge: true, kind: 'mod' };
		return { edge: true, kind: null };
	}
	const direct = ts.filter((t) => t?.type === 'DIRECT');
	if (direct.length === 0) return { edge: false, kind: null };
	if (direct.every((t) => t.subtype === 'IDENTITY')) return { edge: true, kind: 'copy' };
	return { edge: true, kind: 'mod' };
}

export interface JobLineageRow {
	outputAssetKind: ResolvedKind;
	outputAssetPath: string;
	outputColumn: string;
	inputAssetKind: ResolvedKind;
	inputAssetPath: string;
	inputColumn: string;
	lineageKind: ProducerKind;
}

export interface JobUse {
	assetKind: ResolvedKind;
	assetPath: string;
	access: 'r' | 'w';
}

/** A job version's script content: its identity and what that version reads and writes. */
export interface OpenLineageJobContent {
	namespace: string;
	name: string;
	uses: { kind: ResolvedKind; path: string; access: 'r' | 'w' }[];
}

/** A version's content, or null when it is not one (a version stored before it named its uses reads as none). */
export function parseJobContent(text: string): OpenLineageJobContent | null {
	try {
		const v = JSON.parse(text);
		if (!isObject(v) || typeof v.namespace !== 'string' || typeof v.name !== 'string') return null;
		const uses = Array.isArray(v.uses)
			? v.uses.filter((u: unknown): u is OpenLineageJobContent['uses'][number] => isObject(u) && typeof u.kind === 'string' && typeof u.path === 'string' && (u.access === 'r' || u.access === 'w'))
			: [];
		return { namespace: v.namespace, name: v.name, uses };
	} catch {
		return null;
	}
}

export interface JobLineage {
	uses: JobUse[];
	rows: JobLineageRow[];
	/** Edges past the cap, not stored. */
	droppedEdges: number;
	/** INDIRECT-only input fields (filters, join keys, the dataset-wide list): reads, not column edges. */
	indirectEdges: number;
}

export interface DatasetLike {
	namespace: string;
	name: string;
	facets?: Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * A run event's datasets as a producer's reads and writes, and its outputs' columnLineage facets
 * as column rows (at most `maxEdges`, in the order the facets list them). An input field naming
 * a dataset the event does not list is still read.
 */
export function jobLineageOf(inputs: readonly DatasetLike[], outputs: readonly DatasetLike[], resolve: (d: OlDatasetRef) => ResolvedAsset, maxEdges: number): JobLineage {
	const cache = new Map<string, ResolvedAsset>();
	const at = (d: OlDatasetRef) => {
		const k = `${d.namespace}\u0000${d.name}`;
		let a = cache.get(k);
		if (!a) cache.set(k, (a = resolve(d)));
		return a;
	};
	const uses = new Map<string, JobUse>();
	const use = (a: ResolvedAsset, access: 'r' | 'w') => {
		const k = `${a.kind}\u0000${a.path}\u0000${access}`;
		if (!uses.has(k)) uses.set(k, { assetKind: a.kind, assetPath: a.path, access });
	};
	for (const d of inputs) use(at(d), 'r');
	for (const d of outputs) use(at(d), 'w');
	const rows: JobLineageRow[] = [];
	const seen = new Set<string>();
	let dropped = 0;
	let indirect = 0;
	for (const out of outputs) {
		const facet = out.facets?.columnLineage;
		if (!isObject(facet)) continue;
		const target = at(out);
		const fields = isObject(facet.fields) ? facet.fields : {};
		for (const [column, spec] of Object.entries(fields)) {
			if (!isObject(spec) || !Array.isArray(spec.inputFields)) continue;
			for (const input of spec.inputFields as InputFieldLike[]) {
				if (!isObject(input) || typeof input.namespace !== 'string' || typeof input.name !== 'string' || typeof input.field !== 'string') continue;
				const source = at(input);
				use(source, 'r');
				const { edge, kind } = producerKindOf(input, spec.transformationType);
				if (!edge) {
					indirect++;
					continue;
				}
				const k = [source.kind, source.path, input.field, column].join('\u0000');
				if (seen.has(k)) continue;
				if (rows.length >= maxEdges) {
					dropped++;
					continue;
				}
				seen.add(k);
				rows.push({ outputAssetKind: target.kind, outputAssetPath: target.path, outputColumn: column, inputAssetKind: source.kind, inputAssetPath: source.path, inputColumn: input.field, lineageKind: kind });
			}
		}
		for (const input of Array.isArray(facet.dataset) ? (facet.dataset as InputFieldLike[]) : []) {
			if (!isObject(input) || typeof input.namespace !== 'string' || typeof input.name !== 'string') continue;
			use(at(input), 'r');
			indirect++;
		}
	}
	return { uses: [...uses.values()], rows, droppedEdges: dropped, indirectEdges: indirect };
}

/** The `schema` facet's fields as `[{name, type}]` (nested struct fields flattened `a.b`), or null. */
export function schemaFieldsOf(d: DatasetLike): { name: string; type?: string }[] | null {
	const facet = d.facets?.schema;
	if (!isObject(facet) || !Array.isArray(facet.fields)) return null;
	const out: { name: string; type?: string }[] = [];
	const walk = (fields: unknown[], prefix: string, depth: number) => {
		for (const f of fields) {
			if (!isObject(f) || typeof f.name !== 'string') continue;
			out.push(typeof f.type === 'string' ? { name: prefix + f.name, type: f.type } : { name: prefix + f.name });
			if (Array.isArray(f.fields) && depth < 8) walk(f.fields, `${prefix}${f.name}.`, depth + 1);
		}
	};
	walk(facet.fields, '', 0);
	return out;
}
