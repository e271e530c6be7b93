INSERT INTO tab1
SELECT (col1 > 0 AND col2 > 0) AS col3
FROM tab2
