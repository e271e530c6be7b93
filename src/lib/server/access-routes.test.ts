// Every route asks access/ who is calling before it does anything (house rule: every load and
// +server.ts checks access itself). This walks src/routes, as the OpenAPI test does, and fails
// for a +server.ts, +page.server.ts or +layout.server.ts handler (each exported method, load, and
// each form action) that calls no gate of access/, directly or through a helper of its own file.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as access from './access';

/** The gates that establish the caller (or refuse): a route must call at least one. */
const GATES = [
	'requireAuth',
	'pageAuth',
	'workspacePrincipal',
	'workspaceGrant',
	'assetReadGrant',
	'pagePrincipal',
	'pageGrant',
	'layoutPageGrant',
	'jobAccess',
	'runGrant',
	'shareGrant',
	'pinnedAccess',
	'columnLineageAccess',
	'principalWithLineageStamp',
	'runPageAccess',
	'runPageGrant',
	'layoutAccess',
	'diffRefAccess',
	'openLineageSender'
] as const;

/** Routes with nothing to gate, and why. Each must exist and must indeed call no gate. */
const UNGATED: Record<string, string> = {
	'login/+page.server.ts': 'the sign-in form: its caller has no identity yet',
	'api/auth/login/+server.ts': 'signs in: its caller has no identity yet',
	'api/openapi.json/+server.ts': 'the public description of the endpoints; reads nothing stored'
};

const ROUTE_FILE = /^\+(server|page\.server|layout\.server)\.ts$/;
const HANDLER = /^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS|load|actions)$/;

function routeFiles(dir: string): string[] {
	return readdirSync(dir).flatMap((f) => {
		const p = path.join(dir, f);
		return statSync(p).isDirectory() ? routeFiles(p) : ROUTE_FILE.test(f) ? [p] : [];
	});
}

/** The names a file imports from access/. */
function accessImports(src: string): Set<string> {
	const names = new Set<string>();
	for (const m of src.matchAll(/import\s*\{([^}]*)\}\s*from\s*'\$lib\/server\/access'/g)) {
		for (const part of m[1].split(',')) {
			const name = part.trim().replace(/^type\s+/, '').split(/\s+as\s+/).pop()!.trim();
			if (name && !part.trim().startsWith('type ')) names.add(name);
		}
	}
	return names;
}

/** Top-level declarations (a line starting at column 0 with export/function/const/async) and their text. */
function topLevel(src: string): { name: string; exported: boolean; text: string }[] {
	const out: { name: string; exported: boolean; text: string }[] = [];
	const lines = src.split('\n');
	let current: { name: string; exported: boolean; lines: string[] } | null = null;
	for (const line of lines) {
		const m = /^(export\s+)?(?:async\s+)?(?:function\s*\*?\s*|const\s+|let\s+)(\w+)/.exec(line);
		if (m) {
			if (current) out.push({ name: current.name, exported: current.exported, text: current.lines.join('\n') });
			current = { name: m[2], exported: !!m[1], lines: [line] };
		} else if (current) current.lines.push(line);
	}
	if (current) out.push({ name: current.name, exported: current.exported, text: current.lines.join('\n') });
	return out;
}

const calls = (text: string, name: string) => new RegExp(`(?<![\\w.])${name}\\s*(<[^>]*>)?\\(`).test(text);

/** The handlers of a route file and whether each reaches a gate (own text, or a local helper that does). */
function handlersOf(file: string): { handler: string; gated: boolean }[] {
	const src = readFileSync(file, 'utf8');
	const imported = accessImports(src);
	const gates = GATES.filter((g) => imported.has(g));
	const decls = topLevel(src);
	// Local helpers that reach a gate, to a fixed point (a helper may call another).
	const gatedLocals = new Set<string>();
	for (let changed = true; changed; ) {
		changed = false;
		for (const d of decls) {
			if (gatedLocals.has(d.name)) continue;
			if (gates.some((g) => calls(d.text, g)) || [...gatedLocals].some((l) => calls(d.text, l))) {
				gatedLocals.add(d.name);
				changed = true;
			}
		}
	}
	const reaches = (text: string) => gates.some((g) => calls(text, g)) || [...gatedLocals].some((l) => calls(text, l));
	const out: { handler: string; gated: boolean }[] = [];
	for (const d of decls.filter((x) => x.exported && HANDLER.test(x.name))) {
		if (d.name !== 'actions') {
			out.push({ handler: d.name, gated: reaches(d.text) });
			continue;
		}
		// Each form action is its own entry point: `\tname: ...` up to the next one.
		const parts = d.text.split(/\n(?=\t\w+:\s)/).slice(1);
		expect(parts.length, `${file}: no form actions found in its actions object`).toBeGreaterThan(0);
		for (const part of parts) out.push({ handler: `actions.${/^\t(\w+)/.exec(part)![1]}`, gated: reaches(part) });
	}
	return out;
}

const root = path.resolve('src/routes');
const files = routeFiles(root).map((f) => path.relative(root, f).split(path.sep).join('/')).sort();

describe('every route calls a gate of access/', () => {
	it('names gates that access/ exports', () => {
		for (const g of GATES) expect(typeof (access as Record<string, unknown>)[g], g).toBe('function');
	});

	it('finds the routes', () => {
		expect(files.length).toBeGreaterThan(30);
		expect(files).toContain('w/[ws]/relation/+server.ts');
		expect(files).toContain('w/[ws]/settings/+page.server.ts');
	});

	it.each(files.filter((f) => !(f in UNGATED)))('%s', (f) => {
		const handlers = handlersOf(path.join(root, f));
		expect(handlers.length, `${f} exports no handler`).toBeGreaterThan(0);
		for (const h of handlers) expect(h.gated, `${f}: ${h.handler} calls no gate of access/ (${GATES.join(', ')})`).toBe(true);
	});

	it.each(Object.entries(UNGATED))('%s is ungated on purpose: %s', (f) => {
		expect(files).toContain(f);
		// An allowlisted route that gates after all belongs in the walk, not the list.
		expect(handlersOf(path.join(root, f)).some((h) => h.gated)).toBe(false);
	});

	it('catches a handler without a gate, and one gated through a local helper', () => {
		const dir = mkdtempSync(path.join(tmpdir(), 'access-routes-'));
		const write = (name: string, text: string) => {
			const p = path.join(dir, name, '+server.ts');
			mkdirSync(path.dirname(p), { recursive: true });
			writeFileSync(p, text);
			return p;
		};
		const ungated = write('ungated', `import { requireAuth } from '$lib/server/access';\nexport const GET = async () => new Response('x');\nexport const POST = async (e) => { requireAuth(e); };\n`);
		expect(handlersOf(ungated)).toEqual([
			{ handler: 'GET', gated: false },
			{ handler: 'POST', gated: true }
		]);
		const helper = write('helper', `import { workspacePrincipal } from '$lib/server/access';\nfunction who(e) {\n\treturn workspacePrincipal(e, 'x');\n}\nexport const GET = async (e) => { await who(e); };\n`);
		expect(handlersOf(helper)).toEqual([{ handler: 'GET', gated: true }]);
		// A same-named function not imported from access/ is no gate.
		const fake = write('fake', `function requireAuth() {}\nexport const GET = async (e) => { requireAuth(e); };\n`);
		expect(handlersOf(fake)).toEqual([{ handler: 'GET', gated: false }]);
		rmSync(dir, { recursive: true });
	});
});
