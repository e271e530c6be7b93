import { describe, expect, it } from 'vitest';
import type { ImpactEntry } from '../types/graph-diff';
import type { ColumnEdgeLike } from './components';
import { describeImpact, diffGraphs, emptyDiff, reachesLevel, redactDiff, worseOf, type ChangedNode, type DiffInput, type DiffNode } from './graph-diff';

const SIDES = { from: { hash: '00000000000000aa', job_id: null }, to: { hash: null, job_id: 'job-1' } };

function model(name: string, columns: Record<string, string> | null, extra: Partial<DiffNode> = {}): DiffNode {
	return {
		uniqueId: `model.shop.${name}`,
		resourceType: 'model',
		assetPath: `main/analytics/${name}`,
		materialized: 'table',
		materializeStrategy: null,
		uniqueKey: null,
		rawCode: `select * from ${name}_src`,
		description: null,
		tags: [],
		columns: null,
		columnSchema: columns === null ? null : Object.entries(columns).map(([n, type]) => ({ name: n, type })),
		...extra
	};
}

const edge = (p: string, pc: string, c: string, cc: string, kind = 'copy'): ColumnEdgeLike => ({
	parentUniqueId: `model.shop.${p}`,
	parentColumn: pc,
	childUniqueId: `model.shop.${c}`,
	childColumn: cc,
	lineageKind: kind
});

// Who reads what in the `from` graph: customers.email feeds two mart columns and a producer.
const READERS: Record<string, ImpactEntry[]> = {
	'main/analytics/customers\u0000email': [
		{ kind: 'dbt', asset_path: 'main/analytics/mart_contacts', column: 'email', depth: 1, kinds: ['copy'], via: [] },
		{ kind: 'ducklake', asset_path: 'lake/crm/export', column: 'email', depth: 1, kinds: ['producer'], via: ['f/lake/crm_export'] },
		{ kind: 'ducklake', asset_path: 'lake/crm/export_mail', column: 'email', depth: 2, kinds: ['producer', 'producer'], via: ['f/lake/crm_export'] }
	],
	'main/analytics/customers\u0000id': [{ kind: 'dbt', asset_path: 'main/analytics/orders', column: 'customer_id', depth: 1, kinds: ['copy'], via: [] }]
};

const base = model('customers', { id: 'integer', email: 'varchar', name: 'varchar' });

function input(changed: ChangedNode[], extra: Partial<DiffInput> = {}): DiffInput {
	return {
		changed,
		testsChangedOf: [],
		refEdges: { added: [], removed: [] },
		columnEdges: { from: [], to: [] },
		hasColumnLineage: { from: true, to: true },
		impactOf: (path, column) => READERS[`${path}\u0000${column}`] ?? [],
		...extra
	};
}

const pair = (from: DiffNode | null, to: DiffNode | null): ChangedNode => ({ uniqueId: (from ?? to)!.uniqueId, from, to });

interface Case {
	name: string;
	input: DiffInput;
	expect: {
		added?: string[];
		removed?: string[];
		renamed?: { from: string; to: string }[];
		modified?: { unique_id: string; changes: string[]; classification: string; reason?: RegExp }[];
		columnsAdded?: string[];
		columnsRemoved?: { column: string; impact: number | null }[];
		retyped?: { column: string; from_type: string; to_type: string; impact: number }[];
		classification: string | null;
		columnEdges?: { added: number; removed: number } | null;
	};
}

const cases: Case[] = [
	{
		name: 'a dropped column that downstream reads is breaking, with its readers in the reason',
		input: input([pair(base, model('customers', { id: 'integer', name: 'varchar' }, { rawCode: 'select id, name from customers_src' }))]),
		expect: {
			modified: [
				{
					unique_id: 'model.shop.customers',
					changes: ['sql', 'columns'],
					classification: 'breaking',
					reason: /removes `customers\.email`, which 3 downstream columns and the producer `f\/lake\/crm_export` read/
				}
			],
			columnsRemoved: [{ column: 'email', impact: 3 }],
			classification: 'breaking'
		}
	},
	{
		name: 'a dropped column nothing reads is non-breaking',
		input: input([pair(base, model('customers', { id: 'integer', email: 'varchar' }, { rawCode: 'select id, email from customers_src' }))]),
		expect: {
			modified: [{ unique_id: 'model.shop.customers', changes: ['sql', 'columns'], classification: 'non_breaking', reason: /`name`, which nothing downstream reads/ }],
			columnsRemoved: [{ column: 'name', impact: 0 }],
			classification: 'non_breaking'
		}
	},
	{
		name: 'a retyped column that downstream reads is breaking',
		input: input([pair(base, model('customers', { id: 'bigint', email: 'varchar', name: 'varchar' }, { rawCode: 'select id::bigint as id, email, name from customers_src' }))]),
		expect: {
			modified: [{ unique_id: 'model.shop.customers', changes: ['sql', 'column_types'], classification: 'breaking', reason: /retypes `customers\.id` \(integer → bigint\)/ }],
			retyped: [{ column: 'id', from_type: 'integer', to_type: 'bigint', impact: 1 }],
			classification: 'breaking'
		}
	},
	{
		name: 'a renamed model removes its columns at the old path and is listed as a rename',
		input: input([pair(base, null), pair(null, model('clients', { id: 'integer', email: 'varchar', name: 'varchar' }, { rawCode: base.rawCode }))]),
		expect: {
			added: ['model.shop.clients'],
			removed: ['model.shop.customers'],
			renamed: [{ from: 'model.shop.customers', to: 'model.shop.clients' }],
			columnsAdded: ['email', 'id', 'name'],
			columnsRemoved: [
				{ column: 'email', impact: 3 },
				{ column: 'id', impact: 1 },
				{ column: 'name', impact: 0 }
			],
			classification: 'breaking'
		}
	},
	{
		name: 'an added model is non-breaking and lists its columns',
		input: input([pair(null, model('loyalty', { tier: 'varchar' }))]),
		expect: { added: ['model.shop.loyalty'], columnsAdded: ['tier'], classification: 'non_breaking' }
	},
	{
		name: 'a changed SQL without typed columns in one graph is unknown, never a guess',
		input: input([pair(base, model('customers', null, { rawCode: 'select id from customers_src' }))]),
		expect: {
			modified: [{ unique_id: 'model.shop.customers', changes: ['sql', 'columns'], classification: 'unknown', reason: /`to` graph has no typed columns/ }],
			classification: 'unknown'
		}
	},
	{
		name: 'a graph without column lineage makes a removed model unknown',
		input: input([pair(base, null)], { hasColumnLineage: { from: false, to: true } }),
		expect: {
			removed: ['model.shop.customers'],
			columnsRemoved: [
				{ column: 'email', impact: null },
				{ column: 'id', impact: null },
				{ column: 'name', impact: null }
			],
			classification: 'unknown',
			columnEdges: null
		}
	},
	{
		name: 'a column computed from other parents, read downstream, is partial',
		input: input([pair(base, model('customers', { id: 'integer', email: 'varchar', name: 'varchar' }, { rawCode: 'select id, contact_email as email, name from customers_src' }))], {
			columnEdges: {
				from: [edge('src', 'email', 'customers', 'email'), edge('src', 'id', 'customers', 'id')],
				to: [edge('src', 'contact_email', 'customers', 'email'), edge('src', 'id', 'customers', 'id')]
			}
		}),
		expect: {
			modified: [{ unique_id: 'model.shop.customers', changes: ['sql', 'column_lineage'], classification: 'partial', reason: /lineage of `customers\.email` changed; 3 downstream columns/ }],
			classification: 'partial',
			columnEdges: { added: 1, removed: 1 }
		}
	},
	{
		name: 'a materialization change alone is non-breaking',
		input: input([pair(base, { ...base, materialized: 'incremental', uniqueKey: 'id' })]),
		expect: { modified: [{ unique_id: 'model.shop.customers', changes: ['materialized'], classification: 'non_breaking' }], classification: 'non_breaking' }
	},
	{
		name: "a test change is its model's change",
		input: input([], { testsChangedOf: [{ uniqueId: 'model.shop.customers', assetPath: 'main/analytics/customers' }] }),
		expect: { modified: [{ unique_id: 'model.shop.customers', changes: ['tests'], classification: 'non_breaking' }], classification: 'non_breaking' }
	}
];

describe('diffGraphs', () => {
	it.each(cases)('$name', ({ input: inp, expect: want }) => {
		const d = diffGraphs(inp, SIDES);
		expect(d.from).toEqual(SIDES.from);
		expect(d.models.added).toEqual(want.added ?? []);
		expect(d.models.removed).toEqual(want.removed ?? []);
		expect(d.models.renamed).toEqual(want.renamed ?? []);
		expect(d.models.modified.map((m) => ({ unique_id: m.unique_id, changes: m.changes, classification: m.classification }))).toEqual(
			(want.modified ?? []).map(({ reason: _r, ...m }) => m)
		);
		for (const [i, m] of (want.modified ?? []).entries()) if (m.reason) expect(d.models.modified[i].reason).toMatch(m.reason);
		expect(d.columns!.added.map((c) => c.column)).toEqual(want.columnsAdded ?? []);
		expect(d.columns!.removed.map((c) => ({ column: c.column, impact: c.impact === null ? null : c.impact.length }))).toEqual(want.columnsRemoved ?? []);
		expect(d.columns!.retyped.map((c) => ({ column: c.column, from_type: c.from_type, to_type: c.to_type, impact: c.impact?.length }))).toEqual(want.retyped ?? []);
		expect(d.classification).toBe(want.classification);
		if (want.columnEdges !== undefined) expect(d.column_edges).toEqual(want.columnEdges);
	});

	it('passes the ref() edge changes through, sorted', () => {
		const e = (a: string, b: string) => ({ from_unique_id: a, to_unique_id: b, from_asset_path: null, to_asset_path: null });
		const d = diffGraphs(input([], { refEdges: { added: [e('b', 'c'), e('a', 'c')], removed: [e('x', 'y')] } }), SIDES);
		expect(d.ref_edges.added.map((x) => x.from_unique_id)).toEqual(['a', 'b']);
		expect(d.ref_edges.removed).toHaveLength(1);
	});
});

describe('redactDiff', () => {
	it('keeps the shape and the classification, drops columns, reasons and SQL-derived changes', () => {
		const full = diffGraphs(cases[0].input, SIDES);
		const shape = redactDiff(full);
		expect(shape.authored).toBe(false);
		expect('columns' in shape).toBe(false);
		expect(shape.column_edges).toBeNull();
		expect(shape.models.modified).toEqual([{ unique_id: 'model.shop.customers', asset_path: 'main/analytics/customers', changes: [], classification: 'breaking' }]);
		expect(JSON.stringify(shape)).not.toContain('email');
	});
});

describe('levels', () => {
	it.each([
		['breaking', 'breaking', true],
		['partial', 'breaking', false],
		['breaking', 'partial', true],
		['unknown', 'partial', false],
		['partial', 'unknown', true],
		['non_breaking', 'unknown', false]
	] as const)('%s reaches --fail-on %s: %s', (c, level, yes) => {
		expect(reachesLevel(c, level)).toBe(yes);
	});
	it('an empty diff reaches no level', () => {
		expect(reachesLevel(emptyDiff(SIDES).classification, 'non_breaking')).toBe(false);
		expect(worseOf(null, 'partial')).toBe('partial');
	});
	it('describes who an impact reaches', () => {
		expect(describeImpact([])).toBe('nothing downstream');
		expect(describeImpact(READERS['main/analytics/customers\u0000id'])).toBe('1 downstream column');
	});
});
