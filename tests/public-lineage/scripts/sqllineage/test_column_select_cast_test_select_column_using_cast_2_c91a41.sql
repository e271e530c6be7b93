INSERT INTO tab1
SELECT cast(col1 AS timestamp) AS col2
FROM tab2
