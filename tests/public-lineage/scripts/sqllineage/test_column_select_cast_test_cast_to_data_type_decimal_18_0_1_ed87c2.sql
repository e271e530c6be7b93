INSERT INTO tab1
SELECT cast(col1 as decimal(18, 0)) AS col1
FROM tab2
