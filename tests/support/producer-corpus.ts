// Test data: DuckDB producer scripts with their lineage written out by hand. The inference test
// (src/lib/server/producers/analyze.test.ts) runs every case; bench/producer-engine.ts times the
// analysis on them. Column names follow jaffle-shop (schema `main`) and the demo project (schema
// `analytics`). Where the one SQL-lineage engine changed an answer, a comment says what it was.
import { demoProducers } from '../../src/lib/server/demo/producers';

export const CORPUS_WAREHOUSE = { name: 'main', defaultDatabase: 'jaffle_shop' };

const O = 'dbt://main/main/orders';
const C = 'dbt://main/main/customers';
const OI = 'dbt://main/main/order_items';
const P = 'dbt://main/main/products';
const L = 'dbt://main/main/locations';
const AO = 'dbt://main/analytics/orders';
const AS = 'dbt://main/analytics/stores';
const DR = 'ducklake://main/daily_revenue';
const RAW = 'dbt://main/raw/raw_orders';
const lake = (t: string) => `ducklake://main/${t}`;

/** What the deploy would load: typed columns (complete), and one lake table known only in part. */
export const CORPUS_CATALOG: Record<string, { columns: string[]; complete: boolean }> = {
	[O]: {
		complete: true,
		columns: [
			'order_id', 'location_id', 'customer_id', 'subtotal', 'tax_paid', 'order_total', 'ordered_at', 'order_cost',
			'is_food_order', 'is_drink_order', 'customer_order_number'
		]
	},
	[C]: {
		complete: true,
		columns: [
			'customer_id', 'customer_name', 'count_lifetime_orders', 'first_ordered_at', 'last_ordered_at', 'lifetime_spend_pretax',
			'lifetime_tax_paid', 'lifetime_spend', 'customer_type'
		]
	},
	[OI]: {
		complete: true,
		columns: ['order_item_id', 'order_id', 'product_id', 'ordered_at', 'product_name', 'product_price', 'is_food_item', 'is_drink_item', 'supply_cost']
	},
	[P]: {
		complete: true,
		columns: ['product_id', 'product_name', 'product_type', 'product_description', 'product_price', 'is_food_item', 'is_drink_item']
	},
	[L]: { complete: true, columns: ['location_id', 'location_name', 'tax_rate', 'opened_date'] },
	[AO]: { complete: true, columns: ['order_id', 'order_date', 'store_id', 'customer_id', 'status', 'item_count', 'amount', 'amount_paid', 'tax'] },
	[AS]: { complete: true, columns: ['store_id', 'store_name', 'city', 'opened_at'] },
	// From another producer's stored lineage: `order_count` (a count(*)) has no input, so it is not listed.
	[DR]: { complete: false, columns: ['order_date', 'store_id', 'store_name', 'items_sold', 'revenue', 'paid_revenue'] }
};

export type ExpectedEdge = [input: string, kind: 'copy' | 'mod' | 'annotation'];

export interface CorpusCase {
	name: string;
	sql: string;
	target: string | null;
	reads: string[];
	writes: string[];
	/** Every output column of the target with its inputs (`uri.column`); a column not listed must not appear. */
	columns: Record<string, ExpectedEdge[]>;
	/** One substring per expected warning (their number must match too). */
	warnings: string[];
}

const ATTACH = `ATTACH 'ducklake:lake.ducklake' AS lake;\n`;

export const CORPUS: CorpusCase[] = [
	{
		name: 'demo producer: daily revenue (annotated, CTAS, join, aggregates)',
		sql: demoProducers[0].content,
		target: lake('daily_revenue'),
		reads: [AO, AS],
		writes: [lake('daily_revenue')],
		columns: {
			order_date: [[`${AO}.order_date`, 'copy']],
			store_id: [[`${AO}.store_id`, 'copy']],
			store_name: [[`${AS}.store_name`, 'annotation']],
			order_count: [],
			items_sold: [[`${AO}.item_count`, 'mod']],
			revenue: [[`${AO}.amount`, 'annotation']],
			paid_revenue: [[`${AO}.amount_paid`, 'annotation']]
		},
		warnings: []
	},
	{
		name: 'demo producer: monthly city revenue (reads a lake table known in part)',
		sql: demoProducers[1].content,
		target: lake('monthly_city_revenue'),
		reads: [DR, AS],
		writes: [lake('monthly_city_revenue')],
		columns: {
			revenue_month: [[`${DR}.order_date`, 'mod']],
			city: [[`${AS}.city`, 'annotation']],
			store_count: [[`${DR}.store_id`, 'mod']],
			order_count: [[`${DR}.order_count`, 'mod']],
			revenue: [[`${DR}.revenue`, 'mod']]
		},
		warnings: []
	},
	{
		name: 'renames are copies',
		sql: `${ATTACH}CREATE OR REPLACE TABLE lake.customer_dim AS
SELECT customer_id AS id, customer_name AS name, customer_type FROM main.customers;`,
		target: lake('customer_dim'),
		reads: [C],
		writes: [lake('customer_dim')],
		columns: { id: [[`${C}.customer_id`, 'copy']], name: [[`${C}.customer_name`, 'copy']], customer_type: [[`${C}.customer_type`, 'copy']] },
		warnings: []
	},
	{
		name: 'select * expands from the typed columns',
		sql: `${ATTACH}CREATE TABLE lake.locations_copy AS SELECT * FROM main.locations;`,
		target: lake('locations_copy'),
		reads: [L],
		writes: [lake('locations_copy')],
		columns: {
			location_id: [[`${L}.location_id`, 'copy']],
			location_name: [[`${L}.location_name`, 'copy']],
			tax_rate: [[`${L}.tax_rate`, 'copy']],
			opened_date: [[`${L}.opened_date`, 'copy']]
		},
		warnings: []
	},
	{
		name: 'select * EXCLUDE',
		sql: `${ATTACH}CREATE TABLE lake.orders_public AS
SELECT * EXCLUDE (order_cost, customer_order_number, subtotal, tax_paid, is_food_order, is_drink_order) FROM main.orders;`,
		target: lake('orders_public'),
		reads: [O],
		writes: [lake('orders_public')],
		columns: {
			order_id: [[`${O}.order_id`, 'copy']],
			location_id: [[`${O}.location_id`, 'copy']],
			customer_id: [[`${O}.customer_id`, 'copy']],
			order_total: [[`${O}.order_total`, 'copy']],
			ordered_at: [[`${O}.ordered_at`, 'copy']]
		},
		warnings: []
	},
	{
		name: 'select * REPLACE',
		sql: `${ATTACH}CREATE TABLE lake.locations_upper AS
SELECT * REPLACE (upper(location_name) AS location_name) FROM main.locations;`,
		target: lake('locations_upper'),
		reads: [L],
		writes: [lake('locations_upper')],
		columns: {
			location_id: [[`${L}.location_id`, 'copy']],
			location_name: [[`${L}.location_name`, 'mod']],
			tax_rate: [[`${L}.tax_rate`, 'copy']],
			opened_date: [[`${L}.opened_date`, 'copy']]
		},
		warnings: []
	},
	{
		name: 't.* with a join',
		sql: `${ATTACH}CREATE TABLE lake.order_locations_full AS
SELECT l.*, o.order_id
FROM main.orders AS o
JOIN main.locations AS l ON l.location_id = o.location_id;`,
		target: lake('order_locations_full'),
		reads: [O, L],
		writes: [lake('order_locations_full')],
		columns: {
			location_id: [[`${L}.location_id`, 'copy']],
			location_name: [[`${L}.location_name`, 'copy']],
			tax_rate: [[`${L}.tax_rate`, 'copy']],
			opened_date: [[`${L}.opened_date`, 'copy']],
			order_id: [[`${O}.order_id`, 'copy']]
		},
		warnings: []
	},
	{
		name: 'a CTE chain with USING',
		sql: `${ATTACH}CREATE TABLE lake.customer_ltv AS
WITH paid AS (
    SELECT customer_id, order_total - tax_paid AS net FROM main.orders
), per_customer AS (
    SELECT customer_id, sum(net) AS net_total, count(*) AS orders FROM paid GROUP BY customer_id
)
SELECT c.customer_name, p.net_total, p.orders AS order_count
FROM per_customer AS p
JOIN main.customers AS c USING (customer_id);`,
		target: lake('customer_ltv'),
		reads: [O, C],
		writes: [lake('customer_ltv')],
		columns: {
			customer_name: [[`${C}.customer_name`, 'copy']],
			net_total: [
				[`${O}.order_total`, 'mod'],
				[`${O}.tax_paid`, 'mod']
			],
			order_count: []
		},
		warnings: []
	},
	{
		name: 'a subquery in FROM',
		sql: `${ATTACH}CREATE TABLE lake.big_orders AS
SELECT s.order_id, s.total_with_tax
FROM (SELECT order_id, subtotal + tax_paid AS total_with_tax FROM main.orders) AS s
WHERE s.total_with_tax > 100;`,
		target: lake('big_orders'),
		reads: [O],
		writes: [lake('big_orders')],
		columns: {
			order_id: [[`${O}.order_id`, 'copy']],
			total_with_tax: [
				[`${O}.subtotal`, 'mod'],
				[`${O}.tax_paid`, 'mod']
			]
		},
		warnings: []
	},
	{
		name: 'UNION ALL matches branches by position',
		sql: `${ATTACH}CREATE TABLE lake.people AS
SELECT customer_id AS person_id, customer_name AS display_name FROM main.customers
UNION ALL
SELECT location_id, location_name FROM main.locations;`,
		target: lake('people'),
		reads: [C, L],
		writes: [lake('people')],
		columns: {
			person_id: [
				[`${C}.customer_id`, 'copy'],
				[`${L}.location_id`, 'copy']
			],
			display_name: [
				[`${C}.customer_name`, 'copy'],
				[`${L}.location_name`, 'copy']
			]
		},
		warnings: []
	},
	{
		name: 'three branches, a literal column',
		sql: `${ATTACH}CREATE TABLE lake.events AS
SELECT order_id AS id, ordered_at AS at, 'order' AS kind FROM main.orders
UNION
SELECT order_item_id, ordered_at, 'item' FROM main.order_items
UNION ALL
SELECT customer_id, first_ordered_at, 'first_order' FROM main.customers;`,
		target: lake('events'),
		reads: [O, OI, C],
		writes: [lake('events')],
		columns: {
			id: [
				[`${O}.order_id`, 'copy'],
				[`${OI}.order_item_id`, 'copy'],
				[`${C}.customer_id`, 'copy']
			],
			at: [
				[`${O}.ordered_at`, 'copy'],
				[`${OI}.ordered_at`, 'copy'],
				[`${C}.first_ordered_at`, 'copy']
			],
			kind: []
		},
		warnings: []
	},
	{
		name: 'window functions read their partition and order columns',
		sql: `${ATTACH}CREATE TABLE lake.order_sequence AS
SELECT order_id,
    row_number() OVER (PARTITION BY customer_id ORDER BY ordered_at) AS seq,
    sum(order_total) OVER (PARTITION BY customer_id ORDER BY ordered_at ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running_total
FROM main.orders;`,
		target: lake('order_sequence'),
		reads: [O],
		writes: [lake('order_sequence')],
		columns: {
			order_id: [[`${O}.order_id`, 'copy']],
			seq: [
				[`${O}.customer_id`, 'mod'],
				[`${O}.ordered_at`, 'mod']
			],
			running_total: [
				[`${O}.order_total`, 'mod'],
				[`${O}.customer_id`, 'mod'],
				[`${O}.ordered_at`, 'mod']
			]
		},
		warnings: []
	},
	{
		name: 'QUALIFY filters without changing lineage',
		sql: `${ATTACH}CREATE TABLE lake.latest_order AS
SELECT customer_id, order_id, ordered_at
FROM main.orders
QUALIFY row_number() OVER (PARTITION BY customer_id ORDER BY ordered_at DESC) = 1;`,
		target: lake('latest_order'),
		reads: [O],
		writes: [lake('latest_order')],
		columns: {
			customer_id: [[`${O}.customer_id`, 'copy']],
			order_id: [[`${O}.order_id`, 'copy']],
			ordered_at: [[`${O}.ordered_at`, 'copy']]
		},
		warnings: []
	},
	{
		name: 'CASE reads its conditions and arms',
		sql: `${ATTACH}CREATE TABLE lake.order_size AS
SELECT order_id,
    CASE WHEN order_total >= 100 THEN 'large' WHEN is_food_order THEN 'meal' ELSE 'small' END AS size
FROM main.orders;`,
		target: lake('order_size'),
		reads: [O],
		writes: [lake('order_size')],
		columns: {
			order_id: [[`${O}.order_id`, 'copy']],
			size: [
				[`${O}.order_total`, 'mod'],
				[`${O}.is_food_order`, 'mod']
			]
		},
		warnings: []
	},
	{
		name: 'count(*) reads no column; count(DISTINCT x) does',
		sql: `${ATTACH}CREATE TABLE lake.location_stats AS
SELECT location_id, count(*) AS orders, count(DISTINCT customer_id) AS customers, avg(order_total) AS avg_total
FROM main.orders
GROUP BY location_id;`,
		target: lake('location_stats'),
		reads: [O],
		writes: [lake('location_stats')],
		columns: {
			location_id: [[`${O}.location_id`, 'copy']],
			orders: [],
			customers: [[`${O}.customer_id`, 'mod']],
			avg_total: [[`${O}.order_total`, 'mod']]
		},
		warnings: []
	},
	{
		name: 'INSERT INTO with a column list',
		sql: `${ATTACH}INSERT INTO lake.customer_snapshot (customer_id, name, spend)
SELECT customer_id, customer_name, lifetime_spend FROM main.customers;`,
		target: lake('customer_snapshot'),
		reads: [C],
		writes: [lake('customer_snapshot')],
		columns: {
			customer_id: [[`${C}.customer_id`, 'copy']],
			name: [[`${C}.customer_name`, 'copy']],
			spend: [[`${C}.lifetime_spend`, 'copy']]
		},
		warnings: []
	},
	{
		name: 'INSERT INTO … BY NAME',
		sql: `${ATTACH}INSERT INTO lake.customer_snapshot BY NAME
SELECT lifetime_spend AS spend, customer_name AS name, customer_id FROM main.customers;`,
		target: lake('customer_snapshot'),
		reads: [C],
		writes: [lake('customer_snapshot')],
		columns: {
			customer_id: [[`${C}.customer_id`, 'copy']],
			name: [[`${C}.customer_name`, 'copy']],
			spend: [[`${C}.lifetime_spend`, 'copy']]
		},
		warnings: []
	},
	{
		name: 'CREATE TABLE with columns, then INSERT by position',
		sql: `${ATTACH}CREATE TABLE IF NOT EXISTS lake.product_prices (product_id VARCHAR, price DECIMAL(10, 2), captured_at TIMESTAMP);
INSERT INTO lake.product_prices
SELECT product_id, product_price, now() FROM main.products;`,
		target: lake('product_prices'),
		reads: [P],
		writes: [lake('product_prices')],
		columns: {
			product_id: [[`${P}.product_id`, 'copy']],
			price: [[`${P}.product_price`, 'copy']],
			captured_at: []
		},
		warnings: []
	},
	{
		name: 'a final SELECT with a materialize annotation',
		sql: `-- materialize ducklake://main/top_customers
SELECT customer_id, customer_name, lifetime_spend
FROM main.customers
ORDER BY lifetime_spend DESC
LIMIT 100;`,
		target: lake('top_customers'),
		reads: [C],
		writes: [lake('top_customers')],
		columns: {
			customer_id: [[`${C}.customer_id`, 'copy']],
			customer_name: [[`${C}.customer_name`, 'copy']],
			lifetime_spend: [[`${C}.lifetime_spend`, 'copy']]
		},
		warnings: []
	},
	{
		name: 'unqualified columns resolved to the one input that has them',
		sql: `${ATTACH}CREATE TABLE lake.order_locations AS
SELECT order_id, location_name, tax_rate * subtotal AS tax_due, ordered_at
FROM main.orders AS o
JOIN main.locations AS l ON l.location_id = o.location_id;`,
		target: lake('order_locations'),
		reads: [O, L],
		writes: [lake('order_locations')],
		columns: {
			order_id: [[`${O}.order_id`, 'copy']],
			location_name: [[`${L}.location_name`, 'copy']],
			tax_due: [
				[`${L}.tax_rate`, 'mod'],
				[`${O}.subtotal`, 'mod']
			],
			ordered_at: [[`${O}.ordered_at`, 'copy']]
		},
		warnings: []
	},
	{
		name: 'an unqualified column two inputs have is a warning, not a guess',
		sql: `${ATTACH}CREATE TABLE lake.items_enriched AS
SELECT order_item_id, product_name, is_food_item
FROM main.order_items AS i
JOIN main.products AS p ON p.product_id = i.product_id;`,
		target: lake('items_enriched'),
		reads: [OI, P],
		writes: [lake('items_enriched')],
		columns: { order_item_id: [[`${OI}.order_item_id`, 'copy']] },
		warnings: ['column product_name is in several inputs', 'column is_food_item is in several inputs']
	},
	{
		name: 'a table that resolves to nothing',
		sql: `${ATTACH}CREATE TABLE lake.scratch_copy AS
SELECT id, amount FROM scratch_orders;`,
		target: lake('scratch_copy'),
		reads: [],
		writes: [lake('scratch_copy')],
		columns: {},
		// A target left without column lineage is said so (it was silent before the one engine).
		warnings: ['scratch_orders', 'scratch_copy has no column lineage']
	},
	{
		name: 'a file read is not an asset',
		sql: `${ATTACH}CREATE TABLE lake.web_events AS
SELECT e.session_id, c.customer_name
FROM read_parquet('s3://events/2024/*.parquet') AS e
JOIN main.customers AS c ON c.customer_id = e.customer_id;`,
		target: lake('web_events'),
		reads: [C],
		writes: [lake('web_events')],
		// A table function's column is one of the target's, with no traced input (before the one
		// engine it was left out): the warning says why.
		columns: { session_id: [], customer_name: [[`${C}.customer_name`, 'copy']] },
		warnings: ['read_parquet(…) is a table function, not a relation']
	},
	{
		name: 'through a temp table',
		sql: `${ATTACH}CREATE TEMP TABLE recent AS
SELECT order_id, customer_id, order_total FROM main.orders WHERE ordered_at > now() - INTERVAL 30 DAY;
CREATE OR REPLACE TABLE lake.recent_spend AS
SELECT r.customer_id, sum(r.order_total) AS spend_30d FROM recent AS r GROUP BY ALL;`,
		target: lake('recent_spend'),
		reads: [O],
		writes: [lake('recent_spend')],
		columns: {
			customer_id: [[`${O}.customer_id`, 'copy']],
			spend_30d: [[`${O}.order_total`, 'mod']]
		},
		warnings: []
	},
	{
		name: 'three-part names: the default database, another database',
		sql: `${ATTACH}CREATE TABLE lake.cross_db AS
SELECT a.customer_id, b.location_name
FROM jaffle_shop.main.customers AS a
CROSS JOIN archive.main.locations AS b;`,
		target: lake('cross_db'),
		reads: [C, 'dbt://main/archive.main/locations'],
		writes: [lake('cross_db')],
		columns: {
			customer_id: [[`${C}.customer_id`, 'copy']],
			location_name: [['dbt://main/archive.main/locations.location_name', 'copy']]
		},
		warnings: []
	},
	{
		name: 'quoted identifiers',
		sql: `${ATTACH}CREATE TABLE lake."CustomerNames" AS
SELECT "customer_id" AS "Customer ID", upper("Customer_Name") AS "Name Upper"
FROM "main"."Customers";`,
		target: lake('customernames'),
		reads: [C],
		writes: [lake('customernames')],
		columns: {
			'Customer ID': [[`${C}.customer_id`, 'copy']],
			'Name Upper': [[`${C}.customer_name`, 'mod']]
		},
		warnings: []
	},
	{
		name: 'the bare ducklake prefix',
		sql: `CREATE TABLE ducklake.product_catalog AS
SELECT product_id, product_name, product_type FROM main.products;`,
		target: lake('product_catalog'),
		reads: [P],
		writes: [lake('product_catalog')],
		columns: {
			product_id: [[`${P}.product_id`, 'copy']],
			product_name: [[`${P}.product_name`, 'copy']],
			product_type: [[`${P}.product_type`, 'copy']]
		},
		warnings: []
	},
	{
		name: 'a lake attached under another alias, with options',
		sql: `ATTACH 'ducklake:metadata.ducklake' AS dl (DATA_PATH 's3://lake/data/');
CREATE TABLE dl.supplier_costs AS
SELECT product_id, sum(supply_cost) AS total_supply_cost FROM main.order_items GROUP BY product_id;`,
		target: lake('supplier_costs'),
		reads: [OI],
		writes: [lake('supplier_costs')],
		columns: {
			product_id: [[`${OI}.product_id`, 'copy']],
			total_supply_cost: [[`${OI}.supply_cost`, 'mod']]
		},
		warnings: []
	},
	{
		name: 'USE the lake (default alias from the file name)',
		sql: `ATTACH 'ducklake:lake.ducklake';
USE lake;
CREATE TABLE food_products AS
SELECT product_id, product_name FROM jaffle_shop.main.products WHERE is_food_item;`,
		target: lake('food_products'),
		reads: [P],
		writes: [lake('food_products')],
		columns: {
			product_id: [[`${P}.product_id`, 'copy']],
			product_name: [[`${P}.product_name`, 'copy']]
		},
		warnings: []
	},
	{
		name: 'two lake tables and no materialize: no target',
		sql: `${ATTACH}CREATE TABLE lake.a AS SELECT customer_id FROM main.customers;
CREATE TABLE lake.b AS SELECT order_id FROM main.orders;`,
		target: null,
		reads: [C, O],
		writes: [lake('a'), lake('b')],
		columns: {},
		warnings: ['writes 2 lake tables']
	},
	{
		name: 'casts are expressions',
		sql: `${ATTACH}CREATE TABLE lake.order_amounts AS
SELECT order_id::VARCHAR AS order_key, CAST(order_total AS DECIMAL(12, 2)) AS total, ordered_at::DATE AS order_date
FROM main.orders;`,
		target: lake('order_amounts'),
		reads: [O],
		writes: [lake('order_amounts')],
		columns: {
			order_key: [[`${O}.order_id`, 'mod']],
			total: [[`${O}.order_total`, 'mod']],
			order_date: [[`${O}.ordered_at`, 'mod']]
		},
		warnings: []
	},
	{
		name: 'date functions and GROUP BY ALL',
		sql: `${ATTACH}CREATE TABLE lake.monthly_orders AS
SELECT date_trunc('month', ordered_at) AS month, strftime(ordered_at, '%Y') AS year, extract(dow FROM ordered_at) AS weekday, count(*) AS n
FROM main.orders
GROUP BY ALL;`,
		target: lake('monthly_orders'),
		reads: [O],
		writes: [lake('monthly_orders')],
		columns: {
			month: [[`${O}.ordered_at`, 'mod']],
			year: [[`${O}.ordered_at`, 'mod']],
			weekday: [[`${O}.ordered_at`, 'mod']],
			n: []
		},
		warnings: []
	},
	{
		name: 'FULL OUTER JOIN with coalesce over a grouped subquery',
		sql: `${ATTACH}CREATE TABLE lake.customer_activity AS
SELECT coalesce(c.customer_id, o.customer_id) AS customer_id, c.customer_name, o.order_count
FROM main.customers AS c
FULL OUTER JOIN (SELECT customer_id, count(*) AS order_count FROM main.orders GROUP BY 1) AS o
    ON o.customer_id = c.customer_id;`,
		target: lake('customer_activity'),
		reads: [C, O],
		writes: [lake('customer_activity')],
		columns: {
			customer_id: [
				[`${C}.customer_id`, 'mod'],
				[`${O}.customer_id`, 'mod']
			],
			customer_name: [[`${C}.customer_name`, 'copy']],
			order_count: []
		},
		warnings: []
	},
	{
		name: 'JOIN … USING: the unqualified key is the left side',
		sql: `${ATTACH}CREATE TABLE lake.customer_orders AS
SELECT customer_id, customer_name, order_id
FROM main.customers
JOIN main.orders USING (customer_id);`,
		target: lake('customer_orders'),
		reads: [C, O],
		writes: [lake('customer_orders')],
		columns: {
			customer_id: [[`${C}.customer_id`, 'copy']],
			customer_name: [[`${C}.customer_name`, 'copy']],
			order_id: [[`${O}.order_id`, 'copy']]
		},
		warnings: []
	},
	{
		name: 'a scalar subquery in the select list',
		sql: `${ATTACH}CREATE TABLE lake.order_share AS
SELECT order_id, order_total / (SELECT sum(order_total) FROM main.orders) AS share_of_revenue
FROM main.orders;`,
		target: lake('order_share'),
		reads: [O],
		writes: [lake('order_share')],
		columns: {
			order_id: [[`${O}.order_id`, 'copy']],
			share_of_revenue: [[`${O}.order_total`, 'mod']]
		},
		warnings: []
	},
	{
		name: 'a correlated scalar subquery',
		sql: `${ATTACH}CREATE TABLE lake.customer_last_order AS
SELECT c.customer_id,
    (SELECT max(o.ordered_at) FROM main.orders AS o WHERE o.customer_id = c.customer_id) AS last_order_at
FROM main.customers AS c;`,
		target: lake('customer_last_order'),
		reads: [C, O],
		writes: [lake('customer_last_order')],
		columns: {
			customer_id: [[`${C}.customer_id`, 'copy']],
			// max of a bare column is a copy, as in the models' lineage (it was a mod before the one engine).
			last_order_at: [[`${O}.ordered_at`, 'copy']]
		},
		warnings: []
	},
	{
		name: 'an earlier select alias used by a later item',
		sql: `${ATTACH}CREATE TABLE lake.order_fees AS
SELECT order_id, order_total * 0.03 AS card_fee, card_fee + 0.30 AS total_fee
FROM main.orders;`,
		target: lake('order_fees'),
		reads: [O],
		writes: [lake('order_fees')],
		columns: {
			order_id: [[`${O}.order_id`, 'copy']],
			card_fee: [[`${O}.order_total`, 'mod']],
			total_fee: [[`${O}.order_total`, 'mod']]
		},
		warnings: []
	},
	{
		name: 'EXISTS in WHERE reads a table but feeds no column',
		sql: `${ATTACH}CREATE TABLE lake.repeat_customers AS
SELECT c.customer_id, c.customer_name
FROM main.customers AS c
WHERE EXISTS (SELECT 1 FROM main.orders AS o WHERE o.customer_id = c.customer_id AND o.customer_order_number > 1);`,
		target: lake('repeat_customers'),
		reads: [C, O],
		writes: [lake('repeat_customers')],
		columns: {
			customer_id: [[`${C}.customer_id`, 'copy']],
			customer_name: [[`${C}.customer_name`, 'copy']]
		},
		warnings: []
	},
	{
		name: 'DISTINCT ON',
		sql: `${ATTACH}CREATE TABLE lake.first_orders AS
SELECT DISTINCT ON (customer_id) customer_id, order_id, ordered_at
FROM main.orders
ORDER BY customer_id, ordered_at;`,
		target: lake('first_orders'),
		reads: [O],
		writes: [lake('first_orders')],
		columns: {
			customer_id: [[`${O}.customer_id`, 'copy']],
			order_id: [[`${O}.order_id`, 'copy']],
			ordered_at: [[`${O}.ordered_at`, 'copy']]
		},
		warnings: []
	},
	{
		name: 'literals and current_timestamp read nothing',
		sql: `${ATTACH}CREATE TABLE lake.load_audit AS
SELECT 'customers' AS table_name, current_timestamp AS loaded_at, 1 AS version, count(*) AS row_count
FROM main.customers;`,
		target: lake('load_audit'),
		reads: [C],
		writes: [lake('load_audit')],
		columns: { table_name: [], loaded_at: [], version: [], row_count: [] },
		warnings: []
	},
	{
		name: 'select * over a relation of unknown columns',
		sql: `${ATTACH}CREATE TABLE lake.raw_orders_copy AS
WITH raw AS (SELECT * FROM raw.raw_orders)
SELECT * FROM raw;`,
		target: lake('raw_orders_copy'),
		reads: [RAW],
		writes: [lake('raw_orders_copy')],
		columns: {},
		// The relation whose columns are unknown is named once (not again for the CTE over it).
		warnings: [`cannot expand * over ${RAW}`, `raw_orders_copy has no column lineage: line 2: cannot expand * over ${RAW}`]
	},
	{
		name: 'a CTE named like a table shadows it',
		sql: `${ATTACH}CREATE TABLE lake.order_totals AS
WITH orders AS (SELECT order_id, order_total FROM main.orders WHERE order_total > 0)
SELECT orders.order_id, orders.order_total AS total FROM orders;`,
		target: lake('order_totals'),
		reads: [O],
		writes: [lake('order_totals')],
		columns: {
			order_id: [[`${O}.order_id`, 'copy']],
			total: [[`${O}.order_total`, 'copy']]
		},
		warnings: []
	},
	{
		name: 'aggregate FILTER clauses',
		sql: `${ATTACH}CREATE TABLE lake.food_share AS
SELECT location_id,
    count(*) FILTER (WHERE is_food_order) AS food_orders,
    sum(order_total) FILTER (WHERE is_drink_order) AS drink_revenue
FROM main.orders
GROUP BY location_id;`,
		target: lake('food_share'),
		reads: [O],
		writes: [lake('food_share')],
		columns: {
			location_id: [[`${O}.location_id`, 'copy']],
			food_orders: [[`${O}.is_food_order`, 'mod']],
			drink_revenue: [
				[`${O}.order_total`, 'mod'],
				[`${O}.is_drink_order`, 'mod']
			]
		},
		warnings: []
	},
	{
		name: 'SQL that does not parse keeps its annotations',
		sql: `${ATTACH}-- materialize ducklake://main/broken
-- column total <- dbt://main/main/orders.order_total
CREATE TABLE lake.broken AS SELEC order_id, FROM main.orders;`,
		target: lake('broken'),
		reads: [O],
		writes: [lake('broken')],
		columns: { total: [[`${O}.order_total`, 'annotation']] },
		warnings: ['line 4']
	},
	{
		name: 'INSERT … SELECT * into a table created in the script',
		sql: `${ATTACH}CREATE TABLE lake.location_dim (location_id VARCHAR, location_name VARCHAR, tax_rate DOUBLE, opened_date DATE);
INSERT INTO lake.location_dim SELECT * FROM main.locations;`,
		target: lake('location_dim'),
		reads: [L],
		writes: [lake('location_dim')],
		columns: {
			location_id: [[`${L}.location_id`, 'copy']],
			location_name: [[`${L}.location_name`, 'copy']],
			tax_rate: [[`${L}.tax_rate`, 'copy']],
			opened_date: [[`${L}.opened_date`, 'copy']]
		},
		warnings: []
	},
	{
		name: 'column aliases on a derived table',
		sql: `${ATTACH}CREATE TABLE lake.pairs AS
SELECT t.a, t.b FROM (SELECT customer_id, customer_name FROM main.customers) AS t(a, b);`,
		target: lake('pairs'),
		reads: [C],
		writes: [lake('pairs')],
		columns: { a: [[`${C}.customer_id`, 'copy']], b: [[`${C}.customer_name`, 'copy']] },
		warnings: []
	},
	{
		name: 'a VALUES list joined in',
		sql: `${ATTACH}CREATE TABLE lake.customer_tiers AS
SELECT c.customer_id, t.tier
FROM main.customers AS c
JOIN (VALUES ('new', 0), ('regular', 5)) AS t(tier, min_orders) ON c.count_lifetime_orders >= t.min_orders;`,
		target: lake('customer_tiers'),
		reads: [C],
		writes: [lake('customer_tiers')],
		columns: { customer_id: [[`${C}.customer_id`, 'copy']], tier: [] },
		warnings: []
	},
	{
		name: 'string concatenation',
		sql: `${ATTACH}CREATE TABLE lake.labels AS
SELECT location_id, location_name || ' (' || CAST(opened_date AS VARCHAR) || ')' AS label
FROM main.locations;`,
		target: lake('labels'),
		reads: [L],
		writes: [lake('labels')],
		columns: {
			location_id: [[`${L}.location_id`, 'copy']],
			label: [
				[`${L}.location_name`, 'mod'],
				[`${L}.opened_date`, 'mod']
			]
		},
		warnings: []
	},
	{
		name: 'PIVOT is not analysed',
		sql: `${ATTACH}CREATE TABLE lake.revenue_pivot AS
PIVOT main.orders ON location_id USING sum(order_total) GROUP BY customer_id;`,
		target: lake('revenue_pivot'),
		// The parser reads DuckDB's PIVOT: what it reads counts; its columns are named by the data.
		reads: [O],
		writes: [lake('revenue_pivot')],
		columns: {},
		warnings: ['line 3: PIVOT is not analysed', 'revenue_pivot has no column lineage: line 3: PIVOT is not analysed']
	},
	{
		name: 'INSERT OR REPLACE',
		sql: `${ATTACH}INSERT OR REPLACE INTO lake.customer_latest (customer_id, last_ordered_at)
SELECT customer_id, max(ordered_at) FROM main.orders GROUP BY customer_id;`,
		target: lake('customer_latest'),
		reads: [O],
		writes: [lake('customer_latest')],
		columns: {
			customer_id: [[`${O}.customer_id`, 'copy']],
			last_ordered_at: [[`${O}.ordered_at`, 'copy']]
		},
		warnings: []
	},
	{
		name: 'an expression without a name',
		sql: `${ATTACH}CREATE TABLE lake.unnamed AS SELECT customer_id, upper(customer_name) FROM main.customers;`,
		target: lake('unnamed'),
		reads: [C],
		writes: [lake('unnamed')],
		columns: { customer_id: [[`${C}.customer_id`, 'copy']] },
		// The expression as the parser writes it back.
		warnings: ['UPPER(customer_name)']
	},
	{
		name: 'an annotation wins over inference for its column',
		sql: `-- column spend <- dbt://main/main/orders.order_total
${ATTACH}CREATE TABLE lake.spend AS
SELECT customer_id, lifetime_spend AS spend FROM main.customers;`,
		target: lake('spend'),
		reads: [C, O],
		writes: [lake('spend')],
		columns: {
			customer_id: [[`${C}.customer_id`, 'copy']],
			spend: [[`${O}.order_total`, 'annotation']]
		},
		warnings: []
	},
	{
		name: 'select * over a lake table known in part',
		sql: `${ATTACH}CREATE TABLE lake.daily_revenue_copy AS SELECT * FROM lake.daily_revenue;`,
		target: lake('daily_revenue_copy'),
		reads: [DR],
		writes: [lake('daily_revenue_copy')],
		columns: {
			order_date: [[`${DR}.order_date`, 'copy']],
			store_id: [[`${DR}.store_id`, 'copy']],
			store_name: [[`${DR}.store_name`, 'copy']],
			items_sold: [[`${DR}.items_sold`, 'copy']],
			revenue: [[`${DR}.revenue`, 'copy']],
			paid_revenue: [[`${DR}.paid_revenue`, 'copy']]
		},
		warnings: ['expands only the columns known so far']
	},
	{
		name: 'materialize ducklake (the lake only) picks the table written there',
		sql: `-- materialize ducklake
${ATTACH}CREATE TEMP TABLE staging AS SELECT location_id, location_name FROM main.locations;
CREATE TABLE lake.location_names AS SELECT location_name AS name FROM staging;`,
		target: lake('location_names'),
		reads: [L],
		writes: [lake('location_names')],
		columns: { name: [[`${L}.location_name`, 'copy']] },
		warnings: []
	},
	{
		name: '// comments carry annotations too',
		sql: `// materialize ducklake://main/slash_comments
// column id <- dbt://main/main/customers.customer_id
SELECT customer_id AS id, customer_name FROM main.customers;`,
		target: lake('slash_comments'),
		reads: [C],
		writes: [lake('slash_comments')],
		columns: {
			id: [[`${C}.customer_id`, 'annotation']],
			customer_name: [[`${C}.customer_name`, 'copy']]
		},
		warnings: []
	},
	{
		name: 'a lake table written then read in the same script is traced through',
		sql: `-- materialize ducklake://main/store_rank
${ATTACH}CREATE OR REPLACE TABLE lake.store_totals AS
SELECT store_id, sum(amount) AS total FROM analytics.orders GROUP BY store_id;
CREATE OR REPLACE TABLE lake.store_rank AS
SELECT t.store_id, s.store_name, rank() OVER (ORDER BY t.total DESC) AS position
FROM lake.store_totals AS t JOIN analytics.stores AS s USING (store_id);`,
		target: lake('store_rank'),
		reads: [AO, AS],
		writes: [lake('store_totals'), lake('store_rank')],
		columns: {
			store_id: [[`${AO}.store_id`, 'copy']],
			store_name: [[`${AS}.store_name`, 'copy']],
			position: [[`${AO}.amount`, 'mod']]
		},
		warnings: []
	},
	{
		name: 'INSERT without a column list into a table of unknown columns: matched by name, and said so',
		sql: `${ATTACH}INSERT INTO lake.unknown_target SELECT customer_id, customer_name FROM main.customers;`,
		target: lake('unknown_target'),
		reads: [C],
		writes: [lake('unknown_target')],
		columns: {
			customer_id: [[`${C}.customer_id`, 'copy']],
			customer_name: [[`${C}.customer_name`, 'copy']]
		},
		warnings: ['columns of ducklake://main/unknown_target are unknown, so values are matched to it by their names']
	},
	{
		name: 'a nested CTE inside a subquery, and IN (subquery)',
		sql: `${ATTACH}CREATE TABLE lake.food_customers AS
SELECT x.customer_id, x.spend, x.customer_id IN (SELECT customer_id FROM main.orders WHERE is_food_order) AS buys_food
FROM (
    WITH spenders AS (SELECT customer_id, lifetime_spend AS spend FROM main.customers WHERE lifetime_spend > 0)
    SELECT * FROM spenders
) AS x;`,
		target: lake('food_customers'),
		reads: [C, O],
		writes: [lake('food_customers')],
		columns: {
			customer_id: [[`${C}.customer_id`, 'copy']],
			spend: [[`${C}.lifetime_spend`, 'copy']],
			buys_food: [
				[`${C}.customer_id`, 'mod'],
				[`${O}.customer_id`, 'mod']
			]
		},
		warnings: []
	},
	{
		name: 'an unqualified table named like the materialize target is that target',
		sql: `-- materialize ducklake://main/unq
CREATE TABLE unq AS SELECT customer_id FROM main.orders;`,
		target: lake('unq'),
		reads: [O],
		writes: [lake('unq')],
		columns: { customer_id: [[`${O}.customer_id`, 'copy']] },
		warnings: []
	},
	{
		name: 'a materialize target no statement writes: said, with what the script does write',
		sql: `-- materialize ducklake://main/report
${ATTACH}CREATE TABLE lake.report_staging AS SELECT customer_id FROM main.customers;`,
		target: lake('report'),
		reads: [C],
		writes: [lake('report'), lake('report_staging')],
		columns: {},
		warnings: ['ducklake://main/report has no column lineage: no statement of the script writes it (it writes ducklake://main/report_staging)']
	},
	{
		name: 'a table without a schema and no materialize: said, not silent',
		sql: `CREATE TABLE scratch AS SELECT customer_id FROM main.orders;`,
		target: null,
		reads: [O],
		writes: [],
		columns: {},
		warnings: ['the script writes no lake table (scratch: a table without a schema is not one)']
	},
	{
		name: 'CREATE VIEW in the lake',
		sql: `${ATTACH}CREATE OR REPLACE VIEW lake.customer_names AS
SELECT customer_id, upper(customer_name) AS name FROM main.customers WHERE customer_type = 'returning';`,
		target: lake('customer_names'),
		reads: [C],
		writes: [lake('customer_names')],
		columns: { customer_id: [[`${C}.customer_id`, 'copy']], name: [[`${C}.customer_name`, 'mod']] },
		warnings: []
	},
	{
		name: 'COPY … TO a file reads, and writes no asset',
		sql: `${ATTACH}CREATE TABLE lake.order_export AS SELECT order_id, order_total FROM main.orders;
COPY (SELECT o.order_id, c.customer_name FROM lake.order_export AS o JOIN main.customers AS c ON c.customer_id = o.order_id) TO 'export.parquet' (FORMAT parquet);
COPY main.locations TO 'locations.csv' (HEADER);`,
		target: lake('order_export'),
		reads: [O, C, L],
		writes: [lake('order_export')],
		columns: { order_id: [[`${O}.order_id`, 'copy']], order_total: [[`${O}.order_total`, 'copy']] },
		warnings: []
	},
	{
		name: 'INSERT … SELECT by position into a table the script created, then read back',
		sql: `-- materialize ducklake://main/customer_spend
${ATTACH}CREATE TEMP TABLE spend (id VARCHAR, total DECIMAL(12, 2));
INSERT INTO spend SELECT customer_id, sum(order_total) FROM main.orders GROUP BY customer_id;
INSERT INTO spend (total, id) SELECT lifetime_spend, customer_id FROM main.customers;
CREATE TABLE lake.customer_spend AS SELECT id AS customer_id, total FROM spend;`,
		target: lake('customer_spend'),
		reads: [O, C],
		writes: [lake('customer_spend')],
		columns: {
			customer_id: [
				[`${O}.customer_id`, 'copy'],
				[`${C}.customer_id`, 'copy']
			],
			total: [
				[`${O}.order_total`, 'mod'],
				[`${C}.lifetime_spend`, 'copy']
			]
		},
		warnings: []
	}
];
