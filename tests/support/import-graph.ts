// The import graph of src/: every .ts, .js and .svelte file (tests left out: they ship nowhere)
// and what it imports, read with TypeScript's own pre-processor (static, type-only, dynamic and
// re-exports alike) and resolved as SvelteKit resolves them ($lib, relative paths, .svelte and
// .svelte.ts modules, a .js suffix naming a .ts file).
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface ImportEdge {
	/** Importer, relative to the repository (`src/lib/...`). */
	from: string;
	/** What the source text says (`$lib/server/repo/jobs`). */
	specifier: string;
	/** The file it resolves to (relative to the repository), or null for a package or `$app/*`. */
	to: string | null;
	/** 1-based line of the import in the importer (in the .svelte file for a component). */
	line: number;
}

const SOURCE = /\.(ts|js|svelte)$/;
const TEST = /\.test\.ts$/;

function walk(dir: string, out: string[]): void {
	for (const entry of readdirSync(dir)) {
		const full = path.join(dir, entry);
		if (statSync(full).isDirectory()) walk(full, out);
		else if (SOURCE.test(entry) && !TEST.test(entry) && !entry.endsWith('.d.ts')) out.push(full);
	}
}

/** The <script> blocks of a .svelte file, each with the line it starts on. */
function svelteScripts(text: string): { code: string; line: number }[] {
	const blocks: { code: string; line: number }[] = [];
	const re = /<script\b[^>]*>([\s\S]*?)<\/script>/g;
	for (let m = re.exec(text); m; m = re.exec(text)) {
		const start = m.index + m[0].indexOf('>') + 1;
		blocks.push({ code: m[1], line: text.slice(0, start).split('\n').length });
	}
	return blocks;
}

function resolveFile(base: string): string | null {
	const candidates = [base, `${base}.ts`, `${base}.js`, `${base}.svelte.ts`, path.join(base, 'index.ts'), path.join(base, 'index.js')];
	if (base.endsWith('.js')) candidates.unshift(`${base.slice(0, -3)}.ts`);
	for (const c of candidates) if (existsSync(c) && statSync(c).isFile()) return c;
	return null;
}

/** Reads the graph of `srcDir` (absolute); paths in the answer are relative to `root`. */
export function readImportGraph(root: string, srcDir = path.join(root, 'src')): { files: string[]; edges: ImportEdge[] } {
	const abs: string[] = [];
	walk(srcDir, abs);
	const rel = (p: string) => path.relative(root, p).split(path.sep).join('/');
	const lib = path.join(srcDir, 'lib');
	const edges: ImportEdge[] = [];
	for (const file of abs) {
		const text = readFileSync(file, 'utf8');
		const parts = file.endsWith('.svelte') ? svelteScripts(text) : [{ code: text, line: 1 }];
		for (const part of parts) {
			const info = ts.preProcessFile(part.code, true, true);
			for (const imported of info.importedFiles) {
				const specifier = imported.fileName;
				const line = part.line + part.code.slice(0, imported.pos).split('\n').length - 1;
				let target: string | null = null;
				// Vite's import queries (`./x.svg?raw`) name the file before the `?`.
				const bare = specifier.replace(/\?.*$/, '');
				if (bare === '$lib' || bare.startsWith('$lib/')) target = path.join(lib, bare.slice(4));
				else if (bare.startsWith('.')) target = path.resolve(path.dirname(file), bare);
				// Kit's generated route types (./$types) are not source.
				if (target && /\/\$types(\.js)?$/.test(target)) continue;
				const resolved = target ? resolveFile(target) : null;
				if (target && !resolved) throw new Error(`${rel(file)}:${line}: cannot resolve "${specifier}"`);
				edges.push({ from: rel(file), specifier, to: resolved ? rel(resolved) : null, line });
			}
		}
	}
	return { files: abs.map(rel).sort(), edges };
}

/** Every cycle of the file graph, as its strongly connected components of more than one file (or a file importing itself). */
export function cycles(files: string[], edges: ImportEdge[]): string[][] {
	const next = new Map<string, string[]>(files.map((f) => [f, []]));
	for (const e of edges) if (e.to && next.has(e.to)) next.get(e.from)!.push(e.to);
	// Tarjan's algorithm, iterative so a deep import chain cannot overflow the stack.
	let index = 0;
	const idx = new Map<string, number>();
	const low = new Map<string, number>();
	const onStack = new Set<string>();
	const stack: string[] = [];
	const out: string[][] = [];
	for (const start of files) {
		if (idx.has(start)) continue;
		const work: { v: string; i: number }[] = [{ v: start, i: 0 }];
		idx.set(start, index);
		low.set(start, index++);
		stack.push(start);
		onStack.add(start);
		while (work.length) {
			const top = work[work.length - 1];
			const succ = next.get(top.v)!;
			if (top.i < succ.length) {
				const w = succ[top.i++];
				if (!idx.has(w)) {
					idx.set(w, index);
					low.set(w, index++);
					stack.push(w);
					onStack.add(w);
					work.push({ v: w, i: 0 });
				} else if (onStack.has(w)) low.set(top.v, Math.min(low.get(top.v)!, idx.get(w)!));
				continue;
			}
			work.pop();
			if (work.length) {
				const parent = work[work.length - 1].v;
				low.set(parent, Math.min(low.get(parent)!, low.get(top.v)!));
			}
			if (low.get(top.v) === idx.get(top.v)) {
				const scc: string[] = [];
				let w: string;
				do {
					w = stack.pop()!;
					onStack.delete(w);
					scc.push(w);
				} while (w !== top.v);
				if (scc.length > 1 || next.get(top.v)!.includes(top.v)) out.push(scc.sort());
			}
		}
	}
	return out.sort((a, b) => a[0].localeCompare(b[0]));
}
