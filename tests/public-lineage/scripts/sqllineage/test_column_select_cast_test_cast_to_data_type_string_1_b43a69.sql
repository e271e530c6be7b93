INSERT INTO tab1
SELECT cast(col1 as string) AS col1
FROM tab2
