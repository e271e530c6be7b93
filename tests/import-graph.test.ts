// The house's layout as a test (docs/architecture.md, "The layers"): the import graph of src/ is
// read from the source and every import that breaks a rule fails, named by file and import.
// Imports that broke a rule when the test was written are listed in KNOWN; the list may only
// shrink: an entry that no longer occurs fails too, so whoever removes a violation removes its
// entry, and a new one cannot hide behind the list.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cycles, readImportGraph, type ImportEdge } from './support/import-graph';

const root = path.resolve(__dirname, '..');
const { files, edges } = readImportGraph(root);

const under = (p: string | null, dir: string) => p !== null && p.startsWith(dir);
const REPO = 'src/lib/server/repo/';
const SERVER = 'src/lib/server/';

interface Rule {
	name: string;
	breaks: (e: ImportEdge) => boolean;
}

const RULES: Rule[] = [
	{
		name: 'routes do not import repo/ (a route calls a service; SQL stays behind the gates)',
		breaks: (e) => under(e.from, 'src/routes/') && under(e.to, REPO)
	},
	{
		name: 'lib/lineage and lib/types are pure: no server, state, components, Svelte, $app, $env or Drizzle',
		breaks: (e) =>
			(under(e.from, 'src/lib/lineage/') || under(e.from, 'src/lib/types/')) &&
			(under(e.to, SERVER) ||
				under(e.to, 'src/lib/state/') ||
				under(e.to, 'src/lib/components/') ||
				(e.to ?? '').endsWith('.svelte') ||
				/^(\$app|\$env)(\/|$)/.test(e.specifier) ||
				/^svelte(\/|$)/.test(e.specifier) ||
				/^drizzle-orm(\/|$)/.test(e.specifier))
	},
	{
		name: 'lib/types is the floor: it does not import lib/lineage',
		breaks: (e) => under(e.from, 'src/lib/types/') && under(e.to, 'src/lib/lineage/')
	},
	{
		name: 'repo/ imports neither access, ingest/, runner/ nor the API services',
		breaks: (e) =>
			under(e.from, REPO) &&
			(e.to === `${SERVER}access.ts` ||
				under(e.to, `${SERVER}access/`) ||
				under(e.to, `${SERVER}ingest/`) ||
				under(e.to, `${SERVER}runner/`) ||
				under(e.to, `${SERVER}api/`) ||
				/^src\/lib\/server\/[^/]+-api\.ts$/.test(e.to ?? ''))
	},
	{
		name: 'server code does not import browser state or components',
		breaks: (e) => under(e.from, SERVER) && (under(e.to, 'src/lib/state/') || under(e.to, 'src/lib/components/'))
	},
	{
		name: 'ingest/ does not import runner/ (the runner calls the ingest; what both need lives below them)',
		breaks: (e) => under(e.from, `${SERVER}ingest/`) && under(e.to, `${SERVER}runner/`)
	},
	{
		name: 'runner/ does not import ingest/ (what both need lives below them, in dbt-files/)',
		breaks: (e) => under(e.from, `${SERVER}runner/`) && under(e.to, `${SERVER}ingest/`)
	},
	{
		name: 'the app does not import test data or benchmarks (tests/, bench/)',
		breaks: (e) => under(e.to, 'tests/') || under(e.to, 'bench/')
	}
];

// Today's violations, `file → import` as the file spells it. Remove an entry when you fix it.
const KNOWN: Record<string, string[]> = {};

// Today's cycles, each as its files in order. Same rule: remove one when it is broken.
const KNOWN_CYCLES: string[][] = [];

const label = (e: ImportEdge) => `${e.from} → ${e.specifier}`;

describe('the import graph of src/', () => {
	it('is read: every file, every import resolved', () => {
		// A reader that found nothing would pass every rule below.
		expect(files.length).toBeGreaterThan(200);
		expect(edges.filter((e) => e.to !== null).length).toBeGreaterThan(500);
		expect(files).toContain('src/lib/server/repo/jobs.ts');
		expect(edges.some((e) => e.from.endsWith('.svelte') && e.to?.startsWith('src/lib/'))).toBe(true);
	});

	it('names what breaks a rule and finds a cycle (the checks themselves, on made-up edges)', () => {
		const edge = (from: string, specifier: string, to: string | null): ImportEdge => ({ from, specifier, to, line: 1 });
		const broken = (e: ImportEdge) => RULES.filter((r) => r.breaks(e)).map((r) => r.name);
		expect(broken(edge('src/routes/api/x/+server.ts', '$lib/server/repo/jobs', 'src/lib/server/repo/jobs.ts'))).toEqual([RULES[0].name]);
		expect(broken(edge('src/lib/lineage/x.ts', '$app/environment', null))).toEqual([RULES[1].name]);
		expect(broken(edge('src/lib/types/x.ts', '../lineage/y', 'src/lib/lineage/y.ts'))).toEqual([RULES[2].name]);
		expect(broken(edge('src/lib/server/repo/x.ts', '../access', 'src/lib/server/access.ts'))).toEqual([RULES[3].name]);
		expect(broken(edge('src/lib/server/repo/x.ts', '../api/graph/reads', 'src/lib/server/api/graph/reads.ts'))).toEqual([RULES[3].name]);
		expect(broken(edge('src/lib/server/pages/x.ts', '$lib/state/y.svelte', 'src/lib/state/y.svelte.ts'))).toEqual([RULES[4].name]);
		expect(broken(edge('src/lib/server/ingest/x.ts', '../runner/worker', 'src/lib/server/runner/worker.ts'))).toEqual([RULES[5].name]);
		expect(broken(edge('src/lib/server/runner/x.ts', '../ingest/deploy', 'src/lib/server/ingest/deploy.ts'))).toEqual([RULES[6].name]);
		expect(broken(edge('src/lib/lineage/x.ts', '../../../tests/support/y', 'tests/support/y.ts'))).toEqual([RULES[7].name]);
		expect(broken(edge('src/lib/server/x-api.ts', './repo/jobs', 'src/lib/server/repo/jobs.ts'))).toEqual([]);
		expect(broken(edge('src/lib/server/runner/x.ts', '../dbt-files/descriptor', 'src/lib/server/dbt-files/descriptor.ts'))).toEqual([]);
		expect(broken(edge('src/lib/server/ingest/x.ts', '../dbt-files/errors', 'src/lib/server/dbt-files/errors.ts'))).toEqual([]);
		const abc = ['a.ts', 'b.ts', 'c.ts', 'd.ts'];
		expect(cycles(abc, [edge('a.ts', './b', 'b.ts'), edge('b.ts', './c', 'c.ts'), edge('c.ts', './a', 'a.ts'), edge('c.ts', './d', 'd.ts')])).toEqual([['a.ts', 'b.ts', 'c.ts']]);
		expect(cycles(abc, [edge('a.ts', './b', 'b.ts'), edge('b.ts', './c', 'c.ts')])).toEqual([]);
	});

	for (const rule of RULES) {
		it(rule.name, () => {
			const found = [...new Set(edges.filter(rule.breaks).map(label))].sort();
			const known = KNOWN[rule.name] ?? [];
			const fresh = found.filter((f) => !known.includes(f));
			const gone = known.filter((k) => !found.includes(k));
			if (known.length) console.log(`[import-graph] ${rule.name}: ${found.length} violation(s), ${known.length} listed as known (the list may only shrink)`);
			const located = fresh.map((f) => {
				const e = edges.find((x) => label(x) === f)!;
				return `${e.from}:${e.line} imports "${e.specifier}"${e.to ? ` (${e.to})` : ''}`;
			});
			expect(located, `imports that break "${rule.name}"`).toEqual([]);
			expect(gone, 'listed in KNOWN but no longer imported: remove them from the list').toEqual([]);
		});
	}

	it('has no cycles', () => {
		const found = cycles(files, edges);
		const key = (c: string[]) => [...c].sort().join(' , ');
		const known = KNOWN_CYCLES.map(key);
		const fresh = found.filter((c) => !known.includes(key(c)));
		const gone = known.filter((k) => !found.some((c) => key(c) === k));
		if (known.length) console.log(`[import-graph] ${found.length} known cycle(s) left`);
		const named = fresh.map((c) => {
			const inCycle = new Set(c);
			const links = edges.filter((e) => inCycle.has(e.from) && e.to !== null && inCycle.has(e.to)).map((e) => `  ${e.from}:${e.line} imports "${e.specifier}"`);
			return `a cycle through ${c.length} file(s):\n${links.join('\n')}`;
		});
		expect(named, 'import cycles').toEqual([]);
		expect(gone, 'listed in KNOWN_CYCLES but no longer a cycle: remove them from the list').toEqual([]);
	});
});
