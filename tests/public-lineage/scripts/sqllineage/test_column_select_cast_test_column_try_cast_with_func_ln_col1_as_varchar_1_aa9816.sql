INSERT INTO tab2
SELECT try_cast(ln(col1) as varchar) AS col2
FROM tab1
