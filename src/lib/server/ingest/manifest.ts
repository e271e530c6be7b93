// manifest.json → the nodes and edges of one stored graph (DESIGN.md §4, §5). Pure: no database.
// The caller (deploy, preview, recorded runs) stores what this returns, or nothing when it throws.
import { nodeAssetPath, type WarehouseTarget } from '$lib/lineage/relation-path';
import {
	describeError,
	evaluate,
	globMatcher,
	parseSelector,
	SelectorEvalError,
	type Atom,
	type Evaluation,
	type SelectableNode,
	type SelectorAst,
	type SelectorError,
	type SelectorUniverse
} from '$lib/lineage/selector';
import { extractConsumers } from '$lib/lineage/consumers';
import type { Consumer } from '$lib/types/consumers';
import { requireManifestNodes } from '../limits';
import { IngestError } from '../dbt-files/errors';
import { decodeUtf8Bytes } from '../dbt-files/uploaded-file';
import { JsonSectionsError, readJsonSections } from './json-sections';

export { IngestError };

export const SUPPORTED_MANIFEST_VERSIONS = [10, 11, 12] as const;
export const DEFAULT_RAW_CODE_CAP = 64 * 1024;

/** Manifest `nodes` entries that become graph nodes. Operations (hooks) and functions have no place on the canvas. */
const NODE_TYPES = new Set(['model', 'seed', 'snapshot', 'test', 'analysis']);
/** Resource types whose node names a warehouse relation (ephemeral models excepted). */
const RELATION_TYPES = new Set(['model', 'seed', 'snapshot', 'source']);
const TEST_TYPES = new Set(['test', 'unit_test']);

export interface ParsedNode {
	uniqueId: string;
	resourceType: string;
	name: string;
	packageName: string | null;
	/** `<schema>/<name>` or `<database>.<schema>/<name>`; null for nodes without a relation or a refused one. */
	assetPath: string | null;
	materialized: string | null;
	/** incremental_strategy of an incremental model, strategy of a snapshot. */
	materializeStrategy: string | null;
	uniqueKey: string | null;
	tags: string[];
	description: string | null;
	/** Generic test name (`not_null`, `relationships`), `singular`, or `unit` for a unit test. */
	testKind: string | null;
	testColumn: string | null;
	testArgs: Record<string, unknown> | null;
	severity: string | null;
	attachedNode: string | null;
	/** Declared columns, `{name: description}`; null when the YAML declares none. */
	columns: Record<string, string> | null;
	freshness: unknown;
	rawCode: string | null;
	originalFilePath: string | null;
	database: string | null;
	schema: string | null;
	/** Kept only because it is a parent of a selected node (an edge needs both ends). */
	anchorOnly: boolean;
}

export interface ParsedEdge {
	parent: string;
	child: string;
}

export interface ManifestStats {
	nodes: number;
	edges: number;
	/** Stored nodes by resource type. */
	byResourceType: Record<string, number>;
	/** Manifest `nodes` entries of types that are not graph nodes (operations, functions, ...). */
	skippedByResourceType: Record<string, number>;
	/** Ephemeral models among the stored nodes; edges are walked through them. */
	ephemeralModels: number;
	/** parent_map pairs whose other end is not a graph node (metrics, exposures, semantic models, hooks). */
	edgesToNonNodes: number;
	selected: number;
	anchorParents: number;
	/** Selector strings that matched nothing on their own (dbt warns about these too). */
	unmatchedSelectors: string[];
	rawCodeTruncated: number;
	/** The selectors.yml selector dbt applies when a command names none; reported, never applied here. */
	defaultSelector: string | null;
	warnings: string[];
}

export interface ParsedGraph {
	nodes: ParsedNode[];
	edges: ParsedEdge[];
	dbtVersion: string | null;
	/** `v12` */
	schemaVersion: string;
	projectName: string | null;
	adapterType: string | null;
	stats: ManifestStats;
	/** Exposures, semantic models, metrics, saved queries; `expr`s past a bare name still unresolved (resolveConsumers). */
	consumers: Consumer[];
}

export interface Selection {
	select?: string[];
	exclude?: string[];
	/** A selector of the manifest's selectors.yml; it replaces select/exclude, as in dbt. */
	selector?: string | null;
}

/**
 * How tests (and unit tests) follow the nodes they test, as dbt's `--indirect-selection`:
 * `eager` (dbt's default) takes a test when ANY parent is selected, `cautious` only when ALL are,
 * `empty` takes none that were not selected themselves.
 */
export type IndirectSelection = 'eager' | 'cautious' | 'empty';

export interface ManifestOptions {
	fileName?: string;
	/** The warehouse the project builds into: its name starts every asset path (default `main`). */
	warehouse?: string;
	defaultDatabase?: string | null;
	selection?: Selection;
	rawCodeCap?: number;
	indirectSelection?: IndirectSelection;
	/** Called when JSON.parse is done (the ingest profile splits the parse from the selection). */
	onParsed?: () => void;
	/** Called with the parsed document once the whole manifest was accepted (inference plans from it). */
	onDocument?: (doc: unknown) => void;
}

type Json = Record<string, unknown>;

interface RawEntry {
	id: string;
	raw: Json;
	resourceType: string;
	name: string;
}

// ---------------------------------------------------------------------------------------------
// Entry point

export function parseManifest(text: string, opts: ManifestOptions = {}): ParsedGraph {
	return graphOfDocument(parseJson(text, opts.fileName ?? 'manifest.json'), opts);
}

/**
 * parseManifest of an uploaded file's bytes, read section by section (json-sections.ts): the
 * text is never one string and only the sections a graph, a selection or an inference plan read
 * are kept. Bad bytes get the same error as parseManifest's, naming the file.
 */
export function parseManifestFile(bytes: Uint8Array, opts: ManifestOptions = {}): ParsedGraph {
	return graphOfDocument(readManifestDocument(bytes, opts.fileName ?? 'manifest.json'), opts);
}

/** The manifest's top-level sections something here reads (the rest are validated and dropped). */
const READ_SECTIONS = new Set([
	'metadata',
	'nodes',
	'sources',
	'unit_tests',
	'parent_map',
	'selectors',
	'exposures',
	'metrics',
	'semantic_models',
	'saved_queries'
]);
/** The sections that hold one entry per node, macro or document: parsed an entry at a time. */
const ENTRY_SECTIONS = new Set([...READ_SECTIONS, 'macros', 'docs', 'disabled', 'child_map', 'group_map', 'groups', 'functions']);

function readManifestDocument(bytes: Uint8Array, file: string): Json {
	try {
		return readJsonSections(bytes, { entryWise: ENTRY_SECTIONS, keep: (key) => READ_SECTIONS.has(key) });
	} catch (e) {
		if (!(e instanceof JsonSectionsError)) throw e;
	}
	// Not a JSON object the section reader could cut: the whole text gives the precise error.
	return parseJson(decodeUtf8Bytes(bytes, file), file);
}

function graphOfDocument(doc: Json, opts: ManifestOptions): ParsedGraph {
	const file = opts.fileName ?? 'manifest.json';
	opts.onParsed?.();
	const version = manifestVersion(doc, file);
	const metadata = doc.metadata as Json;
	requireManifestNodes(file, entryCount(doc));

	const entries = collectEntries(doc, file);
	const skippedByResourceType: Record<string, number> = {};
	const byId = new Map<string, RawEntry>();
	for (const e of entries) {
		if (e.kind === 'skipped') {
			skippedByResourceType[e.resourceType] = (skippedByResourceType[e.resourceType] ?? 0) + 1;
			continue;
		}
		byId.set(e.entry.id, e.entry);
	}
	const isEphemeral = (id: string) => {
		const e = byId.get(id);
		return !!e && e.resourceType === 'model' && str(cfg(e.raw).materialized) === 'ephemeral';
	};

	const graph = dependencyGraph(doc, byId);
	const projectName = str(metadata.project_name);
	const warnings: string[] = [];
	const { selected, unmatched } = resolveSelection(opts.selection ?? {}, {
		doc,
		byId,
		graph,
		projectName,
		indirect: opts.indirectSelection ?? 'eager',
		file,
		warnings
	});

	// Edges over the WHOLE project first, so an ephemeral model between two selected ones is
	// walked through even when the ephemeral itself was not selected.
	const walked = walkEdges(byId, graph.parents, isEphemeral);
	const edges: ParsedEdge[] = [];
	const anchors = new Set<string>();
	for (const e of walked.edges) {
		if (!selected.has(e.child)) continue;
		edges.push(e);
		if (!selected.has(e.parent)) anchors.add(e.parent);
	}

	const cap = opts.rawCodeCap ?? DEFAULT_RAW_CODE_CAP;
	const nodes: ParsedNode[] = [];
	let rawCodeTruncated = 0;
	for (const id of [...selected, ...anchors].sort(compareStrings)) {
		const entry = byId.get(id);
		if (!entry) continue;
		const node = toParsedNode(entry, graph.parents, { name: opts.warehouse ?? 'main', defaultDatabase: opts.defaultDatabase }, cap);
		if (node.truncated) rawCodeTruncated++;
		node.parsed.anchorOnly = anchors.has(id);
		nodes.push(node.parsed);
	}

	const byResourceType: Record<string, number> = {};
	for (const n of nodes) byResourceType[n.resourceType] = (byResourceType[n.resourceType] ?? 0) + 1;

	const inSection = (section: unknown, id: string) => isObject(section) && Object.prototype.hasOwnProperty.call(section, id);
	const consumers = extractConsumers(doc, (id) =>
		byId.has(id) || [doc.nodes, doc.sources, doc.exposures, doc.metrics, doc.semantic_models, doc.saved_queries].some((s) => inSection(s, id))
	);

	opts.onDocument?.(doc);
	return {
		consumers,
		nodes,
		edges,
		dbtVersion: str(metadata.dbt_version),
		schemaVersion: `v${version}`,
		projectName,
		adapterType: str(metadata.adapter_type),
		stats: {
			nodes: nodes.length,
			edges: edges.length,
			byResourceType,
			skippedByResourceType,
			ephemeralModels: nodes.filter((n) => n.resourceType === 'model' && n.materialized === 'ephemeral').length,
			edgesToNonNodes: walked.toNonNodes,
			selected: selected.size,
			anchorParents: anchors.size,
			unmatchedSelectors: unmatched,
			rawCodeTruncated,
			defaultSelector: defaultSelectorName(doc),
			warnings
		}
	};
}

// ---------------------------------------------------------------------------------------------
// Document checks

function parseJson(text: string, file: string): Json {
	if (text.trim() === '') throw new IngestError(file, 'is empty (expected the JSON of a dbt manifest)');
	let doc: unknown;
	try {
		doc = JSON.parse(text);
	} catch (e) {
		throw new IngestError(file, jsonProblem(text, e));
	}
	if (!isObject(doc)) throw new IngestError(file, `is not a dbt manifest: the document is ${describe(doc)}, not an object`);
	return doc;
}

function jsonProblem(text: string, e: unknown): string {
	const msg = e instanceof Error ? e.message : String(e);
	const m = /at position (\d+)/.exec(msg);
	const pos = m ? Number(m[1]) : /end of JSON input/.test(msg) ? text.length : null;
	const reason = msg.replace(/\s*in JSON at position \d+.*$/s, '').replace(/,\s*".*" is not valid JSON$/s, '');
	if (pos === null) return `is not valid JSON (${reason})`;
	const { line, column } = lineColumn(text, pos);
	const truncated = text.slice(pos).trim() === '';
	return truncated
		? `is truncated: the JSON ends at line ${line}, column ${column} (character ${pos}) before the document is complete`
		: `is not valid JSON: ${reason} at line ${line}, column ${column} (character ${pos})`;
}

function lineColumn(text: string, pos: number): { line: number; column: number } {
	let line = 1;
	let lineStart = 0;
	for (let i = 0; i < pos && i < text.length; i++) {
		if (text.charCodeAt(i) === 10) {
			line++;
			lineStart = i + 1;
		}
	}
	return { line, column: pos - lineStart + 1 };
}

function manifestVersion(doc: Json, file: string): number {
	const metadata = doc.metadata;
	const schemaUrl = isObject(metadata) ? str(metadata.dbt_schema_version) : null;
	if (!schemaUrl) {
		const why = !isObject(metadata) ? 'it has no `metadata`' : 'its `metadata` has no `dbt_schema_version`';
		throw new IngestError(file, `is not a dbt manifest: ${why}`);
	}
	const m = /\/([a-z_-]+)\/v(\d+)(?:\.json)?\/?$/i.exec(schemaUrl);
	if (!m) throw new IngestError(file, `is not a dbt manifest: unrecognised schema ${JSON.stringify(schemaUrl)}`);
	if (m[1].toLowerCase() !== 'manifest') {
		throw new IngestError(file, `is not a dbt manifest: it is a dbt ${m[1]} artifact (${m[1]} v${m[2]})`);
	}
	const version = Number(m[2]);
	if (!(SUPPORTED_MANIFEST_VERSIONS as readonly number[]).includes(version)) {
		const dbt = isObject(metadata) && str(metadata.dbt_version) ? `; it was written by dbt ${str(metadata.dbt_version)}` : '';
		throw new IngestError(
			file,
			`schema version v${version} is not supported (supported: ${SUPPORTED_MANIFEST_VERSIONS.map((v) => `v${v}`).join(', ')})${dbt}, ` +
				'and dbt 1.6 or newer writes a supported one'
		);
	}
	if (!isObject(doc.nodes)) throw new IngestError(file, 'is not a dbt manifest: it has no `nodes` object');
	return version;
}

/** Entries of the sections collectEntries reads, counted without reading them. */
function entryCount(doc: Json): number {
	let n = 0;
	for (const section of [doc.nodes, doc.sources, doc.unit_tests]) if (isObject(section)) n += Object.keys(section).length;
	return n;
}

type Collected = { kind: 'node'; entry: RawEntry } | { kind: 'skipped'; resourceType: string };

/** Every graph node of the manifest: `nodes` (by type), `sources` and `unit_tests`. */
function collectEntries(doc: Json, file: string): Collected[] {
	const out: Collected[] = [];
	const sections: [string, unknown][] = [
		['nodes', doc.nodes],
		['sources', doc.sources],
		['unit_tests', doc.unit_tests]
	];
	for (const [section, value] of sections) {
		if (value == null) continue;
		if (!isObject(value)) throw new IngestError(file, `\`${section}\` is ${describe(value)}, not an object`, section);
		for (const [id, raw] of Object.entries(value)) {
			const field = `${section}[${JSON.stringify(id)}]`;
			if (!isObject(raw)) throw new IngestError(file, `node ${JSON.stringify(id)} is ${describe(raw)}, not an object`, field);
			const resourceType = raw.resource_type;
			if (typeof resourceType !== 'string' || resourceType === '') {
				throw new IngestError(file, `node ${JSON.stringify(id)} has no \`resource_type\``, `${field}.resource_type`);
			}
			if (section === 'nodes' && !NODE_TYPES.has(resourceType)) {
				out.push({ kind: 'skipped', resourceType });
				continue;
			}
			const name = raw.name;
			if (typeof name !== 'string' || name === '') {
				throw new IngestError(file, `node ${JSON.stringify(id)} has no \`name\``, `${field}.name`);
			}
			out.push({ kind: 'node', entry: { id, raw, resourceType, name } });
		}
	}
	return out;
}

// ---------------------------------------------------------------------------------------------
// Graph

interface DependencyGraph {
	/** child → parents, over every id the manifest relates (graph nodes, metrics, exposures, ...). */
	parents: Map<string, string[]>;
	children: Map<string, string[]>;
}

/**
 * `parent_map` when the manifest has one (dbt writes it on every command that builds the graph),
 * else each entry's `depends_on.nodes`.
 */
function dependencyGraph(doc: Json, byId: Map<string, RawEntry>): DependencyGraph {
	const parents = new Map<string, string[]>();
	const add = (child: string, list: unknown) => {
		if (!Array.isArray(list)) return;
		const ps = list.filter((p): p is string => typeof p === 'string');
		parents.set(child, [...new Set([...(parents.get(child) ?? []), ...ps])]);
	};
	if (isObject(doc.parent_map)) {
		for (const [child, list] of Object.entries(doc.parent_map)) add(child, list);
	} else {
		for (const e of byId.values()) add(e.id, dependsOn(e.raw));
		for (const section of ['exposures', 'metrics', 'semantic_models', 'saved_queries']) {
			const v = doc[section];
			if (isObject(v)) for (const [id, raw] of Object.entries(v)) if (isObject(raw)) add(id, dependsOn(raw));
		}
	}
	const children = new Map<string, string[]>();
	for (const [child, ps] of parents) {
		for (const p of ps) {
			const list = children.get(p);
			if (list) list.push(child);
			else children.set(p, [child]);
		}
	}
	return { parents, children };
}

function dependsOn(raw: Json): string[] {
	const d = raw.depends_on;
	return isObject(d) && Array.isArray(d.nodes) ? d.nodes.filter((n): n is string => typeof n === 'string') : [];
}

/**
 * Edges between graph nodes, with ephemeral models walked through: an ephemeral model is inlined
 * into its children as a CTE and has no relation, so `A → E → B` is stored as `A → B` and E keeps
 * its node but no edge. Sorted, de-duplicated, no self-edges.
 */
function walkEdges(
	byId: Map<string, RawEntry>,
	parents: Map<string, string[]>,
	isEphemeral: (id: string) => boolean
): { edges: ParsedEdge[]; toNonNodes: number } {
	const memo = new Map<string, string[]>();
	const throughEphemeral = (id: string, visiting: Set<string>): string[] => {
		const hit = memo.get(id);
		if (hit) return hit;
		// A cycle cannot come from dbt (it refuses them); guarded so a hand-edited file cannot loop.
		if (visiting.has(id)) return [];
		visiting.add(id);
		const out = new Set<string>();
		for (const p of parents.get(id) ?? []) {
			if (!byId.has(p)) continue;
			if (isEphemeral(p)) for (const a of throughEphemeral(p, visiting)) out.add(a);
			else out.add(p);
		}
		visiting.delete(id);
		const list = [...out];
		memo.set(id, list);
		return list;
	};

	const seen = new Set<string>();
	const edges: ParsedEdge[] = [];
	let toNonNodes = 0;
	for (const [child, ps] of parents) {
		const childIsNode = byId.has(child);
		for (const p of ps) if (!childIsNode || !byId.has(p)) toNonNodes++;
		if (!childIsNode || isEphemeral(child)) continue;
		for (const parent of throughEphemeral(child, new Set())) {
			if (parent === child) continue;
			const key = `${parent}\u0000${child}`;
			if (seen.has(key)) continue;
			seen.add(key);
			edges.push({ parent, child });
		}
	}
	edges.sort((a, b) => compareStrings(a.parent, b.parent) || compareStrings(a.child, b.child));
	return { edges, toNonNodes };
}

// ---------------------------------------------------------------------------------------------
// Node fields

function toParsedNode(
	entry: RawEntry,
	parents: Map<string, string[]>,
	warehouse: WarehouseTarget,
	rawCodeCap: number
): { parsed: ParsedNode; truncated: boolean } {
	const { raw, resourceType, name, id } = entry;
	const config = cfg(raw);
	const materialized = resourceType === 'source' ? null : str(config.materialized);
	const isTest = TEST_TYPES.has(resourceType);
	const testMetadata = isObject(raw.test_metadata) ? raw.test_metadata : null;
	const hasRelation = RELATION_TYPES.has(resourceType) && materialized !== 'ephemeral';

	// A generic test's body is the same one-line macro call for every test: not worth a row each.
	const code = testMetadata ? null : str(raw.raw_code) || str(raw.raw_sql) || null;
	const capped = code === null ? null : capRawCode(code, rawCodeCap);

	const parsed: ParsedNode = {
		uniqueId: id,
		resourceType,
		name,
		packageName: str(raw.package_name),
		assetPath: hasRelation
			? nodeAssetPath(
					{
						resource_type: resourceType,
						name,
						database: str(raw.database),
						schema: str(raw.schema),
						identifier: str(raw.identifier),
						alias: str(raw.alias)
					},
					warehouse
				)
			: null,
		materialized,
		materializeStrategy: strategyOf(resourceType, materialized, config),
		uniqueKey: uniqueKeyOf(config.unique_key),
		tags: tagsOf(raw, config),
		description: str(raw.description) || null,
		testKind: testKindOf(resourceType, testMetadata),
		testColumn: isTest ? testColumnOf(raw, testMetadata) : null,
		testArgs: testMetadata ? testArgsOf(testMetadata) : null,
		severity: resourceType === 'test' ? (str(config.severity)?.toLowerCase() ?? null) : null,
		attachedNode: isTest ? attachedNodeOf(raw, resourceType, parents.get(id) ?? dependsOn(raw)) : null,
		columns: declaredColumns(raw.columns),
		freshness: resourceType === 'source' ? freshnessOf(raw.freshness) : null,
		rawCode: capped?.code ?? null,
		originalFilePath: str(raw.original_file_path),
		database: str(raw.database),
		schema: str(raw.schema),
		anchorOnly: false
	};
	return { parsed, truncated: capped?.truncated ?? false };
}

function strategyOf(resourceType: string, materialized: string | null, config: Json): string | null {
	if (resourceType === 'snapshot') return str(config.strategy);
	if (materialized === 'incremental' || materialized === 'microbatch') return str(config.incremental_strategy);
	return null;
}

function uniqueKeyOf(v: unknown): string | null {
	if (typeof v === 'string') return v === '' ? null : v;
	if (Array.isArray(v)) {
		const parts = v.filter((k): k is string => typeof k === 'string' && k !== '');
		return parts.length ? parts.join(', ') : null;
	}
	return null;
}

function tagsOf(raw: Json, config: Json): string[] {
	const tags = new Set<string>();
	for (const list of [raw.tags, config.tags]) {
		if (typeof list === 'string') tags.add(list);
		else if (Array.isArray(list)) {
			for (const t of list) if (typeof t === 'string') tags.add(t);
		}
	}
	return [...tags];
}

function testKindOf(resourceType: string, testMetadata: Json | null): string | null {
	if (resourceType === 'unit_test') return 'unit';
	if (resourceType !== 'test') return null;
	return (testMetadata && str(testMetadata.name)) || 'singular';
}

function testColumnOf(raw: Json, testMetadata: Json | null): string | null {
	const kwargs = testMetadata && isObject(testMetadata.kwargs) ? testMetadata.kwargs : null;
	return str(raw.column_name) ?? (kwargs ? str(kwargs.column_name) : null);
}

function testArgsOf(testMetadata: Json): Record<string, unknown> | null {
	if (!isObject(testMetadata.kwargs)) return null;
	const args: Record<string, unknown> = {};
	for (const [k, v] of Object.entries(testMetadata.kwargs)) if (k !== 'column_name' && k !== 'model') args[k] = v;
	return Object.keys(args).length ? args : null;
}

/**
 * The node a test folds onto. dbt names it for generic tests; a singular test or a unit test
 * with exactly one parent (the usual case) folds onto that parent.
 */
function attachedNodeOf(raw: Json, resourceType: string, parents: string[]): string | null {
	const named = str(raw.attached_node) ?? str(raw.tested_node_unique_id);
	if (named) return named;
	if (resourceType === 'unit_test') {
		const model = str(raw.model);
		const version = raw.version == null ? null : String(raw.version);
		const match = parents.find((p) => {
			const parts = p.split('.');
			return version ? parts.at(-2) === model && parts.at(-1) === `v${version}` : parts.at(-1) === model;
		});
		if (match) return match;
	}
	return parents.length === 1 ? parents[0] : null;
}

function declaredColumns(v: unknown): Record<string, string> | null {
	if (!isObject(v)) return null;
	const out: Record<string, string> = {};
	for (const [key, col] of Object.entries(v)) {
		const name = isObject(col) ? (str(col.name) ?? key) : key;
		out[name] = isObject(col) ? (str(col.description) ?? '') : '';
	}
	return Object.keys(out).length ? out : null;
}

/** A source's freshness policy; null when it sets neither bound (dbt writes the empty shape). */
function freshnessOf(v: unknown): unknown {
	if (!isObject(v)) return null;
	const bound = (b: unknown) => isObject(b) && b.count != null && b.period != null;
	return bound(v.warn_after) || bound(v.error_after) ? v : null;
}

/**
 * Cap a SQL body at `cap` UTF-8 bytes, cut on a character boundary, with a last line saying so:
 * this is stored per node per version, and a generated model can be megabytes.
 */
export function capRawCode(code: string, cap: number): { code: string; truncated: boolean } {
	// Each UTF-16 unit is at most 3 UTF-8 bytes, so short strings need no encoding to be measured.
	if (code.length * 3 <= cap) return { code, truncated: false };
	const bytes = new TextEncoder().encode(code);
	if (bytes.length <= cap) return { code, truncated: false };
	let end = cap;
	while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
	const head = new TextDecoder().decode(bytes.subarray(0, end));
	const fmt = (n: number) => n.toLocaleString('en-US');
	return {
		code: `${head}\n-- [truncated by Tributary: ${fmt(bytes.length)} bytes, showing the first ${fmt(end)}]`,
		truncated: true
	};
}

// ---------------------------------------------------------------------------------------------
// Selection (dbt node selection syntax, evaluated over the manifest by $lib/lineage/selector,
// the same module the canvas search box reads its text with)

interface SelectionContext {
	doc: Json;
	byId: Map<string, RawEntry>;
	graph: DependencyGraph;
	projectName: string | null;
	indirect: IndirectSelection;
	file: string;
	warnings: string[];
	universe?: SelectorUniverse;
}

const UNSUPPORTED_METHODS: Record<string, string> = {
	state: 'it compares against a previous manifest',
	result: 'it reads a previous run_results.json',
	source_status: 'it reads a previous sources.json'
};

function resolveSelection(sel: Selection, ctx: SelectionContext): { selected: Set<string>; unmatched: string[] } {
	const select = sel.select ?? [];
	const exclude = sel.exclude ?? [];
	const unmatched: string[] = [];
	const all = new Set(ctx.byId.keys());

	if (sel.selector) {
		if (select.length || exclude.length) ctx.warnings.push(`selector ${JSON.stringify(sel.selector)} replaces the descriptor's select/exclude, as in dbt`);
		const selected = restrictToNodes(evalNamedSelector(sel.selector, ctx, []), ctx);
		if (selected.size === 0) {
			throw new IngestError('descriptor', `${JSON.stringify(sel.selector)} matches no node in ${ctx.file}`, 'selector');
		}
		return { selected, unmatched };
	}

	let selected: Set<string>;
	if (select.length === 0) selected = all;
	else {
		selected = new Set();
		for (const s of select) {
			const got = evalSelectorString(s, ctx, 'select', unmatched);
			for (const id of got) selected.add(id);
		}
	}
	const excluded = new Set<string>();
	for (const s of exclude) for (const id of evalSelectorString(s, ctx, 'exclude', unmatched)) excluded.add(id);
	for (const id of excluded) selected.delete(id);
	selected = restrictToNodes(selected, ctx);
	if (ctx.indirect === 'cautious') addTests(selected, ctx, 'all', excluded);

	if (selected.size === 0) {
		if (select.length === 0) throw new IngestError('descriptor', `${JSON.stringify(exclude)} excludes every node of ${ctx.file}`, 'exclude');
		const but = exclude.length ? ` once exclude ${JSON.stringify(exclude)} is applied` : '';
		throw new IngestError('descriptor', `${JSON.stringify(select)} matches no node in ${ctx.file}${but}`, 'select');
	}
	return { selected, unmatched };
}

function restrictToNodes(ids: Set<string>, ctx: SelectionContext): Set<string> {
	const out = new Set<string>();
	for (const id of ids) if (ctx.byId.has(id)) out.add(id);
	return out;
}

/** The manifest as the selector module sees it: every entry, and every id the graph relates. */
function universeOf(ctx: SelectionContext): SelectorUniverse {
	if (ctx.universe) return ctx.universe;
	const nodes: SelectableNode[] = [...ctx.byId.values()].map((e) => {
		const c = cfg(e.raw);
		const tm = isObject(e.raw.test_metadata) ? e.raw.test_metadata : null;
		const fqn = Array.isArray(e.raw.fqn) ? e.raw.fqn.filter((p): p is string => typeof p === 'string') : [e.name];
		return {
			id: e.id,
			name: e.name,
			resourceType: e.resourceType,
			fqn,
			version: e.resourceType === 'model' && e.raw.version != null ? String(e.raw.version) : null,
			filePath: str(e.raw.original_file_path),
			packageName: str(e.raw.package_name),
			sourceName: str(e.raw.source_name),
			tags: tagsOf(e.raw, c),
			config: c,
			testMetadata: tm && str(tm.name) ? { name: str(tm.name)!, namespace: str(tm.namespace) } : null,
			group: str(e.raw.group) ?? str(c.group),
			access: str(e.raw.access) ?? str(c.access)
		};
	});
	ctx.universe = {
		nodes,
		parents: ctx.graph.parents,
		children: ctx.graph.children,
		projectName: ctx.projectName,
		unsupported: UNSUPPORTED_METHODS,
		extraMethod: (method, value) => {
			if (!['exposure', 'metric', 'semantic_model', 'saved_query'].includes(method)) return undefined;
			// Not graph nodes, but selecting one with `+` takes its ancestors, as in dbt.
			const glob = globMatcher(value);
			const out = new Set<string>();
			const section = ctx.doc[method === 'exposure' ? 'exposures' : method === 'metric' ? 'metrics' : `${method}s`];
			if (isObject(section)) {
				for (const [id, raw] of Object.entries(section)) {
					if (isObject(raw) && (glob(str(raw.name) ?? '') || glob(`${str(raw.package_name) ?? ''}.${str(raw.name) ?? ''}`))) out.add(id);
				}
			}
			return out;
		}
	};
	return ctx.universe;
}

function selectorRefusal(s: string, field: string, e: SelectorError): IngestError {
	return new IngestError('descriptor', `${JSON.stringify(s)} ${describeError(e)}`, field);
}

function evalRefusal(e: SelectorEvalError, field: string): IngestError {
	return new IngestError(
		'descriptor',
		`${JSON.stringify(e.atom.raw)} uses the selector method \`${e.method}\`, which cannot be evaluated from a manifest alone (${e.reason})`,
		field
	);
}

/** One CLI selector string: whitespace separates a union, commas an intersection. */
function evalSelectorString(s: string, ctx: SelectionContext, field: string, unmatched: string[]): Set<string> {
	const parsed = parseSelector(s);
	if (!parsed.ok) throw selectorRefusal(s, field, parsed.error);
	const out = new Set<string>();
	// Term by term, so a member that selected only non-nodes (an exposure alone) is reported.
	for (const term of parsed.ast.select) {
		const got = restrictToNodes(evaluateIn(ctx, { select: [term], exclude: [] }, field).ids, ctx);
		if (got.size === 0) unmatched.push(term.map((a) => a.raw).join(','));
		for (const id of got) out.add(id);
	}
	return out;
}

function evaluateIn(ctx: SelectionContext, ast: SelectorAst, field: string): Evaluation {
	try {
		return evaluate(ast, universeOf(ctx), { afterAtom: (ids) => expandIndirect(ids, ctx) });
	} catch (e) {
		if (e instanceof SelectorEvalError) throw evalRefusal(e, field);
		throw e;
	}
}

/** dbt's indirect selection at the level of one criterion, so an exclude takes its tests with it. */
function expandIndirect(ids: Set<string>, ctx: SelectionContext): Set<string> {
	if (ctx.indirect !== 'eager') return ids;
	const out = new Set(ids);
	addTests(out, ctx, 'any', new Set());
	return out;
}

function addTests(selected: Set<string>, ctx: SelectionContext, rule: 'any' | 'all', excluded: Set<string>): void {
	const candidates = new Set<string>();
	for (const id of selected) for (const child of ctx.graph.children.get(id) ?? []) candidates.add(child);
	for (const id of candidates) {
		const e = ctx.byId.get(id);
		if (!e || !TEST_TYPES.has(e.resourceType) || selected.has(id) || excluded.has(id)) continue;
		const ps = (ctx.graph.parents.get(id) ?? []).filter((p) => ctx.byId.has(p));
		const ok = rule === 'any' ? ps.some((p) => selected.has(p)) : ps.length > 0 && ps.every((p) => selected.has(p));
		if (ok) selected.add(id);
	}
}

// ---- selectors.yml definitions (the descriptor's `selector`)

function evalNamedSelector(name: string, ctx: SelectionContext, stack: string[]): Set<string> {
	const selectors = ctx.doc.selectors;
	const def = isObject(selectors) && isObject(selectors[name]) ? selectors[name] : null;
	if (!def) throw new IngestError('descriptor', `selector ${JSON.stringify(name)} is not defined in ${ctx.file} (selectors.yml)`, 'selector');
	if (stack.includes(name)) throw new IngestError('descriptor', `selector ${JSON.stringify(name)} refers to itself`, 'selector');
	return evalDefinition(def.definition, ctx, [...stack, name]);
}

function evalDefinition(def: unknown, ctx: SelectionContext, stack: string[]): Set<string> {
	if (typeof def === 'string') return evalSelectorString(def, ctx, 'selector', []);
	if (!isObject(def)) throw new IngestError('descriptor', `selector ${JSON.stringify(stack.at(-1))} has a definition Tributary cannot read`, 'selector');
	for (const op of ['union', 'intersection'] as const) {
		const items = def[op];
		if (!Array.isArray(items)) continue;
		let acc: Set<string> | null = null;
		const excluded = new Set<string>();
		for (const item of items) {
			if (isObject(item) && Array.isArray(item.exclude)) {
				for (const x of item.exclude) for (const id of evalDefinition(x, ctx, stack)) excluded.add(id);
				continue;
			}
			const got = evalDefinition(item, ctx, stack);
			acc = acc === null ? got : op === 'union' ? new Set([...acc, ...got]) : intersect(acc, got);
		}
		const out = acc ?? new Set<string>();
		for (const id of excluded) out.delete(id);
		return out;
	}
	const method = str(def.method);
	const value = def.value == null ? null : String(def.value);
	if (!method || value === null) throw new IngestError('descriptor', `selector ${JSON.stringify(stack.at(-1))} has a criterion without method and value`, 'selector');
	if (method === 'selector') return evalNamedSelector(value, ctx, stack);
	const depth = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : Infinity);
	const atom: Atom = {
		raw: `${method}:${value}`,
		start: 0,
		method,
		value,
		parents: def.parents === true ? depth(def.parents_depth) : 0,
		children: def.children === true ? depth(def.children_depth) : 0,
		childrensParents: def.childrens_parents === true
	};
	const got = evaluateIn(ctx, { select: [[atom]], exclude: [] }, 'selector').ids;
	if (Array.isArray(def.exclude)) for (const x of def.exclude) for (const id of evalDefinition(x, ctx, stack)) got.delete(id);
	return got;
}

function defaultSelectorName(doc: Json): string | null {
	if (!isObject(doc.selectors)) return null;
	for (const [name, def] of Object.entries(doc.selectors)) if (isObject(def) && def.default === true) return name;
	return null;
}

// ---------------------------------------------------------------------------------------------
// Small helpers

function intersect(a: Set<string>, b: Set<string>): Set<string> {
	const out = new Set<string>();
	for (const x of a) if (b.has(x)) out.add(x);
	return out;
}

function cfg(raw: Json): Json {
	return isObject(raw.config) ? raw.config : {};
}

function str(v: unknown): string | null {
	return typeof v === 'string' ? v : null;
}

function isObject(v: unknown): v is Json {
	return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
	if (v === null) return 'null';
	if (Array.isArray(v)) return 'an array';
	return `a ${typeof v}`;
}

/** Code-unit order: the same on every machine and locale, which the digest needs. */
function compareStrings(a: string, b: string): number {
	return a < b ? -1 : a > b ? 1 : 0;
}
