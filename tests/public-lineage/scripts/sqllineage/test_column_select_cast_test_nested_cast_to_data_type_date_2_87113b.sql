INSERT INTO tab1
SELECT cast(cast(cast(cast(cast(col1 AS date) AS date) AS date) AS date) AS date) AS col1
FROM tab2
