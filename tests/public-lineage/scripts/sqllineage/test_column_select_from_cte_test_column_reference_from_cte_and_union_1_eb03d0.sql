WITH cte_1 AS (select col1 from tab1),
cte_2 AS (SELECT col1 from tab2)
INSERT INTO tab3
    SELECT col1 from cte_1
    UNION
    SELECT col1 from cte_2
