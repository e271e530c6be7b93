import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeFixtures, fixture, FIXTURES } from '../../../../tests/support/fixtures';
import { inferencePlan } from '$lib/lineage/infer/manifest';
import { capRawCode, IngestError, parseManifest, parseManifestFile, type ManifestOptions, type ParsedGraph } from './manifest';

// ---------------------------------------------------------------------------------------------
// Independent expectations, computed from the raw JSON with deliberately simple loops (no code
// shared with manifest.ts).

type Raw = Record<string, any>;

const NODE_SECTION_TYPES = ['model', 'seed', 'snapshot', 'test', 'analysis'];

function rawGraphNodes(raw: Raw): Map<string, Raw> {
	const out = new Map<string, Raw>();
	for (const [id, n] of Object.entries<Raw>(raw.nodes)) if (NODE_SECTION_TYPES.includes(n.resource_type)) out.set(id, n);
	for (const [id, n] of Object.entries<Raw>(raw.sources ?? {})) out.set(id, n);
	for (const [id, n] of Object.entries<Raw>(raw.unit_tests ?? {})) out.set(id, n);
	return out;
}

function countByType(nodes: Iterable<Raw>): Record<string, number> {
	const out: Record<string, number> = {};
	for (const n of nodes) out[n.resource_type] = (out[n.resource_type] ?? 0) + 1;
	return out;
}

/** parent_map pairs between graph nodes, ephemeral models replaced by their non-ephemeral ancestors. */
function rawWalkedEdges(raw: Raw): string[] {
	const nodes = rawGraphNodes(raw);
	const eph = (id: string) => nodes.get(id)?.resource_type === 'model' && nodes.get(id)?.config?.materialized === 'ephemeral';
	const out = new Set<string>();
	for (const [child, parents] of Object.entries<string[]>(raw.parent_map)) {
		if (!nodes.has(child) || eph(child)) continue;
		const stack = [...parents];
		const seen = new Set<string>();
		while (stack.length) {
			const p = stack.pop()!;
			if (seen.has(p)) continue;
			seen.add(p);
			if (!nodes.has(p)) continue;
			if (eph(p)) stack.push(...(raw.parent_map[p] ?? []));
			else if (p !== child) out.add(`${p} > ${child}`);
		}
	}
	return [...out].sort();
}

function edgeStrings(g: ParsedGraph): string[] {
	return g.edges.map((e) => `${e.parent} > ${e.child}`);
}

function bfs(start: string[], next: Record<string, string[]>, depth = Infinity): Set<string> {
	const out = new Set<string>(start);
	let frontier = [...start];
	for (let d = 0; d < depth && frontier.length; d++) {
		frontier = frontier.flatMap((id) => next[id] ?? []).filter((id) => !out.has(id));
		for (const id of frontier) out.add(id);
	}
	return out;
}

/** dbt's eager indirect selection: add every test or unit test with a parent in the set. */
function withTests(raw: Raw, ids: Set<string>): Set<string> {
	const nodes = rawGraphNodes(raw);
	const out = new Set(ids);
	for (const [id, n] of nodes) {
		if (n.resource_type !== 'test' && n.resource_type !== 'unit_test') continue;
		if ((raw.parent_map[id] ?? []).some((p: string) => ids.has(p))) out.add(id);
	}
	return out;
}

/** The stored node set for a selection: selected plus the parents of edges into it (no ephemerals in these fixtures' paths). */
function keptFor(raw: Raw, selected: Set<string>): { kept: string[]; anchors: string[] } {
	const nodes = rawGraphNodes(raw);
	const sel = new Set([...selected].filter((id) => nodes.has(id)));
	const anchors = new Set<string>();
	for (const e of rawWalkedEdges(raw)) {
		const [p, c] = e.split(' > ');
		if (sel.has(c) && !sel.has(p)) anchors.add(p);
	}
	return { kept: [...sel, ...anchors].sort(), anchors: [...anchors].sort() };
}

function findManifests(dir: string): string[] {
	const out: string[] = [];
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const p = path.join(dir, entry.name);
		if (entry.isDirectory()) {
			if (entry.name !== 'json-schemas') out.push(...findManifests(p));
		} else if (/manifest.*\.json$/.test(entry.name)) out.push(p);
	}
	return out.sort();
}

const cache = new Map<string, { text: string; raw: Raw }>();
function load(...parts: string[]): { text: string; raw: Raw } {
	const p = fixture(...parts);
	let hit = cache.get(p);
	if (!hit) {
		const text = readFileSync(p, 'utf8');
		hit = { text, raw: JSON.parse(text) };
		cache.set(p, hit);
	}
	return hit;
}

function refusal(fn: () => unknown): IngestError {
	try {
		fn();
	} catch (e) {
		expect(e).toBeInstanceOf(IngestError);
		return e as IngestError;
	}
	throw new Error('expected an IngestError, nothing was thrown');
}

// ---------------------------------------------------------------------------------------------

describeFixtures('parseManifest: every real manifest parses or is refused clearly', () => {
	const files = findManifests(FIXTURES);

	it('finds the fixture manifests', () => {
		// 16 supported manifests and 4 refused ones (v2 ×2, v7, v8) at the time of writing; a
		// lower bound so the loop below cannot pass by finding nothing.
		expect(files.length).toBeGreaterThanOrEqual(20);
	});

	it.each(files.map((f) => [path.relative(FIXTURES, f), f]))('%s', (_rel, file) => {
		const text = readFileSync(file, 'utf8');
		const raw = JSON.parse(text);
		const version = Number(/manifest\/v(\d+)\.json/.exec(raw.metadata.dbt_schema_version)![1]);
		const fileName = path.basename(file);
		if (version < 10 || version > 12) {
			const err = refusal(() => parseManifest(text, { fileName }));
			expect(err.message).toBe(
				`${fileName}: schema version v${version} is not supported (supported: v10, v11, v12); it was written by dbt ${raw.metadata.dbt_version}, and dbt 1.6 or newer writes a supported one`
			);
			expect(err.status).toBe(400);
			return;
		}
		const g = parseManifest(text, { fileName, defaultDatabase: null });
		const expectedNodes = rawGraphNodes(raw);
		expect(g.nodes.map((n) => n.uniqueId)).toEqual([...expectedNodes.keys()].sort());
		expect(g.stats.byResourceType).toEqual(countByType(expectedNodes.values()));
		expect(g.stats.skippedByResourceType).toEqual(
			countByType(Object.values<Raw>(raw.nodes).filter((n) => !NODE_SECTION_TYPES.includes(n.resource_type)))
		);
		expect(edgeStrings(g)).toEqual(rawWalkedEdges(raw));
		expect(g.schemaVersion).toBe(`v${version}`);
		expect(g.dbtVersion).toBe(raw.metadata.dbt_version);
		expect(g.adapterType).toBe(raw.metadata.adapter_type);
		expect(g.stats.anchorParents).toBe(0);
		expect(g.nodes.every((n) => !n.anchorOnly)).toBe(true);
		// Every relation-bearing node of these projects has a plain schema and name, so a path.
		for (const n of g.nodes) {
			const eph = n.materialized === 'ephemeral';
			const relation = ['model', 'seed', 'snapshot', 'source'].includes(n.resourceType) && !eph;
			expect(n.assetPath !== null, n.uniqueId).toBe(relation);
		}
	});
});

// parseManifestFile reads the bytes section by section (json-sections.ts) and drops what nothing
// reads: on every real manifest, under selections and for the inference plan, it must give exactly
// what parseManifest of the whole text gives, and refuse what it refuses with the same message.
describeFixtures('parseManifestFile: the same graph as parseManifest, from the bytes', () => {
	const files = findManifests(FIXTURES);
	const bytesOf = (text: string) => new TextEncoder().encode(text);
	/** The graph and the document handed to the inference plan, or the refusal's message. */
	const outcome = (parse: (opts: ManifestOptions) => ParsedGraph, opts: ManifestOptions) => {
		let doc: unknown = null;
		try {
			const graph = parse({ ...opts, onDocument: (d) => (doc = d) });
			return { graph, plan: inferencePlan(doc, null) };
		} catch (e) {
			expect(e).toBeInstanceOf(IngestError);
			return { refused: (e as IngestError).message };
		}
	};

	it.each(files.map((f) => [path.relative(FIXTURES, f), f]))('%s', (_rel, file) => {
		const text = readFileSync(file, 'utf8');
		const opts = { fileName: path.basename(file), defaultDatabase: null };
		const fromText = outcome((o) => parseManifest(text, o), opts);
		expect(outcome((o) => parseManifestFile(bytesOf(text), o), opts)).toEqual(fromText);
	});

	it.each([
		['jaffle-shop-1.12-duckdb-docs-generate', { select: ['+orders'], exclude: ['test_type:unit'] }],
		['jaffle-shop-1.12-duckdb-docs-generate', { select: ['path:models/staging', 'resource_type:seed'] }],
		['dbt-bouncer-1.11.2-build', { select: ['tag:critical'] }],
		['dbt-bouncer-1.11.2-build', { selector: 'nodes_to_exclude' }],
		['dbt-bouncer-1.11.2-build', { select: ['+exposure:*'] }]
	])('%s selecting %j', (dir, selection) => {
		const { text } = load(dir, 'manifest.json');
		const fromText = outcome((o) => parseManifest(text, o), { selection });
		expect(fromText.refused).toBeUndefined();
		expect(outcome((o) => parseManifestFile(bytesOf(text), o), { selection })).toEqual(fromText);
	});

	it('bad bytes get the message parseManifest gives, wherever the fault is', () => {
		const { text } = load('jaffle-shop-1.12-duckdb-docs-generate', 'manifest.json');
		const cases = [
			text.slice(0, Math.floor(text.length / 2)),
			text.replace('"nodes": {', '"nodes": {,'),
			// In a section nothing reads: still refused, as JSON.parse would.
			text.replace('"macros": {', '"macros": {"macro.x": nul, '),
			`${text} x`,
			'',
			'[1, 2]',
			'{"metadata": {"dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v12.json"}}'
		];
		for (const bad of cases) {
			const message = refusal(() => parseManifest(bad, { fileName: 'target/manifest.json' })).message;
			expect(refusal(() => parseManifestFile(bytesOf(bad), { fileName: 'target/manifest.json' })).message).toBe(message);
		}
		const notUtf8 = new Uint8Array([...bytesOf('{"metadata": "'), 0xff, ...bytesOf('"}')]);
		expect(refusal(() => parseManifestFile(notUtf8)).message).toBe('manifest.json: is not UTF-8 text (expected dbt JSON)');
	});
});

describeFixtures('parseManifest: jaffle-shop 1.12 fields', () => {
	const { text, raw } = load('jaffle-shop-1.12-duckdb-docs-generate', 'manifest.json');
	const g = parseManifest(text, { defaultDatabase: 'jaffle_shop' });
	const node = (id: string) => g.nodes.find((n) => n.uniqueId === id)!;

	it('folds every generic test onto its node: kind, column, severity, args', () => {
		const tests = Object.entries<Raw>(raw.nodes).filter(([, n]) => n.resource_type === 'test');
		expect(tests).toHaveLength(27);
		for (const [id, t] of tests) {
			const { column_name: _c, model: _m, ...args } = t.test_metadata.kwargs;
			expect(node(id), id).toMatchObject({
				resourceType: 'test',
				testKind: t.test_metadata.name,
				testColumn: t.column_name ?? null,
				severity: t.config.severity.toLowerCase(),
				attachedNode: t.attached_node,
				testArgs: Object.keys(args).length ? args : null,
				assetPath: null,
				rawCode: null
			});
		}
	});

	it.each([
		['test.jaffle_shop.not_null_stg_supplies_supply_uuid.515c6eda6d', 'not_null', 'supply_uuid', null, 'model.jaffle_shop.stg_supplies'],
		[
			'test.jaffle_shop.relationships_orders_customer_id__customer_id__ref_stg_customers_.918495ce16',
			'relationships',
			'customer_id',
			{ to: "ref('stg_customers')", field: 'customer_id' },
			'model.jaffle_shop.orders'
		],
		[
			'test.jaffle_shop.accepted_values_customers_customer_type__new__returning.d12f0947c8',
			'accepted_values',
			'customer_type',
			{ values: ['new', 'returning'] },
			'model.jaffle_shop.customers'
		],
		[
			'test.jaffle_shop.dbt_utils_expression_is_true_orders_order_total_subtotal_tax_paid.2aba85df92',
			'expression_is_true',
			null,
			{ expression: 'order_total = subtotal + tax_paid' },
			'model.jaffle_shop.orders'
		]
	])('%s', (id, kind, column, args, attached) => {
		expect(node(id)).toMatchObject({ testKind: kind, testColumn: column, testArgs: args, severity: 'error', attachedNode: attached });
	});

	it('keeps unit tests as nodes attached to the model they test', () => {
		expect(node('unit_test.jaffle_shop.orders.test_order_items_compute_to_bools_correctly')).toMatchObject({
			resourceType: 'unit_test',
			testKind: 'unit',
			attachedNode: 'model.jaffle_shop.orders',
			assetPath: null
		});
	});

	it('gives relations their asset path against the default database', () => {
		expect(node('source.jaffle_shop.ecom.raw_customers').assetPath).toBe('main/raw/raw_customers');
		expect(node('model.jaffle_shop.orders').assetPath).toBe('main/main/orders');
		// The seeds are loaded into the `raw` schema by this project's dbt_project.yml.
		expect(node('seed.jaffle_shop.raw_items').assetPath).toBe(`main/${raw.nodes['seed.jaffle_shop.raw_items'].schema}/raw_items`);
		const other = parseManifest(text, { defaultDatabase: 'warehouse' });
		expect(other.nodes.find((n) => n.uniqueId === 'model.jaffle_shop.orders')!.assetPath).toBe('main/jaffle_shop.main/orders');
	});

	it('carries model fields: materialized, description, declared columns, SQL, file', () => {
		const orders = node('model.jaffle_shop.orders');
		const r = raw.nodes['model.jaffle_shop.orders'];
		expect(orders).toMatchObject({
			materialized: 'table',
			materializeStrategy: null,
			uniqueKey: null,
			tags: [],
			description: r.description,
			rawCode: r.raw_code,
			originalFilePath: 'models/marts/orders.sql',
			database: 'jaffle_shop',
			schema: 'main',
			freshness: null
		});
		expect(orders.columns).toEqual(Object.fromEntries(Object.values<Raw>(r.columns).map((c) => [c.name, c.description])));
		expect(orders.columns!.order_id).toBe('The unique key of the orders mart.');
	});

	it('stores an empty description as null', () => {
		const emptyDescribed = Object.entries<Raw>(raw.nodes).filter(([, n]) => n.description === '').map(([id]) => id);
		expect(emptyDescribed.length).toBeGreaterThan(0);
		for (const id of emptyDescribed) expect(node(id).description).toBeNull();
	});
});

describeFixtures('parseManifest: Fusion and dbt-core manifests of one project', () => {
	const core = load('dbt-bouncer-1.11.2-build', 'manifest.json');
	const fusion = load('dbt-bouncer-fusion-2.0.0-beta.2-build', 'manifest.json');

	it('reads the Fusion manifest (no build_path/docs/created_at, operation skipped, unit test versions)', () => {
		const g = parseManifest(fusion.text, { defaultDatabase: 'dbt' });
		expect(g.dbtVersion).toBe('2.0.0-beta.2');
		expect(g.stats.skippedByResourceType).toEqual({ operation: 1 });
		const ut = g.nodes.find((n) => n.uniqueId === 'unit_test.dbt_bouncer_test_project.customers.test_clv_logic_historical.v1')!;
		expect(ut.attachedNode).toBe(fusion.raw.unit_tests[ut.uniqueId].tested_node_unique_id);
		const v2 = g.nodes.find((n) => n.uniqueId === 'model.dbt_bouncer_test_project.customers.v2')!;
		expect(v2.assetPath).toBe(`main/${fusion.raw.nodes[v2.uniqueId].schema}/customers_v2`);
	});

	it('walks ephemeral models: their children hang off the ephemeral model’s own parents', () => {
		const g = parseManifest(fusion.text);
		const eph = 'model.dbt_bouncer_test_project.stg_raw_orders_for_snapshot';
		expect(g.nodes.find((n) => n.uniqueId === eph)).toMatchObject({ materialized: 'ephemeral', assetPath: null });
		expect(g.edges.filter((e) => e.parent === eph || e.child === eph)).toEqual([]);
		const snapshot = 'snapshot.dbt_bouncer_test_project.snapshot_orders';
		expect(fusion.raw.parent_map[snapshot]).toEqual([eph]);
		expect(g.edges.filter((e) => e.child === snapshot).map((e) => e.parent)).toEqual(fusion.raw.parent_map[eph]);
		const test = 'test.dbt_bouncer_test_project.not_null_stg_raw_orders_for_snapshot_id.6c2295e8b9';
		const ephParents = fusion.raw.parent_map[eph] as string[];
		expect(ephParents.length).toBeGreaterThan(0);
		expect(g.edges.filter((e) => e.child === test).map((e) => e.parent)).toEqual([...ephParents].sort());
		expect(g.nodes.find((n) => n.uniqueId === test)!.attachedNode).toBe(eph);
	});

	it('stores snapshot strategy, incremental strategy and composite unique keys', () => {
		const g = parseManifest(core.text);
		const byId = new Map(g.nodes.map((n) => [n.uniqueId, n]));
		for (const [id, n] of Object.entries<Raw>(core.raw.nodes)) {
			const key = n.config.unique_key;
			const expected = key == null ? null : Array.isArray(key) ? key.join(', ') : key;
			expect(byId.get(id)!.uniqueKey, id).toBe(expected);
			if (n.resource_type === 'snapshot') expect(byId.get(id)!.materializeStrategy).toBe(n.config.strategy);
			if (n.config.materialized === 'incremental') expect(byId.get(id)!.materializeStrategy).toBe(n.config.incremental_strategy);
		}
		expect([...byId.values()].some((n) => n.uniqueKey?.includes(', '))).toBe(true);
	});

	it('parses a Python model and reports the default selector without applying it', () => {
		const g = parseManifest(core.text);
		expect(g.nodes.find((n) => n.uniqueId === 'model.dbt_bouncer_test_project.py_order_stats')!.rawCode).toBe(
			core.raw.nodes['model.dbt_bouncer_test_project.py_order_stats'].raw_code
		);
		expect(g.stats.defaultSelector).toBe('nodes_to_exclude');
		expect(g.nodes).toHaveLength(rawGraphNodes(core.raw).size);
	});
});

describeFixtures('parseManifest: raw_code cap (fivetran-sap, the largest SQL bodies)', () => {
	const { text, raw } = load('fivetran-sap-1.10.10-v12', 'manifest.json');
	const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

	it('stores every body whole under the default 64 KiB cap', () => {
		const g = parseManifest(text);
		expect(g.stats.rawCodeTruncated).toBe(0);
		// Seeds have an empty body, stored as none.
		for (const n of g.nodes) if (raw.nodes[n.uniqueId]) expect(n.rawCode).toBe(raw.nodes[n.uniqueId].raw_code || null);
		expect(g.nodes.filter((n) => n.resourceType === 'seed').every((n) => n.rawCode === null)).toBe(true);
	});

	it('caps bodies over a smaller cap with a visible last line', () => {
		const cap = 8192;
		const g = parseManifest(text, { rawCodeCap: cap });
		const over = Object.entries<Raw>(raw.nodes).filter(([, n]) => bytes(n.raw_code ?? '') > cap);
		expect(over.length).toBeGreaterThan(0);
		expect(g.stats.rawCodeTruncated).toBe(over.length);
		const biggest = over.reduce((a, b) => (bytes(a[1].raw_code) >= bytes(b[1].raw_code) ? a : b));
		const code = g.nodes.find((n) => n.uniqueId === biggest[0])!.rawCode!;
		const total = bytes(biggest[1].raw_code);
		expect(code.endsWith(`\n-- [truncated by Tributary: ${total.toLocaleString('en-US')} bytes, showing the first 8,192]`)).toBe(true);
		expect(code.startsWith(Buffer.from(biggest[1].raw_code, 'utf8').subarray(0, cap).toString('utf8'))).toBe(true);
		for (const n of g.nodes) if (n.rawCode && !n.rawCode.includes('-- [truncated by Tributary')) expect(bytes(n.rawCode)).toBeLessThanOrEqual(cap);
	});
});

describe('capRawCode', () => {
	it.each([
		['select 1', 64, 'select 1', false],
		['x'.repeat(10), 10, 'x'.repeat(10), false],
		['x'.repeat(11), 10, `${'x'.repeat(10)}\n-- [truncated by Tributary: 11 bytes, showing the first 10]`, true],
		// 'é' is two bytes: a cut in its middle backs off to the character before it.
		['aé' + 'b'.repeat(5), 2, 'a\n-- [truncated by Tributary: 8 bytes, showing the first 1]', true],
		['€€€', 4, '€\n-- [truncated by Tributary: 9 bytes, showing the first 3]', true]
	])('%j capped at %i', (code, cap, expected, truncated) => {
		expect(capRawCode(code, cap)).toEqual({ code: expected, truncated });
	});
});

// ---------------------------------------------------------------------------------------------
// Selection

describeFixtures('parseManifest: selection (jaffle-shop 1.12)', () => {
	const { text, raw } = load('jaffle-shop-1.12-duckdb-docs-generate', 'manifest.json');
	const nodes = rawGraphNodes(raw);
	const ids = (pred: (n: Raw, id: string) => boolean) => new Set([...nodes].filter(([id, n]) => pred(n, id)).map(([id]) => id));
	const run = (select: string[], exclude: string[] = [], extra: ManifestOptions = {}) =>
		parseManifest(text, { selection: { select, exclude }, ...extra });
	const expectKept = (g: ParsedGraph, selected: Set<string>) => {
		const { kept, anchors } = keptFor(raw, selected);
		expect(g.nodes.map((n) => n.uniqueId)).toEqual(kept);
		expect(g.nodes.filter((n) => n.anchorOnly).map((n) => n.uniqueId)).toEqual(anchors);
		expect(g.stats.anchorParents).toBe(anchors.length);
		expect(g.edges.every((e) => selected.has(e.child))).toBe(true);
		expect(edgeStrings(g)).toEqual(rawWalkedEdges(raw).filter((e) => selected.has(e.split(' > ')[1])));
	};

	it('by name: the model, its tests, and its parents kept as anchors', () => {
		const g = run(['customers']);
		const selected = withTests(raw, new Set(['model.jaffle_shop.customers']));
		expectKept(g, selected);
		expect(g.nodes.filter((n) => n.anchorOnly).map((n) => n.uniqueId)).toEqual(['model.jaffle_shop.orders', 'model.jaffle_shop.stg_customers']);
		expect(g.stats.byResourceType).toEqual({ model: 3, test: 4 });
	});

	it('a relationships test under eager selection brings its other parent as an anchor', () => {
		const g = run(['stg_order_items']);
		const rel = 'test.jaffle_shop.relationships_stg_order_items_order_id__order_id__ref_stg_orders_.dbe9930c54';
		expect(g.nodes.find((n) => n.uniqueId === rel)).toBeDefined();
		expect(g.nodes.find((n) => n.uniqueId === 'model.jaffle_shop.stg_orders')!.anchorOnly).toBe(true);
		expectKept(g, withTests(raw, new Set(['model.jaffle_shop.stg_order_items'])));
	});

	it('cautious indirect selection drops a test whose other parent is not selected', () => {
		const g = run(['stg_order_items'], [], { indirectSelection: 'cautious' });
		const rel = 'test.jaffle_shop.relationships_stg_order_items_order_id__order_id__ref_stg_orders_.dbe9930c54';
		expect(g.nodes.find((n) => n.uniqueId === rel)).toBeUndefined();
		const selected = ids(
			(n, id) => id === 'model.jaffle_shop.stg_order_items' || (n.resource_type === 'test' && raw.parent_map[id].every((p: string) => p === 'model.jaffle_shop.stg_order_items'))
		);
		expect(selected.size).toBe(4);
		expectKept(g, selected);
	});

	it('empty indirect selection takes no tests along', () => {
		const g = run(['customers'], [], { indirectSelection: 'empty' });
		expect(g.nodes.filter((n) => n.resourceType === 'test')).toEqual([]);
	});

	it('+x: every ancestor', () => {
		const g = run(['+customers']);
		expectKept(g, withTests(raw, bfs(['model.jaffle_shop.customers'], raw.parent_map)));
		expect(g.stats.anchorParents).toBe(0);
	});

	it('x+: every descendant', () => {
		const g = run(['stg_orders+']);
		expectKept(g, withTests(raw, bfs(['model.jaffle_shop.stg_orders'], raw.child_map)));
	});

	it('1+x and x+1: one generation', () => {
		expectKept(run(['1+orders']), withTests(raw, bfs(['model.jaffle_shop.orders'], raw.parent_map, 1)));
		expectKept(run(['stg_orders+1']), withTests(raw, bfs(['model.jaffle_shop.stg_orders'], raw.child_map, 1)));
	});

	it('@x: descendants and all their ancestors', () => {
		const down = bfs(['model.jaffle_shop.stg_supplies'], raw.child_map);
		expectKept(run(['@stg_supplies']), withTests(raw, bfs([...down], raw.parent_map)));
	});

	it('path: a folder prefix of original_file_path', () => {
		const g = run(['path:models/staging']);
		const selected = withTests(raw, ids((n) => String(n.original_file_path).startsWith('models/staging/')));
		expectKept(g, selected);
		// Sources are declared in models/staging/__sources.yml, so they are selected too.
		expect(g.nodes.filter((n) => n.resourceType === 'source' && !n.anchorOnly)).toHaveLength(6);
		// A bare path is read as a path, as dbt does.
		expect(run(['models/staging']).nodes).toEqual(g.nodes);
		// A prefix that is not a whole folder name selects nothing.
		expect(() => run(['path:models/stag'])).toThrow(IngestError);
	});

	it('resource_type:, comma intersection, and the union of several strings', () => {
		const seeds = run(['resource_type:seed']);
		expectKept(seeds, ids((n) => n.resource_type === 'seed'));
		const tables = run(['resource_type:model,config.materialized:table']);
		expectKept(tables, withTests(raw, ids((n) => n.resource_type === 'model' && n.config.materialized === 'table')));
		const union = run(['resource_type:seed', 'locations']);
		expectKept(union, new Set([...ids((n) => n.resource_type === 'seed'), ...withTests(raw, new Set(['model.jaffle_shop.locations']))]));
		// Whitespace inside one string is a union too.
		expect(run(['resource_type:seed locations']).nodes).toEqual(union.nodes);
	});

	it('package: and fqn prefix', () => {
		expect(run(['package:jaffle_shop']).nodes).toHaveLength(nodes.size);
		expect(run(['package:this']).nodes).toHaveLength(nodes.size);
		const marts = run(['jaffle_shop.marts']);
		expectKept(marts, withTests(raw, ids((n) => n.resource_type !== 'source' && n.fqn[1] === 'marts')));
		expect(run(['stg_*']).stats.selected).toBe(withTests(raw, ids((n) => n.resource_type === 'model' && n.name.startsWith('stg_'))).size);
	});

	it('source: selects sources by source name and table', () => {
		expectKept(run(['source:ecom.raw_orders']), withTests(raw, new Set(['source.jaffle_shop.ecom.raw_orders'])));
		expect(run(['source:ecom']).nodes.filter((n) => n.resourceType === 'source')).toHaveLength(6);
	});

	it('exclude removes nodes and their tests', () => {
		const g = run(['path:models/marts'], ['customers']);
		const marts = withTests(raw, ids((n) => String(n.original_file_path).startsWith('models/marts/')));
		const excluded = withTests(raw, new Set(['model.jaffle_shop.customers']));
		expectKept(g, new Set([...marts].filter((id) => !excluded.has(id))));
		expect(g.nodes.some((n) => n.uniqueId === 'model.jaffle_shop.customers')).toBe(false);
	});

	it('exclude alone removes from the whole project', () => {
		const g = run([], ['resource_type:test', 'resource_type:unit_test']);
		expect(g.nodes.some((n) => n.resourceType === 'test' || n.resourceType === 'unit_test')).toBe(false);
		expect(g.nodes).toHaveLength(ids((n) => n.resource_type !== 'test' && n.resource_type !== 'unit_test').size);
	});

	it('records selector strings that matched nothing while others did', () => {
		const g = run(['customers', 'tag:nope']);
		expect(g.stats.unmatchedSelectors).toEqual(['tag:nope']);
	});

	it.each([
		[['tag:nope'], [], 'descriptor (select): ["tag:nope"] matches no node in manifest.json'],
		[['customers'], ['customers'], 'descriptor (select): ["customers"] matches no node in manifest.json once exclude ["customers"] is applied'],
		[[], ['*'], 'descriptor (exclude): ["*"] excludes every node of manifest.json']
	])('select %j exclude %j is refused', (select, exclude, message) => {
		const err = refusal(() => run(select, exclude));
		expect(err.message).toBe(message);
		expect(err.status).toBe(400);
	});

	it.each([['state:modified'], ['result:error'], ['source_status:fresher+']])('%s is refused as not evaluable', (sel) => {
		expect(() => run([sel])).toThrow(/cannot be evaluated from a manifest alone/);
	});

	// dbt itself refuses an unknown method as not a method (not as unevaluable), and so does the
	// shared parser, naming where the problem is.
	it.each([
		['wat:x', 'descriptor (select): "wat:x" at character 1: unknown method "wat:"'],
		['tag:a +', 'descriptor (select): "tag:a +" at character 7: names nothing to select'],
		['a+b', 'descriptor (select): "a+b" at character 2: "+" can only lead or trail a selector'],
		['@+orders', 'descriptor (select): "@+orders" at character 1: "@" and a leading "+" cannot be combined'],
		['orders --exclude x', 'descriptor (select): "orders --exclude x" at character 8: "--exclude" belongs in the exclude field, not in a select string']
	])('%s is refused with its position', (sel, message) => {
		const err = refusal(() => run([sel]));
		expect(err.message.startsWith(message)).toBe(true);
		expect(err.status).toBe(400);
	});
});

describeFixtures('parseManifest: selection (dbt-bouncer: tags, packages, selectors.yml)', () => {
	const { text, raw } = load('dbt-bouncer-1.11.2-build', 'manifest.json');
	const nodes = rawGraphNodes(raw);

	it('tag: selects nodes carrying the tag', () => {
		const tagged = [...nodes].filter(([, n]) => (n.tags ?? []).includes('critical')).map(([id]) => id);
		expect(tagged.length).toBeGreaterThan(0);
		const g = parseManifest(text, { selection: { select: ['tag:critical'] } });
		const selected = new Set(withTests(raw, new Set(tagged)));
		expect(g.nodes.filter((n) => !n.anchorOnly).map((n) => n.uniqueId)).toEqual([...selected].sort());
	});

	it('package: selects one package; its parents in other packages are anchors', () => {
		const g = parseManifest(text, { selection: { select: ['package:tiktok_ads'] } });
		const own = [...nodes].filter(([, n]) => n.package_name === 'tiktok_ads').map(([id]) => id);
		const selected = withTests(raw, new Set(own));
		const { kept, anchors } = keptFor(raw, selected);
		expect(g.nodes.map((n) => n.uniqueId)).toEqual(kept);
		expect(anchors.length).toBeGreaterThan(0);
		expect(g.nodes.filter((n) => n.anchorOnly).every((n) => n.packageName !== 'tiktok_ads')).toBe(true);
	});

	it('selector: evaluates a selectors.yml definition from the manifest', () => {
		const g = parseManifest(text, { selection: { selector: 'nodes_to_exclude' } });
		const pkg = raw.selectors.nodes_to_exclude.definition.value;
		const own = [...nodes].filter(([, n]) => n.package_name === pkg).map(([id]) => id);
		expect(g.nodes.filter((n) => !n.anchorOnly).map((n) => n.uniqueId)).toEqual([...withTests(raw, new Set(own))].sort());
		expect(() => parseManifest(text, { selection: { selector: 'missing' } })).toThrow(/selector "missing" is not defined/);
	});
});

// ---------------------------------------------------------------------------------------------
// Hand-made manifests: ephemeral chains and bad input

function mini(nodes: Record<string, Raw>, parentMap: Record<string, string[]>, extra: Raw = {}): string {
	return JSON.stringify({
		metadata: { dbt_schema_version: 'https://schemas.getdbt.com/dbt/manifest/v12.json', dbt_version: '1.9.0', project_name: 'p', adapter_type: 'postgres' },
		nodes,
		sources: {},
		parent_map: parentMap,
		...extra
	});
}

const model = (name: string, materialized = 'table', more: Raw = {}) => ({
	resource_type: 'model',
	name,
	database: 'db',
	schema: 'analytics',
	alias: name,
	package_name: 'p',
	fqn: ['p', name],
	original_file_path: `models/${name}.sql`,
	config: { materialized },
	raw_code: `select * from ${name}`,
	...more
});

describe('parseManifest: ephemeral models are walked through', () => {
	const text = mini(
		{
			'model.p.a': model('a'),
			'model.p.e1': model('e1', 'ephemeral'),
			'model.p.e2': model('e2', 'ephemeral'),
			'model.p.b': model('b'),
			'model.p.c': model('c'),
			'test.p.not_null_e1_id': { resource_type: 'test', name: 'not_null_e1_id', config: { severity: 'WARN' }, attached_node: 'model.p.e1', column_name: 'id', test_metadata: { name: 'not_null', kwargs: { column_name: 'id', model: '{{ x }}' } } },
			'operation.p.hook': { resource_type: 'operation', name: 'hook' }
		},
		{
			'model.p.a': [],
			'model.p.e1': ['model.p.a'],
			'model.p.e2': ['model.p.e1', 'model.p.c'],
			'model.p.b': ['model.p.e2', 'model.p.a', 'model.p.b'],
			'model.p.c': [],
			'test.p.not_null_e1_id': ['model.p.e1'],
			'exposure.p.dash': ['model.p.b']
		}
	);

	it('A → E1 → E2 → B is stored as A → B; C → E2 → B as C → B; no self-edge, no duplicates', () => {
		const g = parseManifest(text);
		expect(edgeStrings(g)).toEqual(['model.p.a > model.p.b', 'model.p.a > test.p.not_null_e1_id', 'model.p.c > model.p.b']);
		expect(g.nodes.map((n) => n.uniqueId)).toEqual(['model.p.a', 'model.p.b', 'model.p.c', 'model.p.e1', 'model.p.e2', 'test.p.not_null_e1_id']);
		expect(g.stats.ephemeralModels).toBe(2);
		expect(g.stats.skippedByResourceType).toEqual({ operation: 1 });
		expect(g.stats.edgesToNonNodes).toBe(1);
		expect(g.nodes.find((n) => n.uniqueId === 'model.p.e1')!.assetPath).toBeNull();
		// A model without declared columns has none, rather than an empty object.
		expect(g.nodes.find((n) => n.uniqueId === 'model.p.a')!.columns).toBeNull();
		expect(g.nodes.find((n) => n.uniqueId === 'model.p.b')!.assetPath).toBe('main/db.analytics/b');
		expect(g.nodes.find((n) => n.uniqueId === 'test.p.not_null_e1_id')).toMatchObject({ severity: 'warn', testArgs: null, testColumn: 'id' });
	});

	it('selecting B keeps the walked parents as anchors, never the ephemerals', () => {
		const g = parseManifest(text, { selection: { select: ['b'] } });
		expect(g.nodes.map((n) => [n.uniqueId, n.anchorOnly])).toEqual([
			['model.p.a', true],
			['model.p.b', false],
			['model.p.c', true]
		]);
		expect(edgeStrings(g)).toEqual(['model.p.a > model.p.b', 'model.p.c > model.p.b']);
	});

	it('`+exposure:` selects the exposure’s ancestors', () => {
		const g = parseManifest(mini(JSON.parse(text).nodes, JSON.parse(text).parent_map, { exposures: { 'exposure.p.dash': { name: 'dash' } } }), {
			selection: { select: ['+exposure:dash'] }
		});
		expect(g.nodes.filter((n) => !n.anchorOnly).map((n) => n.uniqueId)).toEqual([
			'model.p.a',
			'model.p.b',
			'model.p.c',
			'model.p.e1',
			'model.p.e2',
			'test.p.not_null_e1_id'
		]);
	});

	it('falls back to depends_on when a manifest has no parent_map', () => {
		const doc = JSON.parse(text);
		delete doc.parent_map;
		doc.nodes['model.p.c'].depends_on = { nodes: ['model.p.a'] };
		doc.nodes['model.p.b'].depends_on = { nodes: ['model.p.c'] };
		expect(edgeStrings(parseManifest(JSON.stringify(doc)))).toEqual(['model.p.a > model.p.c', 'model.p.c > model.p.b']);
	});
});

describeFixtures('parseManifest: bad input names the file and the problem', () => {
	const { text } = load('jaffle-shop-1.12-duckdb-docs-generate', 'manifest.json');

	it('a truncated manifest', () => {
		const cut = text.slice(0, Math.floor(text.length / 2));
		const err = refusal(() => parseManifest(cut, { fileName: 'target/manifest.json' }));
		expect(err.message).toMatch(/^target\/manifest\.json: is truncated: the JSON ends at line \d+, column \d+ \(character \d+\) before the document is complete$/);
		expect(err.file).toBe('target/manifest.json');
	});

	it('malformed JSON in the middle, with its position', () => {
		const broken = text.replace('"nodes": {', '"nodes": {,');
		const err = refusal(() => parseManifest(broken));
		const pos = broken.indexOf('"nodes": {,') + '"nodes": {'.length;
		const line = broken.slice(0, pos).split('\n').length;
		expect(err.message).toMatch(new RegExp(`^manifest\\.json: is not valid JSON: .* at line ${line}, column \\d+ \\(character ${pos}\\)$`));
	});

	it.each([
		['', 'manifest.json: is empty (expected the JSON of a dbt manifest)'],
		['[1, 2]', 'manifest.json: is not a dbt manifest: the document is an array, not an object'],
		['{"a": 1}', 'manifest.json: is not a dbt manifest: it has no `metadata`'],
		['{"metadata": {}}', 'manifest.json: is not a dbt manifest: its `metadata` has no `dbt_schema_version`'],
		[
			'{"metadata": {"dbt_schema_version": "https://schemas.getdbt.com/dbt/run-results/v6.json"}, "results": []}',
			'manifest.json: is not a dbt manifest: it is a dbt run-results artifact (run-results v6)'
		],
		['{"metadata": {"dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v12.json"}}', 'manifest.json: is not a dbt manifest: it has no `nodes` object'],
		[
			'{"metadata": {"dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v13.json"}, "nodes": {}}',
			'manifest.json: schema version v13 is not supported (supported: v10, v11, v12), and dbt 1.6 or newer writes a supported one'
		]
	])('%j', (input, message) => {
		expect(refusal(() => parseManifest(input)).message).toBe(message);
	});

	it.each([
		['resource_type', 'model.p.a', { name: 'a' }],
		['name', 'model.p.a', { resource_type: 'model' }],
		['name', 'model.p.a', { resource_type: 'model', name: 42 }]
	])('a node missing `%s` is named', (field, id, node) => {
		const err = refusal(() => parseManifest(mini({ [id]: node }, {})));
		expect(err.message).toBe(`manifest.json (nodes["${id}"].${field}): node "${id}" has no \`${field}\``);
		expect(err.field).toBe(`nodes["${id}"].${field}`);
	});

	it('a source or unit test missing a field is named in its section', () => {
		const doc = JSON.parse(mini({}, {}));
		doc.sources = { 'source.p.s.t': { resource_type: 'source' } };
		expect(refusal(() => parseManifest(JSON.stringify(doc))).message).toBe('manifest.json (sources["source.p.s.t"].name): node "source.p.s.t" has no `name`');
		doc.sources = {};
		doc.unit_tests = { 'unit_test.p.m.t': { name: 't' } };
		expect(refusal(() => parseManifest(JSON.stringify(doc))).field).toBe('unit_tests["unit_test.p.m.t"].resource_type');
	});

	it('a node that is not an object', () => {
		expect(refusal(() => parseManifest(mini({ 'model.p.a': 'oops' as unknown as Raw }, {}))).message).toBe(
			'manifest.json (nodes["model.p.a"]): node "model.p.a" is a string, not an object'
		);
	});
});
