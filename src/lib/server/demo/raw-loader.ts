// The demo project's stand-in for the loader that fills its raw schema in production: a dbt macro
// its `on-run-start` hook calls, so that a real `dbt build` of the demo runs on an empty DuckDB.

export const LOAD_RAW_DATA_PATH = 'macros/load_raw_data.sql';
export const LOAD_RAW_DATA_HOOK = '{{ load_raw_data() }}';

export const LOAD_RAW_DATA_SQL = `{#-
  The shop's raw tables are loaded by the nightly replication in production, which is not part of
  this project. On an empty DuckDB this stands in for it, so \`dbt build\` runs for real: the same
  deterministic rows each time, created once. One order names a customer the shop does not have
  (the relationships test on stg_orders.customer_id fails) and a few payments use a method the
  staging model does not expect (its accepted_values test warns).
-#}
{% macro load_raw_data() %}
{% if target.type == 'duckdb' %}
{% set raw = adapter.quote(target.database) ~ '.raw' %}
create schema if not exists {{ raw }};

create table if not exists {{ raw }}.stores as
select
    i::bigint as id,
    ['Canal Street', 'Market Hall', 'Old Mill', 'Harbour', 'Station Square', 'Botanic'][i] as name,
    ['Amsterdam', 'Utrecht', 'Leiden', 'Rotterdam', 'Utrecht', 'Amsterdam'][i] as city,
    timestamp '2019-03-01' + to_days(((i * 173) % 900)::int) as opened_at
from range(1, 7) t(i);

create table if not exists {{ raw }}.customers as
select
    i::bigint as id,
    ['Anna', 'Bram', 'Chloe', 'Daan', 'Emma', 'Finn', 'Gwen', 'Hugo', 'Iris', 'Jens'][1 + i % 10] as first_name,
    ['de Vries', 'Jansen', 'Bakker', 'Visser', 'Smit', 'Meijer', 'Mulder', 'Bos'][1 + (i * 7) % 8] as last_name,
    'Customer' || i || '@Example.com' as email,
    ['nl', 'NL', 'de', 'be', 'FR', 'gb'][1 + i % 6] as country_code,
    timestamp '2024-01-01' + to_hours(i * 37) as created_at,
    timestamp '2024-01-01' + to_hours(i * 37 + (i % 5) * 400) as updated_at
from range(1, 201) t(i);

create table if not exists {{ raw }}.orders as
select
    i::bigint as id,
    (case when i = 777 then 4242 else 1 + (i * 13) % 200 end)::bigint as customer_id,
    (1 + i % 6)::bigint as store_id,
    case when i > 1000 then 'test' else ['placed', 'shipped', 'completed', 'completed', 'completed', 'returned'][1 + i % 6] end as status,
    timestamp '2026-01-01 07:00:00' + to_minutes(i * 83) as ordered_at,
    (350 + (i * 37) % 1800)::bigint as subtotal_cents,
    ((350 + (i * 37) % 1800) * 9 // 100)::bigint as tax_cents,
    timestamp '2026-03-01 05:00:00' as _loaded_at
from range(1, 1011) t(i);

create table if not exists {{ raw }}.order_items as
select
    i::bigint as id,
    (1 + i % 1000)::bigint as order_id,
    ['ESP-001', 'AME-002', 'CAP-003', 'FLW-004', 'PSL-005', 'CHA-006'][1 + (i * 5) % 6] as product_sku,
    (1 + i % 3)::integer as quantity,
    (250 + (i * 11) % 300)::bigint as unit_price_cents
from range(1, 2501) t(i);

create table if not exists {{ raw }}.payments as
select
    o.id::bigint as id,
    o.id as order_id,
    case when o.id % 211 = 0 then 'apple_pay' else ['credit_card', 'debit_card', 'gift_card', 'bank_transfer'][1 + o.id % 4] end as method,
    o.subtotal_cents + o.tax_cents as amount_cents,
    case when o.id % 97 = 0 then 'failed' else 'succeeded' end as status,
    o.ordered_at + interval 2 minute as created_at
from {{ raw }}.orders o
where o.status != 'test';
{% endif %}
{% endmacro %}
`;
