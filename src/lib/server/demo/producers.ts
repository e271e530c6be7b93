// The demo workspace's producer scripts (DESIGN.md §8): DuckDB SQL that reads the demo's dbt
// relations (warehouse `main`, schema `analytics` for the coffee shop, `wholesale` for the
// roastery) and writes lake tables. The shop's annotations name columns the demo project really
// has; the roastery's has none, so its column lineage is inferred from its SQL, and a trace
// crosses from the roastery's inferred dbt lineage into the lake.

export interface DemoProducer {
	path: string;
	content: string;
}

const DAILY_REVENUE = `-- Daily revenue per store for the finance dashboard.
-- Returned orders are left out; amounts include tax.
-- materialize ducklake://main/daily_revenue
-- column revenue <- dbt://main/analytics/orders.amount
-- column paid_revenue <- dbt://main/analytics/orders.amount_paid
-- column store_name <- dbt://main/analytics/stores.store_name

ATTACH 'ducklake:lake.ducklake' AS lake;

DROP TABLE IF EXISTS lake.daily_revenue;

CREATE TABLE lake.daily_revenue AS
SELECT
    o.order_date,
    o.store_id,
    s.store_name,
    count(*) AS order_count,
    sum(o.item_count) AS items_sold,
    sum(o.amount) AS revenue,
    sum(o.amount_paid) AS paid_revenue
FROM analytics.orders AS o
JOIN analytics.stores AS s
    ON s.store_id = o.store_id
WHERE o.status <> 'returned'
GROUP BY o.order_date, o.store_id, s.store_name;
`;

const REGIONAL_REVENUE = `-- Monthly revenue per city for the regional managers: the daily lake table
-- rolled up, with the city each store is in.
-- materialize ducklake://main/monthly_city_revenue
-- column city <- dbt://main/analytics/stores.city

ATTACH 'ducklake:lake.ducklake' AS lake;

DROP TABLE IF EXISTS lake.monthly_city_revenue;

CREATE TABLE lake.monthly_city_revenue AS
SELECT
    date_trunc('month', r.order_date) AS revenue_month,
    st.city,
    count(DISTINCT r.store_id) AS store_count,
    sum(r.order_count) AS order_count,
    sum(r.revenue) AS revenue
FROM lake.daily_revenue AS r
JOIN analytics.stores AS st
    ON st.store_id = r.store_id
GROUP BY 1, 2;
`;

export const demoProducers: DemoProducer[] = [
	{ path: 'f/demo/producers/daily_revenue', content: DAILY_REVENUE },
	{ path: 'f/demo/producers/monthly_city_revenue', content: REGIONAL_REVENUE }
];

const WHOLESALE_CITY_REVENUE = `-- Wholesale revenue per city for the sales team, from the roastery's accounts.
-- materialize ducklake://main/wholesale_city_revenue

ATTACH 'ducklake:lake.ducklake' AS lake;

DROP TABLE IF EXISTS lake.wholesale_city_revenue;

CREATE TABLE lake.wholesale_city_revenue AS
SELECT
    a.city,
    count(*) AS accounts,
    sum(a.kg_bought) AS kg_bought,
    sum(a.revenue) AS revenue,
    max(a.last_ordered_at) AS last_ordered_at
FROM wholesale.account_revenue AS a
GROUP BY a.city;
`;

/** The producer that reads the roastery project (deployed after it). */
export const roasteryProducers: DemoProducer[] = [{ path: 'f/demo/producers/wholesale_city_revenue', content: WHOLESALE_CITY_REVENUE }];
