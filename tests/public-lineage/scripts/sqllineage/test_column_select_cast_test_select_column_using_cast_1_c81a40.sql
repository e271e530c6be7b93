INSERT INTO tab1
SELECT cast(col1 AS timestamp)
FROM tab2
