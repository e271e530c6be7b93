// inferencePlan: dialect and catalog warnings on real manifests, and a catalog that does not fit.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { describeFixtures, fixture } from '../../../../tests/support/fixtures';
import { inferencePlan, resolverOf } from './index';

const read = (dir: string, file: string) => JSON.parse(readFileSync(fixture(dir, file), 'utf8'));
const JAFFLE = 'jaffle-shop-1.12-duckdb-docs-generate';

describeFixtures('inferencePlan warnings', () => {
	it('a catalog of another project: nothing matches, and the warning counts the relations', () => {
		const plan = inferencePlan(read(JAFFLE, 'manifest.json'), read('fivetran-sap-1.10.10-v12', 'catalog.json'));
		expect(plan.notInCatalog).toHaveLength(plan.relations.length);
		expect(plan.catalogWarning).toMatch(new RegExp(`^the catalog lists none of the manifest's ${plan.relations.length} relations \\(\\d+ entries: a catalog of another project\\?\\)`));
		expect(plan.models.every((m) => m.outputColumns === null)).toBe(true);
	});

	it('a catalog missing some models: what matches keeps its columns, the warning counts the rest', () => {
		const catalog = read(JAFFLE, 'catalog.json');
		delete catalog.nodes['model.jaffle_shop.orders'];
		delete catalog.nodes['model.jaffle_shop.customers'];
		delete catalog.sources['source.jaffle_shop.ecom.raw_orders'];
		const plan = inferencePlan(read(JAFFLE, 'manifest.json'), catalog);
		expect(plan.notInCatalog.sort()).toEqual(['model.jaffle_shop.customers', 'model.jaffle_shop.orders', 'source.jaffle_shop.ecom.raw_orders']);
		expect(plan.catalogWarning).toMatch(new RegExp(`^the catalog lacks 2 models and 1 other relation of the manifest's ${plan.relations.length} relations`));
		expect(resolverOf(plan).relation('model.jaffle_shop.stg_orders')?.columns).toContain('order_id');
		expect(resolverOf(plan).relation('model.jaffle_shop.orders')?.columns).toBeNull();
	});

	it('no catalog: a warning naming dbt docs generate', () => {
		expect(inferencePlan(read(JAFFLE, 'manifest.json'), null).catalogWarning).toMatch(/dbt docs generate/);
	});

	it.each([
		[JAFFLE, 'duckdb'],
		['jaffle-shop-1.9-bigquery-build', 'bigquery'],
		['fivetran-shopify-holistic-1.8.6-v12', 'postgres'],
		['tuva-1.3.1-snowflake-build-with-warn', 'snowflake']
	])('%s reads as %s', (dir, dialect) => {
		const plan = inferencePlan(read(dir, 'manifest.json'), read(dir, 'catalog.json'));
		expect([plan.dialect, plan.dialectWarning]).toEqual([dialect, null]);
	});

	it('an adapter with no dialect here reads as generic SQL, with a warning', () => {
		const manifest = read(JAFFLE, 'manifest.json');
		manifest.metadata.adapter_type = 'some_new_warehouse';
		const plan = inferencePlan(manifest, read(JAFFLE, 'catalog.json'));
		expect(plan.dialect).toBe('generic');
		expect(plan.dialectWarning).toMatch(/"some_new_warehouse".*generic SQL/);
	});
});

it('inferencePlan of something that is not a manifest plans nothing, and does not throw', () => {
	for (const odd of [null, 42, 'x', [], { nodes: 'no' }, { nodes: { a: null, b: { resource_type: 'model' } } }]) {
		const plan = inferencePlan(odd, { nodes: 5 });
		expect(plan.models.length + plan.relations.length).toBe(0);
		expect(plan.dialect).toBe('generic');
	}
});

describeFixtures('inferencePlan relations', () => {
	it('carry the catalog’s columns in its order with their types', () => {
		const plan = inferencePlan(read(JAFFLE, 'manifest.json'), read(JAFFLE, 'catalog.json'));
		const stg = plan.relations.find((r) => r.node === 'model.jaffle_shop.stg_locations')!;
		const entry = read(JAFFLE, 'catalog.json').nodes['model.jaffle_shop.stg_locations'];
		const byIndex = (Object.values(entry.columns) as { name: string; type: string; index: number }[]).sort((a, b) => a.index - b.index);
		expect(stg.columns).toEqual(byIndex.map((c) => c.name));
		expect(stg.types).toEqual(byIndex.map((c) => c.type));
		expect(stg.parts).toEqual(['jaffle_shop', 'main', 'stg_locations']);
	});
});

describeFixtures('inferencePlan on a manifest without compiled SQL', () => {
	it('a manifest from dbt parse: every model skipped, a warning naming the commands that compile', () => {
		const manifest = read(JAFFLE, 'manifest.json');
		for (const n of Object.values(manifest.nodes) as { compiled_code?: string }[]) delete n.compiled_code;
		const plan = inferencePlan(manifest, read(JAFFLE, 'catalog.json'));
		expect(plan.models.every((m) => m.sql === null && m.skip?.includes('dbt compile'))).toBe(true);
		expect(plan.compiledWarning).toMatch(/^no model has compiled SQL \(a manifest from `dbt parse`\).*`dbt compile`/);
	});

	it('some models without it are counted', () => {
		const plan = inferencePlan(read('dbt-bouncer-1.11.2-build', 'manifest.json'), read('dbt-bouncer-1.11.2-build', 'catalog.json'));
		expect(plan.compiledWarning).toMatch(/^20 models of 29 have no compiled SQL/);
		expect(inferencePlan(read(JAFFLE, 'manifest.json'), read(JAFFLE, 'catalog.json')).compiledWarning).toBeNull();
	});
});
