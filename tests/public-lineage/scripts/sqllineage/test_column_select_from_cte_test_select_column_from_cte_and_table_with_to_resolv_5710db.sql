WITH CTE1 AS (SELECT id, col1 FROM tab2)
INSERT INTO tab1
    SELECT col1 / 2 as a, col1 / 3 as b FROM cte1
          join tab3
          ON cte1.id = tab3.id
