// dbt's node selection syntax, once, for both places that read it: deploy selection (the
// descriptor's select/exclude/selector, evaluated over a manifest) and the canvas search box
// (evaluated over the canvas graph, with column selectors on top). What a data engineer types
// into `dbt ls --select` selects the same nodes in both. The grammar:
//
//   selector   := term (" " term)* ["--exclude" term (" " term)*]   (space: union)
//   term       := atom ("," atom)*                                  (comma: intersection)
//   atom       := ["@" | [N] "+"] [method ":"] value ["+" [N]]
//
// A value without a method takes dbt's default: `path` when it holds a `/`, `file` when it ends
// in .sql/.py/.csv, else `fqn`. Globs (`*`, `?`, `[abc]`, `[!a]`) are fnmatch's, case-sensitive
// as dbt's are on Linux.
//
// Column selectors (Tributary's own, search box only): a bare `rel.column` whose fqn matches
// nothing, where `rel` selects relations by dbt's rules and `column` is a known column of one of
// them. dbt reads the value first, so anything dbt would select is never taken for a column.
import { columnId, type ColumnGraph, type ColumnId } from './column-trace';

// ---------------------------------------------------------------------------------------------
// Parsing

export interface SelectorError {
	message: string;
	/** 0-based offset into the text where the problem starts, and how many characters it spans. */
	position: number;
	length: number;
}

export interface Atom {
	/** The atom as written, and where it starts in the selector text. */
	raw: string;
	start: number;
	/** Null: the default method, chosen by the value's shape (or a column selector). */
	method: string | null;
	value: string;
	/** `+x` / `N+x`: ancestors to this depth (Infinity for all); 0 when absent. */
	parents: number;
	children: number;
	/** `@x`: x, its descendants, and every ancestor of those. */
	childrensParents: boolean;
}

export interface SelectorAst {
	/** A union of intersections. */
	select: Atom[][];
	exclude: Atom[][];
}

export type ParseResult = { ok: true; ast: SelectorAst } | { ok: false; error: SelectorError };

/** dbt's methods (docs.getdbt.com, "Node selector methods"), `config.<key>` aside. */
export const DBT_METHODS = [
	'tag',
	'source',
	'resource_type',
	'path',
	'file',
	'fqn',
	'package',
	'test_type',
	'test_name',
	'state',
	'exposure',
	'metric',
	'result',
	'source_status',
	'group',
	'access',
	'version',
	'semantic_model',
	'saved_query',
	'unit_test'
] as const;

/** Tributary's on both sides: a node by its unique id (what the run pages link by). */
const OWN_METHODS = ['unique_id'];

const RESOURCE_TYPES = ['model', 'seed', 'snapshot', 'source', 'test', 'unit_test', 'analysis', 'exposure', 'metric', 'semantic_model', 'saved_query', 'operation', 'function'];
const TEST_TYPES = ['generic', 'singular', 'unit', 'schema', 'data'];

export interface ParseOptions {
	/** Methods beyond dbt's this caller evaluates (the canvas: `kind`, `column`). */
	extraMethods?: readonly string[];
	/** Whether `--exclude` may appear in the text (the search box) or has its own field (deploy). */
	allowExclude?: boolean;
}

const DEPTH_LEAD = /^(\d*)\+/;
const DEPTH_TRAIL = /\+(\d*)$/;

export function parseSelector(text: string, opts: ParseOptions = {}): ParseResult {
	const known = new Set<string>([...DBT_METHODS, ...OWN_METHODS, ...(opts.extraMethods ?? [])]);
	const ast: SelectorAst = { select: [], exclude: [] };
	let into = ast.select;
	const re = /\S+/g;
	for (let m = re.exec(text); m; m = re.exec(text)) {
		const word = m[0];
		if (word === '--exclude') {
			if (!opts.allowExclude) return fail('"--exclude" belongs in the exclude field, not in a select string', m.index, word.length);
			if (into === ast.exclude) return fail('"--exclude" is given twice', m.index, word.length);
			into = ast.exclude;
			continue;
		}
		if (word.startsWith('--')) return fail(`"${word}" is not part of the selector syntax`, m.index, word.length);
		const term: Atom[] = [];
		let offset = m.index;
		for (const piece of word.split(',')) {
			if (piece !== '') {
				const atom = parseAtom(piece, offset, known);
				if ('message' in atom) return { ok: false, error: atom };
				term.push(atom);
			}
			offset += piece.length + 1;
		}
		if (term.length) into.push(term);
	}
	if (into === ast.exclude && ast.exclude.length === 0) return fail('"--exclude" is followed by nothing to exclude', text.trimEnd().length, 0);
	return { ok: true, ast };
}

function fail(message: string, position: number, length: number): { ok: false; error: SelectorError } {
	return { ok: false, error: { message, position, length } };
}

function parseAtom(raw: string, start: number, known: Set<string>): Atom | SelectorError {
	const err = (message: string, at: number, length: number): SelectorError => ({ message, position: start + at, length });
	let i = 0;
	let parents = 0;
	let children = 0;
	let childrensParents = false;
	if (raw.startsWith('@')) {
		childrensParents = true;
		i = 1;
		if (DEPTH_LEAD.test(raw.slice(1))) return err('"@" and a leading "+" cannot be combined', 0, 2);
	} else {
		const lead = DEPTH_LEAD.exec(raw);
		if (lead) {
			parents = lead[1] ? Number(lead[1]) : Infinity;
			i = lead[0].length;
		}
	}
	let end = raw.length;
	const trail = DEPTH_TRAIL.exec(raw.slice(i));
	if (trail) {
		children = trail[1] ? Number(trail[1]) : Infinity;
		end = i + trail.index;
	}
	const body = raw.slice(i, end);
	if (body === '') return err('names nothing to select', 0, raw.length);
	const plus = body.indexOf('+');
	if (plus >= 0) return err('"+" can only lead or trail a selector', i + plus, 1);
	if (body.includes('@')) return err('"@" can only lead a selector', i + body.indexOf('@'), 1);
	const colon = body.indexOf(':');
	let method: string | null = null;
	let value = body;
	let valueAt = i;
	if (colon >= 0) {
		method = body.slice(0, colon);
		value = body.slice(colon + 1);
		valueAt = i + colon + 1;
		if (method === '') return err('a method name must come before ":"', i, 1);
		if (!/^[\w.]+$/.test(method)) return err(`"${method}" is not a method name`, i, method.length);
		if (!known.has(method) && !method.startsWith('config.')) {
			return err(`unknown method "${method}:"; dbt's are ${DBT_METHODS.join(', ')}, config.<key>`, i, method.length);
		}
		if (method === 'config.') return err('"config." needs a key, as in config.materialized', i, method.length);
		if (value === '') return err(`"${method}:" needs a value`, valueAt, 1);
	}
	if (value.endsWith('.') && (method ?? defaultMethod(value)) !== 'path' && method !== 'file') return err('a name cannot end in "."', valueAt + value.length - 1, 1);
	// dbt refuses these values itself rather than selecting nothing.
	if (method === 'resource_type' && !RESOURCE_TYPES.includes(value)) {
		return err(`"${value}" is not a dbt resource type (${RESOURCE_TYPES.join(', ')})`, valueAt, value.length);
	}
	if (method === 'test_type' && !TEST_TYPES.includes(value)) return err(`"${value}" is not a test type (generic, singular, unit)`, valueAt, value.length);
	if (method === 'source' && value.split('.').length > 3) return err('a source is source, source.table or package.source.table', valueAt, value.length);
	return { raw, start, method, value, parents, children, childrensParents };
}

/** An error as the search box and the descriptor's message word it. */
export function describeError(e: SelectorError): string {
	return `at character ${e.position + 1}: ${e.message}`;
}

// ---------------------------------------------------------------------------------------------
// What a selector is evaluated over

/** One selectable node, as either caller knows it. */
export interface SelectableNode {
	id: string;
	name: string;
	/** dbt's resource type; '' for what dbt does not know (producer scripts, lake tables). */
	resourceType: string;
	/** dbt's fqn; for the canvas's other nodes, their name. */
	fqn: readonly string[];
	/** A versioned model's version. */
	version?: string | null;
	/** original_file_path, relative to the project. */
	filePath: string | null;
	packageName: string | null;
	/** A source's source name (its name is the table). */
	sourceName?: string | null;
	tags: readonly string[];
	config?: Record<string, unknown>;
	/** A generic test's macro: `not_null`, namespaced `dbt_utils.equality`. */
	testMetadata?: { name: string; namespace: string | null } | null;
	group?: string | null;
	access?: string | null;
	/** Tributary's: the asset kind or the script language (`kind:` on the canvas). */
	kind?: string;
}

export interface SelectorUniverse {
	nodes: readonly SelectableNode[];
	parents: ReadonlyMap<string, readonly string[]>;
	children: ReadonlyMap<string, readonly string[]>;
	/** The project `package:this` means. */
	projectName?: string | null;
	/**
	 * Methods the caller answers itself (the manifest's exposures and metrics, the canvas's
	 * `kind`); undefined: not one it knows, which is refused with the atom's position.
	 */
	extraMethod?: (method: string, value: string) => Set<string> | undefined;
	/** Why a dbt method cannot be evaluated here (`state:` needs a previous manifest). */
	unsupported?: Readonly<Record<string, string>>;
	/** The column graph, when column selectors are wanted. */
	columns?: ColumnUniverse;
}

export interface ColumnUniverse {
	/** The columns known for a node, or undefined while not known yet (not fetched). */
	columnsOf(nodeId: string): readonly string[] | undefined;
	idOf(nodeId: string, column: string): ColumnId;
	nodeOf(id: ColumnId): string;
	up(id: ColumnId): Iterable<ColumnId>;
	down(id: ColumnId): Iterable<ColumnId>;
}

// ---------------------------------------------------------------------------------------------
// Matching

const globCache = new Map<string, (s: string) => boolean>();

/** fnmatch: `*`, `?`, `[...]` (`[!...]` negated); anything else literal, case-sensitive. */
export function globMatcher(pattern: string, caseInsensitive = false): (s: string) => boolean {
	const key = `${caseInsensitive ? 'i' : 's'}${pattern}`;
	const hit = globCache.get(key);
	if (hit) return hit;
	let fn: (s: string) => boolean;
	if (!/[*?[]/.test(pattern)) {
		const lower = pattern.toLowerCase();
		fn = caseInsensitive ? (s) => s.toLowerCase() === lower : (s) => s === pattern;
	} else {
		let re = '';
		for (let i = 0; i < pattern.length; i++) {
			const ch = pattern[i];
			if (ch === '*') re += '.*';
			else if (ch === '?') re += '.';
			else if (ch === '[') {
				const close = pattern.indexOf(']', i + 2);
				if (close === -1) re += '\\[';
				else {
					let body = pattern.slice(i + 1, close);
					if (body.startsWith('!')) body = `^${body.slice(1)}`;
					re += `[${body.replace(/\\/g, '\\\\')}]`;
					i = close;
				}
			} else re += ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
		}
		const rx = new RegExp(`^${re}$`, caseInsensitive ? 'si' : 's');
		fn = (s) => rx.test(s);
	}
	if (globCache.size > 1000) globCache.clear();
	globCache.set(key, fn);
	return fn;
}

const hasGlob = (s: string) => /[*?[]/.test(s);

/** dbt's default method for a value written without one. */
export function defaultMethod(value: string): 'path' | 'file' | 'fqn' {
	if (value.includes('/') || value.includes('\\')) return 'path';
	if (/\.(sql|py|csv)$/i.test(value)) return 'file';
	return 'fqn';
}

/**
 * dbt's fqn method (dbt-core's is_selected_node, tried on the fqn and on the fqn without its
 * package): the leaf name exactly (a versioned model's `name`, `name_v2` or `name.v2`), or a
 * dotted prefix of the fqn, dots inside names splitting too; from the first part holding a
 * wildcard, the rest of the fqn is matched as one glob. A dotless glob also matches the leaf
 * name alone, as dbt Fusion does: dbt-core matches `stg_*` only at the project's root folder,
 * which its maintainers call expected but users read as a bug (dbt-core #11333, #16348).
 */
export function fqnMatches(n: SelectableNode, selector: string): boolean {
	const fqn = n.fqn;
	if (fqn.length === 0) return false;
	if (!selector.includes('.') && hasGlob(selector)) {
		const leaf = n.version != null && fqn.length >= 2 ? fqn[fqn.length - 2] : fqn[fqn.length - 1];
		if (globMatcher(selector)(leaf)) return true;
	}
	return isSelectedNode(fqn, selector, n.version != null) || isSelectedNode(fqn.slice(1), selector, n.version != null);
}

function isSelectedNode(fqn: readonly string[], selector: string, versioned: boolean): boolean {
	if (fqn.length === 0) return false;
	const parts = selector.split('.');
	if (versioned && fqn.length >= 2) {
		if (fqn[fqn.length - 2] === selector || fqn.slice(-2).join('_') === parts.slice(-2).join('_')) return true;
	} else if (fqn[fqn.length - 1] === selector) return true;
	const flat = fqn.flatMap((seg) => seg.split('.'));
	if (flat.length < parts.length) return false;
	for (let i = 0; i < parts.length; i++) {
		if (/[*?[\]]/.test(parts[i])) return globMatcher(parts.slice(i).join('.'))(flat.slice(i).join('.'));
		if (flat[i] !== parts[i]) return false;
	}
	return true;
}

function normalizePath(p: string): string {
	return p.replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/+$/, '');
}

export function pathMatches(filePath: string | null, value: string): boolean {
	if (!filePath) return false;
	const path = normalizePath(filePath);
	const wanted = normalizePath(value);
	if (wanted === '' || wanted === '.') return true;
	if (hasGlob(wanted)) return globMatcher(wanted)(path) || path.startsWith(`${wanted}/`) || globMatcher(`${wanted}/*`)(path);
	return path === wanted || path.startsWith(`${wanted}/`);
}

export function fileMatches(filePath: string | null, value: string): boolean {
	if (!filePath) return false;
	const base = normalizePath(filePath).split('/').pop() ?? '';
	const stem = base.replace(/\.[^.]*$/, '');
	const g = globMatcher(value);
	return g(base) || g(stem);
}

function sourceMatches(n: SelectableNode, value: string): boolean {
	if (n.resourceType !== 'source') return false;
	const parts = value.split('.');
	const m = (pattern: string, v: string) => globMatcher(pattern)(v);
	if (parts.length === 1) return m(parts[0], n.sourceName ?? '');
	if (parts.length === 2) return m(parts[0], n.sourceName ?? '') && m(parts[1], n.name);
	if (parts.length === 3) return m(parts[0], n.packageName ?? '') && m(parts[1], n.sourceName ?? '') && m(parts[2], n.name);
	return false;
}

function testTypeMatches(n: SelectableNode, value: string): boolean {
	const generic = n.resourceType === 'test' && !!n.testMetadata;
	switch (value) {
		case 'generic':
		case 'schema':
			return generic;
		case 'singular':
		case 'data':
			return n.resourceType === 'test' && !generic;
		case 'unit':
			return n.resourceType === 'unit_test';
		default:
			return false;
	}
}

function configMatches(config: Record<string, unknown> | undefined, keyPath: string[], value: string): boolean {
	let v: unknown = config;
	for (const k of keyPath) {
		if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
		v = (v as Record<string, unknown>)[k];
	}
	const same = (x: unknown) => (typeof x === 'string' ? x === value : typeof x === 'number' || typeof x === 'boolean' ? String(x) === value : false);
	return Array.isArray(v) ? v.some(same) : same(v);
}

/** An atom's method could not be evaluated: the message, and where the atom is. */
export class SelectorEvalError extends Error {
	constructor(
		message: string,
		readonly atom: Atom,
		readonly method: string,
		/** Why the method cannot be evaluated here. */
		readonly reason: string
	) {
		super(message);
	}
}

/** The nodes one method:value matches, before graph operators. */
export function matchMethod(method: string, value: string, u: SelectorUniverse, atom: Atom): Set<string> {
	const out = new Set<string>();
	const each = (pred: (n: SelectableNode) => boolean) => {
		for (const n of u.nodes) if (pred(n)) out.add(n.id);
		return out;
	};
	const glob = globMatcher(value);
	if (method.startsWith('config.')) {
		const keyPath = method.slice('config.'.length).split('.');
		return each((n) => configMatches(n.config, keyPath, value));
	}
	switch (method) {
		case 'fqn':
			// `*` is "the whole project"; otherwise, as in dbt, names select nodes, never sources.
			if (value === '*') return each(() => true);
			return each((n) => n.resourceType !== 'source' && fqnMatches(n, value));
		case 'tag':
			return each((n) => n.tags.some(glob));
		case 'path':
			return each((n) => pathMatches(n.filePath, value));
		case 'file':
			return each((n) => fileMatches(n.filePath, value));
		case 'package': {
			const g = value === 'this' && u.projectName ? globMatcher(u.projectName) : glob;
			return each((n) => n.packageName !== null && g(n.packageName));
		}
		case 'resource_type':
			return each((n) => n.resourceType === value);
		case 'unique_id':
			return each((n) => n.id === value);
		case 'source':
			return each((n) => sourceMatches(n, value));
		case 'test_type':
			return each((n) => testTypeMatches(n, value));
		case 'test_name':
			return each((n) => {
				const tm = n.testMetadata;
				if (n.resourceType !== 'test' || !tm) return false;
				return glob(tm.name) || (tm.namespace !== null && glob(`${tm.namespace}.${tm.name}`));
			});
		case 'group':
			return each((n) => glob(n.group ?? ''));
		case 'access':
			return each((n) => n.resourceType === 'model' && (n.access ?? '') === value);
		case 'version':
			return each((n) => n.version != null && glob(String(n.version)));
		case 'unit_test':
			return each((n) => n.resourceType === 'unit_test' && fqnMatches(n, value));
		case 'exposure':
		case 'metric':
		case 'semantic_model':
		case 'saved_query': {
			// The manifest's own reading first (the ingest's selection); on the canvas these are nodes.
			const extra = u.extraMethod?.(method, value);
			if (extra) return extra;
			return each((n) => n.resourceType === method && glob(n.name));
		}
		default: {
			const extra = u.extraMethod?.(method, value);
			if (extra) return extra;
			const why = u.unsupported?.[method] ?? 'not one Tributary evaluates here';
			throw new SelectorEvalError(`"${atom.raw}" uses the method \`${method}\`, which cannot be evaluated (${why})`, atom, method, why);
		}
	}
}

// ---------------------------------------------------------------------------------------------
// Graph operators

/** Everything reachable from `start` (excluded) along `next` within `depth` steps. */
export function walk(start: ReadonlySet<string>, next: (id: string) => Iterable<string>, depth: number): Set<string> {
	const seen = new Set<string>();
	let frontier = [...start];
	for (let d = 0; d < depth && frontier.length; d++) {
		const following: string[] = [];
		for (const id of frontier) {
			for (const n of next(id)) {
				if (seen.has(n) || start.has(n)) continue;
				seen.add(n);
				following.push(n);
			}
		}
		frontier = following;
	}
	return seen;
}

export interface GraphOperators {
	parents: number;
	children: number;
	childrensParents: boolean;
}

export function applyGraphOperators(
	base: ReadonlySet<string>,
	op: GraphOperators,
	up: (id: string) => Iterable<string>,
	down: (id: string) => Iterable<string>
): Set<string> {
	const out = new Set(base);
	if (op.childrensParents) {
		const below = walk(base, down, Infinity);
		for (const id of below) out.add(id);
		for (const id of walk(new Set([...base, ...below]), up, Infinity)) out.add(id);
		return out;
	}
	if (op.parents) for (const id of walk(base, up, op.parents)) out.add(id);
	if (op.children) for (const id of walk(base, down, op.children)) out.add(id);
	return out;
}

const adjacency = (m: ReadonlyMap<string, readonly string[]>) => (id: string) => m.get(id) ?? [];

// ---------------------------------------------------------------------------------------------
// Evaluation

export interface EvalHooks {
	/** Applied to each atom's set before the intersection (dbt's eager indirect selection). */
	afterAtom?: (ids: Set<string>) => Set<string>;
}

export interface Evaluation {
	/** The whole selected set, excludes applied. */
	ids: Set<string>;
	/** What the atoms matched before graph operators (the search box rings these). */
	seeds: Set<string>;
	/** Column selectors' columns, operators applied; empty when none was written. */
	columns: Set<ColumnId>;
	/** The columns the column atoms named, before operators. */
	columnSeeds: Set<ColumnId>;
	/** Union members (as written) that selected nothing on their own. */
	unmatched: string[];
	/** Nodes whose columns a would-be column selector needs and that are not known yet. */
	needColumns: Set<string>;
}

interface AtomResult {
	ids: Set<string>;
	seeds: Set<string>;
	columns: Set<ColumnId>;
	columnSeeds: Set<ColumnId>;
}

function evalAtom(a: Atom, u: SelectorUniverse, needColumns: Set<string>): AtomResult {
	const none = { columns: new Set<ColumnId>(), columnSeeds: new Set<ColumnId>() };
	if (a.method === 'column') {
		if (!u.columns) throw new SelectorEvalError(`"${a.raw}": column selectors are the search box's, not dbt's`, a, 'column', "it is the search box's, not dbt's");
		return evalColumnAtom(a, u, u.columns, needColumns) ?? { ids: new Set(), seeds: new Set(), ...none };
	}
	const seeds = matchMethod(a.method ?? defaultMethod(a.value), a.value, u, a);
	if (seeds.size === 0 && u.columns && a.method === null) {
		const col = evalColumnAtom(a, u, u.columns, needColumns);
		if (col) return col;
	}
	const ids = applyGraphOperators(seeds, a, adjacency(u.parents), adjacency(u.children));
	return { ids, seeds, ...none };
}

/**
 * `rel.column`: the relations `rel` selects by dbt's default method, then the columns among
 * theirs that `column` names (case-insensitive, as unquoted SQL identifiers are; a glob allowed),
 * then the graph operators over the column graph. The nodes lit are the relations holding the
 * resulting columns.
 */
function evalColumnAtom(a: Atom, u: SelectorUniverse, c: ColumnUniverse, needColumns: Set<string>): AtomResult | null {
	const dot = a.value.lastIndexOf('.');
	if (dot <= 0) return null;
	const rel = a.value.slice(0, dot);
	const columnGlob = globMatcher(a.value.slice(dot + 1), true);
	const relAtom: Atom = { ...a, method: null, value: rel };
	const relations = matchMethod(defaultMethod(rel), rel, u, relAtom);
	const columnSeeds = new Set<ColumnId>();
	for (const id of relations) {
		const cols = c.columnsOf(id);
		if (cols === undefined) {
			needColumns.add(id);
			continue;
		}
		for (const col of cols) if (columnGlob(col)) columnSeeds.add(c.idOf(id, col));
	}
	if (columnSeeds.size === 0) return null;
	const columns = applyGraphOperators(
		columnSeeds,
		a,
		(id) => c.up(id),
		(id) => c.down(id)
	);
	const ids = new Set<string>();
	const seeds = new Set<string>();
	for (const col of columns) ids.add(c.nodeOf(col));
	for (const col of columnSeeds) seeds.add(c.nodeOf(col));
	return { ids, seeds, columns, columnSeeds };
}

function evalUnion(terms: Atom[][], u: SelectorUniverse, hooks: EvalHooks, out: Evaluation): Set<string> {
	const ids = new Set<string>();
	for (const term of terms) {
		let acc: AtomResult | null = null;
		for (const a of term) {
			const got = evalAtom(a, u, out.needColumns);
			if (hooks.afterAtom) got.ids = hooks.afterAtom(got.ids);
			if (acc === null) acc = got;
			else {
				const prev: AtomResult = acc;
				acc = {
					ids: intersect(prev.ids, got.ids),
					seeds: new Set([...prev.seeds, ...got.seeds]),
					columns: new Set([...prev.columns, ...got.columns]),
					columnSeeds: new Set([...prev.columnSeeds, ...got.columnSeeds])
				};
			}
		}
		if (!acc) continue;
		if (acc.ids.size === 0) out.unmatched.push(term.map((a) => a.raw).join(','));
		for (const id of acc.ids) ids.add(id);
		for (const id of acc.seeds) if (acc.ids.has(id)) out.seeds.add(id);
		// A column survives an intersection only while its relation does.
		for (const col of acc.columns) if (u.columns && acc.ids.has(u.columns.nodeOf(col))) out.columns.add(col);
		for (const col of acc.columnSeeds) if (u.columns && acc.ids.has(u.columns.nodeOf(col))) out.columnSeeds.add(col);
	}
	return ids;
}

/** Evaluate a parsed selector. Throws SelectorEvalError for a method the universe cannot answer. */
export function evaluate(ast: SelectorAst, u: SelectorUniverse, hooks: EvalHooks = {}): Evaluation {
	const out: Evaluation = { ids: new Set(), seeds: new Set(), columns: new Set(), columnSeeds: new Set(), unmatched: [], needColumns: new Set() };
	out.ids = evalUnion(ast.select, u, hooks, out);
	if (ast.exclude.length) {
		const excluded = evalUnion(ast.exclude, u, hooks, { ...out, unmatched: [], seeds: new Set(), columns: new Set(), columnSeeds: new Set() });
		for (const id of excluded) out.ids.delete(id);
		for (const id of [...out.seeds]) if (excluded.has(id)) out.seeds.delete(id);
		if (u.columns) for (const col of [...out.columns]) if (excluded.has(u.columns.nodeOf(col))) out.columns.delete(col);
	}
	return out;
}

function intersect(a: ReadonlySet<string>, b: ReadonlySet<string>): Set<string> {
	const out = new Set<string>();
	for (const x of a) if (b.has(x)) out.add(x);
	return out;
}

// ---------------------------------------------------------------------------------------------
// The column graph as a column universe

/**
 * A column graph (column-trace.ts) over canvas node ids (`<kind>:<path>`). `known(nodeId)`: the
 * node's columns are complete in the graph (its dbt lineage arrived, or it is a producer's
 * table); an unknown node answers undefined so the caller can fetch it.
 */
export function columnUniverse(g: ColumnGraph, known: (nodeId: string) => boolean): ColumnUniverse {
	const byNode = new Map<string, string[]>();
	for (const n of g.nodes.values()) {
		const node = `${n.kind}:${n.path}`;
		const list = byNode.get(node);
		if (list) list.push(n.column);
		else byNode.set(node, [n.column]);
	}
	return {
		// A relation half-known from another's answer is not known: its own answer may hold more.
		columnsOf: (nodeId) => (known(nodeId) ? (byNode.get(nodeId) ?? []) : undefined),
		idOf: (nodeId, column) => {
			const colon = nodeId.indexOf(':');
			return columnId(nodeId.slice(0, colon), nodeId.slice(colon + 1), column);
		},
		nodeOf: (id) => {
			const n = g.nodes.get(id);
			return n ? `${n.kind}:${n.path}` : '';
		},
		up: (id) => g.up.get(id) ?? [],
		down: (id) => g.down.get(id) ?? []
	};
}

// ---------------------------------------------------------------------------------------------
// The search box: the same grammar over the canvas graph

/** Tributary's methods on the canvas, beside dbt's: `kind:script`, `kind:ducklake`, `column:rel.col`. */
export const CANVAS_METHODS = ['kind', 'column'] as const;

export type SelectorResult =
	| { kind: 'empty' }
	| ({ kind: 'error'; message: string } & SelectorError)
	/**
	 * `ids`: the whole selected set (empty: no match); `seeds`: what the atoms matched before
	 * graph operators; `columns`: a column selector's columns, sorted; `pending`: relations whose
	 * columns are being fetched before a column selector can be read.
	 */
	| { kind: 'selection'; ids: Set<string>; seeds: Set<string>; columns: ColumnId[]; columnSeeds: Set<ColumnId>; pending: string[] }
	/** The fallback: one plain word dbt's rules select nothing with, looked up by name, best first. */
	| { kind: 'names'; ids: string[] };

export interface SelectorGraph {
	nodes: readonly CanvasNodeLike[];
	/** Node → its parents and its children (the canvas walks these for a selection's lineage). */
	up: Map<string, string[]>;
	down: Map<string, string[]>;
	universe: SelectorUniverse;
}

/** What the canvas's nodes carry that a selector reads (CanvasNode, without importing the canvas model). */
export interface CanvasNodeLike {
	id: string;
	type: 'asset' | 'runnable' | 'consumer';
	kind: string;
	path: string;
	name: string;
	resourceType?: string;
	materialized?: string | null;
	uniqueId?: string;
	tags?: string[];
	filePath?: string;
}

/**
 * A canvas node as dbt would see it. The canvas carries no fqn, so it is rebuilt as dbt builds
 * it: the package, the folders under the resource's root folder (`models/`, `seeds/`, …), the
 * name. Producer scripts and lake tables, which dbt does not know, answer to their name.
 */
function selectableOf(n: CanvasNodeLike): SelectableNode {
	const parts = n.uniqueId?.split('.') ?? [];
	const dbt = parts.length >= 3;
	const resourceType = n.resourceType ?? (dbt ? parts[0] : '');
	const packageName = dbt ? parts[1] : null;
	const isSource = resourceType === 'source' && parts.length >= 4;
	const name = isSource ? parts[3] : dbt ? parts[2] : n.name;
	const version = resourceType === 'model' && parts.length === 4 && /^v\d/.test(parts[3]) ? parts[3].slice(1) : null;
	const folders = n.filePath ? normalizePath(n.filePath).split('/').slice(1, -1) : [];
	const fqn = !dbt ? [n.name] : isSource ? [packageName!, ...folders, parts[2], name] : [packageName!, ...folders, name, ...(version ? [`v${version}`] : [])];
	return {
		id: n.id,
		name,
		resourceType,
		fqn,
		version,
		filePath: n.filePath ?? null,
		packageName,
		sourceName: isSource ? parts[2] : null,
		tags: n.tags ?? [],
		config: n.materialized ? { materialized: n.materialized } : {},
		kind: n.type === 'runnable' ? 'script' : n.kind
	};
}

export function selectorGraph(nodes: readonly CanvasNodeLike[], edges: readonly { source: string; target: string }[]): SelectorGraph {
	const parents = new Map<string, string[]>();
	const children = new Map<string, string[]>();
	for (const e of edges) {
		(children.get(e.source) ?? children.set(e.source, []).get(e.source)!).push(e.target);
		(parents.get(e.target) ?? parents.set(e.target, []).get(e.target)!).push(e.source);
	}
	const selectable = nodes.map(selectableOf);
	const language = new Map(nodes.map((n) => [n.id, n.kind]));
	const universe: SelectorUniverse = {
		nodes: selectable,
		parents,
		children,
		extraMethod: (method, value) => {
			if (method !== 'kind') return undefined;
			const g = globMatcher(value);
			return new Set(selectable.filter((n) => g(n.kind ?? '') || g(language.get(n.id) ?? '')).map((n) => n.id));
		},
		unsupported: {
			state: 'it compares against a previous manifest',
			result: 'it reads a previous run_results.json',
			source_status: 'it reads a previous sources.json'
		}
	};
	return { nodes, up: parents, down: children, universe };
}

/** Name search: exact name, then prefix, then substring, case-insensitive; shorter names first within each. */
export function searchByName(nodes: readonly CanvasNodeLike[], q: string, limit = 50): string[] {
	const needle = q.trim().toLowerCase();
	if (!needle) return [];
	const scored: { id: string; score: number; len: number }[] = [];
	for (const n of nodes) {
		const name = n.name.toLowerCase();
		const score = name === needle ? 0 : name.startsWith(needle) ? 1 : name.includes(needle) ? 2 : n.path.toLowerCase().includes(needle) ? 3 : -1;
		if (score >= 0) scored.push({ id: n.id, score, len: name.length });
	}
	scored.sort((a, b) => a.score - b.score || a.len - b.len || (a.id < b.id ? -1 : 1));
	return scored.slice(0, limit).map((s) => s.id);
}

const isPlainWord = (ast: SelectorAst) => {
	if (ast.exclude.length || ast.select.length !== 1 || ast.select[0].length !== 1) return false;
	const a = ast.select[0][0];
	return a.method === null && !a.parents && !a.children && !a.childrensParents && !hasGlob(a.value);
};

/**
 * The search box's reading of its text: dbt's selection, with column selectors when `columns`
 * is given; one plain word that selects nothing falls back to a name search. Never throws.
 */
export function evaluateSelector(q: string, g: SelectorGraph, columns: ColumnUniverse | null = null): SelectorResult {
	const text = q.trim();
	if (!text) return { kind: 'empty' };
	const lead = q.length - q.trimStart().length;
	const parsed = parseSelector(text, { extraMethods: CANVAS_METHODS, allowExclude: true });
	if (!parsed.ok) return { kind: 'error', ...parsed.error, position: parsed.error.position + lead, message: describeError({ ...parsed.error, position: parsed.error.position + lead }) };
	const u: SelectorUniverse = columns ? { ...g.universe, columns } : g.universe;
	let ev: Evaluation;
	try {
		ev = evaluate(parsed.ast, u);
	} catch (e) {
		if (!(e instanceof SelectorEvalError)) throw e;
		const error = { message: e.message, position: e.atom.start + lead, length: e.atom.raw.length };
		return { kind: 'error', ...error, message: describeError(error) };
	}
	if (ev.ids.size === 0 && ev.needColumns.size === 0 && isPlainWord(parsed.ast)) {
		const names = searchByName(g.nodes, text);
		if (names.length) return { kind: 'names', ids: names };
	}
	if (ev.columns.size) litProducers(ev.ids, g.universe);
	return {
		kind: 'selection',
		ids: ev.ids,
		seeds: ev.seeds,
		columns: [...ev.columns].sort(),
		columnSeeds: ev.columnSeeds,
		pending: [...ev.needColumns].sort()
	};
}

/**
 * A column trace lights relations; the producer scripts between two lit relations carry the
 * columns across (a script reading one and writing the other), so they are lit too.
 */
function litProducers(ids: Set<string>, u: SelectorUniverse): void {
	for (const n of u.nodes) {
		if (n.kind !== 'script' || ids.has(n.id)) continue;
		const reads = u.parents.get(n.id) ?? [];
		const writes = u.children.get(n.id) ?? [];
		if (reads.some((r) => ids.has(r)) && writes.some((w) => ids.has(w))) ids.add(n.id);
	}
}
