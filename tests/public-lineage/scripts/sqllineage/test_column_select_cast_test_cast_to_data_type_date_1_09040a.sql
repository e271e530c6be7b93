INSERT INTO tab1
SELECT cast(col1 as date) AS col1
FROM tab2
