INSERT INTO tab1
SELECT cast(cast(col1 AS string) AS string) AS col1
FROM tab2
