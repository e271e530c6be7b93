INSERT INTO tab2
SELECT try_cast(coalesce(col1, 0) as varchar) AS col2
FROM tab1
