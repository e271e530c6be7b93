// dbt's node selection syntax in the canvas search box (`+orders`, `orders+`, `2+orders+1`,
// `@orders`, `tag:finance`, `resource_type:seed`, `config.materialized:view`, `path:models/marts`,
// `source:stripe`, `package:shop`, globs, `a,b` intersection, `a b` union), evaluated over the
// canvas graph: what a data engineer would type into `dbt ls --select` highlights the same set.
// A plain word is a name search instead (substring, best match first).
import type { CanvasEdge, CanvasNode } from './canvas-model';

export type SelectorResult =
	| { kind: 'empty' }
	| { kind: 'error'; message: string }
	/** `ids`: the whole selected set; `seeds`: what the atoms matched before graph operators. */
	| { kind: 'selection'; ids: Set<string>; seeds: Set<string> }
	/** A plain word: matches by name, best first. */
	| { kind: 'names'; ids: string[] };

interface Atom {
	method: string;
	value: string;
	up: number;
	down: number;
	at: boolean;
}

const ATOM = /^(@)?(?:(\d*)\+)?([^+]+?)(?:\+(\d*))?$/;

function parseAtom(raw: string): Atom | string {
	const m = ATOM.exec(raw);
	if (!m) return `cannot read "${raw}"`;
	const [, at, upN, body, downN] = m;
	const up = raw.startsWith('@') ? 0 : upN === undefined ? 0 : upN === '' ? Infinity : Number(upN);
	const down = downN === undefined ? 0 : downN === '' ? Infinity : Number(downN);
	if (at && (upN !== undefined || downN !== undefined)) return `"@" cannot be combined with "+" in "${raw}"`;
	const colon = body.indexOf(':');
	const method = colon < 0 ? 'name' : body.slice(0, colon).toLowerCase();
	const value = colon < 0 ? body : body.slice(colon + 1);
	if (value === '') return `"${raw}" names no value`;
	if (!METHODS.has(method)) return `unknown selector method "${method}:"; known: ${[...METHODS].filter((x) => x !== 'name').join(', ')}`;
	return { method, value, up, down, at: !!at };
}

const METHODS = new Set(['name', 'tag', 'path', 'resource_type', 'config.materialized', 'materialized', 'source', 'package', 'fqn', 'kind']);

/** dbt's shell-style wildcard: `*` any run, `?` one character; case-insensitive here. */
function globRe(pattern: string): RegExp {
	const esc = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
	return new RegExp(`^${esc}$`, 'i');
}

function idParts(n: CanvasNode): string[] {
	return n.uniqueId?.split('.') ?? [];
}

function matches(n: CanvasNode, a: Atom): boolean {
	const re = globRe(a.value);
	switch (a.method) {
		case 'name': {
			const parts = idParts(n);
			return re.test(n.name) || (parts.length > 2 && re.test(parts[parts.length - 1])) || re.test(n.path);
		}
		case 'tag':
			return (n.tags ?? []).some((t) => re.test(t));
		case 'path': {
			if (!n.filePath) return false;
			const v = a.value.replace(/\/+$/, '');
			return re.test(n.filePath) || n.filePath === v || n.filePath.startsWith(`${v}/`);
		}
		case 'resource_type':
			return n.resourceType !== undefined && re.test(n.resourceType);
		case 'config.materialized':
		case 'materialized':
			return !!n.materialized && re.test(n.materialized);
		case 'package': {
			const parts = idParts(n);
			return parts.length > 1 && re.test(parts[1]);
		}
		case 'source': {
			// source:<source> or source:<source>.<table>; unique ids are source.<pkg>.<source>.<table>.
			const parts = idParts(n);
			if (parts[0] !== 'source' || parts.length < 4) return false;
			const [src, table] = a.value.split('.');
			return globRe(src).test(parts[2]) && (table === undefined || globRe(table).test(parts[3]));
		}
		case 'fqn': {
			const parts = idParts(n);
			return parts.length > 2 && re.test(parts.slice(1).join('.'));
		}
		case 'kind':
			return re.test(n.kind) || (n.type === 'runnable' && re.test('script'));
		default:
			return false;
	}
}

function walk(starts: Iterable<string>, adj: Map<string, string[]>, depth: number): Set<string> {
	const seen = new Set<string>(starts);
	let frontier = [...seen];
	for (let d = 0; d < depth && frontier.length; d++) {
		const next: string[] = [];
		for (const id of frontier) {
			for (const m of adj.get(id) ?? []) {
				if (!seen.has(m)) {
					seen.add(m);
					next.push(m);
				}
			}
		}
		frontier = next;
	}
	return seen;
}

/** Whether the box holds selector syntax rather than a name to look up. */
export function isSelectorSyntax(q: string): boolean {
	return /[+@:,*?\s]/.test(q.trim());
}

export interface SelectorGraph {
	nodes: readonly CanvasNode[];
	up: Map<string, string[]>;
	down: Map<string, string[]>;
}

export function selectorGraph(nodes: readonly CanvasNode[], edges: readonly CanvasEdge[]): SelectorGraph {
	const up = new Map<string, string[]>();
	const down = new Map<string, string[]>();
	for (const e of edges) {
		(down.get(e.source) ?? down.set(e.source, []).get(e.source)!).push(e.target);
		(up.get(e.target) ?? up.set(e.target, []).get(e.target)!).push(e.source);
	}
	return { nodes, up, down };
}

/** Name search: exact name, then prefix, then substring; shorter names first within each. */
export function searchByName(nodes: readonly CanvasNode[], q: string, limit = 50): string[] {
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

export function evaluateSelector(q: string, g: SelectorGraph): SelectorResult {
	const text = q.trim();
	if (!text) return { kind: 'empty' };
	if (!isSelectorSyntax(text)) return { kind: 'names', ids: searchByName(g.nodes, text) };
	const ids = new Set<string>();
	const seeds = new Set<string>();
	for (const term of text.split(/\s+/)) {
		const sets: Set<string>[] = [];
		for (const raw of term.split(',').filter(Boolean)) {
			const parsed = parseAtom(raw);
			if (typeof parsed === 'string') return { kind: 'error', message: parsed };
			const a = parsed;
			const hit = g.nodes.filter((n) => matches(n, a)).map((n) => n.id);
			for (const h of hit) seeds.add(h);
			let set: Set<string>;
			if (a.at) {
				// @x: x, everything downstream of it, and everything those need to be built.
				const desc = walk(hit, g.down, Infinity);
				set = walk(desc, g.up, Infinity);
			} else {
				set = new Set(hit);
				for (const x of walk(hit, g.up, a.up)) set.add(x);
				for (const x of walk(hit, g.down, a.down)) set.add(x);
			}
			sets.push(set);
		}
		// Commas intersect: what every atom of the term selected.
		for (const x of sets[0] ?? []) if (sets.every((s) => s.has(x))) ids.add(x);
	}
	return { kind: 'selection', ids, seeds };
}
