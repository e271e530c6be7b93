INSERT INTO tab2
SELECT try_cast(conv(col1, 10, 2) as varchar) AS col2
FROM tab1
