// A stored graph as OpenLineage RunEvents (spec 2-0-2): one job per dbt model, seed or snapshot
// with its input and output datasets, and one per producer script. Pure: the server reads the
// rows and applies the gates; this only maps. Naming (docs/openlineage.md, "OpenLineage out"):
//   dataset namespace  `<asset kind>://<workspace>/<warehouse or lake catalog>`
//   dataset name       the rest of the asset path dotted, a dbt relation qualified with its
//                      warehouse's default database when its path does not name one
//   job namespace      `tributary://<workspace>`
//   job name           `<script path>/<unique_id>` for a dbt node, the script path for a producer
import type { ColumnLineageFacet, InputField, OlDataset, OlJob, OlRun, RunEvent, RunEventType, SchemaFacet, Transformation } from '../types/openlineage';
import { externalDatasetOf, OPENLINEAGE_ASSET_KIND } from './openlineage-in';
import { sqlColumnUses, type SqlColumnUses } from './sql-clauses';
import type { GraphConsumer } from '../types/consumers';

export const OPENLINEAGE_SCHEMA_URL = 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent';
/** The producer URI of every event and facet (a URN: Tributary has no canonical public URL). */
export const OPENLINEAGE_PRODUCER = 'urn:tributary';

const FACET_URL = {
	columnLineage: 'https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet',
	schema: 'https://openlineage.io/spec/facets/1-2-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet',
	jobType: 'https://openlineage.io/spec/facets/2-0-4/JobTypeJobFacet.json#/$defs/JobTypeJobFacet',
	sql: 'https://openlineage.io/spec/facets/1-1-0/SQLJobFacet.json#/$defs/SQLJobFacet',
	parent: 'https://openlineage.io/spec/facets/1-2-0/ParentRunFacet.json#/$defs/ParentRunFacet',
	errorMessage: 'https://openlineage.io/spec/facets/1-0-1/ErrorMessageRunFacet.json#/$defs/ErrorMessageRunFacet'
} as const;

const facet = (kind: keyof typeof FACET_URL) => ({ _producer: OPENLINEAGE_PRODUCER, _schemaURL: FACET_URL[kind] });

/** The dbt resource types that are jobs (they write a relation); sources are datasets only. */
export const JOB_RESOURCE_TYPES = new Set(['model', 'seed', 'snapshot']);

export interface DatasetNaming {
	workspace: string;
	/** Default database per warehouse name (absent or null: the name stays unqualified). */
	defaultDatabase: ReadonlyMap<string, string | null>;
}

export function jobNamespace(workspace: string): string {
	return `tributary://${workspace}`;
}

const idCache = new WeakMap<DatasetNaming, Map<string, { namespace: string; name: string }>>();

/** datasetId, remembered per naming (one export names each relation once, however many edges read it). */
function cachedDatasetId(kind: string, assetPath: string, naming: DatasetNaming): { namespace: string; name: string } {
	let cache = idCache.get(naming);
	if (!cache) idCache.set(naming, (cache = new Map()));
	const k = `${kind}\u0000${assetPath}`;
	let id = cache.get(k);
	if (!id) cache.set(k, (id = datasetId(kind, assetPath, naming)));
	return id;
}

/** An asset (`dbt` + `main/analytics/orders`) as an OpenLineage dataset identity. */
export function datasetId(kind: string, assetPath: string, naming: DatasetNaming): { namespace: string; name: string } {
	// A dataset another tool reported keeps the identity it was reported under.
	if (kind === OPENLINEAGE_ASSET_KIND) {
		const id = externalDatasetOf(assetPath);
		if (id) return id;
	}
	const [root, ...rest] = assetPath.split('/');
	let name = rest.join('.');
	if (kind === 'dbt' && rest.length === 2 && !rest[0].includes('.')) {
		const db = naming.defaultDatabase.get(root);
		if (db) name = `${db}.${name}`;
	}
	return { namespace: `${kind}://${naming.workspace}/${root}`, name };
}

export interface OlNode {
	uniqueId: string;
	resourceType: string;
	assetPath: string | null;
	rawCode?: string | null;
	columnSchema?: { name: string; type?: string }[] | null;
}

export interface OlColumnEdge {
	parentUniqueId: string;
	parentColumn: string;
	childUniqueId: string;
	childColumn: string;
	lineageKind: string;
}

/** Where and when an event happened, and which run it belongs to. */
export interface EventFrame {
	eventType: RunEventType;
	eventTime: string;
	runId: string;
	/** The Tributary job this model ran in (a run's events), as the parent run. */
	parent?: { runId: string; jobName: string };
	/** A FAIL's message, for a caller who may read it. */
	errorMessage?: string;
}

export interface ModelEventInput {
	workspace: string;
	scriptPath: string;
	node: OlNode;
	/** The relations this node reads (its `ref()`/`source()` parents). */
	parents: readonly OlNode[];
	/** Column edges into this node; empty for a caller who may see the shape only. */
	columnEdges: readonly OlColumnEdge[];
	nodeOf: (uniqueId: string) => OlNode | undefined;
	/** SQL, typed columns and column lineage are authored: false leaves every facet carrying them out. */
	authored: boolean;
	naming: DatasetNaming;
	/** The token's `assets:read` narrowing: a dataset it does not reach is left out, with the lineage naming it. */
	datasetAllowed: (kind: string, assetPath: string) => boolean;
}

function schemaFacet(columns: readonly { name: string; type?: string }[] | null | undefined): SchemaFacet | undefined {
	if (!columns || columns.length === 0) return undefined;
	return {
		...facet('schema'),
		fields: columns.map((c, i) => (c.type ? { name: c.name, type: c.type, ordinal_position: i + 1 } : { name: c.name, ordinal_position: i + 1 }))
	};
}

const INDIRECT_ORDER = ['JOIN', 'FILTER', 'GROUP_BY', 'WINDOW', 'SORT'] as const;

/**
 * The transformations of one stored column edge. `copy` is IDENTITY and `mod` TRANSFORMATION,
 * or AGGREGATION when the model's SQL computes the output column with an aggregate. `scan` is
 * INDIRECT, once per clause the input column is read in (JOIN, FILTER, GROUP_BY, WINDOW, SORT),
 * without a subtype when the SQL does not show one. Any other kind is an INDIRECT without one.
 */
export function transformationsOf(kind: string, parentColumn: string, childColumn: string, uses: SqlColumnUses | null): Transformation[] {
	if (kind === 'copy') return [{ type: 'DIRECT', subtype: 'IDENTITY' }];
	if (kind === 'mod') return [{ type: 'DIRECT', subtype: uses?.aggregated.has(childColumn.toLowerCase()) ? 'AGGREGATION' : 'TRANSFORMATION' }];
	if (kind === 'scan' && uses) {
		const col = parentColumn.toLowerCase();
		const found = INDIRECT_ORDER.filter((s) => uses.clauses[s].has(col));
		if (found.length > 0) return found.map((subtype) => ({ type: 'INDIRECT', subtype }));
	}
	return [{ type: 'INDIRECT' }];
}

/**
 * The scanned input columns that reach EVERY output column (a join key or filter reads all rows):
 * those are lineage of the whole dataset, written once in the facet's `dataset` list rather than
 * under each field, as OpenLineage's own integrations do with dataset-level lineage enabled. A
 * scan that reaches only some columns stays under them. Keys: parent unique_id NUL column.
 */
export function wholeDatasetScans(edges: readonly OlColumnEdge[], columns: ReadonlySet<string>): Set<string> {
	if (columns.size === 0) return new Set();
	const reach = new Map<string, Set<string>>();
	for (const e of edges) {
		if (e.lineageKind !== 'scan' || e.childColumn === '') continue;
		const k = `${e.parentUniqueId}\u0000${e.parentColumn}`;
		let s = reach.get(k);
		if (!s) reach.set(k, (s = new Set()));
		s.add(e.childColumn);
	}
	const out = new Set<string>();
	for (const [k, s] of reach) if (s.size === columns.size && [...columns].every((c) => s.has(c))) out.add(k);
	return out;
}

type FieldKey = string;

class InputFieldSet {
	private byKey = new Map<FieldKey, InputField>();
	add(id: { namespace: string; name: string }, field: string, ts: Transformation[]): void {
		const k = `${id.namespace}\u0000${id.name}\u0000${field}`;
		const existing = this.byKey.get(k);
		if (!existing) {
			this.byKey.set(k, { namespace: id.namespace, name: id.name, field, transformations: [...ts] });
			return;
		}
		for (const t of ts) {
			if (!existing.transformations.some((e) => e.type === t.type && e.subtype === t.subtype)) existing.transformations.push(t);
		}
	}
	values(): InputField[] {
		return [...this.byKey.values()];
	}
	get size(): number {
		return this.byKey.size;
	}
}

function columnLineageFacet(fields: Map<string, InputFieldSet>, dataset: InputFieldSet): ColumnLineageFacet | undefined {
	const whole = dataset.values();
	// A column whose every input is whole-dataset lineage stays listed, with no inputs of its own;
	// a relation without any column lineage gets no facet.
	if (whole.length === 0 && [...fields.values()].every((f) => f.size === 0)) return undefined;
	const out: ColumnLineageFacet = { ...facet('columnLineage'), fields: {} };
	for (const [name, set] of fields) out.fields[name] = { inputFields: set.values() };
	if (whole.length > 0) out.dataset = whole;
	return out;
}

function runOf(frame: EventFrame, workspace: string): OlRun {
	const run: OlRun = { runId: frame.runId };
	if (frame.parent || frame.errorMessage !== undefined) {
		run.facets = {};
		if (frame.parent) {
			run.facets.parent = { ...facet('parent'), run: { runId: frame.parent.runId }, job: { namespace: jobNamespace(workspace), name: frame.parent.jobName } };
		}
		if (frame.errorMessage !== undefined) run.facets.errorMessage = { ...facet('errorMessage'), message: frame.errorMessage, programmingLanguage: 'SQL' };
	}
	return run;
}

function event(frame: EventFrame, workspace: string, job: OlJob, inputs: OlDataset[], outputs: OlDataset[]): RunEvent {
	return {
		eventType: frame.eventType,
		eventTime: frame.eventTime,
		producer: OPENLINEAGE_PRODUCER,
		schemaURL: OPENLINEAGE_SCHEMA_URL,
		run: runOf(frame, workspace),
		job,
		inputs,
		outputs
	};
}

/**
 * Another event of the same run as `ev` (its START, say): the same job and datasets, without
 * the dataset facets, which the run's final event carries (backends merge a run's events).
 */
export function leanEvent(ev: RunEvent, frame: EventFrame, workspace: string): RunEvent {
	const bare = (d: OlDataset): OlDataset => ({ namespace: d.namespace, name: d.name });
	return event(frame, workspace, ev.job, ev.inputs.map(bare), ev.outputs.map(bare));
}

/** One dbt node's event: its parents as inputs, its relation as the output with schema and column lineage. */
export function modelEvent(m: ModelEventInput, frame: EventFrame): RunEvent {
	const { node, naming } = m;
	const job: OlJob = {
		namespace: jobNamespace(m.workspace),
		name: `${m.scriptPath}/${node.uniqueId}`,
		facets: { jobType: { ...facet('jobType'), processingType: 'BATCH', integration: 'DBT', jobType: node.resourceType.toUpperCase() } }
	};
	if (m.authored && node.rawCode) job.facets!.sql = { ...facet('sql'), query: node.rawCode };

	const shown = (n: OlNode | undefined): n is OlNode & { assetPath: string } => !!n && n.assetPath !== null && m.datasetAllowed('dbt', n.assetPath);
	const inputs: OlDataset[] = [];
	const seen = new Set<string>();
	for (const p of m.parents) {
		if (!shown(p) || seen.has(p.assetPath)) continue;
		seen.add(p.assetPath);
		const ds: OlDataset = { ...cachedDatasetId('dbt', p.assetPath, naming) };
		const schema = m.authored ? schemaFacet(p.columnSchema) : undefined;
		if (schema) ds.facets = { schema };
		inputs.push(ds);
	}

	const outputs: OlDataset[] = [];
	if (shown(node)) {
		const out: OlDataset = { ...cachedDatasetId('dbt', node.assetPath, naming) };
		if (m.authored) {
			const uses = node.rawCode ? sqlColumnUses(node.rawCode) : null;
			const fields = new Map<string, InputFieldSet>();
			const dataset = new InputFieldSet();
			const columns = new Set<string>((node.columnSchema ?? []).map((c) => c.name));
			for (const e of m.columnEdges) if (e.childColumn !== '') columns.add(e.childColumn);
			for (const c of columns) fields.set(c, new InputFieldSet());
			const wholeDataset = wholeDatasetScans(m.columnEdges, columns);
			// A scan's transformations depend on its input column, a mod's on its output column.
			const memo = new Map<string, Transformation[]>();
			for (const e of m.columnEdges) {
				const parent = m.nodeOf(e.parentUniqueId);
				if (!shown(parent)) continue;
				const id = cachedDatasetId('dbt', parent.assetPath, naming);
				const mk = `${e.lineageKind}\u0000${e.lineageKind === 'scan' ? e.parentColumn : e.childColumn}`;
				let ts = memo.get(mk);
				if (!ts) memo.set(mk, (ts = transformationsOf(e.lineageKind, e.parentColumn, e.childColumn, uses)));
				if (e.childColumn === '' || (e.lineageKind === 'scan' && wholeDataset.has(`${e.parentUniqueId}\u0000${e.parentColumn}`))) {
					dataset.add(id, e.parentColumn, ts);
					continue;
				}
				fields.get(e.childColumn)!.add(id, e.parentColumn, ts);
			}
			const schema = schemaFacet(node.columnSchema);
			const columnLineage = columnLineageFacet(fields, dataset);
			if (schema || columnLineage) out.facets = { ...(schema ? { schema } : {}), ...(columnLineage ? { columnLineage } : {}) };
		}
		outputs.push(out);
	}
	return event(frame, m.workspace, job, inputs, outputs);
}

export interface ProducerAsset {
	kind: string;
	path: string;
}

export interface ProducerColumnRow {
	outputAssetKind: string;
	outputAssetPath: string;
	outputColumn: string;
	inputAssetKind: string;
	inputAssetPath: string;
	inputColumn: string;
	/** copy, mod, or null when an annotation named the input without saying how. */
	lineageKind: string | null;
}

export interface ProducerEventInput {
	workspace: string;
	scriptPath: string;
	reads: readonly ProducerAsset[];
	writes: readonly ProducerAsset[];
	/** Its column lineage; null for a caller who may not read the script. */
	lineage: readonly ProducerColumnRow[] | null;
	naming: DatasetNaming;
	datasetAllowed: (kind: string, assetPath: string) => boolean;
}

/** A producer script's event: what it reads, what it writes, and its column lineage on each written table. */
export function producerEvent(p: ProducerEventInput, frame: EventFrame): RunEvent {
	const job: OlJob = {
		namespace: jobNamespace(p.workspace),
		name: p.scriptPath,
		facets: { jobType: { ...facet('jobType'), processingType: 'BATCH', integration: 'TRIBUTARY', jobType: 'PRODUCER' } }
	};
	const allowed = (a: ProducerAsset) => p.datasetAllowed(a.kind, a.path);
	const inputs = p.reads.filter(allowed).map((a) => datasetId(a.kind, a.path, p.naming) as OlDataset);
	const outputs: OlDataset[] = [];
	for (const w of p.writes.filter(allowed)) {
		const out: OlDataset = datasetId(w.kind, w.path, p.naming);
		if (p.lineage) {
			const fields = new Map<string, InputFieldSet>();
			for (const r of p.lineage) {
				if (r.outputAssetKind !== w.kind || r.outputAssetPath !== w.path || !p.datasetAllowed(r.inputAssetKind, r.inputAssetPath)) continue;
				let set = fields.get(r.outputColumn);
				if (!set) fields.set(r.outputColumn, (set = new InputFieldSet()));
				const t: Transformation =
					r.lineageKind === 'copy' ? { type: 'DIRECT', subtype: 'IDENTITY' } : r.lineageKind === 'mod' ? { type: 'DIRECT', subtype: 'TRANSFORMATION' } : { type: 'DIRECT' };
				set.add(datasetId(r.inputAssetKind, r.inputAssetPath, p.naming), r.inputColumn, [t]);
			}
			const columnLineage = columnLineageFacet(fields, new InputFieldSet());
			const schema = schemaFacet([...fields.keys()].map((name) => ({ name })));
			if (columnLineage) out.facets = { ...(schema ? { schema } : {}), columnLineage };
		}
		outputs.push(out);
	}
	return event(frame, p.workspace, job, inputs, outputs);
}

/** Consumer datasets' namespace: a project's semantic layer and exposures are not relations of any warehouse. */
export function consumerNamespace(workspace: string, scriptPath: string): string {
	return `dbt-consumer://${workspace}/${scriptPath}`;
}

export interface ConsumerEventInput {
	workspace: string;
	scriptPath: string;
	/** Already gated (graphConsumers): every relation it names is one the caller may see. */
	consumer: GraphConsumer;
	/** unique_ids of the project's shown consumers: what an entry depends on among them. */
	shownConsumers: ReadonlySet<string>;
	naming: DatasetNaming;
}

const CONSUMER_JOB_TYPE: Record<GraphConsumer['type'], string> = {
	semantic_model: 'SEMANTIC_MODEL',
	metric: 'METRIC',
	saved_query: 'SAVED_QUERY',
	exposure: 'EXPOSURE'
};

/**
 * One consumer of a project (an exposure, semantic model, metric or saved query) as a job of
 * the project, like a model: the relations and consumers it reads as inputs; a semantic model,
 * metric or saved query also writes a dataset of its own (namespace consumerNamespace, name its
 * unique_id) that what builds on it reads, with column lineage down to the relations' columns:
 * a semantic model's entities, dimensions and measures from its model's columns, a metric's or
 * saved query's single field from every column it reads through its measures. An exposure is
 * the end of the line: inputs only.
 */
export function consumerEvent(c: ConsumerEventInput, frame: EventFrame): RunEvent {
	const g = c.consumer;
	const job: OlJob = {
		namespace: jobNamespace(c.workspace),
		name: `${c.scriptPath}/${g.unique_id}`,
		facets: { jobType: { ...facet('jobType'), processingType: 'BATCH', integration: 'DBT', jobType: CONSUMER_JOB_TYPE[g.type] } }
	};
	const ns = consumerNamespace(c.workspace, c.scriptPath);
	const inputs: OlDataset[] = [];
	const seen = new Set<string>();
	const relation = (path: string) => {
		if (seen.has(`r\u0000${path}`)) return;
		seen.add(`r\u0000${path}`);
		inputs.push({ ...cachedDatasetId('dbt', path, c.naming) });
	};
	for (const p of g.depends_on_assets) relation(p);
	if (g.model_asset) relation(g.model_asset);
	for (const d of [...g.depends_on].sort()) {
		if (!c.shownConsumers.has(d) || seen.has(`c\u0000${d}`)) continue;
		seen.add(`c\u0000${d}`);
		inputs.push({ namespace: ns, name: d });
	}
	const outputs: OlDataset[] = [];
	if (g.type !== 'exposure') {
		const fields = new Map<string, InputFieldSet>();
		if (g.type === 'semantic_model' && g.model_asset) {
			const id = cachedDatasetId('dbt', g.model_asset, c.naming);
			for (const f of g.fields ?? []) {
				const set = new InputFieldSet();
				const t: Transformation =
					f.role === 'measure' ? { type: 'DIRECT', subtype: 'AGGREGATION' } : f.expr === null ? { type: 'DIRECT', subtype: 'IDENTITY' } : { type: 'DIRECT', subtype: 'TRANSFORMATION' };
				for (const col of f.reads) set.add(id, col, [t]);
				fields.set(f.name, set);
			}
		} else if (g.columns?.length) {
			const set = new InputFieldSet();
			const t: Transformation = { type: 'DIRECT', subtype: 'AGGREGATION' };
			for (const col of g.columns) set.add(cachedDatasetId('dbt', col.asset_path, c.naming), col.column, [t]);
			fields.set(g.name, set);
		}
		const out: OlDataset = { namespace: ns, name: g.unique_id };
		const columnLineage = columnLineageFacet(fields, new InputFieldSet());
		const schema = schemaFacet([...fields.keys()].map((name) => ({ name })));
		if (columnLineage || schema) out.facets = { ...(schema ? { schema } : {}), ...(columnLineage ? { columnLineage } : {}) };
		outputs.push(out);
	}
	return event(frame, c.workspace, job, inputs, outputs);
}
