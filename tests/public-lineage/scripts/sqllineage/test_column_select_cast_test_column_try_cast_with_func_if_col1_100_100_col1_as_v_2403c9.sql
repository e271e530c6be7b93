INSERT INTO tab2
SELECT try_cast(if(col1 > 100, 100, col1) as varchar) AS col2
FROM tab1
