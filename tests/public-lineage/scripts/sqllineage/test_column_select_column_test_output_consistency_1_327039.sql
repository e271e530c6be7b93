INSERT INTO tab_c
SELECT *,
       1 AS event_time
FROM (SELECT tab_b.col_b AS col_a
      FROM tab_b
               JOIN tab_a) AS base
