INSERT INTO tab1
SELECT cast(cast(col1 AS timestamp) AS timestamp) AS col1
FROM tab2
