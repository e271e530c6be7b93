INSERT INTO tab1
SELECT col1 + col2 AS col3
FROM tab2
