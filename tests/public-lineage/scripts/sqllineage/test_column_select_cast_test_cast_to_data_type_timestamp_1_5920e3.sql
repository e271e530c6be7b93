INSERT INTO tab1
SELECT cast(col1 as timestamp) AS col1
FROM tab2
