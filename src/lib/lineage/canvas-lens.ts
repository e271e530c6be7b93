// Lenses: what colours the cards — resource type, materialization, the run's status, or the
// tests' state (the worst test wins). Each card falls in one legend entry; the legend lists the
// entries of the lens with how many cards each holds. Pure: colours are CSS custom properties
// named after the entry (`--lens-<lens>-<key>`), defined in the global stylesheet.
import type { RunState, TestState } from '../types/canvas';

export type Lens = 'none' | 'type' | 'materialization' | 'run' | 'tests';

export const LENSES: readonly { id: Lens; label: string }[] = [
	{ id: 'none', label: 'No lens' },
	{ id: 'type', label: 'Resource type' },
	{ id: 'materialization', label: 'Materialization' },
	{ id: 'run', label: 'Run status' },
	{ id: 'tests', label: 'Test status' }
];

export const isLens = (v: unknown): v is Lens => LENSES.some((l) => l.id === v);

/** What a lens reads of a card's node. */
export interface LensNode {
	type: 'asset' | 'runnable' | 'consumer';
	kind: string;
	resourceType?: string;
	materialized?: string | null;
	tests?: { error: number; warn: number };
}

// The states are wire types (types/canvas.ts): the server sends them in page data.
export type { RunState, TestState } from '../types/canvas';

export interface LensEntry {
	key: string;
	label: string;
}

// Legend order: the entries of each lens, worst first where there is a worst.
const ENTRIES: Record<Exclude<Lens, 'none'>, LensEntry[]> = {
	type: [
		{ key: 'model', label: 'model' },
		{ key: 'source', label: 'source' },
		{ key: 'seed', label: 'seed' },
		{ key: 'snapshot', label: 'snapshot' },
		{ key: 'lake', label: 'lake table' },
		{ key: 'dataset', label: 'OpenLineage dataset' },
		{ key: 'script', label: 'producer script' },
		{ key: 'job', label: 'OpenLineage job' },
		{ key: 'other', label: 'other' }
	],
	materialization: [
		{ key: 'table', label: 'table' },
		{ key: 'view', label: 'view' },
		{ key: 'incremental', label: 'incremental' },
		{ key: 'ephemeral', label: 'ephemeral' },
		{ key: 'materialized_view', label: 'materialized view' },
		{ key: 'snapshot', label: 'snapshot' },
		{ key: 'other', label: 'other' },
		{ key: 'none', label: 'not materialized by dbt' }
	],
	run: [
		{ key: 'failed', label: 'failed' },
		{ key: 'warned', label: 'warned' },
		{ key: 'skipped', label: 'skipped' },
		{ key: 'running', label: 'running' },
		{ key: 'built', label: 'built / passed' },
		{ key: 'none', label: 'not in the run' }
	],
	tests: [
		{ key: 'fail', label: 'a test failed' },
		{ key: 'warn', label: 'a test warned' },
		{ key: 'skip', label: 'a test was skipped' },
		{ key: 'pass', label: 'tests passed' },
		{ key: 'untested', label: 'tests, no result' },
		{ key: 'none', label: 'no tests' }
	]
};

export function lensEntries(lens: Lens): LensEntry[] {
	return lens === 'none' ? [] : ENTRIES[lens];
}

const KNOWN_TYPES = new Set(['model', 'source', 'seed', 'snapshot']);
const KNOWN_MATS = new Set(['table', 'view', 'incremental', 'ephemeral', 'materialized_view', 'snapshot']);

/**
 * The legend entry of a node under a lens. `run` is the node's state in the run on screen;
 * `test` the worst result of its tests there (fail over warn over pass), when known.
 */
export function lensKey(lens: Lens, n: LensNode, run?: RunState, test?: TestState): string | null {
	switch (lens) {
		case 'none':
			return null;
		case 'type':
			if (n.type === 'runnable') return n.kind === 'openlineage' ? 'job' : 'script';
			if (n.kind === 'ducklake') return 'lake';
			if (n.kind === 'openlineage') return 'dataset';
			return n.resourceType && KNOWN_TYPES.has(n.resourceType) ? n.resourceType : 'other';
		case 'materialization': {
			if (n.type !== 'asset' || n.kind !== 'dbt' || n.resourceType === 'source' || n.resourceType === 'seed') return 'none';
			const m = n.resourceType === 'snapshot' ? 'snapshot' : n.materialized;
			if (!m) return 'none';
			return KNOWN_MATS.has(m) ? m : 'other';
		}
		case 'run':
			if (!run) return 'none';
			return run === 'materialized' || run === 'passed' ? 'built' : run;
		case 'tests':
			if (test) return test;
			return n.tests && n.tests.error + n.tests.warn > 0 ? 'untested' : 'none';
	}
}

const TEST_RANK: Record<TestState, number> = { fail: 3, warn: 2, skip: 1, pass: 0 };

/**
 * The worst of some test results: one failure makes the relation's tests fail; a skipped test
 * (dbt did not run it, e.g. after its model failed) outranks passes, so a relation whose tests
 * did not all run in this run never reads as passed.
 */
export function worstTest(results: Iterable<TestState>): TestState | undefined {
	let worst: TestState | undefined;
	for (const r of results) {
		if (r === 'fail') return 'fail';
		if (worst === undefined || TEST_RANK[r] > TEST_RANK[worst]) worst = r;
	}
	return worst;
}

/** A relation with the kinds of the generic tests declared on it, as the test lens reads it. */
export interface TestedRelation {
	/** Canvas node id. */
	id: string;
	/** dbt's unique_id: `model.<package>.<name>`, `source.<package>.<source>.<table>`, … */
	uniqueId: string;
	kinds: readonly (string | null)[];
}

const OUTCOME_TEST: Record<string, TestState> = { passed: 'pass', warned: 'warn', failed: 'fail', unknown: 'fail', skipped: 'skip' };

/**
 * The worst test result of each relation, from a run's results and the graph's own record of
 * which relations each test tests (`owners`: a generic test's attached node, a singular test's
 * `ref()`/`source()` parents). Exact for every test the graph holds, namespaced (`dbt_utils_…`)
 * and singular ones included; a result whose test the graph does not hold falls back to dbt's
 * synthesized names (testStatusesOf).
 */
export function testStatusesByOwner(
	results: readonly { unique_id: string; outcome: string }[],
	owners: ReadonlyMap<string, readonly string[]>,
	relations: readonly TestedRelation[]
): Map<string, TestState> {
	const idOf = new Map(relations.map((r) => [r.uniqueId, r.id]));
	const found = new Map<string, TestState[]>();
	const unowned: { unique_id: string; outcome: string }[] = [];
	for (const res of results) {
		if (!res.unique_id.startsWith('test.')) continue;
		const state = OUTCOME_TEST[res.outcome];
		if (!state) continue;
		const of = owners.get(res.unique_id);
		if (!of) {
			unowned.push(res);
			continue;
		}
		for (const owner of of) {
			const id = idOf.get(owner);
			if (!id) continue;
			const list = found.get(id);
			if (list) list.push(state);
			else found.set(id, [state]);
		}
	}
	const out = new Map<string, TestState>();
	for (const [id, states] of found) out.set(id, worstTest(states)!);
	for (const [id, state] of testStatusesOf(unowned, relations)) out.set(id, worstTest([state, ...(found.get(id) ?? [])])!);
	return out;
}

/**
 * The worst test result of each relation, from a run's results. A result names its test, not
 * the relation, so a generic test is matched by the name dbt synthesizes for it:
 * `<test>_<model>_<column and args>` (`source_<test>_<source>_<table>…` for a source), longest
 * relation name first so `orders_items` is not taken for `orders`. Singular tests, and generic
 * tests of a namespace (`dbt_utils_…`), carry no name to match and are left out.
 */
export function testStatusesOf(results: readonly { unique_id: string; outcome: string }[], relations: readonly TestedRelation[]): Map<string, TestState> {
	const subjects: { prefix: string; id: string }[] = [];
	for (const r of relations) {
		const parts = r.uniqueId.split('.');
		const [type] = parts;
		for (const kind of new Set(r.kinds)) {
			if (!kind) continue;
			if (type === 'source' && parts.length >= 4) subjects.push({ prefix: `source_${kind}_${parts[2]}_${parts.slice(3).join('.')}`, id: r.id });
			else if (type !== 'source' && parts.length >= 3) subjects.push({ prefix: `${kind}_${parts.slice(2).join('.')}`, id: r.id });
		}
	}
	subjects.sort((a, b) => b.prefix.length - a.prefix.length);
	const found = new Map<string, TestState[]>();
	for (const res of results) {
		if (!res.unique_id.startsWith('test.')) continue;
		const state = OUTCOME_TEST[res.outcome];
		if (!state) continue;
		const name = res.unique_id.split('.')[2] ?? '';
		const hit = subjects.find((s) => name === s.prefix || name.startsWith(`${s.prefix}_`));
		if (!hit) continue;
		const list = found.get(hit.id);
		if (list) list.push(state);
		else found.set(hit.id, [state]);
	}
	const out = new Map<string, TestState>();
	for (const [id, states] of found) out.set(id, worstTest(states)!);
	return out;
}
