import { describe, expect, it } from 'vitest';
import {
	MAX_ASSET_PATH_LENGTH,
	nodeAssetPath,
	relationAssetPath,
	relationNameAssetPath,
	splitRelationName
} from './relation-path';

describe('splitRelationName', () => {
	it.each([
		['"db"."schema"."name"', ['db', 'schema', 'name']],
		['db.schema.name', ['db', 'schema', 'name']],
		['schema.name', ['schema', 'name']],
		['"analytics.v2"."orders"', ['analytics.v2', 'orders']],
		['"db"."analytics.v2"."orders"', ['db', 'analytics.v2', 'orders']],
		['"we""ird"."x"', ['we"ird', 'x']],
		['"a"""."b"', ['a"', 'b']],
		['`your-project`.`jaffle_shop`.`orders`', ['your-project', 'jaffle_shop', 'orders']],
		['`proj`.`data.set`.`t`', ['proj', 'data.set', 't']],
		['`my-project.dataset.table`', ['my-project', 'dataset', 'table']],
		['[db].[dbo].[my table]', ['db', 'dbo', 'my table']],
		['[a]]b].[c]', ['a]b', 'c']],
		['"DB".PUBLIC."Orders"', ['DB', 'PUBLIC', 'Orders']],
		[' "db" . "s" . "n" ', ['db', 's', 'n']],
		['"postgres"."public"."raw_customers"', ['postgres', 'public', 'raw_customers']]
	])('%s → %j', (input, expected) => {
		expect(splitRelationName(input)).toEqual(expected);
	});

	it.each([
		['', 'empty'],
		['   ', 'blank'],
		['"db"."unterminated', 'unterminated quote'],
		['[db.x', 'unterminated bracket'],
		['a..b', 'empty identifier'],
		['.a', 'leading separator'],
		['a.', 'trailing separator'],
		['"a"b.c', 'text after a closing quote'],
		['a"b".c', 'quote inside a bare identifier']
	])('%j is refused (%s)', (input, _why) => {
		expect(splitRelationName(input)).toBeNull();
	});
});

// Every case runs in a warehouse named `main`: the name starts the path, as written.
const wh = (defaultDatabase: string | null | undefined) => ({ name: 'main', defaultDatabase });
const inMain = (p: string) => `main/${p}`;

describe('relationAssetPath', () => {
	it.each([
		// [relation, default database, expected, why]
		[{ database: 'analytics', schema: 'marts', name: 'orders' }, 'analytics', 'marts/orders', 'same database'],
		[{ database: 'ANALYTICS', schema: 'marts', name: 'orders' }, 'analytics', 'marts/orders', 'same database, other case'],
		[{ database: 'analytics', schema: 'marts', name: 'orders' }, 'Analytics', 'marts/orders', 'default in other case'],
		[{ database: 'raw_db', schema: 'stripe', name: 'charges' }, 'analytics', 'raw_db.stripe/charges', 'other database'],
		[{ database: 'Raw_DB', schema: 'Stripe', name: 'Charges' }, 'analytics', 'raw_db.stripe/charges', 'other database, lowercased'],
		[{ database: 'analytics', schema: 'marts', name: 'orders' }, null, 'analytics.marts/orders', 'default unknown (null)'],
		[{ database: 'analytics', schema: 'marts', name: 'orders' }, undefined, 'analytics.marts/orders', 'default unknown (undefined)'],
		[{ database: 'analytics', schema: 'marts', name: 'orders' }, '', 'analytics.marts/orders', 'default unknown (empty)'],
		[{ database: null, schema: 'marts', name: 'orders' }, null, 'marts/orders', 'no database named'],
		[{ schema: 'marts', name: 'orders' }, 'analytics', 'marts/orders', 'database absent'],
		[{ database: '', schema: 'marts', name: 'orders' }, 'analytics', 'marts/orders', 'database empty'],
		[{ database: '"analytics"', schema: '"Marts"', name: '"Orders"' }, 'analytics', 'marts/orders', 'double quotes stripped'],
		[{ database: 'analytics', schema: '`marts`', name: '[Orders]' }, 'analytics', 'marts/orders', 'backticks and brackets stripped'],
		[{ database: 'analytics', schema: 'analytics.v2', name: 'orders' }, 'analytics', 'analytics.v2/orders', 'dot inside a schema'],
		[{ database: 'analytics', schema: 'MARTS', name: 'ORDERS' }, 'analytics', 'marts/orders', 'lowercased']
	])('%j with default %j → %s (%s)', (rel, def, expected, _why) => {
		expect(relationAssetPath(rel, wh(def))).toBe(inMain(expected));
	});

	it.each([
		[{ database: 'db', schema: 'a/b', name: 'orders' }, 'slash in schema'],
		[{ database: 'db', schema: 'marts', name: 'a/b' }, 'slash in name'],
		[{ database: 'other/db', schema: 'marts', name: 'orders' }, 'slash in a qualifying database'],
		[{ database: 'db', schema: '', name: 'orders' }, 'empty schema'],
		[{ database: 'db', schema: null, name: 'orders' }, 'no schema'],
		[{ database: 'db', schema: 'marts', name: '' }, 'empty name'],
		[{ database: 'db', schema: 'marts', name: '""' }, 'name of quotes only']
	])('%j is refused (%s)', (rel, _why) => {
		expect(relationAssetPath(rel, wh('db'))).toBeNull();
	});

	it('refuses a path over the limit and accepts one exactly at it', () => {
		const schema = 'marts';
		const atLimit = 'x'.repeat(MAX_ASSET_PATH_LENGTH - 'main/'.length - schema.length - 1);
		expect(relationAssetPath({ schema, name: atLimit }, wh(null))).toHaveLength(255);
		expect(relationAssetPath({ schema, name: atLimit + 'x' }, wh(null))).toBeNull();
		// The qualifying database and the warehouse name count towards the length.
		expect(relationAssetPath({ database: 'db', schema, name: atLimit }, wh('other'))).toBeNull();
		expect(relationAssetPath({ schema, name: atLimit }, { name: 'main2' })).toBeNull();
	});
});

describe('nodeAssetPath', () => {
	it.each([
		[{ resource_type: 'source', name: 'raw_orders', identifier: 'orders_v3', alias: null, schema: 'raw', database: 'db' }, 'raw/orders_v3', 'source: identifier'],
		[{ resource_type: 'source', name: 'raw_orders', identifier: null, schema: 'raw', database: 'db' }, 'raw/raw_orders', 'source without identifier: name'],
		[{ resource_type: 'model', name: 'customers', alias: 'customers_v2', identifier: 'ignored', schema: 'marts', database: 'db' }, 'marts/customers_v2', 'model: alias, never identifier'],
		[{ resource_type: 'model', name: 'customers', alias: null, schema: 'marts', database: 'db' }, 'marts/customers', 'model without alias: name'],
		[{ resource_type: 'seed', name: 'Countries', alias: '', schema: 'Seeds', database: 'DB' }, 'seeds/countries', 'empty alias: name'],
		[{ resource_type: 'snapshot', name: 'orders_snap', alias: 'orders_snapshot', schema: 'snapshots', database: 'other' }, 'other.snapshots/orders_snapshot', 'other database']
	])('%j → %s (%s)', (node, expected, _why) => {
		expect(nodeAssetPath(node, wh('db'))).toBe(inMain(expected));
	});
});

describe('relationNameAssetPath', () => {
	it.each([
		['"jaffle_shop"."main"."orders"', 'jaffle_shop', 'main/orders'],
		['"postgres"."public"."raw_customers"', 'postgres', 'public/raw_customers'],
		['`your-project`.`jaffle_shop`.`orders`', 'other-project', 'your-project.jaffle_shop/orders'],
		['ANALYTICS.PUBLIC.ORDERS', 'analytics', 'public/orders'],
		['"db"."analytics.v2"."orders"', 'db', 'analytics.v2/orders'],
		['"db"."s"."we""ird"', 'db', 's/weird'],
		['"public"."orders"', 'db', 'public/orders'],
		['"db"."public"."orders"', null, 'db.public/orders']
	])('%s with default %j → %s', (relationName, def, expected) => {
		expect(relationNameAssetPath(relationName, wh(def))).toBe(inMain(expected));
	});

	it.each([[''], ['orders'], ['"a"."b"."c"."d"'], ['"db"."a/b"."c"'], ['"db"."s".']])('%j has no asset', (relationName) => {
		expect(relationNameAssetPath(relationName, wh('db'))).toBeNull();
	});

	it('keeps the warehouse name as written', () => {
		expect(relationNameAssetPath('"db"."Marts"."Orders"', { name: 'Prod_EU', defaultDatabase: 'db' })).toBe('Prod_EU/marts/orders');
	});

	it('agrees with nodeAssetPath for the same relation', () => {
		const node = { resource_type: 'model', name: 'orders', alias: 'Orders', schema: 'Marts', database: 'Analytics' };
		for (const def of ['analytics', 'other', null]) {
			expect(relationNameAssetPath('"Analytics"."Marts"."Orders"', wh(def))).toBe(nodeAssetPath(node, wh(def)));
		}
	});
});
