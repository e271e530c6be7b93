INSERT INTO tab2
SELECT try_cast(coalesce(col1, 0) as decimal(10, 6)) AS col2
FROM tab1
