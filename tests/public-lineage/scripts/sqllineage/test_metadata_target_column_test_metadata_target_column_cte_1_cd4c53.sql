
INSERT INTO marts.dim_date
WITH cte_table AS (select
    hash(date_day) as date_key,
    date_day as dd,
    prior_date_day as prd,
    next_date_day as ndd,
    prior_year_date_day as pydd,
    prior_year_over_year_date_day as pyoydd,
    day_of_week as dow,
    day_of_week_name as down,
    day_of_month as dom,
    day_of_year as doy
from date.date)
SELECT date_key, dd, prd, ndd, pydd, pyoydd, dow, down, dom, doy FROM cte_table
