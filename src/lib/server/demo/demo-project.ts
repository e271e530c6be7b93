// The demo workspace's dbt project: a small coffee-shop chain, written by hand so that every
// column edge can be checked against the SQL next to it. Conventions follow the constructed
// jaffle-shop index (copy = pass-through or rename, and min/max too; mod = any expression or
// aggregate; scan = every JOIN / WHERE / GROUP BY input into every output of the model).
import { copy, mod, modelEdges, type Input, type ScanInput } from './lineage-builder';
import type { LineageEdge, ModelSpec, PlannedOutcome, ProjectSpec, SnapshotSpec, TestSpec } from './spec';
import { genericTest, singularTest } from './test-builder';
import { handWrittenBuilders, out } from './hand-written';
import { LOAD_RAW_DATA_HOOK, LOAD_RAW_DATA_PATH, LOAD_RAW_DATA_SQL } from './raw-loader';

export const DEMO_PROJECT = 'coffee_shop';
export const DEMO_DATABASE = 'demo';
export const DEMO_SCHEMA = 'analytics';
const { srcId, modelId, seedId, cols, source, model, seed } = handWrittenBuilders({
	project: DEMO_PROJECT,
	database: DEMO_DATABASE,
	schema: DEMO_SCHEMA,
	source: {
		name: 'raw',
		schema: 'raw',
		description: 'Tables replicated from the point-of-sale and web-shop databases by the nightly loader.',
		loader: 'airbyte'
	}
});

// Sources ---------------------------------------------------------------------------------------

const rawCustomers = source(
	'customers',
	'One row per customer account created in the web shop or at a till.',
	cols([
		['id', 'BIGINT', 'Customer id in the shop database.'],
		['first_name', 'VARCHAR', 'First name as typed by the customer.'],
		['last_name', 'VARCHAR', 'Last name as typed by the customer.'],
		['email', 'VARCHAR', 'Email address, not normalised.'],
		['country_code', 'VARCHAR', 'ISO 3166-1 alpha-2 country of the billing address, any case.'],
		['created_at', 'TIMESTAMP', 'When the account was created.'],
		['updated_at', 'TIMESTAMP', 'Last change to the account row; drives the snapshot.']
	], { email: ['pii'], first_name: ['pii'], last_name: ['pii'] })
);
const rawOrders = source(
	'orders',
	'One row per order, from the till or the web shop.',
	cols([
		['id', 'BIGINT', 'Order id.'],
		['customer_id', 'BIGINT', 'The customer who placed the order.'],
		['store_id', 'BIGINT', 'Store that fulfilled the order (web orders are fulfilled by a store too).'],
		['status', 'VARCHAR', 'placed, shipped, completed, returned, or test for till test transactions.'],
		['ordered_at', 'TIMESTAMP', 'When the order was placed.'],
		['subtotal_cents', 'BIGINT', 'Order total before tax, in cents.'],
		['tax_cents', 'BIGINT', 'Tax charged, in cents.'],
		['_loaded_at', 'TIMESTAMP', 'When the loader last wrote the row.']
	]),
	{
		loadedAtField: '_loaded_at',
		freshness: { warnAfter: { count: 12, period: 'hour' }, errorAfter: { count: 24, period: 'hour' } }
	}
);
const rawOrderItems = source(
	'order_items',
	'One row per product line of an order.',
	cols([
		['id', 'BIGINT', 'Order line id.'],
		['order_id', 'BIGINT', 'The order the line belongs to.'],
		['product_sku', 'VARCHAR', 'Product sold, see the products seed.'],
		['quantity', 'INTEGER', 'Units sold.'],
		['unit_price_cents', 'BIGINT', 'Price of one unit at the time of sale, in cents.']
	])
);
const rawPayments = source(
	'payments',
	'One row per payment attempt from the payment provider.',
	cols([
		['id', 'BIGINT', 'Payment id.'],
		['order_id', 'BIGINT', 'The order paid for.'],
		['method', 'VARCHAR', 'credit_card, debit_card, gift_card or bank_transfer.'],
		['amount_cents', 'BIGINT', 'Amount of the attempt, in cents.'],
		['status', 'VARCHAR', 'succeeded, failed or refunded.'],
		['created_at', 'TIMESTAMP', 'When the attempt was made.']
	])
);
const rawStores = source(
	'stores',
	'One row per coffee shop.',
	cols([
		['id', 'BIGINT', 'Store id.'],
		['name', 'VARCHAR', 'Store name on the sign.'],
		['city', 'VARCHAR', 'City the store is in.'],
		['opened_at', 'TIMESTAMP', 'When the store opened.']
	])
);

// Seeds -----------------------------------------------------------------------------------------

const PRODUCTS_CSV = `sku,product_name,category,is_seasonal
ESP-001,Espresso,coffee,false
AME-002,Americano,coffee,false
CAP-003,Cappuccino,coffee,false
FLW-004,Flat white,coffee,false
PSL-005,Pumpkin spice latte,coffee,true
CHA-006,Chai latte,tea,false
MAT-007,Matcha latte,tea,false
CRO-008,Butter croissant,bakery,false
BAN-009,Banana bread,bakery,false
GIN-010,Gingerbread cookie,bakery,true
BEA-011,House blend beans 250g,retail,false
MUG-012,Tributary mug,retail,false
`;

const COUNTRY_CODES_CSV = `country_code,country_name,region
DE,Germany,Europe
FR,France,Europe
NL,Netherlands,Europe
GB,United Kingdom,Europe
US,United States,North America
CA,Canada,North America
MX,Mexico,North America
BR,Brazil,South America
JP,Japan,Asia Pacific
AU,Australia,Asia Pacific
`;

const products = seed(
	'products',
	'The menu: every product a store or the web shop can sell.',
	PRODUCTS_CSV,
	cols([
		['sku', 'VARCHAR', 'Stock keeping unit, the product key.'],
		['product_name', 'VARCHAR', 'Name on the menu.'],
		['category', 'VARCHAR', 'coffee, tea, bakery or retail.'],
		['is_seasonal', 'BOOLEAN', 'Sold only part of the year.']
	])
);
const countryCodes = seed(
	'country_codes',
	'ISO country codes with the sales region they report to.',
	COUNTRY_CODES_CSV,
	cols([
		['country_code', 'VARCHAR', 'ISO 3166-1 alpha-2 code, upper case.'],
		['country_name', 'VARCHAR', 'English country name.'],
		['region', 'VARCHAR', 'Sales region.']
	])
);

// Staging ---------------------------------------------------------------------------------------

const stgCustomers = model('stg_customers', 'staging', {
	description: 'Customers with names joined and email and country normalised. One row per customer.',
	parents: [srcId('customers')],
	columns: cols([
		['customer_id', 'BIGINT', 'Primary key of the customer.'],
		['first_name', 'VARCHAR', 'First name.'],
		['last_name', 'VARCHAR', 'Last name.'],
		['full_name', 'VARCHAR', 'First and last name, separated by a space.'],
		['email', 'VARCHAR', 'Email address in lower case.'],
		['country_code', 'VARCHAR', 'Country code in upper case.'],
		['signed_up_at', 'TIMESTAMP', 'When the account was created.'],
		['updated_at', 'TIMESTAMP', 'Last change to the account.']
	], { email: ['pii'], full_name: ['pii'] }),
	rawCode: `with

source as (

    select * from {{ source('raw', 'customers') }}

),

renamed as (

    select
        id as customer_id,
        first_name,
        last_name,
        first_name || ' ' || last_name as full_name,
        lower(email) as email,
        upper(country_code) as country_code,
        created_at as signed_up_at,
        updated_at

    from source

)

select * from renamed
`
});

const stgOrders = model('stg_orders', 'staging', {
	description: 'Orders with amounts in currency units and till test transactions removed. One row per order.',
	parents: [srcId('orders')],
	columns: cols([
		['order_id', 'BIGINT', 'Primary key of the order.'],
		['customer_id', 'BIGINT', 'The customer who placed the order.'],
		['store_id', 'BIGINT', 'Store that fulfilled the order.'],
		['status', 'VARCHAR', 'placed, shipped, completed or returned.'],
		['ordered_at', 'TIMESTAMP', 'When the order was placed.'],
		['order_date', 'DATE', 'Day the order was placed.'],
		['subtotal', 'DOUBLE', 'Order total before tax.'],
		['tax', 'DOUBLE', 'Tax charged.']
	]),
	rawCode: `with

source as (

    select * from {{ source('raw', 'orders') }}

),

renamed as (

    select
        id as order_id,
        customer_id,
        store_id,
        status,
        ordered_at,
        cast(ordered_at as date) as order_date,
        subtotal_cents / 100.0 as subtotal,
        tax_cents / 100.0 as tax

    from source
    where status != 'test'

)

select * from renamed
`
});

const stgOrderItems = model('stg_order_items', 'staging', {
	description: 'Order lines with prices in currency units. One row per order line.',
	parents: [srcId('order_items')],
	columns: cols([
		['order_item_id', 'BIGINT', 'Primary key of the order line.'],
		['order_id', 'BIGINT', 'The order the line belongs to.'],
		['product_sku', 'VARCHAR', 'Product sold.'],
		['quantity', 'INTEGER', 'Units sold.'],
		['unit_price', 'DOUBLE', 'Price of one unit.'],
		['line_total', 'DOUBLE', 'Quantity times unit price.']
	]),
	rawCode: `with

source as (

    select * from {{ source('raw', 'order_items') }}

),

renamed as (

    select
        id as order_item_id,
        order_id,
        product_sku,
        quantity,
        unit_price_cents / 100.0 as unit_price,
        quantity * unit_price_cents / 100.0 as line_total

    from source

)

select * from renamed
`
});

const stgPayments = model('stg_payments', 'staging', {
	description: 'Successful payments only, amounts in currency units. One row per payment.',
	parents: [srcId('payments')],
	columns: cols([
		['payment_id', 'BIGINT', 'Primary key of the payment.'],
		['order_id', 'BIGINT', 'The order paid for.'],
		['payment_method', 'VARCHAR', 'credit_card, debit_card, gift_card or bank_transfer.'],
		['amount', 'DOUBLE', 'Amount paid.'],
		['paid_at', 'TIMESTAMP', 'When the payment succeeded.']
	]),
	rawCode: `with

source as (

    select * from {{ source('raw', 'payments') }}

),

renamed as (

    select
        id as payment_id,
        order_id,
        method as payment_method,
        amount_cents / 100.0 as amount,
        created_at as paid_at

    from source
    where status = 'succeeded'

)

select * from renamed
`
});

const stgStores = model('stg_stores', 'staging', {
	description: 'Stores. One row per store.',
	parents: [srcId('stores')],
	columns: cols([
		['store_id', 'BIGINT', 'Primary key of the store.'],
		['store_name', 'VARCHAR', 'Store name.'],
		['city', 'VARCHAR', 'City the store is in.'],
		['opened_on', 'DATE', 'Day the store opened.']
	]),
	rawCode: `with

source as (

    select * from {{ source('raw', 'stores') }}

),

renamed as (

    select
        id as store_id,
        name as store_name,
        city,
        cast(opened_at as date) as opened_on

    from source

)

select * from renamed
`
});

// Intermediate ----------------------------------------------------------------------------------

const intOrderItemsEnriched = model('int_order_items_enriched', 'intermediate', {
	description: 'Order lines with the product name and category from the menu. Ephemeral: inlined into the models that use it.',
	materialized: 'ephemeral',
	configCall: { materialized: 'ephemeral' },
	parents: [modelId('stg_order_items'), seedId('products')],
	columns: cols([
		['order_item_id', 'BIGINT', 'Primary key of the order line.'],
		['order_id', 'BIGINT', 'The order the line belongs to.'],
		['product_sku', 'VARCHAR', 'Product sold.'],
		['product_name', 'VARCHAR', 'Name on the menu.'],
		['category', 'VARCHAR', 'Menu category.'],
		['is_seasonal', 'BOOLEAN', 'Sold only part of the year.'],
		['quantity', 'INTEGER', 'Units sold.'],
		['unit_price', 'DOUBLE', 'Price of one unit.'],
		['line_total', 'DOUBLE', 'Quantity times unit price.']
	]),
	rawCode: `{{ config(materialized='ephemeral') }}

with

order_items as (

    select * from {{ ref('stg_order_items') }}

),

products as (

    select * from {{ ref('products') }}

)

select
    order_items.order_item_id,
    order_items.order_id,
    order_items.product_sku,
    products.product_name,
    products.category,
    products.is_seasonal,
    order_items.quantity,
    order_items.unit_price,
    order_items.line_total

from order_items
left join products
    on order_items.product_sku = products.sku
`
});

const intOrderPayments = model('int_order_payments', 'intermediate', {
	description: 'Payments rolled up to the order. One row per order with at least one successful payment.',
	parents: [modelId('stg_payments')],
	columns: cols([
		['order_id', 'BIGINT', 'The order paid for.'],
		['payment_count', 'BIGINT', 'Number of successful payments.'],
		['amount_paid', 'DOUBLE', 'Sum of the successful payments.'],
		['last_paid_at', 'TIMESTAMP', 'When the last payment succeeded.'],
		['used_gift_card', 'BOOLEAN', 'At least one payment was made with a gift card.']
	]),
	rawCode: `with

payments as (

    select * from {{ ref('stg_payments') }}

)

select
    order_id,
    count(payment_id) as payment_count,
    sum(amount) as amount_paid,
    max(paid_at) as last_paid_at,
    bool_or(payment_method = 'gift_card') as used_gift_card

from payments
group by order_id
`
});

// Marts -----------------------------------------------------------------------------------------

const orders = model('orders', 'marts', {
	description: 'Orders with their item count, amount and what has been paid. The source of the revenue reports. One row per order.',
	tags: ['daily', 'finance'],
	meta: { owner: 'finance-analytics' },
	rowCount: 48213,
	parents: [modelId('stg_orders'), modelId('int_order_items_enriched'), modelId('int_order_payments')],
	columns: cols([
		['order_id', 'BIGINT', 'Primary key of the order.'],
		['customer_id', 'BIGINT', 'The customer who placed the order.'],
		['store_id', 'BIGINT', 'Store that fulfilled the order.'],
		['status', 'VARCHAR', 'placed, shipped, completed or returned.'],
		['ordered_at', 'TIMESTAMP', 'When the order was placed.'],
		['order_date', 'DATE', 'Day the order was placed.'],
		['item_count', 'HUGEINT', 'Units in the order.'],
		['subtotal', 'DOUBLE', 'Order total before tax.'],
		['tax', 'DOUBLE', 'Tax charged.'],
		['amount', 'DOUBLE', 'Order total including tax.'],
		['amount_paid', 'DOUBLE', 'Sum of the successful payments, 0 when unpaid.'],
		['is_fully_paid', 'BOOLEAN', 'The payments cover the amount.'],
		['last_paid_at', 'TIMESTAMP', 'When the last payment succeeded.']
	]),
	rawCode: `with

orders as (

    select * from {{ ref('stg_orders') }}

),

order_items as (

    select * from {{ ref('int_order_items_enriched') }}

),

payments as (

    select * from {{ ref('int_order_payments') }}

),

order_item_totals as (

    select
        order_id,
        sum(quantity) as item_count
    from order_items
    group by order_id

),

final as (

    select
        orders.order_id,
        orders.customer_id,
        orders.store_id,
        orders.status,
        orders.ordered_at,
        orders.order_date,
        order_item_totals.item_count,
        orders.subtotal,
        orders.tax,
        orders.subtotal + orders.tax as amount,
        coalesce(payments.amount_paid, 0) as amount_paid,
        coalesce(payments.amount_paid, 0) >= orders.subtotal + orders.tax as is_fully_paid,
        payments.last_paid_at

    from orders
    left join order_item_totals
        on orders.order_id = order_item_totals.order_id
    left join payments
        on orders.order_id = payments.order_id

)

select * from final
`
});

const customers = model('customers', 'marts', {
	description: 'Customers with their order history and segment. One row per customer.',
	tags: ['daily', 'marketing'],
	meta: { owner: 'growth' },
	rowCount: 12904,
	parents: [modelId('stg_customers'), modelId('orders'), seedId('country_codes')],
	columns: cols([
		['customer_id', 'BIGINT', 'Primary key of the customer.'],
		['full_name', 'VARCHAR', 'First and last name.'],
		['email', 'VARCHAR', 'Email address in lower case.'],
		['country_code', 'VARCHAR', 'Country code.'],
		['region', 'VARCHAR', 'Sales region of the country.'],
		['signed_up_at', 'TIMESTAMP', 'When the account was created.'],
		['first_order_at', 'TIMESTAMP', 'First order that was not returned.'],
		['last_order_at', 'TIMESTAMP', 'Latest order that was not returned.'],
		['order_count', 'BIGINT', 'Orders that were not returned.'],
		['lifetime_value', 'DOUBLE', 'Amount of the orders that were not returned.'],
		['customer_type', 'VARCHAR', 'new (one order), returning (more) or prospect (none).']
	], { email: ['pii'], full_name: ['pii'] }),
	rawCode: `with

customers as (

    select * from {{ ref('stg_customers') }}

),

orders as (

    select * from {{ ref('orders') }}

),

countries as (

    select * from {{ ref('country_codes') }}

),

customer_orders as (

    select
        customer_id,
        min(ordered_at) as first_order_at,
        max(ordered_at) as last_order_at,
        count(order_id) as order_count,
        sum(amount) as lifetime_value
    from orders
    where status != 'returned'
    group by customer_id

),

final as (

    select
        customers.customer_id,
        customers.full_name,
        customers.email,
        customers.country_code,
        countries.region,
        customers.signed_up_at,
        customer_orders.first_order_at,
        customer_orders.last_order_at,
        coalesce(customer_orders.order_count, 0) as order_count,
        coalesce(customer_orders.lifetime_value, 0) as lifetime_value,
        case
            when customer_orders.order_count > 1 then 'returning'
            when customer_orders.order_count = 1 then 'new'
            else 'prospect'
        end as customer_type

    from customers
    left join customer_orders
        on customers.customer_id = customer_orders.customer_id
    left join countries
        on customers.country_code = countries.country_code

)

select * from final
`
});

const stores = model('stores', 'marts', {
	description: 'Stores with their order count and revenue to date. One row per store.',
	tags: ['daily'],
	meta: { owner: 'operations' },
	rowCount: 6,
	parents: [modelId('stg_stores'), modelId('orders')],
	columns: cols([
		['store_id', 'BIGINT', 'Primary key of the store.'],
		['store_name', 'VARCHAR', 'Store name.'],
		['city', 'VARCHAR', 'City the store is in.'],
		['opened_on', 'DATE', 'Day the store opened.'],
		['order_count', 'BIGINT', 'Orders fulfilled by the store.'],
		['revenue', 'DOUBLE', 'Amount of the orders fulfilled by the store.'],
		['last_order_at', 'TIMESTAMP', 'Latest order fulfilled by the store.']
	]),
	rawCode: `with

stores as (

    select * from {{ ref('stg_stores') }}

),

orders as (

    select * from {{ ref('orders') }}

),

store_orders as (

    select
        store_id,
        count(order_id) as order_count,
        sum(amount) as revenue,
        max(ordered_at) as last_order_at
    from orders
    group by store_id

)

select
    stores.store_id,
    stores.store_name,
    stores.city,
    stores.opened_on,
    coalesce(store_orders.order_count, 0) as order_count,
    coalesce(store_orders.revenue, 0) as revenue,
    store_orders.last_order_at

from stores
left join store_orders
    on stores.store_id = store_orders.store_id
`
});

const fctPayments = model('fct_payments', 'marts', {
	description: 'Successful payments with the customer and store of their order. Incremental: each run merges the payments newer than the latest one already loaded.',
	materialized: 'incremental',
	incrementalStrategy: 'merge',
	uniqueKey: 'payment_id',
	onSchemaChange: 'append_new_columns',
	configCall: {
		materialized: 'incremental',
		incremental_strategy: 'merge',
		unique_key: 'payment_id',
		on_schema_change: 'append_new_columns'
	},
	tags: ['daily', 'finance'],
	meta: { owner: 'finance-analytics' },
	rowCount: 51877,
	parents: [modelId('stg_payments'), modelId('orders')],
	columns: cols([
		['payment_id', 'BIGINT', 'Primary key of the payment.'],
		['order_id', 'BIGINT', 'The order paid for.'],
		['customer_id', 'BIGINT', 'The customer who placed the order.'],
		['store_id', 'BIGINT', 'Store that fulfilled the order.'],
		['payment_method', 'VARCHAR', 'credit_card, debit_card, gift_card or bank_transfer.'],
		['amount', 'DOUBLE', 'Amount paid.'],
		['paid_at', 'TIMESTAMP', 'When the payment succeeded.'],
		['paid_date', 'DATE', 'Day the payment succeeded.']
	]),
	rawCode: `{{
    config(
        materialized='incremental',
        incremental_strategy='merge',
        unique_key='payment_id',
        on_schema_change='append_new_columns'
    )
}}

with

payments as (

    select * from {{ ref('stg_payments') }}

    {% if is_incremental() %}
    where paid_at > (select max(paid_at) from {{ this }})
    {% endif %}

),

orders as (

    select * from {{ ref('orders') }}

)

select
    payments.payment_id,
    payments.order_id,
    orders.customer_id,
    orders.store_id,
    payments.payment_method,
    payments.amount,
    payments.paid_at,
    cast(payments.paid_at as date) as paid_date

from payments
inner join orders
    on payments.order_id = orders.order_id
`
});

// The unmerged change (DemoOptions.change) ------------------------------------------------------

/** stores with `revenue` cast to a fixed-point decimal: the change's retyped column. */
const storesWithDecimalRevenue: ModelSpec = {
	...stores,
	columns: stores.columns.map((c) => (c.name === 'revenue' ? { ...c, type: 'DECIMAL(18,2)', description: 'Amount of the orders fulfilled by the store, to the cent.' } : c)),
	rawCode: stores.rawCode.replace('coalesce(store_orders.revenue, 0) as revenue', 'cast(coalesce(store_orders.revenue, 0) as decimal(18, 2)) as revenue')
};

/** The change's added model: daily revenue per store, from the payments mart. */
const storeDailyRevenue = model('store_daily_revenue', 'marts', {
	description: 'Revenue of each store per day, from the successful payments. One row per store and day.',
	tags: ['daily', 'finance'],
	meta: { owner: 'finance-analytics' },
	rowCount: 4374,
	parents: [modelId('fct_payments')],
	columns: cols([
		['store_id', 'BIGINT', 'Store that fulfilled the orders.'],
		['paid_date', 'DATE', 'Day the payments succeeded.'],
		['payment_count', 'BIGINT', 'Payments that day.'],
		['revenue', 'DOUBLE', 'Amount paid that day.']
	]),
	rawCode: `select
    store_id,
    paid_date,
    count(payment_id) as payment_count,
    sum(amount) as revenue

from {{ ref('fct_payments') }}
group by store_id, paid_date
`
});

// The version before the current one (DemoOptions.earlier) ---------------------------------------

/** stores before `last_order_at` was added: the earlier version's SQL and columns. */
const storesBeforeLastOrder: ModelSpec = {
	...stores,
	columns: stores.columns.filter((c) => c.name !== 'last_order_at'),
	rawCode: stores.rawCode
		.replace('        sum(amount) as revenue,\n        max(ordered_at) as last_order_at\n', '        sum(amount) as revenue\n')
		.replace('    coalesce(store_orders.revenue, 0) as revenue,\n    store_orders.last_order_at\n', '    coalesce(store_orders.revenue, 0) as revenue\n')
};

// Snapshot --------------------------------------------------------------------------------------

const customersSnapshot: SnapshotSpec = {
	resourceType: 'snapshot',
	uniqueId: `snapshot.${DEMO_PROJECT}.customers_snapshot`,
	name: 'customers_snapshot',
	packageName: DEMO_PROJECT,
	database: DEMO_DATABASE,
	schema: DEMO_SCHEMA,
	alias: 'customers_snapshot',
	description: 'History of customer rows: a new version each time updated_at moves.',
	tags: [],
	meta: {},
	filePath: 'snapshots/customers_snapshot.sql',
	ymlPath: 'snapshots/schema.yml',
	rowCount: 13377,
	strategy: 'timestamp',
	uniqueKey: 'id',
	updatedAt: 'updated_at',
	configCall: { unique_key: 'id', strategy: 'timestamp', updated_at: 'updated_at' },
	parents: [srcId('customers')],
	columns: [
		...rawCustomers.columns.map((c) => ({ ...c })),
		{ name: 'dbt_scd_id', type: 'VARCHAR', description: 'Surrogate key of the version.' },
		{ name: 'dbt_updated_at', type: 'TIMESTAMP', description: 'updated_at of the version.' },
		{ name: 'dbt_valid_from', type: 'TIMESTAMP', description: 'When the version became current.' },
		{ name: 'dbt_valid_to', type: 'TIMESTAMP', description: 'When the version was replaced; null for the current one.' }
	],
	rawCode: `

{{
    config(
        unique_key='id',
        strategy='timestamp',
        updated_at='updated_at'
    )
}}

select * from {{ source('raw', 'customers') }}

`
};

// Column lineage --------------------------------------------------------------------------------

function demoLineage(change: boolean): LineageEdge[] {
	const s = srcId;
	const m = modelId;
	const edges: LineageEdge[] = [];
	const add = (toId: string, outputs: [string, Input[]][], scans: ScanInput[] = []) => edges.push(...modelEdges(toId, outputs, scans));

	add(m('stg_customers'), [
		out('customer_id', copy(s('customers'), 'id')),
		out('first_name', copy(s('customers'), 'first_name')),
		out('last_name', copy(s('customers'), 'last_name')),
		out('full_name', mod(s('customers'), 'first_name', 'last_name')),
		out('email', mod(s('customers'), 'email')),
		out('country_code', mod(s('customers'), 'country_code')),
		out('signed_up_at', copy(s('customers'), 'created_at')),
		out('updated_at', copy(s('customers'), 'updated_at'))
	]);
	add(
		m('stg_orders'),
		[
			out('order_id', copy(s('orders'), 'id')),
			out('customer_id', copy(s('orders'), 'customer_id')),
			out('store_id', copy(s('orders'), 'store_id')),
			out('status', copy(s('orders'), 'status')),
			out('ordered_at', copy(s('orders'), 'ordered_at')),
			out('order_date', mod(s('orders'), 'ordered_at')),
			out('subtotal', mod(s('orders'), 'subtotal_cents')),
			out('tax', mod(s('orders'), 'tax_cents'))
		],
		[[s('orders'), 'status']]
	);
	add(m('stg_order_items'), [
		out('order_item_id', copy(s('order_items'), 'id')),
		out('order_id', copy(s('order_items'), 'order_id')),
		out('product_sku', copy(s('order_items'), 'product_sku')),
		out('quantity', copy(s('order_items'), 'quantity')),
		out('unit_price', mod(s('order_items'), 'unit_price_cents')),
		out('line_total', mod(s('order_items'), 'quantity', 'unit_price_cents'))
	]);
	add(
		m('stg_payments'),
		[
			out('payment_id', copy(s('payments'), 'id')),
			out('order_id', copy(s('payments'), 'order_id')),
			out('payment_method', copy(s('payments'), 'method')),
			out('amount', mod(s('payments'), 'amount_cents')),
			out('paid_at', copy(s('payments'), 'created_at'))
		],
		[[s('payments'), 'status']]
	);
	add(m('stg_stores'), [
		out('store_id', copy(s('stores'), 'id')),
		out('store_name', copy(s('stores'), 'name')),
		out('city', copy(s('stores'), 'city')),
		out('opened_on', mod(s('stores'), 'opened_at'))
	]);

	const items = m('stg_order_items');
	const prod = seedId('products');
	add(
		m('int_order_items_enriched'),
		[
			out('order_item_id', copy(items, 'order_item_id')),
			out('order_id', copy(items, 'order_id')),
			out('product_sku', copy(items, 'product_sku')),
			out('product_name', copy(prod, 'product_name')),
			out('category', copy(prod, 'category')),
			out('is_seasonal', copy(prod, 'is_seasonal')),
			out('quantity', copy(items, 'quantity')),
			out('unit_price', copy(items, 'unit_price')),
			out('line_total', copy(items, 'line_total'))
		],
		[
			[items, 'product_sku'],
			[prod, 'sku']
		]
	);
	const pay = m('stg_payments');
	add(
		m('int_order_payments'),
		[
			out('order_id', copy(pay, 'order_id')),
			out('payment_count', mod(pay, 'payment_id')),
			out('amount_paid', mod(pay, 'amount')),
			out('last_paid_at', copy(pay, 'paid_at')),
			out('used_gift_card', mod(pay, 'payment_method'))
		],
		[[pay, 'order_id']]
	);

	const so = m('stg_orders');
	const enr = m('int_order_items_enriched');
	const op = m('int_order_payments');
	add(
		m('orders'),
		[
			out('order_id', copy(so, 'order_id')),
			out('customer_id', copy(so, 'customer_id')),
			out('store_id', copy(so, 'store_id')),
			out('status', copy(so, 'status')),
			out('ordered_at', copy(so, 'ordered_at')),
			out('order_date', copy(so, 'order_date')),
			out('item_count', mod(enr, 'quantity')),
			out('subtotal', copy(so, 'subtotal')),
			out('tax', copy(so, 'tax')),
			out('amount', mod(so, 'subtotal', 'tax')),
			out('amount_paid', mod(op, 'amount_paid')),
			out('is_fully_paid', mod(op, 'amount_paid'), mod(so, 'subtotal', 'tax')),
			out('last_paid_at', copy(op, 'last_paid_at'))
		],
		[
			[so, 'order_id'],
			[enr, 'order_id'],
			[op, 'order_id']
		]
	);

	const sc = m('stg_customers');
	const o = m('orders');
	const cc = seedId('country_codes');
	add(
		m('customers'),
		[
			out('customer_id', copy(sc, 'customer_id')),
			out('full_name', copy(sc, 'full_name')),
			out('email', copy(sc, 'email')),
			out('country_code', copy(sc, 'country_code')),
			out('region', copy(cc, 'region')),
			out('signed_up_at', copy(sc, 'signed_up_at')),
			out('first_order_at', copy(o, 'ordered_at')),
			out('last_order_at', copy(o, 'ordered_at')),
			out('order_count', mod(o, 'order_id')),
			out('lifetime_value', mod(o, 'amount')),
			out('customer_type', mod(o, 'order_id'))
		],
		[
			[sc, 'customer_id'],
			[o, 'customer_id'],
			[o, 'status'],
			[sc, 'country_code'],
			[cc, 'country_code']
		]
	);

	const ss = m('stg_stores');
	add(
		m('stores'),
		[
			out('store_id', copy(ss, 'store_id')),
			out('store_name', copy(ss, 'store_name')),
			out('city', copy(ss, 'city')),
			out('opened_on', copy(ss, 'opened_on')),
			out('order_count', mod(o, 'order_id')),
			out('revenue', mod(o, 'amount')),
			out('last_order_at', copy(o, 'ordered_at'))
		],
		[
			[ss, 'store_id'],
			[o, 'store_id']
		]
	);

	add(
		m('fct_payments'),
		[
			out('payment_id', copy(pay, 'payment_id')),
			out('order_id', copy(pay, 'order_id')),
			out('customer_id', copy(o, 'customer_id')),
			out('store_id', copy(o, 'store_id')),
			out('payment_method', copy(pay, 'payment_method')),
			out('amount', copy(pay, 'amount')),
			out('paid_at', copy(pay, 'paid_at')),
			out('paid_date', mod(pay, 'paid_at'))
		],
		[
			[pay, 'order_id'],
			[o, 'order_id']
		]
	);

	add(
		customersSnapshot.uniqueId,
		rawCustomers.columns.map((c) => out(c.name, copy(s('customers'), c.name)))
	);

	if (change) {
		const fp = m('fct_payments');
		add(
			storeDailyRevenue.uniqueId,
			[
				out('store_id', copy(fp, 'store_id')),
				out('paid_date', copy(fp, 'paid_date')),
				out('payment_count', mod(fp, 'payment_id')),
				out('revenue', mod(fp, 'amount'))
			],
			[
				[fp, 'store_id'],
				[fp, 'paid_date']
			]
		);
	}
	return edges;
}

// Tests -----------------------------------------------------------------------------------------

function demoTests(failures: boolean): TestSpec[] {
	const P = DEMO_PROJECT;
	const stagingYml = 'models/staging/schema.yml';
	const martsYml = 'models/marts/schema.yml';
	const keyTests = (target: ModelSpec, column: string, ymlPath: string) => [
		genericTest({ packageName: P, testName: 'unique', target, column, ymlPath }),
		genericTest({ packageName: P, testName: 'not_null', target, column, ymlPath })
	];
	return [
		genericTest({ packageName: P, testName: 'unique', target: rawOrders, column: 'id', ymlPath: rawOrders.ymlPath }),
		genericTest({ packageName: P, testName: 'not_null', target: rawOrders, column: 'id', ymlPath: rawOrders.ymlPath }),
		genericTest({ packageName: P, testName: 'not_null', target: rawCustomers, column: 'id', ymlPath: rawCustomers.ymlPath }),
		...keyTests(stgCustomers, 'customer_id', stagingYml),
		genericTest({ packageName: P, testName: 'not_null', target: stgCustomers, column: 'email', severity: 'warn', ymlPath: stagingYml }),
		...keyTests(stgOrders, 'order_id', stagingYml),
		genericTest({
			packageName: P,
			testName: 'accepted_values',
			target: stgOrders,
			column: 'status',
			args: { values: ['placed', 'shipped', 'completed', 'returned'] },
			ymlPath: stagingYml
		}),
		genericTest({
			packageName: P,
			testName: 'relationships',
			target: stgOrders,
			column: 'customer_id',
			args: { to: "ref('stg_customers')", field: 'customer_id' },
			otherParents: [stgCustomers.uniqueId],
			ymlPath: stagingYml,
			failures: failures ? 3 : 0
		}),
		...keyTests(stgOrderItems, 'order_item_id', stagingYml),
		genericTest({
			packageName: P,
			testName: 'relationships',
			target: stgOrderItems,
			column: 'order_id',
			args: { to: "ref('stg_orders')", field: 'order_id' },
			otherParents: [stgOrders.uniqueId],
			severity: 'warn',
			ymlPath: stagingYml
		}),
		...keyTests(stgPayments, 'payment_id', stagingYml),
		genericTest({
			packageName: P,
			testName: 'accepted_values',
			target: stgPayments,
			column: 'payment_method',
			args: { values: ['credit_card', 'debit_card', 'gift_card', 'bank_transfer'] },
			severity: 'warn',
			ymlPath: stagingYml,
			failures: failures ? 14 : 0
		}),
		...keyTests(stgStores, 'store_id', stagingYml),
		...keyTests(orders, 'order_id', martsYml),
		genericTest({ packageName: P, testName: 'not_null', target: orders, column: 'customer_id', ymlPath: martsYml }),
		genericTest({ packageName: P, testName: 'not_null', target: orders, column: 'amount', ymlPath: martsYml }),
		...keyTests(customers, 'customer_id', martsYml),
		genericTest({
			packageName: P,
			testName: 'accepted_values',
			target: customers,
			column: 'customer_type',
			args: { values: ['new', 'returning', 'prospect'] },
			ymlPath: martsYml
		}),
		...keyTests(stores, 'store_id', martsYml),
		...keyTests(fctPayments, 'payment_id', martsYml),
		genericTest({ packageName: P, testName: 'unique', target: products, column: 'sku', ymlPath: 'seeds/schema.yml' }),
		singularTest({
			packageName: P,
			name: 'assert_payments_do_not_exceed_order_amount',
			severity: 'warn',
			parents: [orders.uniqueId],
			rawCode: `{{ config(severity='warn') }}

-- An order should never be paid more than its amount, tax included.
select
    order_id,
    amount,
    amount_paid

from {{ ref('orders') }}
where amount_paid > amount + 0.01
`
		})
	];
}

export interface DemoOptions {
	seed: number;
	/**
	 * Plan a build with exactly one model error (orders), one failing test (relationships of
	 * stg_orders.customer_id), one warning test (accepted_values of stg_payments.payment_method),
	 * and every node downstream of orders skipped (the failing test gates only customers, which
	 * is downstream of orders too).
	 */
	failures?: boolean;
	/**
	 * The project with an unmerged change: one model added (store_daily_revenue, on fct_payments)
	 * and one column retyped (stores.revenue, DOUBLE to DECIMAL(18,2)).
	 */
	change?: boolean;
	/**
	 * The version deployed before the current one: without fct_payments (and its tests), and
	 * stores without its `last_order_at` column. What "compare any two versions" shows.
	 */
	earlier?: boolean;
}

/** What the current version adds over DemoOptions.earlier. */
export const DEMO_EARLIER = {
	addedModel: fctPayments.uniqueId,
	modifiedModel: stores.uniqueId,
	addedColumn: { uniqueId: stores.uniqueId, column: 'last_order_at' }
} as const;

/** The model DemoOptions.failures makes fail; everything downstream of it is skipped. */
export const DEMO_FAILING_MODEL = modelId('orders');
/** What DemoOptions.change adds, and the column it retypes. */
export const DEMO_CHANGE = {
	addedModel: storeDailyRevenue.uniqueId,
	retyped: { uniqueId: stores.uniqueId, column: 'revenue', from: 'DOUBLE', to: 'DECIMAL(18,2)' }
} as const;

export function demoProjectSpec(opts: DemoOptions): ProjectSpec {
	const failures = opts.failures ?? false;
	const change = opts.change ?? false;
	const earlier = opts.earlier ?? false;
	if (earlier && change) throw new Error('earlier: the earlier version has no unmerged change');
	const tests = demoTests(failures).filter((t) => !earlier || !t.parents.includes(fctPayments.uniqueId));
	const outcomes = new Map<string, PlannedOutcome>();
	if (failures) {
		for (const t of tests) if (t.failures > 0) outcomes.set(t.uniqueId, t.severity === 'warn' ? 'warn' : 'fail');
		outcomes.set(DEMO_FAILING_MODEL, 'error');
	}
	return {
		mode: 'demo',
		seed: opts.seed,
		name: DEMO_PROJECT,
		database: DEMO_DATABASE,
		schema: DEMO_SCHEMA,
		adapter: 'duckdb',
		dbtVersion: '1.10.15',
		profile: DEMO_PROJECT,
		sources: [rawCustomers, rawOrders, rawOrderItems, rawPayments, rawStores],
		nodes: [
			products,
			countryCodes,
			stgCustomers,
			stgOrders,
			stgOrderItems,
			stgPayments,
			stgStores,
			intOrderItemsEnriched,
			intOrderPayments,
			orders,
			customers,
			change ? storesWithDecimalRevenue : earlier ? storesBeforeLastOrder : stores,
			...(earlier ? [] : [fctPayments]),
			...(change ? [storeDailyRevenue] : []),
			customersSnapshot,
			...tests
		],
		lineage: earlier
			? demoLineage(false).filter((e) => e.toId !== fctPayments.uniqueId && !(e.toId === stores.uniqueId && e.toColumn === 'last_order_at'))
			: demoLineage(change),
		folderConfigs: [
			{ packageName: DEMO_PROJECT, resource: 'models', folder: 'staging', config: { materialized: 'view' } },
			{ packageName: DEMO_PROJECT, resource: 'models', folder: 'intermediate', config: { materialized: 'view' } },
			{ packageName: DEMO_PROJECT, resource: 'models', folder: 'marts', config: { materialized: 'table', tags: ['daily'] } }
		],
		packages: [],
		outcomes,
		startedAt: Date.UTC(2026, 2, 2, 6, 0, 0) + (opts.seed % 1000) * 86_400_000,
		threads: 4,
		extraFiles: { [LOAD_RAW_DATA_PATH]: LOAD_RAW_DATA_SQL },
		onRunStart: [LOAD_RAW_DATA_HOOK]
	};
}
