// Path scopes: what a token narrows its owner to. Narrowing only: a scope never grants what the
// owner may not do, so a gate always pairs it with folders.ts.
import type { AuthContext } from '../auth/context';
import { forbidden } from '../http';
import type { ScopePathFilter } from '../repo/jobs';
import type { Principal } from './principal';

// `{domain}:{action}[:{pattern},{pattern},...]` where a pattern is an exact path, a prefix
// `a/b/*` (everything strictly below a/b, at any depth) or `*`. Matching is exact on domain
// and action: `scripts:write` does not imply `scripts:read`.

export type PathPattern = { kind: 'exact'; path: string } | { kind: 'prefix'; prefix: string } | { kind: 'any' };

export interface ParsedScope {
	domain: string;
	action: string;
	/** null = every path in the domain. */
	paths: PathPattern[] | null;
}

const WORD = /^[a-z][a-z_]{0,49}$/;
// Script paths use [A-Za-z0-9_-]; asset paths may also hold dots (`db.schema`), so allow them,
// but never a `.`/`..` segment.
const PATTERN_SEGMENT = /^[A-Za-z0-9_.-]+$/;

function validPatternPath(s: string): boolean {
	if (s.length === 0 || s.length > 255) return false;
	return s.split('/').every((seg) => PATTERN_SEGMENT.test(seg) && seg !== '.' && seg !== '..');
}

/** A scope string, or null when it breaks the grammar (used to validate token minting). */
export function parseScope(s: unknown): ParsedScope | null {
	if (typeof s !== 'string' || s.length === 0 || s.length > 2000) return null;
	const first = s.indexOf(':');
	if (first < 0) return null;
	const second = s.indexOf(':', first + 1);
	const domain = s.slice(0, first);
	const action = second < 0 ? s.slice(first + 1) : s.slice(first + 1, second);
	if (!WORD.test(domain) || !WORD.test(action)) return null;
	if (second < 0) return { domain, action, paths: null };
	const rest = s.slice(second + 1);
	if (rest.length === 0) return null;
	const paths: PathPattern[] = [];
	for (const item of rest.split(',')) {
		if (item === '*') paths.push({ kind: 'any' });
		else if (item.endsWith('/*')) {
			const base = item.slice(0, -2);
			if (!validPatternPath(base)) return null;
			paths.push({ kind: 'prefix', prefix: `${base}/` });
		} else if (validPatternPath(item)) paths.push({ kind: 'exact', path: item });
		else return null;
	}
	return { domain, action, paths };
}

export function patternMatches(pattern: PathPattern, path: string): boolean {
	switch (pattern.kind) {
		case 'any':
			return true;
		case 'exact':
			return path === pattern.path;
		case 'prefix':
			// The trailing slash is part of the prefix: `f/a/*` never matches `f/ab/x`.
			return path.length > pattern.prefix.length && path.startsWith(pattern.prefix);
	}
}

function matchingScopes(p: Principal, domain: string, action: string): ParsedScope[] {
	const out: ParsedScope[] = [];
	for (const s of p.scopes ?? []) {
		const parsed = parseScope(s);
		if (parsed && parsed.domain === domain && parsed.action === action) out.push(parsed);
	}
	return out;
}

/**
 * Whether the caller's token scopes allow `domain:action` (on `path` when given). This is the
 * token's narrowing only: it never grants what the owner may not do, so always combine it
 * with canReadPath/canWritePath (or use mayReadPath/mayWritePath).
 *
 * Without a path, a path-restricted scope still answers true: the route is allowed, and it
 * must then restrict what it returns with scopePathFilter.
 */
export function scopeAllows(p: Principal, domain: string, action: string, path?: string): boolean {
	if (p.scopes === null) return true;
	for (const s of matchingScopes(p, domain, action)) {
		if (s.paths === null || path === undefined) return true;
		if (s.paths.some((pat) => patternMatches(pat, path))) return true;
	}
	return false;
}

/** 403 naming the missing scope, e.g. `this token lacks the scope scripts:read:f/a/x`. */
export function requireScope(p: Principal, domain: string, action: string, path?: string): void {
	if (!scopeAllows(p, domain, action, path)) {
		throw forbidden(`this token lacks the scope ${domain}:${action}${path === undefined ? '' : `:${path}`}`);
	}
}

export type { ScopePathFilter } from '../repo/jobs';

/**
 * The paths a listing may return under `domain:action`, for filtering in SQL. Prefixes end
 * with `/`; compare with `starts_with(path, prefix)` or `left(path, length(prefix)) = prefix`,
 * never LIKE (`_` is a LIKE wildcard and a legal path character).
 */
export function scopePathFilter(p: Principal, domain: string, action: string): ScopePathFilter {
	if (p.scopes === null) return { all: true };
	const exact: string[] = [];
	const prefixes: string[] = [];
	for (const s of matchingScopes(p, domain, action)) {
		if (s.paths === null) return { all: true };
		for (const pat of s.paths) {
			if (pat.kind === 'any') return { all: true };
			if (pat.kind === 'exact') exact.push(pat.path);
			else prefixes.push(pat.prefix);
		}
	}
	return { all: false, exact, prefixes };
}

export function filterAllows(f: ScopePathFilter, path: string): boolean {
	if (f.all) return true;
	return f.exact.includes(path) || f.prefixes.some((pre) => path.length > pre.length && path.startsWith(pre));
}

/**
 * Whether every scope in `requested` is within one of `held` (a narrowed token minting another
 * token must not widen itself). A null `held` covers everything.
 */
export function scopesCovered(held: string[] | null, requested: string[]): boolean {
	if (held === null) return true;
	const heldParsed = held.map(parseScope).filter((s): s is ParsedScope => s !== null);
	return requested.every((r) => {
		const want = parseScope(r);
		if (!want) return false;
		return heldParsed.some(
			(h) =>
				h.domain === want.domain &&
				h.action === want.action &&
				(h.paths === null ||
					(want.paths !== null && want.paths.every((w) => h.paths!.some((hp) => patternWithin(w, hp)))))
		);
	});
}

function patternWithin(inner: PathPattern, outer: PathPattern): boolean {
	if (outer.kind === 'any') return true;
	if (inner.kind === 'any') return false;
	if (outer.kind === 'exact') return inner.kind === 'exact' && inner.path === outer.path;
	if (inner.kind === 'exact') return patternMatches(outer, inner.path);
	return inner.prefix.startsWith(outer.prefix);
}

/** Token scopes of a caller outside any workspace route (e.g. POST /api/workspaces). */
export function authScopeAllows(auth: AuthContext, domain: string, action: string): boolean {
	if (!auth.token || auth.token.scopes.length === 0) return true;
	return auth.token.scopes.some((s) => {
		const parsed = parseScope(s);
		return parsed !== null && parsed.domain === domain && parsed.action === action;
	});
}

/** The scope action of an HTTP method on an ordinary route: GET/HEAD read, the rest write. */
export function actionOfMethod(method: string): 'read' | 'write' {
	return method === 'GET' || method === 'HEAD' ? 'read' : 'write';
}
