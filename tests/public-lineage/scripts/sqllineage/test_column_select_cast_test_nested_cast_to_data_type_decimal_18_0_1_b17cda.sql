INSERT INTO tab1
SELECT cast(cast(col1 AS decimal(18, 0)) AS decimal(18, 0)) AS col1
FROM tab2
