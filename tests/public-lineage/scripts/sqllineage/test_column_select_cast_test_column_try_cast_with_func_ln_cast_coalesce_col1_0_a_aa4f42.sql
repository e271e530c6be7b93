INSERT INTO tab2
SELECT try_cast(ln(cast(coalesce(col1, '0') as int)) as varchar) AS col2
FROM tab1
